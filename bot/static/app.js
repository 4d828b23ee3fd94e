// infrabot web chat. Everything from the server is rendered as text nodes: answers quote
// logs and other untrusted data, so no HTML from them ever reaches the page.
"use strict";

const store = {
  get(key, fallback) {
    try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; }
  },
  set(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* quota: keep going */ }
  },
};

const $ = (id) => document.getElementById(id);
const state = { threads: store.get("infrabot.threads", []), active: null, busy: false };

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function safeLink(url, label) {
  if (typeof url !== "string" || !/^https?:\/\//i.test(url)) return url ? el("span", { class: "ref", text: url }) : null;
  return el("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, label || "link");
}

function newId() {
  const bytes = new Uint8Array(9);
  crypto.getRandomValues(bytes);
  return "t" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// a little Markdown (the bot's own notes: **bold**, _italic_, `code`, [label](https://…),
// "- " and "1. " lists, "#### " headings), built from text nodes only
function inline(text) {
  const out = [];
  const re = /\*\*([^*]+)\*\*|`([^`]+)`|\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)|_([^_]+)_/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(el("strong", { text: m[1] }));
    else if (m[2] !== undefined) out.push(el("code", { text: m[2] }));
    else if (m[3] !== undefined) out.push(safeLink(m[4], m[3]));
    else out.push(el("em", { text: m[5] }));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out.map((part) => (typeof part === "string" ? part.replace(/\\([\\`*_\[\]<>|~#!])/g, "$1") : part));
}

function markdownNode(text) {
  const box = el("div", { class: "md" });
  let list = null;
  for (const line of String(text || "").split("\n")) {
    const item = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(line);
    if (item) {
      if (!list) { list = el(/^\s*\d/.test(line) ? "ol" : "ul"); box.append(list); }
      list.append(el("li", {}, ...inline(item[1])));
      continue;
    }
    list = null;
    if (!line.trim()) continue;
    const head = /^#{1,6}\s+(.*)$/.exec(line);
    box.append(head ? el("h4", {}, ...inline(head[1])) : el("p", {}, ...inline(line)));
  }
  return box;
}

function factItem(f) {
  const meta = el("span", { class: "meta" }, `${f.source} · ${f.env || "-"} · ${f.when}`);
  const link = f.link ? safeLink(f.link, f.label) : null;
  if (link) meta.append(" · ", link);
  if (f.command) meta.append(" · ", el("code", { text: f.command }));
  if (f.similar) meta.append(` · +${f.similar}`);
  return el("li", { class: "fact" + (f.knowledge ? " knowledge" : ""), value: String(f.number) },
    el("span", { class: "text", text: f.text }), meta);
}

function gapItem(g) {
  // one line an engineer reads (what, where, what it means), grouped by source; the detail folds
  const line = el("li", { class: "gap" }, ...(g.source ? [el("strong", { text: g.source }), " · "] : []), g.line || g.reason);
  if (g.detail) line.append(el("details", { class: "gap-detail" }, el("summary", { text: "…" }), el("span", { class: "meta", text: g.detail })));
  return line;
}

function tableOf(t) {
  // rows of one kind (pods, nodes, jobs): a wide table scrolls inside its own box, never the page
  const head = el("tr", {}, ...t.columns.map((c) => el("th", { text: c })));
  const rows = t.rows.map((r) => el("tr", {}, ...r.map((c) => el("td", { text: c }))));
  const alike = Object.entries(t.shared || {}).map(([k, v]) => ` · ${k}: ${v}`).join("");
  const caption = el("p", { class: "meta" }, `${t.kind} · ${t.source} · ${t.env || "-"}${alike}`);
  t.links.forEach((l) => { const a = safeLink(l.url, l.label); if (a) caption.append(" · ", a); });
  return el("div", { class: "table" }, caption, el("div", { class: "scroll" }, el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows))));
}

const HEADINGS = {
  en: { hyp: "Hypotheses", gaps: "Gaps — not checked or not proven", next: "Next steps", evidence: "Evidence", all: "Full report: every fact", more: "more in the full report", objectives: "Objectives", calls: "Tool calls", md: "Markdown (as posted to Mattermost)" },
  ru: { hyp: "Гипотезы", gaps: "Пробелы — не проверено или не доказано", next: "Что сделать дальше", evidence: "Факты", all: "Полный отчёт: все факты", more: "ещё в полном отчёте", objectives: "Цели", calls: "Вызовы инструментов", md: "Markdown (как в Mattermost)" },
};

