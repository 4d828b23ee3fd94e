"""VictoriaMetrics connector: templated, bounded PromQL tools over the Prometheus query API.

One `MetricsTarget` per environment; `build_tools(targets)` returns one tool per question
type, each taking `env` (closed to the configured environments). Every tool keeps apart:
series returned (`ok`, or `partial` when a read was cut); the query worked but returned no
series (`empty`: complete for a negative only when the base metric exists for the scope,
e.g. ingress-nginx counters exist for the service, so "no 5xx series" means zero errors;
a metric the source never had for the scope is "no data", never "zero"); and a failed
read (an `error` result, i.e. a gap).

Errors (raised `from` the httpx error; policy.ToolSet turns them into `error` results):
    httpx.TimeoutException                      -> SourceTimeout
    httpx.ConnectError, other transport errors  -> SourceUnavailable
    HTTP 401, 403                               -> SourceForbidden
    HTTP 404                                    -> SourceUnsupported
    HTTP 504, 503 with errorType "timeout"      -> SourceTimeout
    HTTP 5xx, 429                               -> SourceUnavailable
    other non-2xx; body not JSON; unexpected shape; "status": "error" on a 2xx
                                                -> SourceMalformed
    HTTP 400 / 422, errorType bad_data | execution | 422
                                                -> not a source failure: the query was
                                                   rejected; the tool returns an `error`
                                                   result (error_kind "invalid_query")
                                                   naming the query
A Prometheus `warnings` entry in a response (e.g. a truncation) makes the result
`partial` with complete_for_negative false, and is passed on in `warnings`.
"""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from connectors.victoriametrics._client import ClientPool
from connectors.victoriametrics._cluster_tools import (
    EndpointsArgs,
    QuotaArgs,
    endpoints_ready,
    quota_usage,
)
from connectors.victoriametrics._common import agent, metrics_tool
from connectors.victoriametrics._discover_tool import DiscoverArgs, discover
from connectors.victoriametrics._http_tools import (
    HttpErrorsArgs,
    HttpRequestsArgs,
    LatencyArgs,
    http_errors,
    http_requests,
    latency,
)
from connectors.victoriametrics._node_tools import NodeNetworkArgs, node_network
from connectors.victoriametrics._probe import probe
from connectors.victoriametrics._promql_tool import PromqlArgs, promql
from connectors.victoriametrics._rank_tool import RankArgs, rank
from connectors.victoriametrics._settings import MetricsTarget
from connectors.victoriametrics._workload_tools import PodScopeArgs, resource_usage, restarts
from policy.errors import ConfigError
from policy.toolset import Tool

__all__ = ["MetricsTarget", "build_tools", "probe"]

_SPECS = (
    (
        "metrics.http_requests",
        "Average request rate (req/s) of a service or ingress over a window, with its min "
        "and max, from ingress-nginx counters (nginx_ingress_controller_requests).",
        HttpRequestsArgs,
        agent(["http.request_rate"], "complete_read"),
        http_requests,
    ),
    (
        "metrics.http_errors",
        "Responses with a status (default 5xx; '502', '50x') by ingress and status over a "
        "window: count, average and peak rate, when they started, share of all requests.",
        HttpErrorsArgs,
        agent(["http.error_rate"], "complete_read"),
        http_errors,
    ),
    (
        "metrics.latency",
        "Latency quantile (default p99) of a service or ingress over a window from the "
        "ingress-nginx request duration histogram, with the worst interval.",
        LatencyArgs,
        agent(["http.latency"], "none"),
        latency,
    ),
    (
        "metrics.restarts",
        "Container restarts per pod over a window (kube_pod_container_status_restarts_total) "
        "with when they began and the last termination reason when reported.",
        PodScopeArgs,
        agent(["metrics.restarts"], "complete_read"),
        restarts,
    ),
    (
        "metrics.endpoints_ready",
        "Ready and not-ready endpoint addresses of a service over a window, from "
        "kube-state-metrics: answers 'were the endpoints ready at 14:11?' for the past.",
        EndpointsArgs,
        agent(["k8s.ready_endpoints"], "complete_read"),
        endpoints_ready,
    ),
    (
        "metrics.resource_usage",
        "CPU and memory usage of pods' containers over a window against their requests "
        "and limits (cAdvisor + kube-state-metrics).",
        PodScopeArgs,
        agent(["metrics.resource_usage"], "none", output_kind="table"),
        resource_usage,
    ),
    (
        "metrics.quota_usage",
        "ResourceQuota used vs hard per resource in a namespace (or all) over a window, "
        "highest ratio first, from kube-state-metrics; works for the past too.",
        QuotaArgs,
        agent(["k8s.quota"], "complete_read", output_kind="table"),
        quota_usage,
    ),
    (
        "metrics.node_network",
        "TCP retransmits and softnet squeezes/drops of one node over a window, each "
        "compared with the median of the other nodes (node_exporter).",
        NodeNetworkArgs,
        agent(["node.network"], "none"),
        node_network,
    ),
    (
        "metrics.top",
        "The pods (of a namespace, or all) or the nodes of an environment ranked by one "
        "measure, highest or lowest first, each place with how many were ranked: pods by "
        "memory, cpu, restarts, memory_of_limit or cpu_of_request; nodes by retransmits.",
        RankArgs,
        agent(["metrics.ranking"], "none", output_kind="table"),
        rank,
    ),
    (
        "metrics.discover",
        "The series whose labels name what the question names (a workload, a consumer group, "
        "a queue, a pool), found by their labels and read by kind: gauges as values (and "
        "their sum), counters as rates, histograms as p99. For metrics no other tool names: "
        "lag, pool usage, queue depth, any business metric.",
        DiscoverArgs,
        agent(["metrics.discovered"], "none"),
        discover,
    ),
    (
        "metrics.promql",
        "Bounded raw PromQL (instant or range) when no other metrics tool fits; selectors "
        "must name a metric; at most max_series series come back.",
        PromqlArgs,
        # raw PromQL can read any series (tenant labels, business metrics): admins only
        agent(["metrics.query"], "none", admin_only=True),
        promql,
    ),
)


def build_tools(
    targets: Sequence[MetricsTarget], transport: httpx.AsyncBaseTransport | None = None
) -> list[Tool]:
    """The metrics tools for these environments; `transport` is a seam for tests."""
    by_env: dict[str, MetricsTarget] = {}
    for target in targets:
        if target.env in by_env:
            raise ConfigError(f"metrics: environment {target.env!r} is configured twice")
        by_env[target.env] = target
    if not by_env:
        return []
    pool = ClientPool(by_env, transport)  # every tool of these targets shares its clients
    return [
        metrics_tool(name, description, args_model, meta, fn, by_env, pool)
        for name, description, args_model, meta, fn in _SPECS
    ]
