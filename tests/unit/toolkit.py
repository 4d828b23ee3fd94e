"""Small tools for planner unit tests (failure injection, not a replacement for sources).

Integration tests drive the real connectors against the simulators; these fakes exist to
make one source slow, failing, partial or empty on purpose.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict

from policy.contracts import AgentMeta, ToolContract
from policy.results import Coverage, Entity, ResultFact, ToolResult
from policy.toolset import CallContext, FunctionTool, scope_of


class ServiceArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str
    namespace: str | None = None
    service: str
    start: AwareDatetime | None = None
    end: AwareDatetime | None = None


class RequestArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str
    request_id: str
    start: AwareDatetime | None = None
    end: AwareDatetime | None = None


class NodeArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str
    node: str
    start: AwareDatetime | None = None
    end: AwareDatetime | None = None


def agent(evidence: list[str], source: str, **kw: Any) -> AgentMeta:
    base: dict[str, Any] = dict(
        evidence=evidence,
        sources=[source],
        output_kind="objects",
        freshness="event_time",
        negative_semantics="complete_read",
        supports_history=True,
        current_only=False,
        read_only=True,
    )
    base.update(kw)
    return AgentMeta(**base)


Behaviour = Callable[[BaseModel, CallContext], Awaitable[ToolResult]]


def make_tool(
    name: str, args_model: type[BaseModel], meta: AgentMeta, envs: list[str], behaviour: Behaviour
) -> FunctionTool:
    return FunctionTool(
        ToolContract(
            name=name,
            description=f"test tool {name}",
            args_model=args_model,
            agent=meta,
            enums={"env": envs},
        ),
        behaviour,
    )


def facts_result(
    name: str,
    source: str,
    facts: list[tuple[str, str, dict]],
    *,
    entities: list[Entity] | None = None,
    observed_at: datetime | None = None,
) -> Behaviour:
    async def run(args: BaseModel, ctx: CallContext) -> ToolResult:
        return ToolResult(
            tool=name,
            status="ok" if facts else "empty",
            scope=scope_of(args, ctx),
            coverage=Coverage(source=source, complete_for_negative=True, returned=len(facts)),
            facts=[
                ResultFact(
                    text=t, kind=k, source=source, attrs=a, observed_at=observed_at or ctx.now
                )
                for t, k, a in facts
            ],
            entities=entities or [],
        )

    return run


def empty_result(name: str, source: str, *, complete: bool) -> Behaviour:
    async def run(args: BaseModel, ctx: CallContext) -> ToolResult:
        return ToolResult(
            tool=name,
            status="empty",
            scope=scope_of(args, ctx),
            coverage=Coverage(
                source=source,
                complete_for_negative=complete,
                returned=0,
                total=None if complete else 500,
                total_is_exact=complete,
                truncated=not complete,
                note=None if complete else "read 0 of >= 500 hits",
            ),
        )

    return run


def sleeping(seconds: float, inner: Behaviour) -> Behaviour:
    async def run(args: BaseModel, ctx: CallContext) -> ToolResult:
        await asyncio.sleep(seconds)
        return await inner(args, ctx)

    return run


def raising(exc: Exception, counter: list[int] | None = None) -> Behaviour:
    async def run(args: BaseModel, ctx: CallContext) -> ToolResult:
        if counter is not None:
            counter.append(1)
        raise exc

    return run


def status_and_logs(envs: list[str], status_text: str, log_text: str) -> list[FunctionTool]:
    """Two tools a free-planning test needs: a workload's live status and its app logs."""
    return [
        make_tool(
            "k8s.workload_status",
            ServiceArgs,
            agent(["k8s.workload_status"], "kubernetes", freshness="live"),
            envs,
            facts_result("k8s.workload_status", "kubernetes", [(status_text, "k8s.workload", {})]),
        ),
        make_tool(
            "logs.app_logs",
            ServiceArgs,
            agent(["app.log"], "logs"),
            envs,
            facts_result("logs.app_logs", "logs", [(log_text, "app.log", {})]),
        ),
    ]


def read_of(env: str, facts: list[ResultFact], *, complete: bool = True) -> Any:
    """One made call in `env` that returned `facts` (an executor's CallRecord), for the
    code that says what was asked from everything the reads returned."""
    from planner.plan.routing import PlannedCall
    from planner.read.executor import CallRecord
    from policy.scope import Scope

    result = ToolResult(
        tool="t",
        status="ok" if complete else "partial",
        scope=Scope(env=env),
        coverage=Coverage(source="s", complete_for_negative=complete),
        facts=facts,
    )
    call = PlannedCall("t", "{}", env, "s", ("o",))
    return CallRecord(call_id="c", call=call, result=result, duration_ms=1, attempts=1)
