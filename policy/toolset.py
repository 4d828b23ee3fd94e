"""The tool-set interface every connector implements and every wrapper preserves.

A `Tool` is a contract plus an async `run(args, ctx)`. A tool raises `SourceError` for a
failed read; `ToolSet.call` turns that into an `error` result, so a failed source always
becomes a gap with its reason and never an empty success.

`Toolset` is the interface of a whole catalogue. `ToolSet` implements it over tools; a
wrapper (the policy gate, redaction: policy/wrappers.py) takes one and is one, so they
stack in any order: `RedactingToolset(PolicyGate(ToolSet(tools)))`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ValidationError

from policy.contracts import ToolContract
from policy.errors import ConfigError, ErrorKind, SourceError
from policy.results import Coverage, ToolResult
from policy.scope import Scope

Role = Literal["engineer", "admin"]


@dataclass(frozen=True)
class CallContext:
    """Who asks, about what, and when. Passed to every call; never global."""

    user: str
    role: Role
    scope: Scope
    now: datetime
    timezone: str = "UTC"
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Tool(Protocol):
    contract: ToolContract

    async def run(self, args: BaseModel, ctx: CallContext) -> ToolResult: ...


class Resource(Protocol):
    """Something a tool holds open between calls (a keep-alive HTTP client pool)."""

    async def aclose(self) -> None: ...


@dataclass
class FunctionTool:
    """A tool made of a contract and an async function.

    `resources` are what it keeps open across calls (often shared with the other tools of
    its connector); `ToolSet.aclose` closes each one once."""

    contract: ToolContract
    fn: Callable[[Any, CallContext], Awaitable[ToolResult]]
    resources: tuple[Resource, ...] = ()

    async def run(self, args: BaseModel, ctx: CallContext) -> ToolResult:
        return await self.fn(args, ctx)


def failure_result(
    tool: str,
    scope: Scope,
    source: str,
    status: Literal["error", "denied"],
    reason: str,
    kind: ErrorKind,
) -> ToolResult:
    return ToolResult(
        tool=tool,
        status=status,
        scope=scope,
        coverage=Coverage(source=source, complete_for_negative=False),
        error=reason,
        error_kind=kind,
    )


def field_problems(exc: ValidationError) -> str:
    """Every problem of a validation, each naming its field."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}" for e in exc.errors()
    )


def scope_of(args: BaseModel, ctx: CallContext) -> Scope:
    """The scope a call actually reads: the env/namespace/object in its arguments win."""
    data = args.model_dump()
    obj = next(
        (
            data[k]
            for k in ("service", "deployment", "object", "pod", "node", "project")
            if data.get(k)
        ),
        None,
    )
    return ctx.scope.model_copy(
        update={
            "env": data.get("env") or ctx.scope.env,
            "namespace": data.get("namespace") or ctx.scope.namespace,
            "object": obj or ctx.scope.object,
        }
    )


class Toolset(Protocol):
    """A catalogue of tools: what every tool set and every wrapper exposes."""

    def contracts(self, ctx: CallContext | None = None) -> list[ToolContract]: ...

    def refused(self, ctx: CallContext) -> list[tuple[ToolContract, str]]:
        """Tools this user may not use, with why."""
        ...

    async def call(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult: ...

    async def aclose(self) -> None: ...


class ToolSet:
    """A plain catalogue of tools: it validates arguments against each contract's model
    and runs the tool. It admits everything; the policy gate is what refuses."""

    def __init__(self, tools: Sequence[Tool]) -> None:
        names = [t.contract.name for t in tools]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ConfigError(f"duplicate tool names: {sorted(dupes)}")
        self._tools = {t.contract.name: t for t in tools}

    def contracts(self, ctx: CallContext | None = None) -> list[ToolContract]:
        return [t.contract for t in self._tools.values()]

    def refused(self, ctx: CallContext) -> list[tuple[ToolContract, str]]:
        return []

    async def aclose(self) -> None:
        """Close what the tools keep open, each shared resource once; on the loop the
        calls ran on (keep-alive clients belong to it)."""
        seen: dict[int, Resource] = {}
        for tool in self._tools.values():
            for resource in getattr(tool, "resources", ()):
                seen.setdefault(id(resource), resource)
        for resource in seen.values():
            await resource.aclose()

    async def call(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult:
        tool = self._tools.get(name)
        if tool is None:
            reason = f"unknown tool {name!r}"
            return failure_result(
                name, ctx.scope, "toolset", "error", reason, ErrorKind.UNKNOWN_TOOL
            )
        try:
            args = tool.contract.args_model.model_validate(arguments)
        except ValidationError as exc:
            return failure_result(
                name,
                ctx.scope,
                "toolset",
                "error",
                field_problems(exc),
                ErrorKind.INVALID_ARGUMENTS,
            )
        try:
            return await tool.run(args, ctx)
        except SourceError as exc:
            return failure_result(
                name, scope_of(args, ctx), exc.source, "error", exc.reason, exc.kind
            )
