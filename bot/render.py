"""Renderers: Mattermost-flavoured markdown and plain text, from one Answer's presentation
(bot/presentation.py)."""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.presentation import (
    EVIDENCE_SHOWN,
    Presentation,
    ShownFact,
    ShownHypothesis,
    ShownTable,
    present,
)
from planner import Answer, Phrase

# Text in an answer comes from sources (log lines, commit messages, job names) and is
# untrusted: in markdown it is shown as text, never as markup. A link or image written in a
# log line, an autolinked URL (which Mattermost would also fetch for a preview), a code
# fence that swallows the rest of the post, a heading or a table: none of them take effect.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#!])")
_DATA_URL = re.compile(r"(?i)\b(?:[a-z][a-z0-9+.-]{1,15}://|www\.)[^\s`]+")
_LINK_UNSAFE = re.compile(r"[\s<>`\[\]]")
_BARE_PIPE = re.compile(r"(?<!\\)\|")


def md_text(text: str) -> str:
    """`text` as literal markdown: special characters escaped, line breaks folded, and any
    URL in it put in a code span, so it is shown and cannot be clicked or previewed."""
    out: list[str] = []
    last = 0
    flat = " ↵ ".join(part.strip() for part in text.splitlines() if part.strip())
    for match in _DATA_URL.finditer(flat):
        url = match.group(0).rstrip(".,;:!?")
        if url.endswith(")") and url.count("(") < url.count(")"):
            url = url[:-1]  # "(see https://x/y)": the parenthesis is the sentence's
        out.append(_MD_SPECIAL.sub(r"\\\1", flat[last : match.start()]))
        out.append(f"`{url}`")
        last = match.start() + len(url)
    out.append(_MD_SPECIAL.sub(r"\\\1", flat[last:]))
    return "".join(out)


def md_link(url: str, label: str = "link") -> str:
    """A fact's own link as a markdown link: only http(s), and nothing in it can end the
    link's syntax early (a space, a bracket, or parentheses that do not balance, as a
    Kibana link's own do, are percent-encoded)."""
    if not re.match(r"(?i)https?://", url):
        return ""
    safe = _LINK_UNSAFE.sub(lambda m: f"%{ord(m.group(0)):02X}", url)
    if not _balanced(safe):
        safe = safe.replace("(", "%28").replace(")", "%29")
    return f" · [{md_text(label)}]({safe})"


def _balanced(url: str) -> bool:
    depth = 0
    for ch in url:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _md_fact(f: ShownFact, p: Presentation) -> str:
    tag = f" · {p.say(Phrase.KNOWLEDGE)}" if f.knowledge else ""
    where = ", ".join(md_text(x) for x in (f.source, f.env or "-", f.when))
    link = md_link(f.link, f.label or p.say(Phrase.LINK)) if f.link else ""
    if f.command:
        link = f" · `{f.command.replace('`', '')}`"
    line = f"{f.number}. {md_text(f.text)} _({where}{link}{tag})_"
    if f.similar:
        line += f" _{md_text(p.say(Phrase.SIMILAR, count=f.similar))}_"
    return line


def _cell(text: str) -> str:
    """A table cell as literal text; a "|" ends a cell even in a code span, so each is
    escaped (md_text leaves those inside the code span of a URL)."""
    return _BARE_PIPE.sub(r"\\|", md_text(text))


def _md_table(t: ShownTable, p: Presentation) -> list[str]:
    """A Markdown table (Mattermost renders them); every cell is literal text."""
    where = ", ".join(md_text(x) for x in (t.source, t.env or "-"))
    alike = " · ".join(f"{md_text(k)}: {md_text(v)}" for k, v in t.shared.items())
    lines = [f"**{md_text(t.kind)}** _({where})_" + (f" {alike}" if alike else ""), ""]
    lines.append("| " + " | ".join(_cell(c) for c in t.columns) + " |")
    lines.append("|" + "---|" * len(t.columns))
    lines += ["| " + " | ".join(_cell(c) or " " for c in row) + " |" for row in t.rows]
    if t.links:
        links = " ".join(md_link(link.url, link.label).lstrip(" ·") for link in t.links)
        lines += ["", f"_{md_text(p.say(Phrase.LINKS))}:_ {links}"]
    return lines


