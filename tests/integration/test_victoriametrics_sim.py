"""The metrics simulator: the real VictoriaMetrics behind a per-environment Prometheus API.

VictoriaMetrics starts once for this file; each world is imported under its own prefix.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from evals.simulators.victoriametrics import (
    MetricsSimulator,
    VictoriaMetrics,
    victoria_metrics_binary,
)
from evals.world import load_world, world_from_data

pytestmark = pytest.mark.victoriametrics

EXAMPLES = Path(__file__).resolve().parents[2] / "evals" / "scenarios"
SWITCH_END = "2026-07-22T13:30:00Z"  # the scenario's now, 16:30 +03:00


@pytest.fixture(scope="module")
def vm() -> Iterator[VictoriaMetrics]:
    binary = victoria_metrics_binary()
    if binary is None:
        pytest.skip(
            "victoria-metrics binary NOT FOUND (apt-get install victoria-metrics): "
            "the metrics simulator tests cannot run"
        )
    began = time.monotonic()
    with VictoriaMetrics(binary) as server:
        server.started_in = time.monotonic() - began  # type: ignore[attr-defined]
        yield server


@pytest.fixture(scope="module")
def switch(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    world = load_world(EXAMPLES / "env-switch-followup.yaml")
    with MetricsSimulator(world, vm, env_prefix="switch:") as sim:
        yield sim


def _series(status: str, values: list[float]) -> dict[str, Any]:
    return {
        "labels": {
            "__name__": "nginx_ingress_controller_requests",
            "namespace": "shop",
            "ingress": "orders",
            "service": "orders",
            "status": status,
        },
        "start": "2026-07-20T11:00:00Z",
        "step": "60s",
        "values": values,
    }


FAULT_ENVS = {
    "f-timeout": {"kind": "timeout"},
    "f-http": {"kind": "http_error", "status": 503},
    "f-forbidden": {"kind": "forbidden"},
    "f-unsupported": {"kind": "unsupported"},
    "f-malformed": {"kind": "malformed"},
    "f-truncate": {"kind": "truncate", "max_hits": 1},
    "f-range-only": {"kind": "http_error", "status": 500, "resource": "query_range"},
}


@pytest.fixture(scope="module")
def faulty(vm: VictoriaMetrics) -> Iterator[MetricsSimulator]:
    series = [_series("200", [100, 200, 300]), _series("502", [0, 5, 9]), _series("503", [1, 1, 2])]
    world = world_from_data(
        {
            "environments": {env: ["metrics"] for env in FAULT_ENVS},
            "metrics": {env: series for env in FAULT_ENVS},
            "faults": [{"source": "metrics", "env": env, **f} for env, f in FAULT_ENVS.items()],
        }
    )
    with MetricsSimulator(world, vm, env_prefix="faults:", stall_seconds=2) as sim:
        yield sim


def _get(sim: MetricsSimulator, env: str, path: str, **params: Any) -> httpx.Response:
    return httpx.get(f"{sim.url(env)}/api/v1/{path}", params=params, timeout=5)


def test_starts_fast_and_reports_health(vm: VictoriaMetrics) -> None:
    assert vm.started_in < 5  # type: ignore[attr-defined]
    assert httpx.get(f"{vm.url}/health").status_code == 200


def test_each_env_answers_only_with_its_own_samples(switch: MetricsSimulator) -> None:
    expr = 'sum(increase(nginx_ingress_controller_requests{service="catalog-api"}[1h])) / 3600'
    rates = {
        env: float(
            _get(switch, env, "query", query=expr, time=SWITCH_END).json()["data"]["result"][0][
                "value"
            ][1]
        )
        for env in ("dc-a", "dc-b")
    }
    assert 412 <= rates["dc-a"] < 413
    assert 137 <= rates["dc-b"] < 138


def test_world_env_label_is_invisible_and_cannot_be_used_to_escape(
    switch: MetricsSimulator,
) -> None:
    raw = _get(switch, "dc-b", "query", query="nginx_ingress_controller_requests", time=SWITCH_END)
    result = raw.json()["data"]["result"]
    assert len(result) == 1
    assert "world_env" not in raw.text
    assert result[0]["metric"]["controller_pod"] == "ingress-nginx-controller-7b9c5d8f6-h2wnp"
    # naming another environment in the query or in extra_label gives nothing of it
    other = _get(
        switch,
        "dc-b",
        "query",
        query='nginx_ingress_controller_requests{world_env="switch:dc-a"}',
        time=SWITCH_END,
        extra_label="world_env=switch:dc-a",
    )
    assert other.json()["data"]["result"] == []
    labels = _get(switch, "dc-b", "labels").json()["data"]
    assert "world_env" not in labels and "controller_pod" in labels
    assert _get(switch, "dc-b", "label/world_env/values").json()["data"] == []
    series = _get(
        switch,
        "dc-a",
        "series",
        start="2026-07-22T12:00:00Z",
        end=SWITCH_END,
        **{"match[]": "nginx_ingress_controller_requests"},
    ).json()["data"]
    assert [s["controller_pod"] for s in series] == ["ingress-nginx-controller-6f8d9c7b5-zq4mt"]
    assert all("world_env" not in s for s in series)


def test_range_query_and_post_form(switch: MetricsSimulator) -> None:
    resp = httpx.post(
        f"{switch.url('dc-a')}/api/v1/query_range",
        data={
            "query": "sum(rate(nginx_ingress_controller_requests[1m]))",
            "start": "2026-07-22T13:00:00Z",
            "end": SWITCH_END,
            "step": "60s",
        },
    )
    values = resp.json()["data"]["result"][0]["values"]
    assert len(values) == 31
    assert all(412 <= float(v) < 413 for _, v in values)


def test_every_read_is_recorded_with_env_path_and_query(switch: MetricsSimulator) -> None:
    switch.query_log.clear()
    _get(switch, "dc-b", "query", query="up", time=SWITCH_END)
    records = switch.query_log.matches(source="metrics")
    assert [(r.env, r.path, r.params["query"], r.status) for r in records] == [
        ("dc-b", "/api/v1/query", "up", 200)
    ]


def test_bad_query_is_passed_through_as_victoriametrics_answers_it(
    switch: MetricsSimulator,
) -> None:
    resp = _get(switch, "dc-a", "query", query="sum(", time=SWITCH_END)
    assert resp.status_code == 422
    assert resp.json()["status"] == "error"


def test_fault_timeout_stalls_past_the_client_timeout(faulty: MetricsSimulator) -> None:
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(f"{faulty.url('f-timeout')}/api/v1/query", params={"query": "up"}, timeout=0.5)
    assert faulty.query_log.matches(env="f-timeout")


@pytest.mark.parametrize(
    ("env", "status", "error_type"),
    [
        ("f-http", 503, None),
        ("f-forbidden", 403, "forbidden"),
        ("f-unsupported", 404, "not_found"),
    ],
)
def test_fault_error_statuses(
    faulty: MetricsSimulator, env: str, status: int, error_type: str | None
) -> None:
    resp = _get(faulty, env, "query", query="nginx_ingress_controller_requests")
    assert resp.status_code == status
    if error_type:
        assert resp.json() == {
            "status": "error",
            "errorType": error_type,
            "error": resp.json()["error"],
        }
    assert faulty.query_log.matches(env=env)[-1].status == status


def test_fault_malformed_body_is_not_json(faulty: MetricsSimulator) -> None:
    resp = _get(faulty, "f-malformed", "query", query="nginx_ingress_controller_requests")
    assert resp.status_code == 200
    with pytest.raises(ValueError):
        resp.json()


def test_fault_truncate_caps_series_and_warns(faulty: MetricsSimulator) -> None:
    params = {"query": "nginx_ingress_controller_requests", "time": "2026-07-20T11:02:00Z"}
    body = _get(faulty, "f-truncate", "query", **params).json()
    assert len(body["data"]["result"]) == 1
    assert "1 of 3" in body["warnings"][0]


def test_fault_limited_to_one_endpoint(faulty: MetricsSimulator) -> None:
    params = {"query": "nginx_ingress_controller_requests", "time": "2026-07-20T11:02:00Z"}
    instant = _get(faulty, "f-range-only", "query", **params)
    assert instant.status_code == 200 and len(instant.json()["data"]["result"]) == 3
    ranged = _get(
        faulty,
        "f-range-only",
        "query_range",
        query="nginx_ingress_controller_requests",
        start="2026-07-20T11:00:00Z",
        end="2026-07-20T11:02:00Z",
        step="60s",
    )
    assert ranged.status_code == 500


def test_a_binary_that_cannot_start_is_a_loud_error() -> None:
    with pytest.raises(RuntimeError, match="did not become healthy"):
        VictoriaMetrics("/bin/false").start(timeout=2)


def test_a_world_set_in_the_future_answers_at_its_own_times(vm: VictoriaMetrics) -> None:
    """VictoriaMetrics drops samples days ahead of the machine clock; a scenario written
    for next year still gets its series, at the times the world gives them."""
    from datetime import UTC, datetime, timedelta

    from evals.simulators.victoriametrics import world_shift

    start = (datetime.now(UTC) + timedelta(days=400)).replace(microsecond=0)
    series = {**_series("502", [0, 5, 9]), "start": start.isoformat()}
    world = world_from_data({"environments": {"far": ["metrics"]}, "metrics": {"far": [series]}})
    assert world_shift(world) % 86400 == 0 and world_shift(world) >= 400 * 86400
    end = start + timedelta(minutes=2)
    with MetricsSimulator(world, vm, env_prefix="future:") as sim:
        instant = _get(sim, "far", "query", query="nginx_ingress_controller_requests",
                       time=end.isoformat()).json()["data"]["result"]  # fmt: skip
        curve = _get(sim, "far", "query_range", query="nginx_ingress_controller_requests",
                     start=start.timestamp(), end=end.timestamp(), step="60s")  # fmt: skip
    assert instant[0]["value"][1] == "9" and instant[0]["value"][0] == end.timestamp()
    points = curve.json()["data"]["result"][0]["values"]
    assert [p[0] for p in points] == [start.timestamp() + 60 * i for i in range(3)]
    assert [p[1] for p in points] == ["0", "5", "9"]


def test_a_world_in_the_past_is_stored_as_it_is() -> None:
    from evals.simulators.victoriametrics import world_shift

    world = world_from_data(
        {"environments": {"old": ["metrics"]}, "metrics": {"old": [_series("200", [1, 2])]}}
    )
    assert world_shift(world) == 0
