"""Wrappers around a tool set, each with the same interface as what it wraps.

The model is pydantic-ai's `WrapperToolset`: a wrapper takes a `Toolset` and is one, so
wrappers stack (`RedactingToolset(PolicyGate(ToolSet(tools)))`) and a caller never knows
how many there are. `WrapperToolset` passes everything through; a wrapper overrides what
it changes.
"""

from __future__ import annotations

from typing import Any

from policy.contracts import ToolContract
from policy.hostile import describe_obj
from policy.redaction import redact_obj
from policy.results import ToolResult
from policy.toolset import CallContext, Toolset


class WrapperToolset:
    """Passes every call to the tool set it wraps."""

    def __init__(self, inner: Toolset) -> None:
        self._inner = inner

    def contracts(self, ctx: CallContext | None = None) -> list[ToolContract]:
        return self._inner.contracts(ctx)

    def refused(self, ctx: CallContext) -> list[tuple[ToolContract, str]]:
        return self._inner.refused(ctx)

    async def call(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult:
        return await self._inner.call(name, arguments, ctx)

    async def aclose(self) -> None:
        await self._inner.aclose()


class RedactingToolset(WrapperToolset):
    """Results come back with secrets replaced and text addressed to the assistant
    described (policy/hostile): fact texts and attributes, entities, links, warnings and
    errors. What reads a result after it (the planner's rules, the
    model's evidence packet) never holds a secret a log line or an event carried; the
    answer is redacted once more at the exit.

    `raw` (the source's whole answer, kept in the turn workspace for the turn only) is
    passed as it is: nothing shows it or gives it to a model, and redacting every list
    the inventory reads would cost more than the rest of a turn. A tool that ever exposes
    the workspace must redact what it shows.

    `keep_query_hosts`: our own dashboards, whose links keep their query string."""

    def __init__(self, inner: Toolset, keep_query_hosts: frozenset[str] = frozenset()) -> None:
        super().__init__(inner)
        self._keep = keep_query_hosts
        # text -> redacted text, for the calls of one turn (a wrapper is made per turn):
        # the same namespace, node or log line is read once, and the turn's exit skips
        # what came in redacted
        self.memo: dict[str, str] = {}

    async def call(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult:
        result = await self._inner.call(name, arguments, ctx)
        clean = redact_obj(result.model_copy(update={"raw": None}), self._keep, self.memo)
        # text that addresses the assistant is described, not passed on (policy/hostile)
        clean = describe_obj(clean)
        return ToolResult.model_validate({**clean, "raw": result.raw})
