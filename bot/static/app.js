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

function when(ts) { return ts ? ts.replace("T", " ").replace(/\.\d+/, "") : "time unknown"; }

function scopeLine(scope) {
  const parts = [scope.env, scope.namespace, scope.object].filter(Boolean).join(" / ") || "no object";
  const t = scope.time || {};
  const span = t.window || "";
  const at = t.at ? `around ${when(t.at)} (window ${span})` : `last ${span}`;
  return `Scope: ${parts} · ${at} · ${t.mode || ""}`;
}

function renderAnswer(answer, markdown) {
  const box = el("article", { class: "msg bot answer" }, el("div", { class: "who", text: "infrabot" }));
  box.append(el("p", { class: "summary", text: answer.summary }));
  box.append(el("p", { class: "scope", text: scopeLine(answer.scope || {}) }));

  const facts = answer.facts || [];
  if (facts.length) {
    const list = el("ol");
    for (const f of facts) {
      const meta = el("span", { class: "meta" },
        `${f.source} · ${(f.scope && f.scope.env) || "-"} · ${when(f.observed_at)}`);
      const link = safeLink(f.link);
      if (link) meta.append(" · ", link);
      if (f.knowledge) meta.append(" · confirmed knowledge (saved earlier, not a live reading)");
      list.append(el("li", { class: "fact" + (f.knowledge ? " knowledge" : "") },
        el("span", { class: "text", text: f.text }), meta));
    }
    box.append(el("details", { class: "facts", open: "" },
      el("summary", { text: `Evidence: ${facts.length} fact${facts.length === 1 ? "" : "s"}` }), list));
  }
  const hyps = answer.hypotheses || [];
  if (hyps.length) {
    const list = el("ul");
    for (const h of hyps) {
      const refs = (h.supported_by || []).map((i) => i + 1).join(", ");
      list.append(el("li", { class: "hypothesis" }, el("span", { text: h.text }),
        el("span", { class: "meta", text: `hypothesis · confidence ${h.confidence}; facts ${refs || "-"}` })));
    }
    box.append(el("h4", { text: "Hypotheses" }), list);
  }
  const gaps = answer.gaps || [];
  if (gaps.length) {
    const list = el("ul");
    for (const g of gaps) list.append(el("li", { class: "gap" }, el("code", { text: g.objective }), ": ", g.reason));
    box.append(el("section", { class: "gaps" }, el("h4", { text: "Gaps — not checked or not proven" }), list));
  }
  const recs = answer.recommendations || [];
  if (recs.length) {
    box.append(el("h4", { text: "Next steps" }), el("ul", {}, ...recs.map((r) => el("li", { text: r }))));
  }
  const objectives = answer.objectives || [];
  if (objectives.length) {
    const list = el("ul", {}, ...objectives.map((o) => el("li", {},
      el("code", { text: o.id }), ` ${o.status}${o.required ? " (required)" : ""}`,
      o.sources && o.sources.length ? ` · ${o.sources.join(", ")}` : "")));
    box.append(el("details", { class: "objectives" }, el("summary", { text: `Objectives (${objectives.length})` }), list));
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
    box.append(el("details", { class: "tool-calls" }, el("summary", { text: `Tool calls (${calls.length})` }), table));
  }
  if (markdown) {
    box.append(el("details", { class: "markdown" }, el("summary", { text: "Markdown (as posted to Mattermost)" }),
      el("pre", { class: "markdown", text: markdown })));
  }
  return box;
}

function renderMessage(m) {
  if (m.role === "user") return el("div", { class: "msg user" }, el("div", { class: "who", text: m.user }), el("div", { class: "text", text: m.text }));
  if (m.role === "error") return el("div", { class: "msg error", text: m.text });
  if (m.answer) return renderAnswer(m.answer, m.markdown);
  return el("div", { class: "msg bot note" }, el("div", { class: "who", text: "infrabot" }), el("pre", { class: "markdown", text: m.markdown || m.text }));
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
      const res = await fetch(`/api/threads/${encodeURIComponent(id)}`);
      const data = await res.json();
      list = (data.messages || []).map((m) => (m.is_bot ? { role: "bot", markdown: m.text } : { role: "user", user: m.author, text: m.text }));
    } catch { list = []; }
    if (state.active !== id) return;  // the user moved on meanwhile
    if (messagesOf(id).length) list = messagesOf(id);  // asked meanwhile: local is newer
  }
  $("messages").replaceChildren(...list.map(renderMessage));
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
  saveMessage(id, mine);
  show(mine);
  state.busy = true;
  $("ask").disabled = true;
  $("status").textContent = "Investigating… reading the sources";
  let reply;
  try {
    const res = await fetch("/api/ask", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ thread_id: id, question, user }),
    });
    const data = await res.json();
    reply = res.ok ? { role: "bot", answer: data.answer, markdown: data.markdown, kind: data.kind }
                   : { role: "error", text: data.error || `HTTP ${res.status}` };
  } catch (err) {
    reply = { role: "error", text: `The server did not answer: ${err}` };
  }
  saveMessage(id, reply);
  if (state.active === id) show(reply);
  state.busy = false;
  $("ask").disabled = false;
  $("status").textContent = "";
}

async function init() {
  $("user").value = store.get("infrabot.user", "") || "engineer";
  $("new-thread").addEventListener("click", newThread);
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
    $("title").textContent = info.title;
    $("examples").replaceChildren(...(info.questions || []).map((q) => {
      const b = el("button", { type: "button", class: "example", text: q });
      b.addEventListener("click", () => ask(q));
      return b;
    }));
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
