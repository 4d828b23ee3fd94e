"""HTTP traffic at the edge or in the mesh: request rate, error counts, latency quantiles.

Read through whichever layout holds the service's series (see _http_layouts)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, Any

from pydantic import Field

from connectors.victoriametrics._common import (
    Matcher,
    Run,
    gather,
    k8s_name,
    max_point,
    optional_k8s_name,
    selector,
)
from connectors.victoriametrics._http_layouts import (
    ISTIO,
    LAYOUTS,
    HttpLayout,
    Variant,
    flags_said,
)
from policy.facts import HttpLatency, HttpRate
from policy.numbers import (
    Nouns,
    count_said,
    integer_said,
    number_said,
    rate_range_said,
    rate_said,
    share_said,
)
from policy.results import Entity, Relation, ResultFact, ToolResult
from policy.window import WindowArgs

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
    """Matchers that find the service in an application's own `metric` (by the first of
    `labels` naming it), or None when it has no series for the scope."""
    names = [service, *(fronts or [])] if service else []
    tries = [[*base, (label, "=", name)] for name in names for label in labels] or [base]
    found = await _first(run, [(metric, m) for m in tries])
    return None if found is None else tries[found]


MAX_QUERY_CHARS = 6000  # well under VictoriaMetrics' -search.maxQueryLen (16 KiB)


async def _first(run: Run, tries: list[tuple[str, list[Matcher]]]) -> int | None:
    """The index of the first selector with series in the window: as few queries as
    the query length allows, read at once."""
    w = run.window.seconds
    parts = [
        f'label_replace(count(last_over_time({selector(metric, m)}[{w}s])), "via", "{i}", "", "")'
        for i, (metric, m) in enumerate(tries)
    ]
    chunks: list[list[str]] = [[]]
    for part in parts:
        if chunks[-1] and sum(map(len, chunks[-1])) + len(part) > MAX_QUERY_CHARS:
            chunks.append([])
        chunks[-1].append(part)
    reads = await gather(*(run.instant(" or ".join(chunk)) for chunk in chunks if chunk))
    found = {s.labels.get("via") for read in reads for s in read.series if s.value > 0}
    return next((i for i in range(len(tries)) if str(i) in found), None)


@dataclass(frozen=True)
class Resolved:
    """The layout whose series hold the scope, and the selector that found them."""

    layout: HttpLayout
    matchers: list[Matcher]
    variant: Variant

    def said(self) -> str:
        return self.layout.name + (f", {self.variant.said}" if self.variant.said else "")


def _metric(layout: HttpLayout, histogram: bool) -> str | None:
    return layout.buckets if histogram else layout.requests


async def resolve_layout(
    run: Run,
    namespace: str | None,
    service: str | None,
    fronts: list[str] | None = None,
    *,
    histogram: bool = False,
) -> Resolved | None:
    """The first layout (ingress-nginx, Traefik, Istio, HAProxy, ...) with series for the
    service, or for the namespace or env when no service is named."""
    names = [service, *(fronts or [])] if service else None
    tries: list[tuple[HttpLayout, str, list[Matcher], Variant]] = []
    for layout in LAYOUTS:
        metric = _metric(layout, histogram)
        if metric is not None:
            tries += [(layout, metric, m, v) for m, v in layout.tries(namespace, names)]
    found = await _first(run, [(metric, m) for _, metric, m, _ in tries])
    if found is None:
        return None
    layout, _, matchers, variant = tries[found]
    return Resolved(layout, matchers, variant)


def looked_for(*, histogram: bool = False) -> str:
    """Every metric a layout would have, for a "no data" that says what was looked for."""
    named = [(_metric(lay, histogram), lay.name) for lay in LAYOUTS]
    return ", ".join(f"{m} ({name})" for m, name in named if m)


def via(found: Resolved, service: str | None) -> str:
    """The layout that counted, and the name in front of the workload the series were
    found under when it was not the workload's own."""
    named = [
        (k, v)
        for k, op, v in found.matchers
        if op == "=" and k not in ("reporter",) and not k.endswith("namespace")
    ]
    shown = "".join(f", labelled {k}={v}" for k, v in named if v != service)
    return f"{found.said()}{shown}"


