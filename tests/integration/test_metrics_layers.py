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
