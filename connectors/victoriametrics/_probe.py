"""`doctor` for a metrics source: does it answer, and which of the families the tools read
(an edge or mesh layout, kube-state-metrics, cAdvisor, node_exporter) it holds."""

from __future__ import annotations

from datetime import datetime, timedelta

from connectors.victoriametrics._client import ClientPool
from connectors.victoriametrics._cluster_tools import ENDPOINTS
from connectors.victoriametrics._http_layouts import LAYOUTS
from connectors.victoriametrics._node_tools import NODE_METRICS
from connectors.victoriametrics._settings import MetricsTarget
from connectors.victoriametrics._workload_tools import CPU, MEMORY, RESTARTS
from policy.errors import SourceError
from policy.probe import Probe

LOOKBACK = timedelta(days=1)
# family -> (the metrics that stand for it, what is a gap without it)
FAMILIES: dict[str, tuple[tuple[str, ...], str]] = {
    "kube-state-metrics": ((RESTARTS, ENDPOINTS), "no restarts or ready endpoints over time"),
    "cAdvisor": ((CPU, MEMORY), "no container CPU or memory"),
    "node_exporter": (tuple(m for _k, m, _d in NODE_METRICS), "node network health is partial"),
}


async def probe(target: MetricsTarget, now: datetime) -> Probe:
    pool = ClientPool({target.env: target}, None)
    client = pool.client(target)
    try:
        http = [lay.requests for lay in LAYOUTS]
        wanted = [*http, *(m for metrics, _ in FAMILIES.values() for m in metrics)]
        expr = (
            f'count by (__name__) (last_over_time({{__name__=~"{"|".join(wanted)}"}}'
            f"[{int(LOOKBACK.total_seconds())}s]))"
        )
        try:
            result = await client.instant(expr, now)
        except SourceError as err:
            return Probe(source="metrics", env=target.env, answered=False, detail=err.reason)
        held = {s.labels.get("__name__") for s in result.series}
        found: list[str] = []
        missing: list[str] = []
        layouts = [f"{lay.name} ({lay.requests})" for lay in LAYOUTS if lay.requests in held]
        if layouts:
            found.append(f"HTTP request counters: {', '.join(layouts)}")
        else:
            missing.append(
                "HTTP request counters: none of "
                f"{', '.join(f'{lay.requests} ({lay.name})' for lay in LAYOUTS)}: error rates "
                "and latency are gaps"
            )
        for family, (metrics, meaning) in FAMILIES.items():
            have = [m for m in metrics if m in held]
            if have:
                found.append(f"{family}: {', '.join(have)}")
            lacking = [m for m in metrics if m not in held]
            if lacking:
                missing.append(f"{family}: no {', '.join(lacking)} (without it: {meaning})")
        return Probe(
            source="metrics",
            env=target.env,
            answered=True,
            detail=f"Prometheus query API at {target.url}",
            found=found,
            missing=missing,
        )
    finally:
        await pool.aclose()