def _no_data(
    run: Run, meaning: str, where: list[Matcher], *, histogram: bool = False
) -> ToolResult:
    scope = ", ".join(f"{k}={v}" for k, _, v in where) or "this environment"
    return run.result(
        found=False,
        exists=False,
        warnings=[
            f"no series for {scope} in {run.env} {run.span()} in any known layout "
            f"(looked for {looked_for(histogram=histogram)}): {meaning}"
        ],
        note="no data for the scope",
    )


def _scope(namespace: str | None, service: str | None) -> list[Matcher]:
    return [
        *([("namespace", "=", namespace)] if namespace else []),
        *([("service", "=", service)] if service else []),
    ]


def _entities(run: Run, labels: list[dict[str, str]]) -> tuple[list[Entity], list[Relation]]:
    entities: dict[str, Entity] = {}
    relations: dict[str, Relation] = {}
    for item in labels:
        ns, ing, svc = item.get("namespace"), item.get("ingress"), item.get("service")
        if ing:
            entities[f"ingress/{ing}"] = Entity(kind="ingress", name=ing, env=run.env, namespace=ns)
        if svc and "@" not in svc:
            entities[f"service/{svc}"] = Entity(kind="service", name=svc, env=run.env, namespace=ns)
        if ing and svc:
            relations[f"{ing}>{svc}"] = Relation(
                src=f"ingress/{ing}", rel="routes_to", dst=f"service/{svc}", source=run.source
            )
    return list(entities.values()), list(relations.values())


async def http_requests(run: Run, args: HttpRequestsArgs) -> ToolResult:
    found = await resolve_layout(run, args.namespace, args.service, args.fronts)
    if found is None:
        meaning = "no data, which does not mean zero requests"
        return _no_data(run, meaning, _scope(args.namespace, args.service))
    layout = found.layout
    sel, w = selector(layout.requests, found.matchers), run.window.seconds
    total_expr = f"sum by ({', '.join(layout.group_labels)}) (increase({sel}[{w}s]))"
    range_expr = f"sum(rate({sel}[{run.window.rate_s}s]))"
    totals, curve = await gather(run.instant(total_expr), run.range(range_expr))
    count = sum(s.value for s in totals.series)
    avg = count / w
    points = curve.series[0].points if curve.series else []
    lo = min(points, key=lambda p: p[1]) if points else None
    hi = max_point(points)
    rows = [layout.plain(s.labels, found.variant) for s in totals.series]
    namespaces = sorted({r.get("namespace", "") for r in rows} - {""}) or (
        [args.namespace] if args.namespace else []
    )
    extremes = (
        f" (per-{run.window.rate_s}s rate {rate_range_said(lo[1], hi[1], of='req')})"
        if lo and hi
        else ""
    )
    text = (
        f"{args.service} ({', '.join(namespaces) or 'any namespace'}) in {run.env}: "
        f"{rate_said(avg, of='req', like=hi[1] if hi else None)} on average "
        f"{run.span()}{extremes}; "
        f"{count_said(round(count), Nouns.REQUEST)} in total ({via(found, args.service)})"
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
    entities, relations = _entities(run, rows)
    return run.result(found=True, exists=True, facts=[fact], entities=entities, relations=relations)


def _first_above_zero(points: list[tuple[datetime, float]]) -> datetime | None:
    return next((t for t, v in points if v > 0), None)


def _error_fact(
    run: Run,
    args: HttpErrorsArgs,
    row: dict[str, Any],
    requests: float,
    range_expr: str,
    counted_by: str,
    caveat: str | None = None,
) -> ResultFact:
    labels, total, points = row["labels"], row["total"], row["points"]
    w, r = run.window.seconds, run.window.rate_s
    name = labels.get("ingress") or labels.get("name") or args.service or "?"
    peak, started = max_point(points), _first_above_zero(points)
    share = (
        f"; {share_said(total, requests)} of {count_said(round(requests), Nouns.REQUEST)}"
        if requests
        else ""
    )
    peak_text = f", peak {rate_said(peak[1])} ({r}s rate) at {run.time(peak[0])}" if peak else ""
    ongoing = (
        started is not None
        and started == points[0][0]
        and points[0][0] <= (run.window.start + timedelta(seconds=run.window.step_s))
    )
    start_text = f", first seen at {run.time(started)}" if started else ""
    if ongoing:
        start_text = ", already above zero when the window starts"
    flags = labels.get("response_flags")
    flag_text = f", response flags {flags_said(flags)}" if flags else ""
    flag_text += f" ({labels.get('via') or counted_by})"
    namespace = labels.get("namespace") or args.namespace or "?"
    text = (
        f"{name} ({namespace}) in {run.env}: {count_said(round(total), Nouns.RESPONSE)} "
        f"with status {labels.get('status', args.status)}{flag_text} {run.span()} "
        f"({rate_said(total / w, like=peak[1] if peak else None)} on average"
        f"{peak_text}{start_text}){share}" + (f"; {caveat}" if caveat else "")
    )
    return run.fact(
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
            service=labels.get("service")
            if "@" not in labels.get("service", "@")
            else args.service,
            namespace=labels.get("namespace") or args.namespace,
            window_s=w,
        ),
        range_expr,
        started or (peak[0] if peak else None),
    )


