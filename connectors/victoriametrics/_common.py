"""What every metrics tool shares: the window and step, selectors, formatting, the result."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import structlog
from pydantic import Field

from connectors.victoriametrics._client import ClientPool, PromClient, QueryRejected, QueryResult
from connectors.victoriametrics._settings import MetricsTarget
from policy.contracts import AgentMeta, NegativeSemantics, OutputKind, ToolContract
from policy.errors import ErrorKind, SourceUnsupported
from policy.facts import MetricAttrs
from policy.findings import Findings
from policy.results import Entity, Relation, ResultFact, ToolResult
from policy.scope import Scope, TimeSpec
from policy.toolset import CallContext, FunctionTool, failure_result, scope_of
from policy.window import WindowArgs, WindowRule, resolve_window

log = structlog.get_logger(__name__)

K8S_NAME = r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"
STEPS = (15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400)
MAX_WINDOW = timedelta(days=31)
T = TypeVar("T")


def k8s_name(description: str) -> Any:
    return Field(description=description, min_length=1, max_length=253, pattern=K8S_NAME)


def optional_k8s_name(description: str) -> Any:
    return Field(
        default=None, description=description, min_length=1, max_length=253, pattern=K8S_NAME
    )


@dataclass(frozen=True)
class Window:
    start: datetime
    end: datetime
    step_s: int

    @property
    def seconds(self) -> int:
        return max(1, int((self.end - self.start).total_seconds()))

    @property
    def rate_s(self) -> int:
        """Look-behind of rate() in range reads: one step, at least a minute."""
        return max(self.step_s, 60)


def choose_step(seconds: float, max_points: int) -> int:
    """The smallest usual step that keeps a range read within ~300 points (never < 15 s)."""
    budget = min(300, max_points)
    for step in STEPS:
        if seconds / step <= budget:
            return step
    return STEPS[-1]


# A metrics read keeps the question window's length when the caller names only one end (a
# rate or a peak over a span the model shifted, not stretched), and ends at the clock: a
# range read past now only returns empty steps.
METRICS_WINDOW = WindowRule(one_bound="question_length", clamp_to_now=True)


def range_window(args: WindowArgs, ctx: CallContext, max_points: int) -> Window | str:
    """The [start, end] read; arguments win over the question's window. Str = what's wrong."""
    start, end = resolve_window(args, ctx, METRICS_WINDOW)
    if end - start < timedelta(seconds=15):
        return f"the window {start.isoformat()} .. {end.isoformat()} is shorter than 15 s"
    if end - start > MAX_WINDOW:
        return "the window is longer than 31 days; narrow start/end"
    return Window(start, end, choose_step((end - start).total_seconds(), max_points))


def quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def name_regex(prefix: str) -> str:
    """A regex for pods of a workload: `<name>-<hash...>` (dots escaped)."""
    return prefix.replace(".", "\\.") + "-.+"


Matcher = tuple[str, str, str]  # (label, op, value)


def selector(metric: str, matchers: Sequence[Matcher]) -> str:
    inner = ",".join(f"{label}{op}{quote(value)}" for label, op, value in matchers)
    return f"{metric}{{{inner}}}"


def status_matcher(status: str) -> Matcher:
    """Exact "502" -> status="502"; a class "5xx" / "50x" -> status=~"5.." / "50."."""
    if "x" in status:
        return ("status", "=~", status.replace("x", "."))
    return ("status", "=", status)


def zone(ctx: CallContext) -> ZoneInfo:
    try:
        return ZoneInfo(ctx.timezone)
    except (ValueError, KeyError, OSError):
        return ZoneInfo("UTC")


def max_point(points: Sequence[tuple[datetime, float]]) -> tuple[datetime, float] | None:
    return max(points, key=lambda p: p[1]) if points else None


async def gather(*aws: Awaitable[T]) -> list[T]:
    """Run reads together; every one finishes, then the first failure is raised."""
    results = await asyncio.gather(*aws, return_exceptions=True)
    for item in results:
        if isinstance(item, BaseException):
            raise item
    return list(results)  # type: ignore[arg-type]


@dataclass
class Run:
    """One tool call: its target, window, the reads made so far and the result builder."""

    tool: str
    client: PromClient
    ctx: CallContext
    scope: Scope
    window: Window
    reads: list[QueryResult] = field(default_factory=list)

    @property
    def target(self) -> MetricsTarget:
        return self.client.target

    @property
    def env(self) -> str:
        return self.target.env

    @property
    def source(self) -> str:
        return self.client.source

    def time(self, dt: datetime) -> str:
        return dt.astimezone(zone(self.ctx)).isoformat(timespec="seconds")

    def span(self) -> str:
        start, end = (self.window.start, self.window.end)
        first, last = self.time(start), self.time(end)
        if first[:10] == last[:10]:
            last = last[11:]
        return f"between {first} and {last}"

    @property
    def moment(self) -> datetime:
        """When a value is read: the moment a question about the past names ("what was it
        at 15:15"), inside the window read around it; else the window's end."""
        time = self.ctx.scope.time
        inside = time.at is not None and self.window.start <= time.at <= self.window.end
        if time.mode == "historical" and time.at is not None and inside:
            return time.at
        return self.window.end

    async def instant(self, expr: str, at: datetime | None = None) -> QueryResult:
        result = await self.client.instant(expr, at or self.window.end)
        self.reads.append(result)
        return result

    async def range(self, expr: str) -> QueryResult:
        w = self.window
        result = await self.client.range(expr, w.start, w.end, w.step_s)
        self.reads.append(result)
        return result

    def link(self, expr: str) -> str:
        return self.target.link(expr, self.window.start, self.window.end)

    def fact(
        self, text: str, attrs: MetricAttrs, expr: str, observed_at: datetime | None
    ) -> ResultFact:
        """A fact of this read: its env and query are written into the attributes."""
        return ResultFact(
            text=text,
            source=self.source,
            observed_at=observed_at or self.window.end,
            link=self.link(expr),
            historical=True,
            attrs=attrs.model_copy(update={"env": self.env, "query": expr}),
        )

    def result(
        self,
        *,
        found: bool,
        exists: bool,
        partial: bool = False,
        facts: Sequence[ResultFact] = (),
        warnings: Sequence[str] = (),
        entities: Sequence[Entity] = (),
        relations: Sequence[Relation] = (),
        note: str | None = None,
    ) -> ToolResult:
        """`found`: the asked-for data is there; `exists`: the scope is known to the source
        (its base metric has series), so what was not found is absent (when nothing was cut);
        `partial`: the tool itself saw a hole in what it read."""
        all_warnings = list(warnings)
        truncated = False
        for read in self.reads:
            all_warnings.extend(f"{self.source}: {w}" for w in read.warnings)
            if read.capped:
                all_warnings.append(
                    f"{self.source}: kept {self.target.max_series} of {read.total} series "
                    f"for `{read.expr}`"
                )
            truncated = truncated or read.truncated
        flagged = partial or truncated or any(read.warnings for read in self.reads)
        observed = max((f.observed_at for f in facts if f.observed_at), default=None)
        found_here = Findings(
            self.source,
            facts=list(facts),
            entities=list(entities),
            relations=list(relations),
            warnings=all_warnings,
            notes=[note] if note else [],
            complete=not flagged,
            truncated=truncated,
        )
        return found_here.result(
            self.tool,
            self.scope,
            returned=sum(len(r.series) for r in self.reads),
            found=found,
            proves_absence=exists,
            observed_at=observed or self.window.end,
            limit=self.target.max_series,
            total=sum(r.total for r in self.reads),
            total_is_exact=not truncated or all(not r.warnings for r in self.reads),
            raw={
                "window": [self.window.start.isoformat(), self.window.end.isoformat()],
                "step_s": self.window.step_s,
                "reads": [r.as_raw() for r in self.reads],
            },
        )


ToolFn = Callable[[Run, Any], Awaitable[ToolResult]]


def metrics_tool(
    name: str,
    description: str,
    args_model: type[WindowArgs],
    agent: AgentMeta,
    fn: ToolFn,
    targets: dict[str, MetricsTarget],
    pool: ClientPool,
) -> FunctionTool:
    contract = ToolContract(
        name=name,
        description=description,
        args_model=args_model,
        agent=agent,
        enums={"env": sorted(targets)},
    )

    async def run(args: WindowArgs, ctx: CallContext) -> ToolResult:
        target = targets.get(args.env)
        if target is None:
            raise SourceUnsupported("victoriametrics", f"no metrics source for env {args.env!r}")
        source = f"victoriametrics/{target.env}"
        window = range_window(args, ctx, target.max_points)
        scope = scope_of(args, ctx)
        if isinstance(window, str):
            return failure_result(name, scope, source, "error", window, ErrorKind.INVALID_ARGUMENTS)
        scope = scope.model_copy(
            update={
                "time": TimeSpec(
                    at=window.start + (window.end - window.start) / 2,
                    window=window.end - window.start,
                    mode=ctx.scope.time.mode,
                )
            }
        )
        began = time.monotonic()
        call = Run(name, pool.client(target), ctx, scope, window)
        try:
            result = await fn(call, args)
        except QueryRejected as exc:
            return failure_result(
                name,
                scope,
                source,
                "error",
                f"VictoriaMetrics in {target.env} rejected the query `{exc.expr}`: {exc.reason}",
                ErrorKind.INVALID_QUERY,
            )
        log.info(
            "metrics.tool",
            tool=name,
            env=target.env,
            status=result.status,
            reads=len(call.reads),
            ms=round((time.monotonic() - began) * 1000),
        )
        return result

    return FunctionTool(contract, run, resources=(pool,))


def agent(
    evidence: list[str],
    negative: NegativeSemantics,
    *,
    output_kind: OutputKind = "series",
    admin_only: bool = False,
) -> AgentMeta:
    return AgentMeta(
        evidence=evidence,
        sources=["victoriametrics"],
        output_kind=output_kind,
        freshness="sample_time",
        negative_semantics=negative,
        supports_history=True,
        current_only=False,
        read_only=True,
        admin_only=admin_only,
    )
