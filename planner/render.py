"""Renderers: Mattermost-flavoured markdown and plain text, from one Answer."""

from __future__ import annotations

from datetime import datetime

from planner.answer import Answer
from policy.scope import format_iso_duration


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
    out = [f"**{answer.summary}**", f"_Scope: {_scope_line(answer)}_", ""]
    if answer.facts:
        out.append("#### Facts")
        for i, f in enumerate(answer.facts[:max_facts]):
            link = f" · [link]({f.link})" if f.link else ""
            tag = " · knowledge" if f.knowledge else ""
            env = f.scope.get("env") or "-"
            out.append(
                f"{i + 1}. {f.text} _({f.source}, {env}, {_when(f.observed_at)}{link}{tag})_"
            )
        if len(answer.facts) > max_facts:
            out.append(f"… {len(answer.facts) - max_facts} more facts in the full report")
    if answer.hypotheses:
        out.append("#### Hypotheses")
        for h in answer.hypotheses:
            refs = ", ".join(str(i + 1) for i in h.supported_by)
            out.append(f"- {h.text} _(confidence {h.confidence}; facts {refs})_")
    if answer.gaps:
        out.append("#### Gaps — not checked or not proven")
        for g in answer.gaps:
            out.append(f"- `{g.objective}`: {g.reason}")
    if answer.recommendations:
        out.append("#### Next steps")
        out.extend(f"- {r}" for r in answer.recommendations)
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