# nginx's code for a request the client closed before the answer: a proxy's "no 5xx"
# beside many of them is where an edge in front of it gave up and answered 504 itself
CLIENT_CLOSED = "499"


async def _client_closed(run: Run, layout: Any, matchers: list[Any], asked: str) -> float:
    """How many requests the client closed, when a 5xx class asked for found none."""
    if not asked.startswith("5") or layout.classes_only:
        return 0.0
    closed, _ = layout.status(CLIENT_CLOSED)
    expr = f"sum(increase({selector(layout.requests, [*matchers, closed])}[{run.window.seconds}s]))"
    read = await run.instant(expr)
    return float(read.scalar(0) or 0.0)


async def _failed_calls(run: Run, args: HttpErrorsArgs) -> list[ResultFact]:
    """The calls the service made that failed, by callee, as its own sidecar reports them
    (Istio's source_workload): the mesh says where a caller's errors come from when its
    log names no host."""
    w = run.window.seconds
    sel = selector(
        ISTIO.requests,
        [
            ("reporter", "=", "source"),
            ("source_workload", "=", str(args.service)),
            ("response_code", "=~", "5.."),
        ],
    )
    by = "destination_workload, destination_workload_namespace, response_code, response_flags"
    expr = f"sum by ({by}) (increase({sel}[{w}s]))"
    read = await run.instant(expr)
    out = []
    for series in sorted(read.series, key=lambda s: -s.value)[:5]:
        callee = series.labels.get("destination_workload")
        if series.value <= 0 or not callee or callee == "unknown":
            continue
        flags = series.labels.get("response_flags")
        code = series.labels.get("response_code")
        out.append(
            run.fact(
                f"{args.service}'s calls to {callee} in {run.env}: "
                f"{integer_said(round(series.value))} answered {code}"
                f"{f' ({flags})' if flags and flags != '-' else ''} "
                f"{run.span()} (Istio, as {args.service}'s sidecar reports)",
                HttpRate(
                    what="errors",
                    value=series.value / w,
                    status=code,
                    total=series.value,
                    service=args.service,
                    namespace=args.namespace,
                    window_s=w,
                    callee=callee,
                ),
                expr,
                run.window.end,
            )
        )
    return out


