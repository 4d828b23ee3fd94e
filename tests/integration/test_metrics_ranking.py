"""metrics.top through the policy gate, against the real VictoriaMetrics: pods and nodes of
a small world ranked by each measure, each place saying how many were ranked."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from connectors.victoriametrics import MetricsTarget, build_tools
from evals.simulators.victoriametrics import (
    MetricsSimulator,
    VictoriaMetrics,
    victoria_metrics_binary,
)
from evals.world import world_from_data
from policy import CallContext, PolicyGate, Scope, TimeSpec, ToolResult, ToolSet

vm_only = pytest.mark.victoriametrics

START = "2026-07-20T10:40:00Z"  # 61 one-minute samples to 11:40Z
WINDOW = {"start": "2026-07-20T14:05:00+03:00", "end": "2026-07-20T14:20:00+03:00"}
NOW = "2026-07-20T14:40:00+03:00"
MIB = 2**20


@pytest.fixture(scope="module")
def vm() -> Iterator[VictoriaMetrics]:
    binary = victoria_metrics_binary()
    if binary is None:
        pytest.skip("victoria-metrics binary NOT FOUND (apt-get install victoria-metrics)")
    with VictoriaMetrics(binary) as server:
        yield server


def series(name: str, values: list[float | None], **labels: str) -> dict[str, Any]:
    return {"labels": {"__name__": name, **labels}, "start": START, "step": "60s", "values": values}


def flat(value: float) -> list[float | None]:
    return [value] * 61


def cores(used: float) -> list[float | None]:
    """A CPU seconds counter that grows by `used` cores throughout."""
    return list(itertools.accumulate([used * 60] * 60, initial=1000.0))


# (namespace, pod, container): memory MiB, CPU cores, CPU request, memory limit MiB, restarts
PODS: dict[tuple[str, str, str], tuple[float, float, float | None, float | None, float]] = {
    ("shop", "catalog-api-6d9f8b7c5-qzg5z", "app"): (1.3 * 1024, 0.8, 1.0, 2048, 0),
    ("shop", "orders-7c9d8-abcde", "api"): (600, 0.2, 0.1, 640, 4),
    ("shop", "cart-5f6b7-xk2lp", "app"): (200, 0.1, 0.5, 256, 1),
    ("shop", "cart-5f6b7-xk2lp", "sidecar"): (100, 0.05, None, None, 0),  # no limit, no request
    ("payments", "service-a-5d8f7c9b4-x2k9p", "app"): (900, 0.5, 0.5, 1024, 0),
}


def _world_metrics() -> list[dict[str, Any]]:
    ksm = {"job": "kube-state-metrics"}
    out: list[dict[str, Any]] = []
    for (ns, pod, container), (mem, cpu, request, limit, restarts) in PODS.items():
        labels = {"namespace": ns, "pod": pod, "container": container}
        out += [
            series("container_memory_working_set_bytes", flat(mem * MIB), id="now", **labels),
            series("container_cpu_usage_seconds_total", cores(cpu), **labels),
            series("kube_pod_container_status_restarts_total", flat(restarts), **ksm, **labels),
        ]
        if request is not None:
            out.append(
                series(
                    "kube_pod_container_resource_requests",
                    flat(request),
                    resource="cpu",
                    **ksm,
                    **labels,
                )
            )
        if limit is not None:
            out.append(
                series(
                    "kube_pod_container_resource_limits",
                    flat(limit * MIB),
                    resource="memory",
                    **ksm,
                    **labels,
                )
            )
    catalog = {"namespace": "shop", "pod": "catalog-api-6d9f8b7c5-qzg5z"}
    out += [
        # the pause container and the pod's own cgroup are never counted
        series("container_memory_working_set_bytes", flat(MIB), container="POD", **catalog),
        series("container_memory_working_set_bytes", flat(5 * 1024 * MIB), container="", **catalog),
        # cart's container before it restarted: gone by the window's end, not counted twice
        series(
            "container_memory_working_set_bytes",
            [500.0 * MIB] * 10 + [None] * 51,
            namespace="shop",
            pod="cart-5f6b7-xk2lp",
            container="app",
            id="before-restart",
        ),
    ]
    # a pod whose container restarted twice in the window: one CPU series per run (cAdvisor's
    # id), each 5 minutes at 0.3 cores; the pod used 0.3 cores over the window, not 0.9
    for run, first in enumerate((25, 30, 35)):
        counter = [None] * first + cores(0.3)[:6] + [None] * (55 - first)
        out.append(
            series(
                "container_cpu_usage_seconds_total",
                counter,
                namespace="ops",
                pod="reindex-6b7c8-qq2wz",
                container="app",
                id=f"run-{run}",
            )
        )
    retrans = "node_netstat_Tcp_RetransSegs"
    for rate, labels in (
        (5.0, {"instance": "worker-01:9100"}),
        (50.0, {"instance": "worker-02:9100"}),
        (1.0, {"instance": "10.20.1.13:9100", "node": "worker-03"}),  # the node label wins
    ):
        out.append(series(retrans, cores(rate), **labels))
    return out


@pytest.fixture(scope="module")
def world(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    data = {"environments": {"dc-a": ["metrics"]}, "metrics": {"dc-a": _world_metrics()}}
    with MetricsSimulator(world_from_data(data), vm, env_prefix="rank:") as sim:
        yield sim


def _ctx() -> CallContext:
    return CallContext(
        user="alice",
        role="engineer",
        scope=Scope(time=TimeSpec(window=timedelta(minutes=15), mode="now")),
        now=datetime.fromisoformat(NOW),
        timezone="Europe/Moscow",
    )


async def _top(sim: MetricsSimulator, **args: Any) -> ToolResult:
    gate = PolicyGate(ToolSet(build_tools([MetricsTarget(env="dc-a", url=sim.url("dc-a"))])))
    return await gate.call("metrics.top", {"env": "dc-a", **WINDOW, **args}, _ctx())


def _names(result: ToolResult) -> list[str]:
    return [f.attrs.name for f in result.facts]


@vm_only
async def test_pods_by_memory_in_order_of_all_ranked(world: MetricsSimulator) -> None:
    result = await _top(world, subject="pod", measure="memory", limit=3)
    assert result.status == "ok", result
    assert _names(result) == [
        "catalog-api-6d9f8b7c5-qzg5z",
        "service-a-5d8f7c9b4-x2k9p",
        "orders-7c9d8-abcde",
    ]
    first = result.facts[0]
    assert first.kind == "metrics.rank"
    assert (first.attrs.position, first.attrs.of) == (1, 4)
    assert first.attrs.namespace == "shop" and first.attrs.env == "dc-a"
    assert first.attrs.value == pytest.approx(1.3 * 1024 * MIB)  # no POD, no pod cgroup
    assert first.text == (
        "1 of 4 pods by memory working set in dc-a at 2026-07-20T14:20:00+03:00: "
        "catalog-api-6d9f8b7c5-qzg5z 1.3 GiB"
    )
    assert [f.attrs.position for f in result.facts] == [1, 2, 3]
    assert {(e.kind, e.name, e.namespace) for e in result.entities} >= {
        ("pod", "orders-7c9d8-abcde", "shop")
    }
    shop = await _top(world, subject="pod", measure="memory", namespace="shop")
    assert [f.attrs.of for f in shop.facts] == [3, 3, 3]
    assert "(namespace shop)" in shop.facts[0].text
    cart = next(f for f in shop.facts if f.attrs.name == "cart-5f6b7-xk2lp")
    assert cart.attrs.value == pytest.approx(300 * MIB)  # the restarted container once


@vm_only
async def test_pods_by_cpu_over_the_window(world: MetricsSimulator) -> None:
    world.query_log.clear()
    result = await _top(world, subject="pod", measure="cpu")
    assert [round(f.attrs.value, 3) for f in result.facts] == [0.8, 0.5, 0.3, 0.2, 0.15]
    # a container that restarted counts what each run used in the window, once
    assert result.facts[2].attrs.name == "reindex-6b7c8-qq2wz"
    assert "between 2026-07-20T14:05:00+03:00 and 14:20:00+03:00" in result.facts[0].text
    assert "0.8 cores" in result.facts[0].text
    assert all("[900s]" in r.params["query"] for r in world.query_log.records())
    short = await _top(
        world, subject="pod", measure="cpu", start="2026-07-20T14:18:00+03:00", limit=1
    )
    assert "over the 5 minutes to 2026-07-20T14:20:00+03:00" in short.facts[0].text


@vm_only
async def test_pods_by_the_restart_counter(world: MetricsSimulator) -> None:
    result = await _top(world, subject="pod", measure="restarts", limit=2)
    assert _names(result) == ["orders-7c9d8-abcde", "cart-5f6b7-xk2lp"]
    assert [f.attrs.value for f in result.facts] == [4, 1]
    assert all(f.attrs.of == 4 for f in result.facts)
    assert "restart counter" in result.facts[0].text and "4 restarts" in result.facts[0].text
    assert result.facts[1].text.endswith("cart-5f6b7-xk2lp 1 restart")


@vm_only
async def test_memory_of_limit_leaves_out_a_container_without_one(
    world: MetricsSimulator,
) -> None:
    result = await _top(world, subject="pod", measure="memory_of_limit", limit=10)
    shares = {f.attrs.name: f.attrs.value for f in result.facts}
    assert _names(result)[0] == "orders-7c9d8-abcde"
    assert shares["orders-7c9d8-abcde"] == pytest.approx(600 / 640)
    assert shares["cart-5f6b7-xk2lp"] == pytest.approx(200 / 256)  # its app only
    assert "94%" in result.facts[0].text
    assert any("1 container " in w and "has no memory limit" in w for w in result.warnings)
    request = await _top(world, subject="pod", measure="cpu_of_request", limit=1)
    assert _names(request) == ["orders-7c9d8-abcde"]
    assert request.facts[0].attrs.value == pytest.approx(2.0)


@vm_only
async def test_nodes_by_retransmits_named_without_ports(world: MetricsSimulator) -> None:
    result = await _top(world, subject="node", measure="retransmits")
    assert _names(result) == ["worker-02", "worker-01", "worker-03"]
    assert result.facts[0].attrs.value == pytest.approx(50.0)
    assert result.facts[0].attrs.namespace is None and result.facts[0].attrs.of == 3
    assert "50/s" in result.facts[0].text
    assert [e.kind for e in result.entities] == ["node"] * 3
    scoped = await _top(world, subject="node", measure="retransmits", namespace="shop")
    assert scoped.status == "ok" and "namespace does not apply" in (scoped.coverage.note or "")


@vm_only
async def test_bottom_order(world: MetricsSimulator) -> None:
    result = await _top(world, subject="pod", measure="memory", order="bottom", limit=2)
    assert _names(result) == ["cart-5f6b7-xk2lp", "orders-7c9d8-abcde"]
    assert "lowest first" in result.facts[0].text and result.facts[0].attrs.of == 4
    nodes = await _top(world, subject="node", measure="retransmits", order="bottom", limit=1)
    assert _names(nodes) == ["worker-03"]


@vm_only
async def test_no_series_is_no_data_not_zero(world: MetricsSimulator) -> None:
    result = await _top(world, subject="pod", measure="cpu_of_request", namespace="ghost")
    assert result.status == "empty" and not result.proves_absence
    assert result.facts == []
    assert any("no data" in w and "does not mean zero" in w for w in result.warnings)


@vm_only
async def test_a_measure_that_does_not_fit_the_subject_is_refused(
    world: MetricsSimulator,
) -> None:
    for subject, measure in (("node", "restarts"), ("pod", "retransmits"), ("node", "memory")):
        result = await _top(world, subject=subject, measure=measure)
        assert result.status == "denied"
        assert "measure:" in (result.error or "") and f"{subject}s" in (result.error or "")
    too_many = await _top(world, subject="pod", measure="memory", limit=21)
    assert too_many.status == "denied" and "limit" in (too_many.error or "")