function renderAnswer(data) {
  const p = data.presentation;
  const answer = data.answer || {};
  const words = HEADINGS[p.language] || HEADINGS.en;
  const box = el("article", { class: "msg bot answer", lang: p.language }, el("div", { class: "who", text: "infrabot" }));
  const lead = p.lead ? el("span", { class: "meta", text: ` ${p.lead.confidence}${p.lead.refs.length ? " · " + p.lead.refs.join(", ") : ""}` }) : null;
  box.append(el("p", { class: "summary" }, el("span", { text: p.conclusion }), ...(lead && !p.lead_in_details ? [lead] : [])));
  if (p.details) box.append(el("p", { class: "details" }, el("span", { text: p.details }), ...(lead && p.lead_in_details ? [lead] : [])));
  box.append(el("p", { class: "scope", text: p.scope }));
  if (p.hypotheses.length) {
    box.append(el("h4", { text: words.hyp }), el("ul", {}, ...p.hypotheses.map((h) => el("li", { class: "hypothesis" },
      el("span", { text: h.text }), el("span", { class: "meta", text: `${h.confidence}${h.refs.length ? " · " + h.refs.join(", ") : ""}` })))));
  }
  if (p.gaps.length) {
    box.append(el("section", { class: "gaps" }, el("h4", { text: words.gaps }),
      el("ul", {}, ...p.gaps.map(gapItem))));
  }
  if (p.next_steps.length) {
    box.append(el("h4", { text: words.next }), el("ul", {}, ...p.next_steps.map((r) => el("li", { text: r }))));
  }
  const tables = p.tables || [];
  if (p.evidence.length || tables.length) {
    const count = p.evidence.length + tables.reduce((n, t) => n + t.rows.length, 0);
    const shown = el("ol", { class: "facts" }, ...p.evidence.map(factItem));
    const fold = el("details", { class: "evidence" }, el("summary", { text: `${words.evidence} (${count})` }), shown, ...tables.map(tableOf));
    if (p.more) fold.append(el("p", { class: "meta", text: `+${p.more} ${words.more}` }));
    box.append(fold);
  }
  const report = data.report;
  if (report && report.evidence.length > p.evidence.length) {
    box.append(el("details", { class: "report" }, el("summary", { text: `${words.all} (${report.evidence.length})` }),
      el("ol", { class: "facts" }, ...report.evidence.map(factItem))));
  }
  const objectives = answer.objectives || [];
  if (objectives.length) {
    const list = el("ul", {}, ...objectives.map((o) => el("li", {},
      el("code", { text: o.id }), ` ${o.status}${o.required ? " (required)" : ""}`,
      o.sources && o.sources.length ? ` · ${o.sources.join(", ")}` : "")));
    box.append(el("details", { class: "objectives" }, el("summary", { text: `${words.objectives} (${objectives.length})` }), list));
  }
  const calls = answer.tool_calls || [];
  if (calls.length) {
    const table = el("table", { class: "calls" },
      el("tr", {}, el("th", { text: "tool" }), el("th", { text: "arguments" }), el("th", { text: "status" }), el("th", { text: "ms" })));
    for (const c of calls) {
      table.append(el("tr", { class: "call" }, el("td", { text: c.tool }),
        el("td", {}, el("code", { text: JSON.stringify(c.arguments || {}) })),
        el("td", { text: c.status || "" }), el("td", { text: c.duration_ms ?? "" })));
    }
    box.append(el("details", { class: "tool-calls" }, el("summary", { text: `${words.calls} (${calls.length})` }),
      el("div", { class: "scroll" }, table)));
  }
  if (data.markdown) {
    box.append(el("details", { class: "markdown" }, el("summary", { text: words.md }),
      el("pre", { class: "markdown", text: data.markdown })));
  }
  return box;
}

function renderMessage(m) {
  if (m.role === "user") return el("div", { class: "msg user" }, el("div", { class: "who", text: m.user }), el("div", { class: "text", text: m.text }));
  if (m.role === "error") return el("div", { class: "msg error", text: m.text });
  if (m.presentation) return renderAnswer(m);
  return el("div", { class: "msg bot note" }, el("div", { class: "who", text: "infrabot" }), markdownNode(m.markdown || m.text));
}

function messagesOf(id) { return store.get(`infrabot.thread.${id}`, []); }

function saveMessage(id, message) {
  const list = messagesOf(id);
  list.push(message);
  store.set(`infrabot.thread.${id}`, list.slice(-20));
}

function renderThreads() {
  const ul = $("thread-list");
  ul.replaceChildren(...state.threads.map((t) => {
    const li = el("li", { class: t.id === state.active ? "active" : "", title: t.title, text: t.title });
    li.addEventListener("click", () => openThread(t.id));
    return li;
  }));
}

async function openThread(id, fresh = false) {
  state.active = id;
  history.replaceState(null, "", `#thread=${id}`);
  renderThreads();
  let list = messagesOf(id);
  if (!list.length && !fresh) {
    // a thread this browser has not seen (a shared link): the server's copy, as text
    try {
      const who = encodeURIComponent($("user").value.trim() || "web");
      const res = await fetch(`/api/threads/${encodeURIComponent(id)}?user=${who}`);
      const data = await res.json();
      list = (data.messages || []).map((m) => (m.is_bot ? { role: "bot", markdown: m.text } : { role: "user", user: m.author, text: m.text }));
    } catch { list = []; }
    if (state.active !== id) return;  // the user moved on meanwhile
    if (messagesOf(id).length) list = messagesOf(id);  // asked meanwhile: local is newer
  }
  $("messages").replaceChildren(...list.map(renderMessage));
  foldExamples(list.length > 0);
}