async def http_errors(run: Run, args: HttpErrorsArgs) -> ToolResult:
    found = await resolve_layout(run, args.namespace, args.service, args.fronts)
    if found is None:
        meaning = f"no data, which does not mean zero {args.status} responses"
        return _no_data(run, meaning, _scope(args.namespace, args.service))
    layout = found.layout
    w, r = run.window.seconds, run.window.rate_s
    status, caveat = layout.status(args.status)
    err_sel = selector(layout.requests, [*found.matchers, status])
    total_expr = f"sum by ({layout.by()}) (increase({err_sel}[{w}s]))"
    range_expr = f"sum by ({layout.by()}) (rate({err_sel}[{r}s]))"
    all_expr = f"sum(increase({selector(layout.requests, found.matchers)}[{w}s]))"
    reads = [(found.variant, total_expr, range_expr)]
    other = layout.unreached
    if other is not None and found.variant == layout.variants[0]:
        keep = [m for m in found.matchers if m not in found.variant.extra]
        sel = selector(layout.requests, [*keep, *other.extra, status])
        reads.append(
            (
                other,
                f"sum by ({layout.by()}) (increase({sel}[{w}s]))",
                f"sum by ({layout.by()}) (rate({sel}[{r}s]))",
            )
        )
    results = await gather(
        run.instant(all_expr),
        *(q for _, t, g in reads for q in (run.instant(t), run.range(g))),
    )
    requests = results[0].scalar(0) or 0.0
    rows: list[dict[str, Any]] = []
    for i, (variant, _t, _g) in enumerate(reads):
        totals, curves = results[1 + 2 * i], results[2 + 2 * i]
        by_key = {tuple(sorted(s.labels.items())): s.points for s in curves.series}
        for series in totals.series:
            points = by_key.get(tuple(sorted(series.labels.items())), [])
            if series.value <= 0 and not any(v > 0 for _, v in points):
                continue
            labels = layout.plain(series.labels, variant)
            if variant is not found.variant:
                labels["via"] = variant.said
            rows.append({"labels": labels, "total": series.value, "points": points})
    rows.sort(key=lambda row: -row["total"])
    facts = [
        _error_fact(run, args, row, requests, range_expr, found.said(), caveat) for row in rows[:10]
    ]
    warnings = [f"{len(rows) - 10} more error series not shown"] if len(rows) > 10 else []
    warnings += [caveat] if caveat else []
    series_names = sorted({str(row["labels"].get("name")) for row in rows} - {"None"})
    if args.service and len(series_names) > 1:
        warnings.append(
            f"{args.service} matched {len(series_names)} {layout.name} series names "
            f"({', '.join(series_names[:5])}): the count covers all of them; name the "
            "namespace to narrow it"
        )
    # one service's several statuses or sources: its total first, with what it is made of
    if len(rows) > 1 and (args.service or len(series_names) <= 1):
        total = sum(row["total"] for row in rows)

        def made_of(group: list[dict[str, Any]]) -> str:
            return ", ".join(
                f"{integer_said(round(row['total']))} {row['labels'].get('status')}"
                + (
                    f" {row['labels']['response_flags']}"
                    if row["labels"].get("response_flags")
                    else ""
                )
                for row in group[:10]
            )

        ingresses: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            ingresses.setdefault(str(row["labels"].get("ingress") or ""), []).append(row)
        if len(ingresses) > 1:  # through several ingresses (classes): each one's own total
            parts = "; ".join(
                f"{integer_said(round(sum(r['total'] for r in group)))} through ingress "
                f"{name or '?'}: {made_of(group)}"
                for name, group in sorted(ingresses.items(), key=lambda kv: -len(kv[1]))
            )
        else:
            parts = made_of(rows)
        target = args.service or args.namespace or run.env
        share = (
            f"; {share_said(total, requests)} of {count_said(round(requests), Nouns.REQUEST)}"
            if requests
            else ""
        )
        facts.insert(
            0,
            run.fact(
                f"{target} in {run.env}: {count_said(round(total), Nouns.RESPONSE)} with status "
                f"{args.status} in total {run.span()} ({parts}){share} "
                f"({via(found, args.service)})",
                HttpRate(
                    what="errors",
                    value=total / w,
                    status=args.status,
                    total=total,
                    share=total / requests if requests else None,
                    service=args.service,
                    namespace=args.namespace,
                    window_s=w,
                ),
                total_expr,
                run.window.end,
            ),
        )
    # the service's own failed calls, by callee: beside its answers, never counted in them
    calls = await _failed_calls(run, args) if layout is ISTIO and args.service else []
    entities, relations = _entities(run, [row["labels"] for row in rows])
    if not facts:
        target = args.service or args.namespace or run.env
        closed = await _client_closed(run, layout, found.matchers, args.status)
        gave_up = (
            f"; {count_said(round(closed), Nouns.REQUEST)} ended with {CLIENT_CLOSED} (the client "
            "closed the connection before the answer: a layer in front of this one may have "
            "timed out)"
            if closed
            else ""
        )
        facts.append(
            run.fact(
                f"{target} in {run.env}: no responses with status {args.status} {run.span()} "
                f"({count_said(round(requests), Nouns.REQUEST)} counted by "
                f"{via(found, args.service)})"
                f"{gave_up}",
                HttpRate(
                    what="errors",
                    value=0.0,
                    status=args.status,
                    total=0.0,
                    service=args.service,
                    namespace=args.namespace,
                    window_s=w,
                    client_closed=closed or None,
                ),
                total_expr,
                run.window.end,
            )
        )
        return run.result(found=False, exists=True, facts=facts + calls, warnings=warnings)
    return run.result(
        found=True,
        exists=True,
        facts=facts + calls,
        warnings=warnings,
        entities=entities,
        relations=relations,
    )


