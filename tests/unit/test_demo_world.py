"""The built-in demo world: it loads, each story's evidence is in the data, and the committed
evals/worlds/demo.yaml is exactly what evals/worlds/make_demo.py writes."""

from __future__ import annotations

import runpy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from evals.world import MetricSeries, World, load_world
from evals.yamlload import load_yaml

WORLDS = Path(__file__).resolve().parents[2] / "evals" / "worlds"
DEMO = WORLDS / "demo.yaml"
COUNTERS = ("_total", "_bucket", "_count", "_sum", "nginx_ingress_controller_requests",
            "node_netstat_Tcp_RetransSegs", "node_netstat_Tcp_OutSegs")  # fmt: skip


@pytest.fixture(scope="module")
def world() -> World:
    return load_world(DEMO)


def objects(world: World, env: str, kind: str, namespace: str | None = None) -> list[dict]:
    return [o for o in world.kubernetes[env] if o["kind"] == kind
            and (namespace is None or o["metadata"].get("namespace") == namespace)]  # fmt: skip


def named(world: World, env: str, kind: str, name: str) -> dict[str, Any]:
    return next(o for o in world.kubernetes[env] if o["kind"] == kind
                and o["metadata"]["name"] == name)  # fmt: skip


def metric(world: World, env: str, name: str, **labels: str) -> list[MetricSeries]:
    return [s for s in world.metrics[env] if s.labels["__name__"] == name
            and all(s.labels.get(k) == v for k, v in labels.items())]  # fmt: skip


def at(hms: str) -> datetime:
    return datetime.fromisoformat(f"2026-07-20T{hms}+00:00")


def increase(series: MetricSeries, start: datetime, end: datetime) -> float:
    values = {t: v for t, v in series.samples()}
    return values[end] - values[start]


def test_file_shape_and_questions() -> None:
    data = load_yaml(DEMO)
    assert data["now"] == "2026-07-20T14:40:00+03:00"
    assert data["timezone"] == "Europe/Moscow"
    assert 8 <= len(data["questions"]) <= 12
    assert any("7f9e2c21a4b84d0c9e51b0d3f6a27c85" in q for q in data["questions"])
    assert any(q.isascii() for q in data["questions"])
    assert any(not q.isascii() for q in data["questions"])
    assert DEMO.stat().st_size < 1_500_000


def test_environments_and_sources(world: World) -> None:
    assert world.environments == {"dc-a": ["kubernetes", "metrics", "logs"],
                                  "dc-b": ["kubernetes", "metrics", "logs"],
                                  "stage": ["kubernetes", "metrics"]}  # fmt: skip
    namespaces = {o["metadata"]["name"] for env in world.kubernetes
                  for o in objects(world, env, "Namespace")}  # fmt: skip
    assert namespaces == {"payments", "orders", "catalog", "search", "auth", "notifications"}
    deployments = {o["metadata"]["name"] for env in world.kubernetes
                   for o in objects(world, env, "Deployment")}  # fmt: skip
    assert len(deployments) >= 10
    assert {p["path_with_namespace"] for p in world.gitlab.projects} == {
        "payments/service-a", "orders/service-c", "orders/service-d"}  # fmt: skip


def test_story1_too_big_header_behind_a_302(world: World) -> None:
    logs = world.logs["dc-a"]
    access = {d["request_id"]: d for d in logs["edge-access-2026.07.20"]}
    hit = access["7f9e2c21a4b84d0c9e51b0d3f6a27c85"]
    assert (hit["status"], hit["edge_node"], hit["connection"]) == (502, "edge-02", 884213)
    errors = [d for d in logs["edge-error-2026.07.20"] if d["connection"] == 884213]
    assert len(errors) == 1 and "request_id" not in errors[0]
    assert ("upstream sent too big header while reading response header from upstream"
            in errors[0]["message"])  # fmt: skip
    app = [d for d in logs["app-payments-2026.07.20"]
           if d.get("request_id") == hit["request_id"] and d.get("http")]  # fmt: skip
    assert app[0]["http"]["status"] == 302 and app[0]["response"]["location_bytes"] == 1191
    assert len(hit["upstream_redirect_location"]) == 1191
    # decoys: a 413 on the same host over another connection, a timeout on another host
    same_host = [d for d in logs["edge-error-2026.07.20"] if d["host"] == "pay.example.com"]
    assert any("too large body" in d["message"] and d["connection"] != 884213 for d in same_host)
    assert any("timed out" in d["message"] and d["host"] != "pay.example.com"
               for d in logs["edge-error-2026.07.20"])  # fmt: skip
    # the endpoints were ready and nothing restarted
    eps = named(world, "dc-a", "EndpointSlice", "service-a-7h2kd")
    assert all(e["conditions"]["ready"] for e in eps["endpoints"]) and len(eps["endpoints"]) == 2
    restarts = metric(world, "dc-a", "kube_pod_container_status_restarts_total",
                      namespace="payments")  # fmt: skip
    assert restarts and all(v == 0 for s in restarts for v in s.values)
    # a small 502 bump in the ingress counter, matching the three logged 502s
    (bad,) = metric(world, "dc-a", "nginx_ingress_controller_requests", ingress="service-a",
                    status="502")  # fmt: skip
    assert increase(bad, at("11:05:00"), at("11:15:00")) == 3
    assert increase(bad, at("09:50:00"), at("11:05:00")) == 0