function newThread() {
  const id = newId();
  state.threads.unshift({ id, title: "New thread" });
  state.threads = state.threads.slice(0, 30);
  store.set("infrabot.threads", state.threads);
  openThread(id, true);
}

function show(message) {
  const node = renderMessage(message);
  $("messages").append(node);
  node.scrollIntoView({ block: "start" });
}

// live progress: the server's lines, in the question's language ("Reading events and logs
// of X in prod", merged and capped), as text
function progressView(lines) {
  return el("ul", { class: "progress" }, ...(lines || []).map((line) => el("li", { class: "read reading", text: line })));
}

// the example questions fold away once a thread has a question, so the answer keeps the
// screen; the toggle brings them back
function foldExamples(folded) {
  const list = $("example-list");
  const toggle = $("examples-toggle");
  list.hidden = folded;
  toggle.setAttribute("aria-expanded", String(!folded));
  toggle.textContent = `${folded ? "▸" : "▾"} examples`;
}

async function ask(question) {
  question = question.trim();
  if (!question || state.busy) return;
  if (!state.active) newThread();
  const id = state.active;
  const user = $("user").value.trim() || "web";
  store.set("infrabot.user", user);
  const thread = state.threads.find((t) => t.id === id);
  if (thread && thread.title === "New thread") {
    thread.title = question.slice(0, 60);
    store.set("infrabot.threads", state.threads);
    renderThreads();
  }
  const mine = { role: "user", user, text: question };
  foldExamples(true);
  saveMessage(id, mine);
  show(mine);
  state.busy = true;
  $("ask").disabled = true;
  const live = el("div", { class: "msg bot live" }, el("div", { class: "who", text: "infrabot" }), el("p", { class: "meta", text: "Investigating…" }));
  $("messages").append(live);
  live.scrollIntoView({ block: "end" });
  $("status").textContent = "Investigating… reading the sources";
  let reply;
  try {
    const res = await fetch("/api/ask", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/x-ndjson" },
      body: JSON.stringify({ thread_id: id, question, user }),
    });
    if (!res.ok || !res.body) {
      const data = await res.json().catch(() => ({}));
      throw new Error(data.error || `HTTP ${res.status}`);
    }
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
      let cut;
      while ((cut = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, cut).trim();
        buffer = buffer.slice(cut + 1);
        if (!line) continue;
        const data = JSON.parse(line);
        if (data.type === "progress") {
          live.replaceChildren(live.firstChild, progressView(data.lines));
          if (typeof data.status === "string") $("status").textContent = data.status;
        } else if (data.type === "answer") {
          reply = { role: "bot", answer: data.answer, presentation: data.presentation, report: data.report, markdown: data.markdown, kind: data.kind };
        } else {
          reply = { role: "error", text: data.error || `HTTP ${data.status}` };
        }
      }
      if (done) break;
    }
    if (!reply) reply = { role: "error", text: "The answer stream ended early; please ask again." };
  } catch (err) {
    reply = { role: "error", text: `The server did not answer: ${err.message || err}` };
  }
  live.remove();
  saveMessage(id, reply);
  if (state.active === id) show(reply);
  state.busy = false;
  $("ask").disabled = false;
  $("status").textContent = "";
}

async function init() {
  $("user").value = store.get("infrabot.user", "") || "engineer";
  $("new-thread").addEventListener("click", newThread);
  $("examples-toggle").addEventListener("click", () => foldExamples(!$("example-list").hidden));
  $("ask-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = $("question").value;
    $("question").value = "";
    ask(q);
  });
  $("question").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); $("ask-form").requestSubmit(); }
  });
  try {
    const info = await (await fetch("/api/info")).json();
    document.title = info.title;
    if (info.user) {  // the server knows who this is (signed in through its proxy)
      $("user").value = info.user;
      $("user").readOnly = true;
    }
    $("title").textContent = info.title;
    const questions = info.questions || [];
    $("example-list").replaceChildren(...questions.map((q) => {
      const b = el("button", { type: "button", class: "example", text: q });
      b.addEventListener("click", () => ask(q));
      return b;
    }));
    $("examples-toggle").hidden = !questions.length;
  } catch { /* the chat works without examples */ }
  const fromHash = /^#thread=([A-Za-z0-9_-]{1,64})$/.exec(location.hash);
  if (fromHash) {
    if (!state.threads.some((t) => t.id === fromHash[1])) state.threads.unshift({ id: fromHash[1], title: "Shared thread" });
    await openThread(fromHash[1]);
  } else if (state.threads.length) {
    await openThread(state.threads[0].id);
  } else {
    newThread();
  }
  document.body.dataset.ready = "1";
}

init();
