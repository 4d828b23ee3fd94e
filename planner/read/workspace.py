"""The turn workspace: every raw result in full, addressed by call id.

The model and the finalizer see compact facts; the raw stays whole here rather than
being cut by head/tail (the "lost evidence" failure class). Querying it (by field,
regex, time slice, columns) comes with the tool that exposes it to the model.
"""

from __future__ import annotations

from policy.results import ToolResult


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
