"""Inventory reads kept for a short time, per tool and environment.

Every turn starts by listing what runs in each environment (namespaces, workloads,
services, nodes) so that names in the question can be resolved; in a thread of follow-ups
that is the same lists again every few seconds. A kept read is reused while it is young
on the turn's own clock (so a scenario or a replayed thread ages it the way its questions
are timed), it keeps the time it was really observed, so an answer can say how old the
names are, and a source error for that environment drops it: a failing API server is
read afresh, never answered from the past.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from policy.results import ToolResult


@dataclass(frozen=True)
class CachedRead:
    result: ToolResult
    observed_at: datetime


class InventoryCache:
    def __init__(self, ttl: timedelta) -> None:
        self.ttl = ttl  # zero: nothing is kept
        self._entries: dict[tuple[str, str | None], CachedRead] = {}

    def get(self, tool: str, env: str | None, now: datetime) -> CachedRead | None:
        key = (tool, env)
        entry = self._entries.get(key)
        if entry is None:
            return None
        age = now - entry.observed_at
        if age < timedelta(0) or age > self.ttl:  # too old, or read "after" this turn's now
            del self._entries[key]
            return None
        return entry

    def put(self, tool: str, env: str | None, result: ToolResult, now: datetime) -> None:
        """Keep a read that worked and read everything; a failed, refused, partial or
        truncated one is never kept (the next turn tries again)."""
        complete = result.status == "ok" and result.coverage.complete_for_negative
        if self.ttl <= timedelta(0) or not complete or result.coverage.truncated:
            return
        self._entries[(tool, env)] = CachedRead(result, now)

    def invalidate(self, failed: Iterable[tuple[str, str | None]]) -> None:
        """Drop what was read from these (source, env) pairs: they just failed."""
        down = set(failed)
        for key, entry in list(self._entries.items()):
            source = entry.result.coverage.source.split("/")[0]
            if (source, key[1]) in down or (source, None) in down:
                del self._entries[key]
