"""The expectations of one scenario turn, checked against its Answer and query log.

All text checks are case-insensitive substring checks: on the rendered answer
(`render_plain`: summary, scope, facts with sources, hypotheses, gaps, next steps) or on
the named part of the Answer. `queried` / `not_queried` look only at the reads the
simulators served during that turn. Each failed check gives what was expected and what
was seen, so a report reader does not need to rerun the scenario.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from evals.scenario import Expect, QuerySpec
from evals.simulators.querylog import QueryRecord
from planner import Answer

SEEN_CHARS = 300


@dataclass(frozen=True)
class Failure:
    turn: int  # 1-based turn number
    check: str
    expected: str
    seen: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def clip(text: str, limit: int = SEEN_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _has(haystack: str, needle: str) -> bool:
    return needle.casefold() in haystack.casefold()


def _around(text: str, needle: str, width: int = 80) -> str:
    """The place where `needle` occurs in `text`, with some context on each side."""
    at = text.casefold().find(needle.casefold())
    if at < 0:
        return clip(text)
    start, end = max(0, at - width), min(len(text), at + len(needle) + width)
    return (
        ("…" if start else "")
        + " ".join(text[start:end].split())
        + ("…" if end < len(text) else "")
    )


def _listing(items: Sequence[str], empty: str) -> str:
    if not items:
        return empty
    return clip(" | ".join(items), SEEN_CHARS * 2)


def _contains_each(
    turn: int, check: str, needles: Sequence[str], items: Sequence[str], empty: str
) -> list[Failure]:
    """Each needle must occur in some item."""
    return [
        Failure(turn, check, needle, _listing(items, empty))
        for needle in needles
        if not any(_has(item, needle) for item in items)
    ]


def _query_matches(spec: QuerySpec, record: QueryRecord) -> bool:
    return record.source == spec.source and (spec.env is None or record.env == spec.env)


def _query_label(record: QueryRecord) -> str:
    return f"{record.source}/{record.env}" if record.env else record.source


def queried_pairs(records: Sequence[QueryRecord]) -> list[str]:
    return list(dict.fromkeys(_query_label(r) for r in records))


def check_answer_text(turn: int, expect: Expect, rendered: str) -> list[Failure]:
    failures = [
        Failure(turn, "answer_contains", needle, clip(rendered))
        for needle in expect.answer_contains
        if not _has(rendered, needle)
    ]
    failures += [
        Failure(turn, "answer_not_contains", needle, _around(rendered, needle))
        for needle in expect.answer_not_contains
        if _has(rendered, needle)
    ]
    return failures


def check_structure(turn: int, expect: Expect, answer: Answer) -> list[Failure]:
    failures = [
        Failure(turn, "summary_contains", needle, clip(answer.summary))
        for needle in expect.summary_contains
        if not _has(answer.summary, needle)
    ]
    facts = [f.text for f in answer.facts]
    failures += _contains_each(turn, "facts_contain", expect.facts_contain, facts, "no facts")
    failures += _contains_each(
        turn,
        "hypotheses_contain",
        expect.hypotheses_contain,
        [h.text for h in answer.hypotheses],
        "no hypotheses",
    )
    failures += _contains_each(
        turn,
        "gaps_contain",
        expect.gaps_contain,
        [f"{g.objective}: {g.reason}" for g in answer.gaps],
        "no gaps",
    )
    for needle in expect.no_fact_contains:
        for fact in facts:
            if _has(fact, needle):
                failures.append(Failure(turn, "no_fact_contains", needle, clip(fact)))
                break
    statuses = {o.id: o.status for o in answer.objectives}
    for objective, wanted in expect.objectives_status.items():
        got = statuses.get(objective)
        if got != wanted:
            seen = (
                got
                if got is not None
                else ("not among the answer's objectives: " + (", ".join(statuses) or "none"))
            )
            failures.append(Failure(turn, "objectives_status", f"{objective}: {wanted}", seen))
    if expect.max_tool_calls is not None and len(answer.tool_calls) > expect.max_tool_calls:
        names = ", ".join(c.tool for c in answer.tool_calls)
        failures.append(
            Failure(
                turn,
                "max_tool_calls",
                f"at most {expect.max_tool_calls}",
                clip(f"{len(answer.tool_calls)} calls: {names}"),
            )
        )
    return failures


def check_queries(turn: int, expect: Expect, records: Sequence[QueryRecord]) -> list[Failure]:
    failures = []
    pairs = _listing(queried_pairs(records), "no reads")
    for spec in expect.queried:
        if not any(_query_matches(spec, r) for r in records):
            failures.append(Failure(turn, "queried", spec.label(), pairs))
    for spec in expect.not_queried:
        hits = [r for r in records if _query_matches(spec, r)]
        if hits:
            shown = [f"{_query_label(r)} {r.method} {r.path}" for r in hits[:5]]
            more = f" (+{len(hits) - 5} more)" if len(hits) > 5 else ""
            failures.append(Failure(turn, "not_queried", spec.label(), "; ".join(shown) + more))
    return failures


def check_turn(
    turn: int,
    expect: Expect | None,
    answer: Answer,
    rendered: str,
    records: Sequence[QueryRecord],
) -> list[Failure]:
    """Every failed expectation of one turn (1-based `turn`); [] when all hold."""
    if expect is None:
        return []
    return (
        check_answer_text(turn, expect, rendered)
        + check_structure(turn, expect, answer)
        + check_queries(turn, expect, records)
    )
