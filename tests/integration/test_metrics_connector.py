"""The VictoriaMetrics connector through the policy gate, against the real VictoriaMetrics.

VictoriaMetrics starts once for this file; each world gets its own env prefix. The last
tests use httpx.MockTransport and need no binary.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from connectors.victoriametrics import MetricsTarget, build_tools
from evals.simulators.victoriametrics import (
    MetricsSimulator,
    VictoriaMetrics,
    victoria_metrics_binary,
)
from evals.world import load_world, world_from_data
from policy import CallContext, PolicyGate, Scope, TimeSpec, ToolResult, ToolSet

EXAMPLES = Path(__file__).resolve().parents[2] / "evals" / "scenarios"
vm_only = pytest.mark.victoriametrics


@pytest.fixture(scope="module")
def vm() -> Iterator[VictoriaMetrics]:
    binary = victoria_metrics_binary()
    if binary is None:
        pytest.skip(
            "victoria-metrics binary NOT FOUND (apt-get install victoria-metrics): "
            "the metrics connector integration tests cannot run"
        )
    with VictoriaMetrics(binary) as server:
        yield server


def _gate(sim: MetricsSimulator, **target: Any) -> PolicyGate:
    targets = [
        MetricsTarget(env=env, url=sim.url(env), **target)
        for env in sim.world.environments
        if sim.world.has(env, "metrics")
    ]
    return PolicyGate(ToolSet(build_tools(targets)))


def _ctx(
    now: str,
    *,
    at: str | None = None,
    window: timedelta = timedelta(minutes=15),
    role: str = "engineer",
) -> Any:
    time = TimeSpec(
        at=datetime.fromisoformat(at) if at else None,
        window=window,
        mode="historical" if at else "now",
    )
    return CallContext(
        user="alice",
        role=role,
        scope=Scope(time=time),
        now=datetime.fromisoformat(now),
        timezone="Europe/Moscow",
    )


def _texts(result: ToolResult) -> str:
    return "\n".join(f.text for f in result.facts)


# --- the public examples -------------------------------------------------------------


@pytest.fixture(scope="module")
def switch(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    world = load_world(EXAMPLES / "env-switch-followup.yaml")
    with MetricsSimulator(world, vm, env_prefix="switch:") as sim:
        yield sim


@vm_only
async def test_average_rps_per_data_centre_and_no_carry_over(switch: MetricsSimulator) -> None:
    gate = _gate(switch)
    ctx = _ctx("2026-07-22T16:30:00+03:00", window=timedelta(hours=1))
    switch.query_log.clear()
    a = await gate.call("metrics.http_requests", {"env": "dc-a", "service": "catalog-api"}, ctx)
    assert a.status == "ok"
    assert "412." in a.facts[0].text and "dc-a" in a.facts[0].text
    assert 412 <= a.facts[0].attrs.value < 413
    assert a.facts[0].kind == "http.rate" and a.facts[0].attrs.what == "requests"
    assert a.facts[0].link and "vmui" in a.facts[0].link
    assert a.facts[0].observed_at == datetime.fromisoformat("2026-07-22T16:30:00+03:00")

    switch.query_log.clear()
    b = await gate.call("metrics.http_requests", {"env": "dc-b", "service": "catalog-api"}, ctx)
    assert "137." in b.facts[0].text and 137 <= b.facts[0].attrs.value < 138
    # nothing from dc-a in the dc-b answer: no 412.x rate, no dc-a counter, no dc-a pod
    dumped = json.dumps(b.model_dump(mode="json"))
    assert "412" not in _texts(b)
    assert not [x for x in re.findall(r"\d+\.\d+", dumped) if 400 <= float(x) < 420]
    assert "zq4mt" not in dumped and "1483850" not in dumped
    assert {r.env for r in switch.query_log.records()} == {"dc-b"}
    assert all("catalog-api" in r.params["query"] for r in switch.query_log.records())


@pytest.fixture(scope="module")
def edge(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    world = load_world(EXAMPLES / "edge-502-too-big-header.yaml")
    with MetricsSimulator(world, vm, env_prefix="edge:") as sim:
        yield sim


@vm_only
async def test_endpoints_were_ready_throughout_the_incident(edge: MetricsSimulator) -> None:
    ctx = _ctx("2026-07-20T14:40:00+03:00", at="2026-07-20T14:11:00+03:00")
    args = {"env": "dc-a", "namespace": "payments", "service": "service-a"}
    result = await _gate(edge).call("metrics.endpoints_ready", args, ctx)
    assert result.status == "ok" and result.coverage.complete_for_negative
    (fact,) = result.facts
    assert fact.kind == "k8s.endpoints" and fact.historical
    assert fact.attrs.ready == 2 and fact.attrs.not_ready == 0
    assert fact.attrs.ready_ips == ["10.42.3.17", "10.42.5.22"]
    assert "throughout" in fact.text and "no ready endpoints" not in fact.text.lower()
    assert {r.dst for r in result.relations} == {"endpoint/10.42.3.17", "endpoint/10.42.5.22"}
    # the planner may not know the namespace yet: the service is found in whichever it is
    unscoped = await _gate(edge).call(
        "metrics.endpoints_ready", {"env": "dc-a", "service": "service-a"}, ctx
    )
    assert [f.attrs.namespace for f in unscoped.facts] == ["payments"]
    assert unscoped.facts[0].attrs.ready == 2


@vm_only
async def test_zero_restarts_are_reported_as_zero(edge: MetricsSimulator) -> None:
    ctx = _ctx("2026-07-20T14:40:00+03:00", at="2026-07-20T14:11:00+03:00")
    args = {"env": "dc-a", "namespace": "payments", "service": "service-a"}
    result = await _gate(edge).call("metrics.restarts", args, ctx)
    assert result.status == "ok" and result.coverage.complete_for_negative
    assert sorted(f.attrs.pod for f in result.facts) == [
        "service-a-5d8f7c9b4-m7q4d",
        "service-a-5d8f7c9b4-x2k9p",
    ]
    assert all(f.attrs.increase == 0 and "no restarts" in f.text for f in result.facts)
    assert "OOMKilled" not in _texts(result)
    unscoped = await _gate(edge).call(
        "metrics.restarts", {"env": "dc-a", "service": "service-a"}, ctx
    )
    assert len(unscoped.facts) == 2 and unscoped.status == "ok"
    unbounded = await _gate(edge).call("metrics.restarts", {"env": "dc-a"}, ctx)
    assert unbounded.status == "denied" and "name a namespace" in (unbounded.error or "")


# --- an inline incident world ---------------------------------------------------------

START = "2026-07-20T10:40:00Z"  # 61 one-minute samples to 11:40Z; the incident is 11:10-11:13Z


def counter(increments: list[float], start: float = 1000.0) -> list[float]:
    """A cumulative counter: increments[i] is what was added in the minute to sample i."""
    return list(itertools.accumulate(increments[1:], initial=start))


def per_minute(base: float, burst: float | None = None) -> list[float]:
    """Increments per minute: `base`, or `burst` in the four incident minutes 11:10-11:13."""
    return [burst if burst is not None and 30 <= i <= 33 else base for i in range(61)]


def series(name: str, values: list[float], step: str = "60s", **labels: str) -> dict[str, Any]:
    return {"labels": {"__name__": name, **labels}, "start": START, "step": step, "values": values}


def _incident_metrics() -> list[dict[str, Any]]:
    req = "nginx_ingress_controller_requests"
    web = {"namespace": "payments", "ingress": "service-a", "service": "service-a"}
    shop = {"namespace": "shop", "ingress": "orders"}  # older ingress-nginx: no service label
    spike = [0.0] * 30 + [3, 48, 97, 12] + [0.0] * 27
    out = [
        series(req, counter(per_minute(6000)), status="200", **web),
        series(req, counter(spike, 0), status="502", **web),
        series(req, counter(per_minute(600)), status="200", **shop),
        series(req, counter([x / 2 for x in spike], 0), status="502", **shop),
        series(req, counter(per_minute(60)), status="200", namespace="catalog", ingress="cat"),
    ]
    buckets = {"0.1": 5000, "0.5": 5900, "1": 5990, "+Inf": 6000}
    out += [
        series(
            "nginx_ingress_controller_request_duration_seconds_bucket",
            counter(per_minute(n)),
            le=le,
            **web,
        )
        for le, n in buckets.items()
    ]
    for i in range(1, 6):
        node, burst = f"worker-0{i}", 3000.0 if i == 4 else 60.0
        out.append(
            series(
                "node_netstat_Tcp_RetransSegs",
                counter(per_minute(60, burst)),
                node=node,
                instance=f"10.20.1.1{i}:9100",
            )
        )
        # only the node's address, as kube-prometheus-stack scrapes node-exporter: named
        # by node_exporter's own node_uname_info{nodename}
        address = f"10.20.1.1{i}:9100"
        out.append(series("node_uname_info", [1.0] * 61, instance=address, nodename=node))
        out.append(
            series(
                "node_softnet_dropped_total",
                counter(per_minute(0, 120.0 if i == 4 else 0.0)),
                instance=address,
            )
        )
        for cpu in ("0", "1"):  # only instance=<host>:<port>, no node label
            out.append(
                series(
                    "node_softnet_times_squeezed_total",
                    counter(per_minute(0, 600.0 if i == 4 else 0.0)),
                    instance=f"{node}:9100",
                    cpu=cpu,
                )
            )
    ksm = {"job": "kube-state-metrics"}
    quota = "kube_resourcequota"
    for ns, res, hard, used in (
        ("team-a", "requests.cpu", 20, 19),
        ("team-a", "requests.memory", 64 * 2**30, 32 * 2**30),
        ("team-b", "requests.cpu", 10, 2),
    ):
        for kind, value in (("hard", hard), ("used", used)):
            labels = {"namespace": ns, "resourcequota": "compute", "resource": res, "type": kind}
            out.append(series(quota, [float(value)] * 13, "300s", **ksm, **labels))
    pod = {"namespace": "payments", "pod": "service-a-5d8f7c9b4-x2k9p", "container": "app"}
    out += [
        series("container_cpu_usage_seconds_total", counter(per_minute(30)), **pod),
        series("container_memory_working_set_bytes", [900 * 2**20] * 61, **pod),
        series("kube_pod_container_resource_requests", [0.5] * 13, "300s", resource="cpu", **pod),
        series("kube_pod_container_resource_limits", [2.0] * 13, "300s", resource="cpu", **pod),
        series(
            "kube_pod_container_resource_requests",
            [512.0 * 2**20] * 13,
            "300s",
            resource="memory",
            **pod,
        ),
        series(
            "kube_pod_container_resource_limits", [2.0**30] * 13, "300s", resource="memory", **pod
        ),
    ]
    orders = {"namespace": "shop", "pod": "orders-7c9d8-abcde", "container": "api", **ksm}
    out += [
        series(
            "kube_pod_container_status_restarts_total",
            [0.0] * 32 + [1.0] * 29,
            **orders,
        ),
        series(
            "kube_pod_container_status_last_terminated_reason",
            [None] * 32 + [1.0] * 29,
            reason="OOMKilled",
            **orders,
        ),
    ]
    ep = {"namespace": "shop", "endpoint": "orders", **ksm}
    out += [
        series(
            "kube_endpoint_address",
            [1.0] * 30 + [None] * 4 + [1.0] * 27,
            ip="10.42.1.5",
            ready="true",
            **ep,
        ),
        series(
            "kube_endpoint_address",
            [None] * 30 + [1.0] * 4 + [None] * 27,
            ip="10.42.1.5",
            ready="false",
            **ep,
        ),
        series("kube_endpoint_address", [1.0] * 61, ip="10.42.1.6", ready="true", **ep),
    ]
    return out


@pytest.fixture(scope="module")
def incident(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    world = world_from_data(
        {"environments": {"dc-a": ["metrics"]}, "metrics": {"dc-a": _incident_metrics()}}
    )
    with MetricsSimulator(world, vm, env_prefix="incident:") as sim:
        yield sim


INCIDENT = {"start": "2026-07-20T14:03:30+03:00", "end": "2026-07-20T14:18:30+03:00"}
INCIDENT_NOW = "2026-07-20T14:40:00+03:00"


async def _call(sim: MetricsSimulator, tool: str, **args: Any) -> ToolResult:
    # metrics.promql is admin-only; the other tools are the same for both roles
    role = "admin" if tool == "metrics.promql" else "engineer"
    return await _gate(sim).call(
        tool, {"env": "dc-a", **INCIDENT, **args}, _ctx(INCIDENT_NOW, role=role)
    )


@vm_only
async def test_502_spike_peak_and_start(incident: MetricsSimulator) -> None:
    result = await _call(
        incident, "metrics.http_errors", namespace="payments", service="service-a", status="502"
    )
    assert result.status == "ok"
    (fact,) = result.facts
    attrs = fact.attrs
    assert attrs.what == "errors" and attrs.status == "502" and attrs.total == 160
    assert attrs.started_at == "2026-07-20T11:10:00+00:00"
    # 97 in the minute to 11:12; VictoriaMetrics' rate window is closed on the left, so the
    # first step whose one-minute window holds only that minute is 11:12:15
    assert attrs.peak_at == "2026-07-20T11:12:15+00:00"
    assert 1.6 < attrs.peak < 1.62
    assert "160 responses with status 502" in fact.text
    assert "first seen at 2026-07-20T14:10:00+03:00" in fact.text
    assert attrs.started_before_window is False
    late = await _gate(incident).call(
        "metrics.http_errors",
        {
            "env": "dc-a",
            "service": "service-a",
            "start": "2026-07-20T14:11:30+03:00",
            "end": INCIDENT["end"],
        },
        _ctx(INCIDENT_NOW),
    )
    assert late.facts[0].attrs.started_before_window is True
    assert "already above zero when the window starts" in late.facts[0].text


@vm_only
async def test_502_across_services_finds_the_second_workload(incident: MetricsSimulator) -> None:
    result = await _call(incident, "metrics.http_errors")
    ingresses = {f.attrs.ingress for f in result.facts}
    assert ingresses == {"service-a", "orders"}
    orders = next(f for f in result.facts if f.attrs.ingress == "orders")
    assert orders.attrs.started_at == "2026-07-20T11:10:00+00:00"


@vm_only
async def test_no_5xx_is_zero_only_where_the_service_has_traffic(
    incident: MetricsSimulator,
) -> None:
    # `cat` is found by its ingress label (no service label): requests but no 5xx series
    zero = await _call(incident, "metrics.http_errors", namespace="catalog", service="cat")
    assert zero.status == "empty" and zero.proves_absence
    assert zero.facts[0].attrs.value == 0 and "no responses with status 5xx" in zero.facts[0].text
    unknown = await _call(incident, "metrics.http_errors", namespace="catalog", service="ghost")
    assert unknown.status == "empty" and not unknown.proves_absence
    assert unknown.facts == [] and "no data" in unknown.warnings[0]


@vm_only
async def test_latency_quantile(incident: MetricsSimulator) -> None:
    result = await _call(incident, "metrics.latency", service="service-a", quantile=0.99)
    (fact,) = result.facts
    assert fact.kind == "http.latency" and fact.attrs.quantile == 0.99
    assert 0.7 < fact.attrs.value_seconds < 0.75
    assert "p99 latency" in fact.text


@vm_only
async def test_node_network_against_its_peers(incident: MetricsSimulator) -> None:
    result = await _call(incident, "metrics.node_network", node="worker-04")
    assert result.status == "ok"
    facts = {f.attrs.metric: f for f in result.facts}
    retrans = facts["retransmits"].attrs
    assert retrans.peers == 4 and retrans.peer_median == pytest.approx(1.0)
    assert retrans.ratio > 10
    assert retrans.peak == pytest.approx(50.0)  # 3000 per minute in the burst
    squeezes = facts["softnet_squeezes"]  # matched through instance="worker-04:9100"
    assert squeezes.attrs.value > 0 and squeezes.attrs.peer_median == 0
    assert "vs 0/s on all 4 peer nodes" in squeezes.text
    drops = facts["softnet_drops"]  # matched through node_uname_info's nodename
    assert drops.attrs.node == "worker-04" and drops.attrs.value > 0
    assert drops.attrs.peers == 4 and drops.attrs.peer_median == 0
    peer = await _call(incident, "metrics.node_network", node="worker-02")
    assert peer.facts[0].attrs.ratio == pytest.approx(1.0)  # the median shrugs off worker-04
    missing = await _call(incident, "metrics.node_network", node="worker-99")
    assert missing.status == "empty" and not missing.proves_absence
    assert "worker-04" in missing.warnings[0]


@vm_only
async def test_the_nodes_behind_a_service_are_read_in_one_call(
    incident: MetricsSimulator,
) -> None:
    """Each node next to its peers, from the same env-wide reads; a node with no series
    is a hole in the read, never a healthy node."""
    result = await _call(
        incident, "metrics.node_network", nodes=["worker-04", "worker-02", "worker-99"]
    )
    retrans = {f.attrs.node: f.attrs for f in result.facts if f.attrs.metric == "retransmits"}
    assert retrans["worker-04"].ratio > 10 and retrans["worker-02"].ratio == pytest.approx(1.0)
    assert "worker-99" not in retrans
    assert result.status == "partial" and not result.coverage.complete_for_negative
    assert any("node worker-99" in w for w in result.warnings)
    assert {e.name for e in result.entities} == {"worker-04", "worker-02", "worker-99"}
    none = await _gate(incident).call(
        "metrics.node_network", {"env": "dc-a", **INCIDENT}, _ctx(INCIDENT_NOW)
    )
    assert none.status == "denied" and "give node or nodes" in (none.error or "")


@vm_only
async def test_a_node_among_more_nodes_than_one_read_returns_is_still_compared(
    incident: MetricsSimulator,
) -> None:
    """A large cluster: the per-node read is capped below the node count, yet the node
    asked about is read by name, and the text says the peers are a sample."""
    result = await _gate(incident, max_series=1).call(
        "metrics.node_network",
        {"env": "dc-a", **INCIDENT, "node": "worker-04"},
        _ctx(INCIDENT_NOW),
    )
    facts = {f.attrs.metric: f for f in result.facts}
    retrans = facts["retransmits"]
    assert retrans.attrs.node == "worker-04" and retrans.attrs.ratio > 10
    assert "a sample: 1 of the 4 other nodes were read" in retrans.text
    assert result.status == "partial" and not result.coverage.complete_for_negative


@vm_only
async def test_quota_near_limit_and_namespace_without_quota(incident: MetricsSimulator) -> None:
    result = await _call(incident, "metrics.quota_usage", namespace="team-a")
    first = result.facts[0]
    assert first.kind == "k8s.quota" and first.attrs.resource == "requests.cpu"
    assert first.attrs.ratio == pytest.approx(0.95)
    assert "19 of 20 (95%)" in first.text and "at least 90%" in first.text
    assert "32.0 GiB of 64.0 GiB (50%)" in result.facts[1].text
    everywhere = await _call(incident, "metrics.quota_usage")
    assert {f.attrs.namespace for f in everywhere.facts} == {"team-a", "team-b"}
    none = await _call(incident, "metrics.quota_usage", namespace="payments")
    assert none.status == "empty" and none.proves_absence
    assert "has no ResourceQuota" in none.facts[0].text


@vm_only
async def test_resource_usage_against_requests_and_limits(incident: MetricsSimulator) -> None:
    result = await _call(
        incident, "metrics.resource_usage", namespace="payments", service="service-a"
    )
    facts = {f.attrs.resource: f for f in result.facts}
    assert facts["cpu"].attrs.usage == pytest.approx(0.5)
    assert facts["cpu"].attrs.request == 0.5 and facts["cpu"].attrs.limit == 2
    assert "900.0 MiB" in facts["memory"].text and "(88% of the limit)" in facts["memory"].text


@vm_only
async def test_restart_with_oomkilled_reason(incident: MetricsSimulator) -> None:
    result = await _call(incident, "metrics.restarts", namespace="shop", pod="orders-7c9d8-abcde")
    (fact,) = result.facts
    assert fact.attrs.increase == 1 and fact.attrs.last_reason == "OOMKilled"
    assert fact.attrs.first_increase_at == "2026-07-20T11:12:00+00:00"
    assert "restarted 1 time between" in fact.text and "OOMKilled" in fact.text
    unknown = await _call(incident, "metrics.restarts", namespace="ghost")
    assert unknown.status == "empty" and not unknown.proves_absence


@vm_only
async def test_endpoint_not_ready_during_the_incident(incident: MetricsSimulator) -> None:
    result = await _call(incident, "metrics.endpoints_ready", namespace="shop", service="orders")
    attrs = result.facts[0].attrs
    assert attrs.ready == 1 and attrs.not_ready == 1 and attrs.ready_max == 2
    assert attrs.first_not_ready_at == "2026-07-20T11:10:00+00:00"
    assert attrs.not_ready_ips == ["10.42.1.5"]
    assert "first not-ready address at" in result.facts[0].text


@vm_only
async def test_promql_bounded_raw_queries(incident: MetricsSimulator) -> None:
    ok = await _call(
        incident,
        "metrics.promql",
        query='sum by (node) (rate(node_netstat_Tcp_RetransSegs{node="worker-04"}[5m]))',
        instant=True,
    )
    assert ok.status == "ok" and ok.facts[0].kind == "metrics.value"
    assert ok.facts[0].attrs.labels == {"node": "worker-04"}
    for query in ('{__name__=~".*"}', '{__name__=~".+"}', '{job="kube-state-metrics"}'):
        refused = await _call(incident, "metrics.promql", query=query)
        assert refused.status == "error" and refused.error_kind == "invalid_query"
    bad = await _call(incident, "metrics.promql", query="sum(rate(up[5m])")
    assert bad.status == "error" and bad.error_kind == "invalid_query"
    assert "sum(rate(up[5m])" in (bad.error or "")
    capped = await _gate(incident, max_series=2).call(
        "metrics.promql",
        {"env": "dc-a", **INCIDENT, "query": "rate(node_netstat_Tcp_RetransSegs[5m])"},
        _ctx(INCIDENT_NOW, role="admin"),
    )
    assert capped.status == "partial" and capped.coverage.truncated
    assert capped.coverage.returned == 2 and capped.coverage.total == 5


@vm_only
async def test_default_window_comes_from_the_question(incident: MetricsSimulator) -> None:
    ctx = _ctx(INCIDENT_NOW, at="2026-07-20T14:11:00+03:00", window=timedelta(minutes=10))
    args = {"env": "dc-a", "namespace": "payments", "service": "service-a"}
    result = await _gate(incident).call("metrics.http_errors", args, ctx)
    assert result.raw["window"] == ["2026-07-20T14:06:00+03:00", "2026-07-20T14:16:00+03:00"]
    assert result.scope.env == "dc-a" and result.scope.object == "service-a"
    for record in incident.query_log.records()[-3:]:
        assert record.env == "dc-a" and "service-a" in record.params["query"]


# --- faults, through the real simulator ------------------------------------------------

FAULTS = {
    "f-timeout": ({"kind": "timeout"}, "timeout"),
    "f-http": ({"kind": "http_error", "status": 503}, "unavailable"),
    "f-forbidden": ({"kind": "forbidden"}, "forbidden"),
    "f-unsupported": ({"kind": "unsupported"}, "unsupported"),
    "f-malformed": ({"kind": "malformed"}, "malformed"),
}


@pytest.fixture(scope="module")
def faulty(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    metrics = [m for m in _incident_metrics() if "status" in m["labels"]]
    envs = [*FAULTS, "f-truncate"]
    faults = [{"source": "metrics", "env": env, **spec} for env, (spec, _) in FAULTS.items()]
    faults.append({"source": "metrics", "env": "f-truncate", "kind": "truncate", "max_hits": 1})
    world = world_from_data(
        {
            "environments": {env: ["metrics"] for env in envs},
            "metrics": {env: metrics for env in envs},
            "faults": faults,
        }
    )
    with MetricsSimulator(world, vm, env_prefix="faults:", stall_seconds=2) as sim:
        yield sim


@vm_only
@pytest.mark.parametrize("env", list(FAULTS))
async def test_failed_reads_become_gaps(faulty: MetricsSimulator, env: str) -> None:
    gate = _gate(faulty, timeout_s=0.5)
    args = {"env": env, **INCIDENT, "service": "service-a"}
    result = await gate.call("metrics.http_errors", args, _ctx(INCIDENT_NOW))
    assert result.status == "error" and result.error_kind == FAULTS[env][1]
    assert result.facts == [] and not result.coverage.complete_for_negative
    assert result.coverage.source == f"victoriametrics/{env}" and env in (result.error or "")
    assert faulty.query_log.matches(source="metrics", env=env)


@vm_only
async def test_truncated_answer_is_noticed(faulty: MetricsSimulator) -> None:
    args = {"env": "f-truncate", **INCIDENT}
    result = await _gate(faulty).call("metrics.http_errors", args, _ctx(INCIDENT_NOW))
    assert result.status == "partial"
    assert result.coverage.truncated and not result.coverage.complete_for_negative
    assert any("truncated" in w for w in result.warnings)


# --- single failures with httpx.MockTransport (no binary needed) -------------------------


def _mock_gate(handler: Any) -> PolicyGate:
    target = MetricsTarget(env="dc-a", url="http://vm.invalid", timeout_s=0.5)
    return PolicyGate(ToolSet(build_tools([target], transport=httpx.MockTransport(handler))))


async def _mock_call(handler: Any, tool: str = "metrics.http_requests") -> ToolResult:
    args = {"env": "dc-a", **INCIDENT, "service": "service-a"}
    return await _mock_gate(handler).call(tool, args, _ctx(INCIDENT_NOW))


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"status":"success","data":{"resu', "not JSON"),
        (b'{"status":"success","data":{"resultType":"vector"}}', "unexpected shape"),
        (
            b'{"status":"success","data":{"resultType":"vector","result":[{"value":[1,"x"]}]}}',
            "unexpected shape",
        ),
        (b'{"status":"error","errorType":"internal","error":"boom"}', "status 'error'"),
    ],
)
async def test_malformed_payload_is_a_gap(body: bytes, reason: str) -> None:
    result = await _mock_call(lambda request: httpx.Response(200, content=body))
    assert result.status == "error" and result.error_kind == "malformed"
    assert reason in (result.error or "")


async def test_client_timeout_is_a_gap() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    result = await _mock_call(handler)
    assert result.status == "error" and result.error_kind == "timeout"
    assert "did not answer within 0.5 s" in (result.error or "")


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (401, b"", "forbidden"),
        (404, b"404 page not found", "unsupported"),
        (502, b"bad gateway", "unavailable"),
        (503, b'{"status":"error","errorType":"timeout","error":"query timed out"}', "timeout"),
        (400, b'{"status":"error","errorType":"bad_data","error":"parse error"}', "invalid_query"),
    ],
)
async def test_http_status_mapping(status: int, body: bytes, kind: str) -> None:
    result = await _mock_call(lambda request: httpx.Response(status, content=body))
    assert result.status == "error" and result.error_kind == kind


async def test_connect_error_is_unavailable() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    result = await _mock_call(handler)
    assert result.error_kind == "unavailable"


async def test_contracts_are_closed_and_declare_evidence() -> None:
    gate = _mock_gate(lambda request: httpx.Response(500))
    ctx = _ctx(INCIDENT_NOW)
    contracts = {c.name: c for c in gate.contracts(ctx)}
    assert len(contracts) == 10 and "metrics.promql" not in contracts  # admin-only, hidden
    # discovery reads only series whose labels name what the question names: engineers too
    assert contracts["metrics.discover"].agent.admin_only is False
    admin = {c.name for c in gate.contracts(_ctx(INCIDENT_NOW, role="admin"))}
    assert "metrics.promql" in admin and len(admin) == 11
    terms = contracts["metrics.discover"].input_schema()["properties"]["terms"]
    assert terms["maxItems"] == 5 and terms["items"]["pattern"]
    assert contracts["metrics.endpoints_ready"].agent.evidence == ["k8s.ready_endpoints"]
    assert contracts["metrics.endpoints_ready"].agent.supports_history
    schema = contracts["metrics.http_errors"].input_schema()
    assert schema["additionalProperties"] is False
    assert schema["properties"]["env"]["enum"] == ["dc-a"]
    denied = await gate.call("metrics.http_errors", {"env": "dc-b"}, ctx)
    assert denied.status == "denied"
    denied = await gate.call("metrics.http_errors", {"env": "dc-a", "status": "5XX"}, ctx)
    assert denied.status == "denied"


async def test_grafana_link_template() -> None:
    target = MetricsTarget(
        env="dc-a",
        url="http://vm.invalid",
        grafana_url="https://grafana.example.com/explore?orgId=1&left={left}&env={env}",
    )
    link = target.link("up", datetime.fromisoformat(START), datetime.fromisoformat(START))
    assert link.startswith("https://grafana.example.com/explore?orgId=1&left=%7B")
    assert "%22expr%22%3A%22up%22" in link and link.endswith("&env=dc-a")
    with pytest.raises(ValueError, match="unknown placeholder"):
        MetricsTarget(env="dc-a", url="http://vm.invalid", grafana_url="https://g/{nope}")


# -- metrics by discovery ------------------------------------------------------------------


def _series(labels: dict[str, str], values: list[float]) -> dict[str, Any]:
    return {"labels": labels, "start": "2026-07-20T14:00:00+03:00", "step": "60s", "values": values}


@pytest.fixture(scope="module")
def business(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    """Metrics no built-in tool names: a consumer group's lag per partition (kafka_exporter),
    its committed offsets (a counter), and another group's lag as noise."""
    lag = "kafka_consumergroup_lag"
    metrics = [
        *(
            _series({"__name__": lag, "consumergroup": "ledger-writer", "partition": p}, [v] * 19)
            for p, v in (("0", 281), ("1", 269), ("2", 287))
        ),
        _series({"__name__": lag, "consumergroup": "audit-reader", "partition": "0"}, [9000] * 19),
        _series(
            {"__name__": "kafka_consumergroup_commits_total", "consumergroup": "ledger-writer"},
            [i * 120.0 for i in range(19)],
        ),
    ]
    world = world_from_data({"environments": {"dc-a": ["metrics"]}, "metrics": {"dc-a": metrics}})
    with MetricsSimulator(world, vm, env_prefix="business:") as sim:
        yield sim


