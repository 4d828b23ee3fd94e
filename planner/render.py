"""Renderers: Mattermost-flavoured markdown and plain text, from one Answer."""

from __future__ import annotations

import re
from datetime import datetime

from planner.answer import Answer
from policy.scope import format_iso_duration

# Text in an answer comes from sources (log lines, commit messages, job names) and is
# untrusted: in markdown it is shown as text, never as markup. A link or image written in a
# log line, an autolinked URL (which Mattermost would also fetch for a preview), a code
# fence that swallows the rest of the post, a heading or a table: none of them take effect.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~#!])")
_DATA_URL = re.compile(r"(?i)\b(?:[a-z][a-z0-9+.-]{1,15}://|www\.)[^\s`]+")
_LINK_UNSAFE = re.compile(r"[\s<>`\[\]]")


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


def md_link(url: str) -> str:
    """A fact's own link as a markdown link: only http(s), and nothing in it can end the
    link's syntax early (a space, a bracket, or parentheses that do not balance, as a
    Kibana link's own do, are percent-encoded)."""
    if not re.match(r"(?i)https?://", url):
        return ""
    safe = _LINK_UNSAFE.sub(lambda m: f"%{ord(m.group(0)):02X}", url)
    if not _balanced(safe):
        safe = safe.replace("(", "%28").replace(")", "%29")
    return f" · [link]({safe})"


def _balanced(url: str) -> bool:
    depth = 0
    for ch in url:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _when(ts: datetime | None) -> str:
    return ts.isoformat(timespec="seconds") if ts else "time unknown"


def _scope_line(answer: Answer) -> str:
    s = answer.scope
    parts = [p for p in (s.env, s.namespace, s.object) if p]
    t = s.time
    span = format_iso_duration(t.window)
    when = (
        f"around {t.at.isoformat(timespec='minutes')} (window {span})" if t.at else f"last {span}"
    )
    return f"{' / '.join(parts) or 'no object'} · {when} · {t.mode}"


def render_markdown(answer: Answer, *, max_facts: int = 15) -> str:
    out = [f"**{md_text(answer.summary)}**", f"_Scope: {md_text(_scope_line(answer))}_", ""]
    if answer.facts:
        out.append("#### Facts")
        for i, f in enumerate(answer.facts[:max_facts]):
            link = md_link(f.link) if f.link else ""
            tag = " · knowledge" if f.knowledge else ""
            env = md_text(str(f.scope.get("env") or "-"))
            where = f"{md_text(f.source)}, {env}, {_when(f.observed_at)}"
            out.append(f"{i + 1}. {md_text(f.text)} _({where}{link}{tag})_")
        if len(answer.facts) > max_facts:
            out.append(f"… {len(answer.facts) - max_facts} more facts in the full report")
    if answer.hypotheses:
        out.append("#### Hypotheses")
        for h in answer.hypotheses:
            refs = ", ".join(str(i + 1) for i in h.supported_by)
            out.append(f"- {md_text(h.text)} _(confidence {h.confidence}; facts {refs})_")
    if answer.gaps:
        out.append("#### Gaps — not checked or not proven")
        for g in answer.gaps:
            out.append(f"- `{g.objective}`: {md_text(g.reason)}")
    if answer.recommendations:
        out.append("#### Next steps")
        out.extend(f"- {md_text(r)}" for r in answer.recommendations)
    return "\n".join(out).strip() + "\n"


def render_plain(answer: Answer) -> str:
    out = [answer.summary, f"Scope: {_scope_line(answer)}", ""]
    if answer.facts:
        out.append("Facts:")
        for i, f in enumerate(answer.facts):
            env = f.scope.get("env") or "-"
            out.append(f"  {i + 1}. {f.text}")
            out.append(
                f"     [{f.source}, {env}, {_when(f.observed_at)}]"
                + (f" {f.link}" if f.link else "")
            )
    if answer.hypotheses:
        out.append("Hypotheses:")
        for h in answer.hypotheses:
            refs = ", ".join(str(i + 1) for i in h.supported_by)
            out.append(f"  - {h.text} (confidence {h.confidence}; facts {refs})")
    if answer.gaps:
        out.append("Gaps (not checked or not proven):")
        out.extend(f"  - {g.objective}: {g.reason}" for g in answer.gaps)
    if answer.recommendations:
        out.append("Next steps:")
        out.extend(f"  - {r}" for r in answer.recommendations)
    return "\n".join(out).strip() + "\n"
