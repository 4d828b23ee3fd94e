"""Pods and containers: restart counters (kube-state-metrics) and CPU / memory usage
(cAdvisor) against requests and limits."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import model_validator

from connectors.victoriametrics._common import (
    Matcher,
    Run,
    gather,
    max_point,
    name_regex,
    optional_k8s_name,
    selector,
)
from policy.facts import MetricsRestarts, MetricsUsage
from policy.numbers import Nouns, amount_said, count_said, number_said, percent_said
from policy.results import Entity, ResultFact, ToolResult
from policy.units import bytes_said
from policy.window import WindowArgs

RESTARTS = "kube_pod_container_status_restarts_total"
LAST_REASON = "kube_pod_container_status_last_terminated_reason"
CPU = "container_cpu_usage_seconds_total"


def cores_over(selected: str, seconds: int) -> str:
    """The cores a selection of CPU counters used on average over `seconds`: the CPU
    seconds each series grew by, over the window. Not rate(): a container that restarted is
    one series per run, and VictoriaMetrics' rate of a run that lived a few minutes is its
    own rate over those minutes; summed over six runs it is six times what the pod used."""
    return f"(increase({selected}[{seconds}s]) / {seconds})"


# cAdvisor's CFS counters: the share of scheduling periods a container was held back in
# by its CPU limit (the kubernetes-mixin CPUThrottlingHigh alert reads the same two)
THROTTLED = "container_cpu_cfs_throttled_periods_total"
PERIODS = "container_cpu_cfs_periods_total"
MEMORY = "container_memory_working_set_bytes"
REQUESTS = "kube_pod_container_resource_requests"
LIMITS = "kube_pod_container_resource_limits"
BY = "namespace, pod, container"
MAX_FACTS = 10


class PodScopeArgs(WindowArgs):
    namespace: str | None = optional_k8s_name("Kubernetes namespace (any when omitted)")
    service: str | None = optional_k8s_name("workload name; its pods are <service>-<hash>")
    pod: str | None = optional_k8s_name("one pod (wins over service)")
    container: str | None = optional_k8s_name("one container")

    @model_validator(mode="after")
    def _bounded(self) -> PodScopeArgs:
        if not (self.namespace or self.service or self.pod):
            raise ValueError("name a namespace, a service or a pod")
        return self


def pod_matchers(args: PodScopeArgs) -> list[Matcher]:
    matchers: list[Matcher] = [("namespace", "=", args.namespace)] if args.namespace else []
    if args.pod:
        matchers.append(("pod", "=", args.pod))
    elif args.service:
        matchers.append(("pod", "=~", name_regex(args.service)))
    if args.container:
        matchers.append(("container", "=", args.container))
    return matchers


def _scope_text(args: PodScopeArgs) -> str:
    if args.pod:
        return f"pod {args.pod}"
    if args.service:
        return f"pods {args.service}-*"
    return f"namespace {args.namespace}"


Key = tuple[str, str, str]


def _key(labels: dict[str, str]) -> Key:
    return (labels.get("namespace", ""), labels.get("pod", ""), labels.get("container", ""))


def _pods(run: Run, keys: list[Key]) -> list[Entity]:
    seen: dict[str, Entity] = {}
    for ns, pod, container in keys:
        entity = seen.setdefault(pod, Entity(kind="pod", name=pod, env=run.env, namespace=ns))
        entity.attrs.setdefault("containers", []).append(container)
    return list(seen.values())


async def restarts(run: Run, args: PodScopeArgs) -> ToolResult:
    matchers = pod_matchers(args)
    w, r = run.window.seconds, run.window.rate_s
    sel = selector(RESTARTS, matchers)
    inc_expr = f"sum by ({BY}) (increase({sel}[{w}s]))"
    curve_expr = f"sum by ({BY}) (increase({sel}[{r}s]))"
    count_expr = f"max by ({BY}) (max_over_time({sel}[{w}s]))"
    reason_expr = f"max by ({BY}, reason) (max_over_time({selector(LAST_REASON, matchers)}[{w}s]))"
    inc, curves, counts, reasons = await gather(
        run.instant(inc_expr),
        run.range(curve_expr),
        run.instant(count_expr),
        run.instant(reason_expr),
    )
    if not inc.series:
        return run.result(
            found=False,
            exists=False,
            warnings=[
                f"{RESTARTS} has no series for {_scope_text(args)} in {run.env} {run.span()}: "
                "no data, which does not mean zero restarts"
            ],
            note="no data for the scope",
        )
    first_at = {
        _key(s.labels): next((t for t, v in s.points if v > 0), None) for s in curves.series
    }
    lifetime = {_key(s.labels): s.value for s in counts.series}
    reason = {_key(s.labels): s.labels.get("reason") for s in reasons.series if s.value > 0}
    rows = sorted(inc.series, key=lambda s: (-s.value, _key(s.labels)))
    restarted = [s for s in rows if s.value > 0]
    quiet = [s for s in rows if s.value <= 0]
    facts: list[ResultFact] = []
    for series in restarted[:MAX_FACTS]:
        key = _key(series.labels)
        when: datetime | None = first_at.get(key)
        extra = f"; first increase seen at {run.time(when)}" if when else ""
        if reason.get(key):
            extra += f"; last terminated reason {reason[key]}"
        facts.append(
            _restart_fact(
                run,
                key,
                series.value,
                lifetime.get(key),
                reason.get(key),
                when,
                inc_expr,
                f"pod {key[1]} container {key[2]} in {run.env} restarted "
                f"{count_said(round(series.value), Nouns.TIME)} {run.span()}{extra}",
            )
        )
    if len(rows) <= MAX_FACTS:
        for series in quiet:
            key = _key(series.labels)
            facts.append(
                _restart_fact(
                    run,
                    key,
                    0.0,
                    lifetime.get(key),
                    reason.get(key),
                    None,
                    inc_expr,
                    f"pod {key[1]} container {key[2]} in {run.env}: no restarts {run.span()} "
                    f"(restart counter {number_said(lifetime.get(key, 0.0))})",
                )
            )
    elif quiet:
        names = ", ".join(f"{k[1]}/{k[2]}" for k in map(_key, (s.labels for s in quiet[:5])))
        facts.append(
            run.fact(
                f"{len(quiet)} other containers of {_scope_text(args)} in {run.env} did not "
                f"restart {run.span()} (e.g. {names})",
                MetricsRestarts(pod=None, container=None, increase=0.0, containers=len(quiet)),
                inc_expr,
                run.window.end,
            )
        )
    warnings = (
        [f"{len(restarted) - MAX_FACTS} more restarted containers not shown"]
        if len(restarted) > MAX_FACTS
        else []
    )
    return run.result(
        found=True,
        exists=True,
        facts=facts,
        warnings=warnings,
        entities=_pods(run, [_key(s.labels) for s in rows]),
    )


def _restart_fact(
    run: Run,
    key: Key,
    increase: float,
    lifetime: float | None,
    reason: str | None,
    when: datetime | None,
    expr: str,
    text: str,
) -> ResultFact:
    return run.fact(
        text,
        MetricsRestarts(
            namespace=key[0],
            pod=key[1],
            container=key[2],
            increase=increase,
            restarts_total=lifetime,
            last_reason=reason,
            first_increase_at=when.isoformat() if when else None,
        ),
        expr,
        when,
    )


async def resource_usage(run: Run, args: PodScopeArgs) -> ToolResult:
    matchers = pod_matchers(args)
    usage = [*matchers, ("container", "!=", ""), ("container", "!=", "POD")]
    w, r = run.window.seconds, run.window.rate_s
    cpu_expr = f"sum by ({BY}) (rate({selector(CPU, usage)}[{r}s]))"
    cpu_avg_expr = f"sum by ({BY}) ({cores_over(selector(CPU, usage), w)})"
    mem_expr = f"max by ({BY}) ({selector(MEMORY, usage)})"
    req_expr = f"max by ({BY}, resource) (last_over_time({selector(REQUESTS, matchers)}[{w}s]))"
    lim_expr = f"max by ({BY}, resource) (last_over_time({selector(LIMITS, matchers)}[{w}s]))"
    throttled_expr = f"sum by ({BY}) (increase({selector(THROTTLED, usage)}[{w}s]))"
    periods_expr = f"sum by ({BY}) (increase({selector(PERIODS, usage)}[{w}s]))"
    cpu, cpu_avg, mem, req, lim, throttled, periods = await gather(
        run.range(cpu_expr),
        run.instant(cpu_avg_expr),
        run.range(mem_expr),
        run.instant(req_expr),
        run.instant(lim_expr),
        run.instant(throttled_expr),
        run.instant(periods_expr),
    )
    rows: dict[Key, dict[str, Any]] = {}
    for s in cpu.series:
        peak = max_point(s.points)
        rows.setdefault(_key(s.labels), {})["cpu_peak"] = peak
    for s in cpu_avg.series:
        rows.setdefault(_key(s.labels), {})["cpu_avg"] = s.value
    for s in mem.series:
        row = rows.setdefault(_key(s.labels), {})
        row["mem_peak"] = max_point(s.points)
        row["mem_avg"] = sum(v for _, v in s.points) / len(s.points)
        row["mem_at"] = s.at
    volumes = await _volume_facts(run, args)
    if not rows and volumes:
        return run.result(found=True, exists=True, facts=volumes)
    if not rows:
        return run.result(
            found=False,
            exists=False,
            warnings=[
                f"no {CPU} / {MEMORY} series for {_scope_text(args)} in {run.env} "
                f"{run.span()}: no usage data"
            ],
            note="no data for the scope",
        )
    for source, name in ((req, "request"), (lim, "limit")):
        for s in source.series:
            if _key(s.labels) in rows:
                rows[_key(s.labels)][f"{s.labels.get('resource')}_{name}"] = s.value
    held = {_key(s.labels): s.value for s in throttled.series}
    for s in periods.series:
        key = _key(s.labels)
        if key in rows and s.value > 0 and key in held:
            rows[key]["throttled"] = min(1.0, held[key] / s.value)

    def pressure(item: tuple[Key, dict[str, Any]]) -> float:
        row = item[1]
        peak = row.get("mem_peak")
        bound = row.get("memory_limit") or row.get("memory_request")
        return -(peak[1] / bound) if peak and bound else 0.0

    ordered = sorted(rows.items(), key=lambda item: (pressure(item), item[0]))
    facts: list[ResultFact] = []
    if len(rows) > 1:
        facts.append(_totals(run, args, rows, cpu_avg_expr))
    for key, row in ordered[:MAX_FACTS]:
        facts.extend(_usage_facts(run, key, row, cpu_expr, mem_expr))
    facts.extend(volumes)
    warnings = (
        [f"{len(rows) - MAX_FACTS} more containers not shown (see raw)"]
        if len(rows) > MAX_FACTS
        else []
    )
    return run.result(
        found=True,
        exists=True,
        facts=facts,
        warnings=warnings,
        entities=_pods(run, list(rows)),
    )


# kubelet's volume stats, by PersistentVolumeClaim: what a full disk behind a database's
# crash loop looks like before its log says "No space left on device"
VOLUME_STATS = (
    "kubelet_volume_stats_available_bytes",
    "kubelet_volume_stats_capacity_bytes",
    "kubelet_volume_stats_inodes_free",
    "kubelet_volume_stats_inodes",
)


async def _volume_facts(run: Run, args: PodScopeArgs) -> list[ResultFact]:
    """The claims of the workload's pods (a StatefulSet's "<template>-<name>-<n>"), with
    their free bytes and inodes at the window's end."""
    if not args.service:
        return []
    name = args.service.replace(".", "\\.")
    claim = [("persistentvolumeclaim", "=~", f"(.+-)?{name}(-.+)?")]
    matchers = ([("namespace", "=", args.namespace)] if args.namespace else []) + claim
    reads = await gather(
        *(
            run.instant(
                "max by (namespace, persistentvolumeclaim) "
                f"(last_over_time({selector(m, matchers)}[{run.window.seconds}s]))"
            )
            for m in VOLUME_STATS
        )
    )
    values: dict[tuple[str, str], list[float | None]] = {}
    for i, read in enumerate(reads):
        for series in read.series:
            key = (
                series.labels.get("namespace", ""),
                series.labels.get("persistentvolumeclaim", ""),
            )
            values.setdefault(key, [None] * len(VOLUME_STATS))[i] = series.value
    facts = []
    for (ns, pvc), (free, size, inodes_free, inodes) in sorted(values.items())[:MAX_FACTS]:
        if free is None or not size:
            continue
        text = (
            f"volume claim {ns}/{pvc} in {run.env}: {bytes_said(free)} available of "
            f"{bytes_said(size)} ({percent_said(free / size)})"
        )
        if inodes:
            text += f"; {number_said(inodes_free or 0)} of {number_said(inodes)} inodes free"
        facts.append(
            run.fact(
                text + f" at {run.time(run.window.end)}",
                MetricsUsage(
                    namespace=ns,
                    resource="volume",
                    claim=pvc,
                    usage=size - free,
                    limit=size,
                    inodes_free=inodes_free,
                    inodes=inodes,
                ),
                selector(VOLUME_STATS[0], matchers),
                run.window.end,
            )
        )
    return facts