@vm_only
async def test_discovery_reads_the_series_that_name_what_was_asked(business) -> None:
    args = {"env": "dc-a", "terms": ["ledger-writer"], "start": "2026-07-20T14:03:00+03:00",
            "end": "2026-07-20T14:18:00+03:00"}  # fmt: skip
    result = await _gate(business).call("metrics.discover", args, _ctx("2026-07-20T14:18:00+03:00"))
    assert result.status == "ok", result
    texts = [f.text for f in result.facts]
    total = next(t for t in texts if t.startswith("kafka_consumergroup_lag in dc-a: 837 summed"))
    assert "3 series" in total and 'consumergroup="ledger-writer"' in total
    assert not any("9000" in t or "audit-reader" in t for t in texts)  # another group
    rate = next(t for t in texts if t.startswith("kafka_consumergroup_commits_total{"))
    assert "per second 2" in rate  # 120 commits a minute, read as a rate
    assert result.coverage.complete_for_negative is False  # another name may measure it


@vm_only
async def test_discovery_of_a_name_no_series_carries_finds_nothing_and_proves_nothing(
    business,
) -> None:
    args = {"env": "dc-a", "terms": ["no-such-thing"]}
    result = await _gate(business).call("metrics.discover", args, _ctx("2026-07-20T14:18:00+03:00"))
    assert result.status == "empty" and not result.proves_absence
    assert "no series in the window has a label naming" in (result.coverage.note or "")


