"""Rankings: the pods or nodes of an environment ordered by one measure ("which pods use
the most memory?", "which node retransmits most?").

The ordering is done by the source (`topk` / `bottomk` with the limit), and the same
expression is counted, so each place can say "of N": third of three is not third of 400.
A ranking that finds no series is "no data" for that measure, never a list of zeros.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field, ValidationInfo, WithJsonSchema, field_validator

from connectors.victoriametrics._client import Series
from connectors.victoriametrics._common import (
    Matcher,
    Run,
    gather,
    optional_k8s_name,
    selector,
)
from connectors.victoriametrics._node_tools import node_of
from connectors.victoriametrics._workload_tools import (
    CPU,
    LIMITS,
    MEMORY,
    REQUESTS,
    RESTARTS,
    cores_over,
)
from policy.facts import EntityKind, MetricsRank
from policy.numbers import Nouns, amount_said, count_said, percent_said, rate_said
from policy.results import Entity, ResultFact, ToolResult
from policy.units import bytes_said
from policy.vocabulary import ARGUMENT_NAMES, RankMeasure, RankSubject
from policy.window import WindowArgs

RETRANSMITS = "node_netstat_Tcp_RetransSegs"
MIN_RATE_S = 300  # a rate over less than 5 minutes ranks scrape jitter, not load
MAX_LIMIT = 20
BY_POD = "namespace, pod"
BY_CONTAINER = "namespace, pod, container"

Order = Literal["top", "bottom"]

# What each subject can be ranked by. Node memory and CPU are left out: RankMeasure.MEMORY
# is bytes of a working set and CPU cores of containers, and a node's share of its memory
# would be another unit under the same name.
MEASURES: dict[RankSubject, tuple[RankMeasure, ...]] = {
    RankSubject.POD: (
        RankMeasure.MEMORY,
        RankMeasure.CPU,
        RankMeasure.RESTARTS,
        RankMeasure.MEMORY_OF_LIMIT,
        RankMeasure.CPU_OF_REQUEST,
    ),
    RankSubject.NODE: (RankMeasure.RETRANSMITS,),
}

# The enums written out in each property, not as a shared `$defs` entry: the planner and the
# model read a closed set from the property's own "enum", as they do for every other tool.
Subject = Annotated[
    RankSubject, WithJsonSchema({"type": "string", "enum": [s.value for s in RankSubject]})
]
Measure = Annotated[
    RankMeasure, WithJsonSchema({"type": "string", "enum": [m.value for m in RankMeasure]})
]

ENTITY = {RankSubject.POD: EntityKind.POD, RankSubject.NODE: EntityKind.NODE}


class RankArgs(WindowArgs):
    subject: Subject = Field(description=ARGUMENT_NAMES["subject"])
    measure: Measure = Field(
        description=ARGUMENT_NAMES["measure"]
        + "; pods: memory, cpu, restarts, memory_of_limit, cpu_of_request; nodes: retransmits"
    )
    namespace: str | None = optional_k8s_name(
        "Kubernetes namespace of the pods (any when omitted; not used for nodes)"
    )
    limit: int = Field(5, ge=1, le=MAX_LIMIT, description=ARGUMENT_NAMES["limit"])
    order: Order = Field("top", description="top: highest first; bottom: lowest first")

    @field_validator("measure")
    @classmethod
    def _fits_subject(cls, measure: RankMeasure, info: ValidationInfo) -> RankMeasure:
        """Checked on `measure` so the error names the field the model should change."""
        subject = info.data.get("subject")
        if isinstance(subject, RankSubject) and measure not in MEASURES[subject]:
            fits = ", ".join(MEASURES[subject])
            raise ValueError(f"measure {measure.value!r} does not rank {subject.value}s ({fits})")
        return measure


@dataclass(frozen=True)
class Ranking:
    """One measure's read: the expression ranked, what it is called in a fact, the metric
    whose absence means "no data", and how a value is written."""

    expr: str
    label: str
    metric: str
    fmt: Callable[[float], str]
    windowed: bool  # a rate over the window (else the value at its end)


def _cores(value: float) -> str:
    return amount_said(value, Nouns.CORE)


def _percent(value: float) -> str:
    return percent_said(value)


def _per_second(value: float) -> str:
    return rate_said(value)


def _restarts(value: float) -> str:
    return amount_said(value, Nouns.RESTART)


def _matchers(args: RankArgs) -> tuple[list[Matcher], list[Matcher]]:
    """(the namespace's, a container's usage series'): cAdvisor's pause container and the
    pod's own cgroup (container="") would count the pod twice."""
    ns: list[Matcher] = [("namespace", "=", args.namespace)] if args.namespace else []
    return ns, [*ns, ("container", "!=", ""), ("container", "!=", "POD")]


def _ranking(args: RankArgs, rate_s: int) -> Ranking:
    """The PromQL of each measure: one value per pod (or node instance)."""
    ns, usage = _matchers(args)
    cpu = cores_over(selector(CPU, usage), rate_s)
    match args.measure:
        case RankMeasure.MEMORY:
            # an instant read sees only series alive in the lookback: a container that
            # restarted is not counted twice
            expr = f"sum by ({BY_POD}) ({selector(MEMORY, usage)})"
            return Ranking(expr, "memory working set", MEMORY, bytes_said, False)
        case RankMeasure.CPU:
            expr = f"sum by ({BY_POD}) ({cpu})"
            return Ranking(expr, "CPU used", CPU, _cores, True)
        case RankMeasure.RESTARTS:
            expr = f"sum by ({BY_POD}) ({selector(RESTARTS, ns) if ns else RESTARTS})"
            label = "restart counter (container restarts so far, not only in the window)"
            return Ranking(expr, label, RESTARTS, _restarts, False)
        case RankMeasure.MEMORY_OF_LIMIT:
            expr = _of_bound(selector(MEMORY, usage), _bound(LIMITS, "memory", ns))
            label = "memory working set against the memory limit (highest container)"
            return Ranking(expr, label, MEMORY, _percent, False)
        case RankMeasure.CPU_OF_REQUEST:
            expr = _of_bound(cpu, _bound(REQUESTS, "cpu", ns))
            label = "CPU used against the CPU request (highest container)"
            return Ranking(expr, label, CPU, _percent, True)
        case RankMeasure.RETRANSMITS:
            expr = f"sum by (node, instance) (rate({RETRANSMITS}[{rate_s}s]))"
            label = "TCP retransmitted segments"
            return Ranking(expr, label, RETRANSMITS, _per_second, True)


def _bound(metric: str, resource: str, ns: list[Matcher]) -> str:
    """A container's limit or request; a zero one is no bound (it would divide to +Inf)."""
    sel = selector(metric, [*ns, ("resource", "=", resource)])
    return f"(max by ({BY_CONTAINER}) ({sel}) > 0)"


def _of_bound(used: str, bound: str) -> str:
    """Each container's use over its bound, then the pod's highest container share."""
    per_container = f"sum by ({BY_CONTAINER}) ({used})"
    return f"max by ({BY_POD}) ({per_container} / on ({BY_CONTAINER}) {bound})"


def _unbounded(args: RankArgs, rate_s: int) -> str | None:
    """For share measures, the containers left out because they have no bound."""
    ns, usage = _matchers(args)
    if args.measure == RankMeasure.MEMORY_OF_LIMIT:
        used, bound = selector(MEMORY, usage), _bound(LIMITS, "memory", ns)
    elif args.measure == RankMeasure.CPU_OF_REQUEST:
        used = cores_over(selector(CPU, usage), rate_s)
        bound = _bound(REQUESTS, "cpu", ns)
    else:
        return None
    return f"count(sum by ({BY_CONTAINER}) ({used}) unless on ({BY_CONTAINER}) {bound})"


def _name(subject: RankSubject, series: Series) -> tuple[str, str | None]:
    """(name, namespace) of a ranked series; a node is named as the node tools name it."""
    if subject == RankSubject.NODE:
        return node_of(series.labels) or series.labels.get("instance", "?"), None
    return series.labels.get("pod", "?"), series.labels.get("namespace")


async def rank(run: Run, args: RankArgs) -> ToolResult:
    rate_s = max(run.window.seconds, MIN_RATE_S)
    ranking = _ranking(args, rate_s)
    fn = "topk" if args.order == "top" else "bottomk"
    ranked_expr = f"{fn}({args.limit}, {ranking.expr})"
    count_expr = f"count({ranking.expr})"
    unbounded_expr = _unbounded(args, rate_s)
    ranked, counted, *rest = await gather(
        run.instant(ranked_expr),
        run.instant(count_expr),
        *([run.instant(unbounded_expr)] if unbounded_expr else []),
    )
    nodes = args.subject == RankSubject.NODE
    where = f"in {run.env}" + (
        f" (namespace {args.namespace})" if args.namespace and not nodes else ""
    )
    when = _when(run, ranking, rate_s)
    notes = (
        ["namespace does not apply to nodes: every node was ranked"]
        if nodes and args.namespace
        else []
    )
    warnings: list[str] = []
    left_out = int(rest[0].scalar(0.0) or 0) if rest else 0
    if left_out:
        bound = "memory limit" if args.measure == RankMeasure.MEMORY_OF_LIMIT else "CPU request"
        warnings.append(
            f"{count_said(left_out, Nouns.CONTAINER)} {where} "
            f"{'has' if left_out == 1 else 'have'} no {bound} and "
            f"{'was' if left_out == 1 else 'were'} left out of the ranking"
        )
    if not ranked.series:
        warnings.append(
            f"no {ranking.metric} series to rank {args.subject.value}s by {args.measure.value} "
            f"{where} {when}: no data, which does not mean zero"
        )
        return run.result(
            found=False, exists=False, warnings=warnings, note="no data for the measure"
        )
    of = int(counted.scalar(0.0) or 0) or len(ranked.series)
    rows = [(*_name(args.subject, s), s.value) for s in ranked.series]
    sign = -1 if args.order == "top" else 1
    rows.sort(key=lambda row: (sign * row[2], row[0]))  # topk's vector has no order
    subjects = f"{args.subject.value}s"
    lowest = ", lowest first," if args.order == "bottom" else ""
    facts: list[ResultFact] = [
        run.fact(
            f"{position} of {of} {subjects} by {ranking.label}{lowest} {where} {when}: "
            f"{name} {ranking.fmt(value)}",
            MetricsRank(
                subject=args.subject,
                measure=args.measure,
                position=position,
                of=of,
                name=name,
                namespace=namespace,
                value=value,
            ),
            ranked_expr,
            None,
        )
        for position, (name, namespace, value) in enumerate(rows, start=1)
    ]
    entities = [
        Entity(kind=ENTITY[args.subject], name=name, env=run.env, namespace=namespace)
        for name, namespace, _ in rows
    ]
    return run.result(
        found=True,
        exists=True,
        facts=facts,
        warnings=warnings,
        entities=entities,
        note="; ".join(notes) or None,
    )


def _when(run: Run, ranking: Ranking, rate_s: int) -> str:
    """When the values hold: at the window's end, or the rate's span up to it."""
    end = run.time(run.window.end)
    if not ranking.windowed:
        return f"at {end}"
    if rate_s == run.window.seconds:
        return run.span()
    return f"over the {amount_said(rate_s / 60, Nouns.MINUTE)} to {end}"
