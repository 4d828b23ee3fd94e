"""The turn workspace: every raw result in full, addressed by call id.

The model and the finalizer see compact facts; when they need more they query the raw
rows here by call id, field value, regex, time slice or columns, instead of the raw
being cut by head/tail (the "lost evidence" failure class).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from policy.results import ToolResult


def _rows(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, list):
        return [r if isinstance(r, dict) else {"value": r} for r in raw]
    if isinstance(raw, dict):
        for key in ("items", "hits", "rows", "result", "events", "lines"):
            if isinstance(raw.get(key), list):
                return _rows(raw[key])
        return [raw]
    if raw is None:
        return []
    return [{"value": raw}]


def _get(row: dict[str, Any], dotted: str) -> Any:
    cur: Any = row
    for part in dotted.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        else:
            return None
    return cur


def _time_of(row: dict[str, Any], field: str) -> datetime | None:
    value = _get(row, field)
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


class TurnWorkspace:
    """Raw results of one turn. Lives for the turn; nothing here is global."""

    def __init__(self) -> None:
        self._results: dict[str, ToolResult] = {}
        self._order: list[str] = []

    def put(self, call_id: str, result: ToolResult) -> None:
        self._results[call_id] = result
        self._order.append(call_id)

    def get(self, call_id: str) -> ToolResult | None:
        return self._results.get(call_id)

    def results(self) -> list[tuple[str, ToolResult]]:
        return [(cid, self._results[cid]) for cid in self._order]

    def query(
        self,
        call_id: str,
        *,
        where: dict[str, Any] | None = None,
        regex: str | None = None,
        time_field: str = "@timestamp",
        start: datetime | None = None,
        end: datetime | None = None,
        columns: list[str] | None = None,
        limit: int = 50,
    ) -> list[dict[str, Any]]:
        """Rows of one raw result matching every condition, newest data untouched."""
        result = self._results.get(call_id)
        if result is None:
            raise KeyError(f"no result with call id {call_id!r} in this turn")
        rx = re.compile(regex) if regex else None
        out = []
        for row in _rows(result.raw):
            if where and any(str(_get(row, k)) != str(v) for k, v in where.items()):
                continue
            if rx and not rx.search(repr(row)):
                continue
            if start or end:
                ts = _time_of(row, time_field)
                if ts is None or (start and ts < start) or (end and ts > end):
                    continue
            out.append({c: _get(row, c) for c in columns} if columns else row)
            if len(out) >= limit:
                break
        return out