def test_story2_service_b_oomkilled(world: World) -> None:
    pod = named(world, "dc-a", "Pod", "service-b-6f9c8d7b5-q8n4t")
    (cs,) = pod["status"]["containerStatuses"]
    assert cs["restartCount"] == 7
    assert cs["lastState"]["terminated"]["reason"] == "OOMKilled"
    assert cs["lastState"]["terminated"]["exitCode"] == 137
    assert pod["spec"]["containers"][0]["resources"]["limits"]["memory"] == "512Mi"
    limit = 512 * 1024 * 1024
    memory = metric(
        world, "dc-a", "container_memory_working_set_bytes", pod=pod["metadata"]["name"]
    )
    assert len(memory) == 8  # one series per container instance
    assert max(v for s in memory for v in s.values) >= 0.97 * limit
    assert all(v < limit for s in memory for v in s.values)
    (restarts,) = metric(world, "dc-a", "kube_pod_container_status_restarts_total",
                         pod=pod["metadata"]["name"])  # fmt: skip
    assert restarts.values[0] == 0 and restarts.values[-1] == 7
    backoff = [e for e in objects(world, "dc-a", "Event", "orders") if e["reason"] == "BackOff"]
    assert backoff[0]["type"] == "Warning"
    assert backoff[0]["involvedObject"]["name"] == pod["metadata"]["name"]


def test_story3_service_d_crash_loop_after_deploy(world: World) -> None:
    pods = objects(world, "dc-b", "Pod", "orders")
    new = [p for p in pods if p["metadata"]["name"].startswith("service-d-7b6c9f5d84-")]
    old = [p for p in pods if p["metadata"]["name"].startswith("service-d-5f7d8c6b9-")]
    assert len(new) == 2 and len(old) == 4
    for p in new:
        (cs,) = p["status"]["containerStatuses"]
        assert cs["state"]["waiting"]["reason"] == "CrashLoopBackOff"
        assert cs["lastState"]["terminated"]["exitCode"] == 1
        assert cs["lastState"]["terminated"]["reason"] == "Error"
        assert cs["image"].endswith("service-d:2.4.0")
        for key in ("app", "app/previous"):  # the last crash and the one before it
            log = world.pod_logs["dc-b"][f"orders/{p['metadata']['name']}/{key}"]
            assert "missing required env DATABASE_URL" in log
    assert all(p["status"]["containerStatuses"][0]["ready"] for p in old)
    dep = named(world, "dc-b", "Deployment", "service-d")
    assert dep["metadata"]["annotations"]["ci.example.com/job-url"].endswith("/jobs/5531195")
    assert dep["status"]["availableReplicas"] == 4
    patch = next(a for a in world.audit["dc-b"]
                 if a["verb"] == "patch" and a["objectRef"].get("name") == "service-d")  # fmt: skip
    assert patch["user"]["username"] == "system:serviceaccount:ci:svc-deployer"
    notes = patch["requestObject"]["metadata"]["annotations"]
    assert (
        notes["ci.example.com/job-url"]
        == "https://gitlab.example.com/orders/service-d/-/jobs/5531195"
    )
    assert patch["requestReceivedTimestamp"].startswith("2026-07-20T10:52:13")
    job = next(j for j in world.gitlab.jobs if j["id"] == 5531195)
    assert (job["name"], job["user"]["username"], job["ref"]) == (
        "deploy:dc-b",
        "k.smirnova",
        "v2.4.0",
    )
    assert job["commit"]["author_name"] == "d.ivanov"
    assert any(j["project_id"] != job["project_id"] for j in world.gitlab.jobs)  # noise