async def _latency_source(
    run: Run, namespace: str | None, service: str, fronts: list[str] | None = None
) -> tuple[str, list[Matcher], str, float] | None:
    """An edge or mesh histogram, else an application one (Micrometer, Prometheus
    client): a service behind no proxy still has a latency. (metric, matchers, what it
    is, seconds per bucket unit)."""
    found = await resolve_layout(run, namespace, service, fronts, histogram=True)
    if found is not None and found.layout.buckets:
        layout = found.layout
        what = f"{found.said()} request duration histogram"
        return layout.buckets or "", found.matchers, what, layout.bucket_unit_s
    base: list[Matcher] = [("namespace", "=", namespace)] if namespace else []
    for metric, labels in APP_BUCKETS:
        for scope in [base, []] if base else [base]:
            matchers = await resolve_scope(run, metric, scope, service, labels)
            if matchers is not None:
                return metric, matchers, f"application histogram {metric}", 1.0
    return None


async def latency(run: Run, args: LatencyArgs) -> ToolResult:
    found = await _latency_source(run, args.namespace, args.service, args.fronts)
    if found is None:
        return _no_data(
            run, "no latency data", _scope(args.namespace, args.service), histogram=True
        )
    metric, matchers, source_text, unit = found
    sel, w, r, q = selector(metric, matchers), run.window.seconds, run.window.rate_s, args.quantile
    scale = "" if unit == 1.0 else f" * {unit:g}"
    whole_expr = f"histogram_quantile({q}, sum by (le) (increase({sel}[{w}s]))){scale}"
    range_expr = f"histogram_quantile({q}, sum by (le) (rate({sel}[{r}s]))){scale}"
    whole, curve = await gather(run.instant(whole_expr), run.range(range_expr))
    value = whole.scalar()
    label = f"p{round(q * 100, 4):g}"
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
        f"; worst {r}s interval {number_said(worst[1])} s at {run.time(worst[0])}" if worst else ""
    )
    fact = run.fact(
        f"{args.service} in {run.env}: {label} latency {number_said(value)} s over the window "
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
