"""HTTP traffic from ingress-nginx: request rate, 5xx rate, latency quantiles."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any

from pydantic import Field

from connectors.victoriametrics._common import (
    Matcher,
    Run,
    WindowArgs,
    fmt_num,
    gather,
    k8s_name,
    max_point,
    optional_k8s_name,
    selector,
    status_matcher,
)
from policy.facts import HttpLatency, HttpRate
from policy.results import Entity, Relation, ResultFact, ToolResult

REQUESTS = "nginx_ingress_controller_requests"
BUCKETS = "nginx_ingress_controller_request_duration_seconds_bucket"
APP_BUCKETS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("http_server_requests_seconds_bucket", ("application", "service", "app", "job")),
    ("http_request_duration_seconds_bucket", ("service", "app", "job")),
)


def _fronts() -> Any:
    return Field(
        default=None,
        max_length=6,
        description="the Services and Ingresses in front of the workload, named otherwise: "
        "tried, in order, when its own name labels no series",
    )


class HttpRequestsArgs(WindowArgs):
    namespace: str | None = optional_k8s_name("namespace of the ingress (any when omitted)")
    service: str = k8s_name("service or ingress name")
    fronts: list[Annotated[str, k8s_name("service or ingress name")]] | None = _fronts()


class HttpErrorsArgs(WindowArgs):
    namespace: str | None = optional_k8s_name("namespace of the ingress (any when omitted)")
    service: str | None = optional_k8s_name("service or ingress name (all when omitted)")
    fronts: list[Annotated[str, k8s_name("service or ingress name")]] | None = _fronts()
    status: str = Field(
        default="5xx",
        pattern=r"^[1-5]([0-9]{2}|[0-9]x|xx)$",
        description='HTTP status: exact ("502") or a class ("5xx", "50x")',
    )


class LatencyArgs(WindowArgs):
    namespace: str | None = optional_k8s_name("namespace of the ingress (any when omitted)")
    service: str = k8s_name("service or ingress name")
    fronts: list[Annotated[str, k8s_name("service or ingress name")]] | None = _fronts()
    quantile: float = Field(default=0.99, gt=0, lt=1, description="e.g. 0.99 for p99")


def _base(namespace: str | None) -> list[Matcher]:
    return [("namespace", "=", namespace)] if namespace else []


async def resolve_scope(
    run: Run,
    metric: str,
    base: list[Matcher],
    service: str | None,
    labels: tuple[str, ...] = ("service", "ingress"),
    fronts: list[str] | None = None,
) -> list[Matcher] | None:
    """Matchers that find the service in `metric` during the window (by its `service`
    label, else its `ingress` label; then by the names of the Services and Ingresses in
    front of it), or None when the metric has no series for the scope: then there is no
    data, which is not the same as zero."""
    w = run.window.seconds
    # as the exporter labels them, then as kube-prometheus relabels them when the scrape
    # target's own labels collide (the ingress's namespace becomes exported_namespace)
    layouts = [base, [(RELABELLED.get(k, k), op, v) for k, op, v in base]]
    if service is None:
        tries: list[list[Matcher]] = layouts if base else [base]
    else:
        names = [service, *(fronts or [])]
        # the object's own name first, then each name in front of it; under each name its
        # Service label (either spelling) before an Ingress, which may route to others too
        tries = [
            [*scope, (RELABELLED.get(label, label) if scope is not base else label, "=", name)]
            for name in names
            for label in labels
            for scope in layouts
        ]
    parts = [
        f'label_replace(count(last_over_time({selector(metric, m)}[{w}s])), "via", "{i}", "", "")'
        for i, m in enumerate(tries)
    ]
    read = await run.instant(" or ".join(parts))
    found = {s.labels.get("via") for s in read.series if s.value > 0}
    return next((m for i, m in enumerate(tries) if str(i) in found), None)


# the labels kube-prometheus renames on a collision with the scrape target's own
RELABELLED = {"namespace": "exported_namespace", "service": "exported_service"}
# grouping that keeps both spellings; plain() reads the metric's own
BY_SCOPE = "namespace, exported_namespace, ingress, service, exported_service"


def plain(labels: dict[str, str]) -> dict[str, str]:
    """A series' labels as the exporter wrote them: exported_* over the scrape target's."""
    out = dict(labels)
    for own, renamed in RELABELLED.items():
        if out.get(renamed):
            out[own] = out.pop(renamed)
    return out


def via(matchers: list[Matcher], service: str | None) -> str:
    """', labelled ingress=<ingress>' when the series were found under a name in front of
    the workload rather than its own."""
    named = [(k, v) for k, _, v in matchers if k in ("service", "ingress", "exported_service")]
    return "".join(f", labelled {k}={v}" for k, v in named if v != service)


def _no_data(run: Run, metric: str, meaning: str, matchers: list[Matcher]) -> ToolResult:
    where = ", ".join(f"{k}={v}" for k, _, v in matchers) or "this environment"
    return run.result(
        found=False,
        exists=False,
        warnings=[f"{metric} has no series for {where} in {run.env} {run.span()}: {meaning}"],
        note="no data for the scope",
    )


def _entities(run: Run, labels: list[dict[str, str]]) -> tuple[list[Entity], list[Relation]]:
    entities: dict[str, Entity] = {}
    relations: dict[str, Relation] = {}
    for item in labels:
        ns, ing, svc = item.get("namespace"), item.get("ingress"), item.get("service")
        if ing:
            entities[f"ingress/{ing}"] = Entity(kind="ingress", name=ing, env=run.env, namespace=ns)
        if svc:
            entities[f"service/{svc}"] = Entity(kind="service", name=svc, env=run.env, namespace=ns)
        if ing and svc:
            relations[f"{ing}>{svc}"] = Relation(
                src=f"ingress/{ing}", rel="routes_to", dst=f"service/{svc}", source=run.source
            )
    return list(entities.values()), list(relations.values())


async def http_requests(run: Run, args: HttpRequestsArgs) -> ToolResult:
    base = _base(args.namespace)
    matchers = await resolve_scope(run, REQUESTS, base, args.service, fronts=args.fronts)
    if matchers is None:
        return _no_data(
            run,
            REQUESTS,
            "no data, which does not mean zero requests",
            [*base, ("service", "=", args.service)],
        )
    sel, w = selector(REQUESTS, matchers), run.window.seconds
    total_expr = f"sum by ({BY_SCOPE}) (increase({sel}[{w}s]))"
    range_expr = f"sum(rate({sel}[{run.window.rate_s}s]))"
    totals, curve = await gather(run.instant(total_expr), run.range(range_expr))
    count = sum(s.value for s in totals.series)
    avg = count / w
    points = curve.series[0].points if curve.series else []
    lo = min(points, key=lambda p: p[1]) if points else None
    hi = max_point(points)
    namespaces = sorted({plain(s.labels).get("namespace", "") for s in totals.series} - {""})
    extremes = (
        f" (per-{run.window.rate_s}s rate between {fmt_num(lo[1])} and {fmt_num(hi[1])} req/s)"
        if lo and hi
        else ""
    )
    text = (
        f"{args.service} ({', '.join(namespaces) or 'any namespace'}) in {run.env}: "
        f"{fmt_num(avg)} req/s on average {run.span()}{extremes}; "
        f"{fmt_num(round(count))} requests in total (ingress-nginx{via(matchers, args.service)})"
    )
    fact = run.fact(
        text,
        HttpRate(
            what="requests",
            value=avg,
            status=None,
            min=lo[1] if lo else None,
            max=hi[1] if hi else None,
            total=count,
            service=args.service,
            namespace=args.namespace,
            window_s=w,
        ),
        range_expr,
        points[-1][0] if points else None,
    )
    entities, relations = _entities(run, [plain(s.labels) for s in totals.series])
    return run.result(found=True, exists=True, facts=[fact], entities=entities, relations=relations)


def _first_above_zero(points: list[tuple[datetime, float]]) -> datetime | None:
    return next((t for t, v in points if v > 0), None)


async def http_errors(run: Run, args: HttpErrorsArgs) -> ToolResult:
    base = _base(args.namespace)
    matchers = await resolve_scope(run, REQUESTS, base, args.service, fronts=args.fronts)
    if matchers is None:
        scope = [*base, *([("service", "=", args.service)] if args.service else [])]
        meaning = f"no data, which does not mean zero {args.status} responses"
        return _no_data(run, REQUESTS, meaning, scope)
    w, r = run.window.seconds, run.window.rate_s
    err_sel = selector(REQUESTS, [*matchers, status_matcher(args.status)])
    by = f"{BY_SCOPE}, status"
    total_expr = f"sum by ({by}) (increase({err_sel}[{w}s]))"
    range_expr = f"sum by ({by}) (rate({err_sel}[{r}s]))"
    all_expr = f"sum(increase({selector(REQUESTS, matchers)}[{w}s]))"
    totals, curves, everything = await gather(
        run.instant(total_expr), run.range(range_expr), run.instant(all_expr)
    )
    requests = everything.scalar(0) or 0.0
    by_key = {tuple(sorted(s.labels.items())): s.points for s in curves.series}
    rows: list[dict[str, Any]] = []
    for series in totals.series:
        points = by_key.get(tuple(sorted(series.labels.items())), [])
        if series.value <= 0 and not any(v > 0 for _, v in points):
            continue
        rows.append({"labels": plain(series.labels), "total": series.value, "points": points})
    rows.sort(key=lambda row: -row["total"])
    facts: list[ResultFact] = []
    for row in rows[:10]:
        labels, total, points = row["labels"], row["total"], row["points"]
        name = labels.get("ingress") or labels.get("service") or "?"
        peak, started = max_point(points), _first_above_zero(points)
        share = ""
        if requests:
            share = f"; {total / requests:.1%} of {fmt_num(round(requests))} requests"
        peak_text = f", peak {fmt_num(peak[1])}/s (per {r}s) at {run.time(peak[0])}" if peak else ""
        ongoing = (
            started is not None
            and started == points[0][0]
            and points[0][0] <= (run.window.start + timedelta(seconds=run.window.step_s))
        )
        start_text = f", first seen at {run.time(started)}" if started else ""
        if ongoing:
            start_text = ", already above zero when the window starts"
        text = (
            f"{name} ({labels.get('namespace', '?')}) in {run.env}: {fmt_num(round(total))} "
            f"responses with status {labels.get('status', args.status)} {run.span()} "
            f"({fmt_num(total / w)}/s on average{peak_text}{start_text}){share}"
        )
        facts.append(
            run.fact(
                text,
                HttpRate(
                    what="errors",
                    value=total / w,
                    status=labels.get("status"),
                    total=total,
                    peak=peak[1] if peak else None,
                    peak_at=peak[0].isoformat() if peak else None,
                    started_at=started.isoformat() if started else None,
                    started_before_window=ongoing,
                    share=total / requests if requests else None,
                    ingress=labels.get("ingress"),
                    service=labels.get("service") or args.service,
                    namespace=labels.get("namespace"),
                    window_s=w,
                ),
                range_expr,
                started or (peak[0] if peak else None),
            )
        )
    entities, relations = _entities(run, [row["labels"] for row in rows])
    warnings = [f"{len(rows) - 10} more error series not shown"] if len(rows) > 10 else []
    if not facts:
        target = args.service or args.namespace or run.env
        facts.append(
            run.fact(
                f"{target} in {run.env}: no responses with status {args.status} {run.span()} "
                f"({fmt_num(round(requests))} requests counted by ingress-nginx"
                f"{via(matchers, args.service)})",
                HttpRate(
                    what="errors",
                    value=0.0,
                    status=args.status,
                    total=0.0,
                    service=args.service,
                    namespace=args.namespace,
                    window_s=w,
                ),
                total_expr,
                run.window.end,
            )
        )
        return run.result(found=False, exists=True, facts=facts)
    return run.result(
        found=True,
        exists=True,
        facts=facts,
        warnings=warnings,
        entities=entities,
        relations=relations,
    )


async def _latency_source(
    run: Run, base: list[Matcher], service: str, fronts: list[str] | None = None
) -> tuple[str, list[Matcher], str] | None:
    """The ingress histogram, else an application one (Micrometer, Prometheus client):
    a service behind no ingress still has a latency."""
    matchers = await resolve_scope(run, BUCKETS, base, service, fronts=fronts)
    if matchers is not None:
        return BUCKETS, matchers, "ingress-nginx request duration histogram"
    for metric, labels in APP_BUCKETS:
        for scope in [base, []] if base else [base]:
            matchers = await resolve_scope(run, metric, scope, service, labels)
            if matchers is not None:
                return metric, matchers, f"application histogram {metric}"
    return None


async def latency(run: Run, args: LatencyArgs) -> ToolResult:
    base = _base(args.namespace)
    found = await _latency_source(run, base, args.service, args.fronts)
    if found is None:
        return _no_data(run, BUCKETS, "no latency data", [*base, ("service", "=", args.service)])
    metric, matchers, source_text = found
    sel, w, r, q = selector(metric, matchers), run.window.seconds, run.window.rate_s, args.quantile
    whole_expr = f"histogram_quantile({q}, sum by (le) (increase({sel}[{w}s])))"
    range_expr = f"histogram_quantile({q}, sum by (le) (rate({sel}[{r}s])))"
    whole, curve = await gather(run.instant(whole_expr), run.range(range_expr))
    value = whole.scalar()
    label = f"p{fmt_num(q * 100)}"
    if value is None:
        fact = run.fact(
            f"{args.service} in {run.env}: no requests {run.span()}, so no {label} latency",
            HttpLatency(quantile=q, value_seconds=None, service=args.service),
            whole_expr,
            run.window.end,
        )
        return run.result(found=False, exists=True, facts=[fact])
    points = curve.series[0].points if curve.series else []
    worst = max_point(points)
    worst_text = (
        f"; worst {r}s interval {fmt_num(worst[1])} s at {run.time(worst[0])}" if worst else ""
    )
    fact = run.fact(
        f"{args.service} in {run.env}: {label} latency {fmt_num(value)} s over the window "
        f"{run.span()}{worst_text} ({source_text})",
        HttpLatency(
            quantile=q,
            value_seconds=value,
            max_seconds=worst[1] if worst else None,
            max_at=worst[0].isoformat() if worst else None,
            service=args.service,
            namespace=args.namespace,
        ),
        whole_expr,
        worst[0] if worst else None,
    )
    return run.result(found=True, exists=True, facts=[fact])
