"""Every fact the turn's reads returned, with its env: what an asked ranking, list, tail
or count is said from. Not the evidence packet, whose per-source budget keeps a short
answer short: a list said from a cut packet would call a pod that was cut "not there"."""

from __future__ import annotations

from collections.abc import Iterator

from planner.read.executor import CallRecord
from policy.results import ResultFact


def every_fact(records: list[CallRecord]) -> Iterator[tuple[str | None, ResultFact]]:
    for rec in records:
        env = rec.result.scope.env or rec.call.env
        for fact in rec.result.facts:
            yield env, fact