def _totals(run: Run, args: PodScopeArgs, rows: dict[Key, dict[str, Any]], expr: str) -> ResultFact:
    """Reserved (requests) vs really used, summed over every container read: the answer to
    'how much is reserved and how much is really used'."""

    def total(field: str) -> float | None:
        values = [row[field] for row in rows.values() if row.get(field) is not None]
        return sum(values) if values else None

    cpu_used, cpu_req = total("cpu_avg"), total("cpu_request")
    mem_used, mem_req = total("mem_avg"), total("memory_request")

    def share(used: float | None, req: float | None) -> str:
        if used is None or not req:
            return ""
        if used >= 2 * req:  # "645% of requests" reads as a share; it is a multiple
            return f" ({number_said(used / req)}x the requests)"
        return f" ({percent_said(used / req)} of the requests)"

    cpu_text = (
        f"CPU used {amount_said(cpu_used or 0.0, Nouns.CORE)} on average vs "
        f"{amount_said(cpu_req, Nouns.CORE) if cpu_req is not None else 'no cores'} requested"
        f"{share(cpu_used, cpu_req)}"
    )
    requested = bytes_said(mem_req) if mem_req is not None else "no"
    mem_text = (
        f"memory used {bytes_said(mem_used or 0.0)} on average vs "
        f"{requested} requested{share(mem_used, mem_req)}"
    )
    return run.fact(
        f"{_scope_text(args)} in {run.env}, {count_said(len(rows), Nouns.CONTAINER)} "
        f"{run.span()}: "
        f"{cpu_text}; {mem_text}",
        MetricsUsage(
            scope="total",
            containers=len(rows),
            cpu_used=cpu_used,
            cpu_requested=cpu_req,
            memory_used=mem_used,
            memory_requested=mem_req,
        ),
        expr,
        None,
    )