def test_story4_worker17_network_against_its_peers(world: World) -> None:
    start, end = at("10:04:00"), at("10:13:00")
    for name in ("node_netstat_Tcp_RetransSegs", "node_softnet_times_squeezed_total"):
        by_node: dict[str, float] = {}
        for s in metric(world, "dc-b", name):
            assert s.labels["instance"] == f"{s.labels['node']}:9100"
            by_node[s.labels["node"]] = by_node.get(s.labels["node"], 0) + increase(s, start, end)
        assert set(by_node) == {"worker-15", "worker-16", "worker-17", "worker-18"}
        peers = [v for node, v in by_node.items() if node != "worker-17"]
        assert by_node["worker-17"] > 10 * max(peers)
    ips = {p["status"]["podIP"] for p in objects(world, "dc-b", "Pod")
           if p["spec"].get("nodeName") == "worker-17"}  # fmt: skip
    for ingress in ("search-api", "auth-api"):
        bad = metric(world, "dc-b", "nginx_ingress_controller_requests", ingress=ingress,
                     status="502")  # fmt: skip
        assert sum(increase(s, at("10:05:00"), at("10:13:00")) for s in bad) >= 20
        assert sum(increase(s, at("10:20:00"), at("11:40:00")) for s in bad) == 0
    errors = world.logs["dc-b"]["edge-error-2026.07.20"]
    in_window = [d for d in errors if "10:05:00" <= d["@timestamp"][11:19] <= "10:12:59"]
    assert {d["upstream"].split("/")[2].split(":")[0] for d in in_window} <= ips
    texts = " ".join(d["message"] for d in in_window)
    assert "upstream prematurely closed connection" in texts
    assert "recv() failed (104: Connection reset by peer)" in texts
    for name in ("search-api", "auth-api"):
        eps = [o for o in objects(world, "dc-b", "EndpointSlice")
               if o["metadata"]["labels"]["kubernetes.io/service-name"] == name]  # fmt: skip
        assert all(e["conditions"]["ready"] for o in eps for e in o["endpoints"])


def _quantity(value: str) -> float:
    units = {"m": 0.001, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
    for unit, factor in units.items():
        if value.endswith(unit):
            return float(value[: -len(unit)]) * factor
    return float(value)


def test_story5_stage_quota_nearly_full(world: World) -> None:
    quota = named(world, "stage", "ResourceQuota", "notifications-quota")
    hard, used = quota["status"]["hard"], quota["status"]["used"]
    assert set(hard) == {"pods", "requests.cpu", "requests.memory"}
    for resource in hard:
        assert _quantity(used[resource]) / _quantity(hard[resource]) >= 0.9
    pods = objects(world, "stage", "Pod", "notifications")
    assert str(len(pods)) == used["pods"]
    pending = [p for p in pods if p["status"]["phase"] == "Pending"]
    assert [p["metadata"]["name"] for p in pending] == ["notify-push-5c8d7f6b9-hx4mb"]
    events = objects(world, "stage", "Event", "notifications")
    assert any(
        e["reason"] == "FailedScheduling"
        and e["involvedObject"]["name"] == "notify-push-5c8d7f6b9-hx4mb"
        for e in events
    )
    assert any(e["reason"] == "FailedCreate" and "exceeded quota: notifications-quota"
               in e["message"] for e in events)  # fmt: skip
    for resource in hard:
        (h,) = metric(world, "stage", "kube_resourcequota", resource=resource, type="hard")
        (u,) = metric(world, "stage", "kube_resourcequota", resource=resource, type="used")
        assert u.values[-1] / h.values[-1] >= 0.9


def test_traffic_latency_and_usage_series(world: World) -> None:
    for env in ("dc-a", "dc-b"):
        served = {
            s.labels["ingress"] for s in metric(world, env, "nginx_ingress_controller_requests")
        }
        http = {o["metadata"]["name"] for o in objects(world, env, "Service")}
        assert http <= served
        for ingress in ("service-a", "catalog-api"):
            buckets = metric(world, env, "nginx_ingress_controller_request_duration_seconds_bucket",
                             ingress=ingress)  # fmt: skip
            assert {s.labels["le"] for s in buckets} >= {"0.1", "1", "+Inf"}
        for name in ("container_cpu_usage_seconds_total", "container_memory_working_set_bytes"):
            assert metric(world, env, name)
    (catalog,) = metric(world, "dc-a", "nginx_ingress_controller_requests", ingress="catalog-api",
                        host="catalog.example.com", status="200")  # fmt: skip
    rps = increase(catalog, at("10:40:00"), at("11:40:00")) / 3600
    assert 400 < rps < 425


def test_counters_never_go_down(world: World) -> None:
    samples = 0
    for env, all_series in world.metrics.items():
        for s in all_series:
            samples += len(s.values)
            if s.labels["__name__"].endswith(COUNTERS):
                values = [v for v in s.values if v is not None]
                assert values == sorted(values), (env, s.labels)
    assert samples < 60_000


def test_generator_writes_exactly_the_committed_file() -> None:
    make_demo = runpy.run_path(str(WORLDS / "make_demo.py"), run_name="make_demo")
    assert make_demo["render"]() == DEMO.read_text(encoding="utf-8")
    assert make_demo["NOW"] == datetime(2026, 7, 20, 11, 40, tzinfo=UTC)