def render_head(answer: Answer, p: Presentation | None = None) -> str:
    """Markdown of what comes before the evidence: conclusion, scope, hypotheses, gaps,
    next steps (what a reader sees without unfolding anything)."""
    p = p or present(answer)
    lead = f" _({md_text(_meta(p, p.lead))})_" if p.lead else ""
    out = [f"**{md_text(p.conclusion)}**" + ("" if p.lead_in_details else lead)]
    if p.details:
        out.append(md_text(p.details) + (lead if p.lead_in_details else ""))
    out.append(f"_{md_text(p.say(Phrase.SCOPE))}: {md_text(p.scope)}_")
    for heading, items in _sections(p, md_text, lambda m: f"_({md_text(m)})_", _md_strong):
        out += ["", f"#### {heading}", *(f"- {item}" for item in items)]
    return "\n".join(out).strip() + "\n"


def render_markdown(answer: Answer, *, evidence: int | None = EVIDENCE_SHOWN) -> str:
    """The answer in Markdown, evidence last: at most `evidence` facts, ranked (None:
    every fact, the full report)."""
    return markdown_of(answer, present(answer, evidence=evidence))


def markdown_of(answer: Answer, p: Presentation) -> str:
    """`render_markdown` of a presentation already made (a surface that also sends it)."""
    out = [render_head(answer, p).rstrip()]
    if p.evidence or p.tables:
        out += ["", f"#### {p.say(Phrase.EVIDENCE)}"]
        out += [_md_fact(f, p) for f in p.evidence]
    for table in p.tables:
        out += ["", *_md_table(table, p)]
    if p.more:
        out.append(f"_{md_text(p.say(Phrase.MORE_EVIDENCE, count=p.more))}_")
    return "\n".join(out).strip() + "\n"


def render_plain(answer: Answer) -> str:
    """Plain text for a terminal: the whole answer (every fact), conclusion first."""
    p = present(answer, evidence=None)
    lead = f" ({_meta(p, p.lead)})" if p.lead else ""
    out = [p.conclusion + ("" if p.lead_in_details else lead)]
    if p.details:
        out.append(p.details + (lead if p.lead_in_details else ""))
    out.append(f"{p.say(Phrase.SCOPE)}: {p.scope}")
    for heading, items in _sections(p, str, lambda m: f"({m})", str):
        out += ["", f"{heading}:", *(f"  - {item}" for item in items)]
    if p.evidence:
        out += ["", f"{p.say(Phrase.EVIDENCE)}:"]
        for f in p.evidence:
            tag = f", {p.say(Phrase.KNOWLEDGE)}" if f.knowledge else ""
            out.append(f"  {f.number}. {f.text}")
            link = f" {f.label}: {f.link}" if f.link else (f" {f.command}" if f.command else "")
            out.append(f"     [{f.source}, {f.env or '-'}, {f.when}{tag}]{link}")
    return "\n".join(out).strip() + "\n"


def _sections(
    p: Presentation,
    text: Callable[[str], str],
    aside: Callable[[str], str],
    strong: Callable[[str], str],
) -> list[tuple[str, list[str]]]:
    """Hypotheses, gaps and next steps, each a heading and its items, written with the
    surface's `text` (an answer's words), `aside` (a note) and `strong` (a group's name)."""
    out = []
    if p.hypotheses:
        items = [f"{text(h.text)} {aside(_meta(p, h))}" for h in p.hypotheses]
        out.append((p.say(Phrase.HYPOTHESES), items))
    if p.gaps:
        items = []
        for g in p.gaps:
            item = f"{strong(g.source)} · {text(g.line)}" if g.source else text(g.line)
            if p.full and g.detail:
                item += f" {aside(g.detail)}"
            items.append(item)
        out.append((p.say(Phrase.GAPS), items))
    if p.next_steps:
        out.append((p.say(Phrase.NEXT_STEPS), [text(r) for r in p.next_steps]))
    return out


def _md_strong(text: str) -> str:
    return f"**{md_text(text)}**"


def _meta(p: Presentation, h: ShownHypothesis) -> str:
    """ "confidence high; facts 1, 2, 15" in the answer's language."""
    meta = p.say(Phrase.CONFIDENCE, level=h.confidence)
    if h.refs:
        meta += "; " + p.say(Phrase.FACTS_REF, refs=", ".join(map(str, h.refs)))
    return meta