def _bounds(request: float | None, limit: float | None, fmt: Any) -> str:
    parts = [
        f"request {fmt(request)}" if request is not None else "no request",
        f"limit {fmt(limit)}" if limit is not None else "no limit",
    ]
    return " vs " + ", ".join(parts)


def _usage_facts(
    run: Run, key: Key, row: dict[str, Any], cpu_expr: str, mem_expr: str
) -> list[ResultFact]:
    facts: list[ResultFact] = []
    who = f"pod {key[1]} container {key[2]} in {run.env}"
    if "cpu_avg" in row or "cpu_peak" in row:
        avg, peak = row.get("cpu_avg"), row.get("cpu_peak")
        request, limit = row.get("cpu_request"), row.get("cpu_limit")
        peak_text = f" (peak {number_said(peak[1])} at {run.time(peak[0])})" if peak else ""

        def cores(v: float) -> str:
            return amount_said(v, Nouns.CORE)

        throttled = row.get("throttled")
        held = (
            f"; throttled by its CPU limit in {percent_said(throttled)} of its scheduling periods"
            if throttled
            else ""
        )
        facts.append(
            run.fact(
                f"{who}: CPU {cores(avg or 0.0)} on average {run.span()}{peak_text}"
                f"{_bounds(request, limit, cores)}{held}",
                MetricsUsage(
                    namespace=key[0],
                    pod=key[1],
                    container=key[2],
                    resource="cpu",
                    usage=avg,
                    peak=peak[1] if peak else None,
                    request=request,
                    limit=limit,
                    throttled=throttled,
                ),
                cpu_expr,
                peak[0] if peak else None,
            )
        )
    if "mem_peak" in row:
        peak, avg = row["mem_peak"], row["mem_avg"]
        request, limit = row.get("memory_request"), row.get("memory_limit")
        share = f" ({percent_said(peak[1] / limit)} of the limit)" if limit else ""
        facts.append(
            run.fact(
                f"{who}: memory working set peak {bytes_said(peak[1])} at {run.time(peak[0])} "
                f"(average {bytes_said(avg)}) {run.span()}{_bounds(request, limit, bytes_said)}"
                f"{share}",
                MetricsUsage(
                    namespace=key[0],
                    pod=key[1],
                    container=key[2],
                    resource="memory",
                    usage=avg,
                    peak=peak[1],
                    request=request,
                    limit=limit,
                ),
                mem_expr,
                peak[0],
            )
        )
    return facts