@pytest.fixture(scope="module")
def growing(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    """A consumer group's lag that grows by 10 a minute from 14:00 (Moscow time)."""
    lag = {"__name__": "kafka_consumergroup_lag", "consumergroup": "ledger-writer"}
    world = world_from_data(
        {
            "environments": {"dc-a": ["metrics"]},
            "metrics": {"dc-a": [_series(lag, [100.0 + 10 * i for i in range(19)])]},
        }
    )
    with MetricsSimulator(world, vm, env_prefix="growing:") as sim:
        yield sim


@vm_only
async def test_a_gauge_asked_at_a_moment_is_its_value_then_not_at_the_windows_end(
    growing,
) -> None:
    """ "What was the lag at 14:08?" read the window 14:00:30-14:15:30 and said its last
    value, that of 14:15."""
    args = {"env": "dc-a", "terms": ["ledger-writer"], "start": "2026-07-20T14:00:30+03:00",
            "end": "2026-07-20T14:15:30+03:00"}  # fmt: skip
    ctx = _ctx("2026-07-20T14:18:00+03:00", at="2026-07-20T14:08:00+03:00")
    result = await _gate(growing).call("metrics.discover", args, ctx)
    [fact] = [f for f in result.facts if f.attrs.metric == "kafka_consumergroup_lag"]
    assert fact.attrs.value == 180.0 and "at 2026-07-20T14:08:00+03:00" in fact.text


# -- HTTP layouts: the same question over other proxies and meshes ------------------------


def _flat(labels: dict[str, str], before: float, after: float) -> dict[str, Any]:
    """A counter flat at `before` until 14:05 and at `after` from 14:10 (window 14:03-14:18
    in Moscow time holds the whole rise)."""
    values = [before] * 6 + [before + (after - before) * i / 5 for i in range(5)] + [after] * 9
    return _series(labels, values)


@pytest.fixture(scope="module")
def proxies(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    traefik = "traefik_service_requests_total"
    istio = "istio_requests_total"
    haproxy = "haproxy_backend_http_responses_total"
    dest = {"destination_service_name": "inventory", "destination_service_namespace": "shop"}
    metrics = {
        "dc-a": [  # Traefik: the service in its name; a similarly named one as noise
            _flat({"__name__": traefik, "service": "shop-thumbs-8080@kubernetes", "code": "502"},
                  10, 45),
            _flat({"__name__": traefik, "service": "shop-thumbs-8080@kubernetes", "code": "200"},
                  1000, 5000),
            _flat({"__name__": traefik, "service": "shop-thumbs-admin-80@kubernetes",
                   "code": "502"}, 0, 500),
        ],
        "dc-b": [  # Istio: both reporters count what arrived; only the callers what did not
            _flat({"__name__": istio, "reporter": "destination", **dest, "response_code": "200",
                   "response_flags": "-"}, 100, 1100),
            _flat({"__name__": istio, "reporter": "source", **dest, "response_code": "200",
                   "response_flags": "-"}, 90, 1090),
            _flat({"__name__": istio, "reporter": "destination", **dest, "response_code": "503",
                   "response_flags": "-"}, 0, 7),
            _flat({"__name__": istio, "reporter": "source", **dest, "response_code": "503",
                   "response_flags": "-"}, 0, 7),
            _flat({"__name__": istio, "reporter": "source", **dest, "response_code": "503",
                   "response_flags": "UF,URX"}, 0, 30),
        ],
        "dc-c": [  # HAProxy: classes only; another backend and the frontend as noise
            _flat({"__name__": haproxy, "proxy": "be_partner_api", "code": "5xx"}, 50, 193),
            _flat({"__name__": haproxy, "proxy": "be_partner_api", "code": "2xx"}, 1e4, 2e4),
            _flat({"__name__": haproxy, "proxy": "be_partner_api_canary", "code": "5xx"}, 0, 900),
            _flat({"__name__": "haproxy_frontend_http_responses_total", "proxy": "fe_public",
                   "code": "5xx"}, 0, 5000),
        ],
    }  # fmt: skip
    world = world_from_data({"environments": {e: ["metrics"] for e in metrics}, "metrics": metrics})
    with MetricsSimulator(world, vm, env_prefix="proxies:") as sim:
        yield sim


async def _errors(sim: MetricsSimulator, env: str, **args: Any) -> ToolResult:
    return await _gate(sim).call(
        "metrics.http_errors",
        {"env": env, **INCIDENT, **args},
        _ctx(INCIDENT_NOW),
    )


@vm_only
async def test_traefik_counts_the_service_by_its_name_not_a_similar_one(proxies) -> None:
    result = await _errors(proxies, "dc-a", service="thumbs", namespace="shop")
    totals = [f.attrs.total for f in result.facts if f.kind == "http.rate"]
    assert totals == [35.0], _texts(result)
    assert "Traefik" in _texts(result)


@vm_only
async def test_istio_reads_one_reporter_and_adds_what_never_arrived(proxies) -> None:
    result = await _errors(proxies, "dc-b", service="inventory", status="503")
    texts = _texts(result)
    totals = sorted(f.attrs.total for f in result.facts if f.kind == "http.rate")
    assert totals == [7.0, 30.0, 37.0], texts  # 7 arrived, 30 never did, 37 in all
    assert "UF,URX" in texts and "callers' sidecars" in texts


@vm_only
async def test_haproxy_counts_a_class_and_says_so_for_one_code(proxies) -> None:
    klass = await _errors(proxies, "dc-c", service="partner-api")
    assert [f.attrs.total for f in klass.facts if f.kind == "http.rate"] == [143.0]
    code = await _errors(proxies, "dc-c", service="partner-api", status="502")
    assert any("counts responses by class only" in w for w in code.warnings)


@vm_only
async def test_a_namespace_question_never_reads_a_proxy_that_cannot_scope_it(proxies) -> None:
    result = await _errors(proxies, "dc-c", namespace="shop")
    assert result.status == "empty" and not result.proves_absence
    assert "haproxy_backend_http_responses_total (HAProxy)" in " ".join(result.warnings)


@vm_only
async def test_no_layout_with_series_is_no_data_naming_every_metric_looked_for(proxies) -> None:
    result = await _errors(proxies, "dc-a", service="nowhere")
    said = " ".join(result.warnings)
    assert result.status == "empty" and not result.proves_absence
    for metric in ("nginx_ingress_controller_requests", "istio_requests_total"):
        assert metric in said


@vm_only
async def test_a_service_with_many_names_in_front_is_still_found(proxies) -> None:
    """Every layout x every name x every label: more than one query's length, split and
    sent in form bodies, still one answer."""
    fronts = [f"front-door-number-{i}-of-a-long-list" for i in range(6)]
    result = await _errors(proxies, "dc-a", service="thumbs", namespace="shop", fronts=fronts)
    totals = [f.attrs.total for f in result.facts if f.kind == "http.rate"]
    assert totals == [35.0], _texts(result)
