"""What the metrics say about the layers of a call, against the real VictoriaMetrics: a
container held back by its CPU limit (cAdvisor's CFS periods), and an ingress with no 5xx
whose clients gave up (499) while an edge in front of it answered 504."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from evals.simulators.victoriametrics import MetricsSimulator, VictoriaMetrics
from evals.world import world_from_data
from policy.facts import HttpRate, MetricsUsage
from tests.integration.test_metrics_connector import _ctx, _gate, vm, vm_only

__all__ = ["vm"]  # the module's VictoriaMetrics fixture
NOW = "2026-07-20T14:18:00+03:00"
POD = {"namespace": "pricing", "pod": "quote-engine-5b7d9c6f48-h2kqd", "container": "engine"}


def _series(labels: dict[str, str], values: list[float]) -> dict[str, Any]:
    return {"labels": labels, "start": "2026-07-20T14:00:00+03:00", "step": "60s", "values": values}


def _counter(per_minute: float) -> list[float]:
    return [i * per_minute for i in range(19)]


def _mesh() -> list[dict[str, Any]]:
    """orders' sidecar: its callers' requests answered 503 by it, and its own calls to
    stock-keeper failing 503 UF (the callee unreachable)."""
    base = {"__name__": "istio_requests_total", "reporter": "source"}
    into = {
        **base, "source_workload": "web", "destination_workload": "orders",
        "destination_service_name": "orders", "destination_service_namespace": "shop",
    }  # fmt: skip
    out = {
        **base, "source_workload": "orders", "destination_workload": "stock-keeper",
        "destination_workload_namespace": "shop", "destination_service_name": "stock-keeper",
    }  # fmt: skip
    return [
        _series({**into, "response_code": "503", "response_flags": "-"}, _counter(30)),
        _series({**out, "response_code": "503", "response_flags": "UF"}, _counter(28)),
        _series({**out, "response_code": "200", "response_flags": "-"}, _counter(100)),
    ]


def _volume() -> list[dict[str, Any]]:
    claim = {"namespace": "shop-data", "persistentvolumeclaim": "data-orders-db-0"}
    return [
        _series({"__name__": "kubelet_volume_stats_capacity_bytes", **claim}, [10737418240] * 19),
        _series({"__name__": "kubelet_volume_stats_available_bytes", **claim}, [1048576] * 19),
        _series({"__name__": "kubelet_volume_stats_inodes", **claim}, [655360] * 19),
        _series({"__name__": "kubelet_volume_stats_inodes_free", **claim}, [600000] * 19),
    ]


@pytest.fixture(scope="module")
def layers(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    cpu = "container_cpu_usage_seconds_total"
    requests = "nginx_ingress_controller_requests"
    ingress = {"namespace": "shop", "ingress": "checkout", "service": "checkout-api"}
    metrics = [
        _series({"__name__": cpu, **POD}, _counter(0.4 * 60)),
        _series({"__name__": "container_cpu_cfs_periods_total", **POD}, _counter(600)),
        _series({"__name__": "container_cpu_cfs_throttled_periods_total", **POD}, _counter(540)),
        _series(
            {
                "__name__": "kube_pod_container_resource_limits",
                **POD,
                "resource": "cpu",
                "unit": "core",
            },
            [0.4] * 19,
        ),
        _series({"__name__": requests, **ingress, "status": "200"}, _counter(600)),
        _series({"__name__": requests, **ingress, "status": "499"}, _counter(12)),
        *_mesh(),
        *_volume(),
    ]
    world = world_from_data({"environments": {"dc-a": ["metrics"]}, "metrics": {"dc-a": metrics}})
    with MetricsSimulator(world, vm, env_prefix="layers:") as sim:
        yield sim


@vm_only
async def test_a_container_held_back_by_its_cpu_limit_says_in_what_share(layers) -> None:
    args = {"env": "dc-a", "namespace": "pricing", "service": "quote-engine"}
    result = await _gate(layers).call("metrics.resource_usage", args, _ctx(NOW))
    usage = [f for f in result.facts if isinstance(f.attrs, MetricsUsage)]
    [cpu] = [f for f in usage if f.attrs.resource == "cpu"]
    assert cpu.attrs.throttled == pytest.approx(0.9, abs=0.02)
    assert "throttled by its CPU limit in 90% of its scheduling periods" in cpu.text


@vm_only
async def test_no_5xx_at_the_ingress_says_how_many_requests_the_clients_closed(layers) -> None:
    args = {"env": "dc-a", "namespace": "shop", "service": "checkout-api", "status": "5xx"}
    result = await _gate(layers).call("metrics.http_errors", args, _ctx(NOW))
    [fact] = [f for f in result.facts if isinstance(f.attrs, HttpRate)]
    assert fact.attrs.total == 0
    assert fact.attrs.client_closed == pytest.approx(180, rel=0.1)  # 12 a minute, 15 minutes
    assert "ended with 499" in fact.text and "no responses with status 5xx" in fact.text


@vm_only
async def test_a_callers_failed_calls_the_mesh_counts_are_said_by_callee(layers) -> None:
    args = {"env": "dc-a", "namespace": "shop", "service": "orders", "status": "5xx"}
    result = await _gate(layers).call("metrics.http_errors", args, _ctx(NOW))
    [call] = [f for f in result.facts if isinstance(f.attrs, HttpRate) and f.attrs.callee]
    assert call.attrs.callee == "stock-keeper" and call.attrs.status == "503"
    assert "orders's calls to stock-keeper" in call.text and "(UF)" in call.text
    # its own answers are counted apart from its calls
    answers = [f for f in result.facts if isinstance(f.attrs, HttpRate) and not f.attrs.callee]
    assert answers and all("stock-keeper" not in f.text for f in answers)


@vm_only
async def test_a_workloads_volume_claims_say_the_bytes_and_inodes_left(layers) -> None:
    args = {"env": "dc-a", "namespace": "shop-data", "service": "orders-db"}
    result = await _gate(layers).call("metrics.resource_usage", args, _ctx(NOW))
    [volume] = [f for f in result.facts if isinstance(f.attrs, MetricsUsage)]
    assert volume.attrs.claim == "data-orders-db-0" and volume.attrs.resource == "volume"
    assert "1.0 MiB available of 10.0 GiB" in volume.text
