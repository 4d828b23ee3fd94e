"""The Kubernetes simulator, driven by the official `kubernetes` client over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import urllib3
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from evals.simulators.host import WorldSimulators
from evals.world import World, load_world, world_from_data

EXAMPLES = Path(__file__).resolve().parents[2] / "evals" / "scenarios"


def _kube_only(world: World) -> World:
    """The example world without its metrics and logs sources (no VictoriaMetrics here)."""
    return world.model_copy(
        update={
            "environments": {env: ["kubernetes"] for env in world.environments},
            "metrics": {},
            "logs": {},
        }
    )


@contextmanager
def serve(world: World, *, stall: float = 2.0) -> Iterator[WorldSimulators]:
    with WorldSimulators(world, stall_seconds=stall) as sims:
        yield sims


def api(sims: WorldSimulators, env: str) -> client.ApiClient:
    config = client.Configuration(host=sims.endpoints.envs[env].kubernetes, retries=False)
    return client.ApiClient(config)


def raw(resp: Any) -> Any:
    return json.loads(resp.data)


def status_of(exc: ApiException) -> dict[str, Any]:
    return json.loads(exc.body)


def _pod(
    name: str,
    ns: str,
    labels: dict[str, str],
    node: str | None,
    phase: str,
    containers: tuple[str, ...] = ("app",),
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": labels},
        "spec": {
            "nodeName": node,
            "containers": [{"name": c, "image": f"r/{c}:1"} for c in containers],
        },
        "status": {"phase": phase},
    }


def small_world(faults: list[dict[str, Any]] | None = None) -> World:
    pods = [
        _pod("web-1", "shop", {"app": "web", "tier": "front"}, "n1", "Running"),
        _pod("web-2", "shop", {"app": "web", "tier": "front", "canary": "yes"}, "n2", "Running"),
        _pod("db-0", "shop", {"app": "db"}, "n1", "Running"),
        _pod("job-x", "ops", {"app": "job"}, None, "Pending", ("main", "sidecar")),
    ]
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web-1.17f", "namespace": "shop"},
        "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "shop"},
        "reason": "FailedMount",
        "type": "Warning",
        "message": "secret not found",
        "count": 3,
        "lastTimestamp": "2026-07-20T11:00:00Z",
    }
    return world_from_data(
        {
            "environments": {"dc-a": ["kubernetes"], "dc-b": ["kubernetes"]},
            "kubernetes": {"dc-a": [*pods, event]},
            "pod_logs": {
                "dc-a": {
                    "shop/web-1/app": "2026-07-20T10:59:00Z start\n"
                    "2026-07-20T11:00:01.5Z INFO ready\n"
                    "  continuation\n"
                    "2026-07-20T11:05:00Z ERROR boom\n",
                    "ops/job-x/main": "2026-07-20T11:00:00Z main\n",
                }
            },
            "audit": {
                "dc-a": [
                    {
                        "kind": "Event",
                        "apiVersion": "audit.k8s.io/v1",
                        "auditID": "a1",
                        "verb": "patch",
                        "user": {"username": "oidc:kim"},
                        "stage": "ResponseComplete",
                        "objectRef": {
                            "resource": "deployments",
                            "namespace": "shop",
                            "name": "web",
                        },
                        "requestReceivedTimestamp": "2026-07-20T11:00:00Z",
                    },
                    {
                        "kind": "Event",
                        "apiVersion": "audit.k8s.io/v1",
                        "auditID": "a2",
                        "verb": "delete",
                        "user": {"username": "oidc:kim"},
                        "stage": "ResponseComplete",
                        "objectRef": {"resource": "pods", "namespace": "ops", "name": "job-y"},
                        "requestReceivedTimestamp": "2026-07-20T11:01:00Z",
                    },
                ]
            },
            "faults": faults or [],
        }
    )


@pytest.fixture(scope="module")
def edge() -> Iterator[WorldSimulators]:
    world = _kube_only(load_world(EXAMPLES / "edge-502-too-big-header.yaml"))
    with serve(world) as sims:
        yield sims


@pytest.fixture(scope="module")
def small() -> Iterator[WorldSimulators]:
    with serve(small_world()) as sims:
        yield sims


def test_discovery_documents(edge: WorldSimulators) -> None:
    c = api(edge, "dc-a")
    assert client.CoreApi(c).get_api_versions().versions == ["v1"]
    groups = {g.name for g in client.ApisApi(c).get_api_versions().groups}
    assert {"apps", "discovery.k8s.io", "events.k8s.io"} <= groups
    assert "audit.infrabot.dev" not in groups  # this world has no audit for dc-a
    core = {r.name: r for r in client.CoreV1Api(c).get_api_resources().resources}
    assert core["pods"].namespaced and not core["nodes"].namespaced
    assert "pods/log" in core
    apps = {r.name for r in client.AppsV1Api(c).get_api_resources().resources}
    assert {"deployments", "replicasets", "statefulsets", "daemonsets"} <= apps


def test_typed_lists_and_gets_of_the_example_world(edge: WorldSimulators) -> None:
    c = api(edge, "dc-a")
    core, apps = client.CoreV1Api(c), client.AppsV1Api(c)
    pods = core.list_namespaced_pod("payments")
    assert pods.kind == "PodList" and pods.api_version == "v1"
    assert pods.metadata.resource_version == "918273645"
    assert [p.metadata.name for p in pods.items] == [
        "service-a-5d8f7c9b4-m7q4d",
        "service-a-5d8f7c9b4-x2k9p",
    ]
    deploy = apps.read_namespaced_deployment("service-a", "payments")
    assert deploy.status.ready_replicas == 2
    assert deploy.spec.template.spec.containers[0].image.endswith("service-a:3.12.4")
    rs = apps.list_namespaced_replica_set("payments", label_selector="pod-template-hash")
    assert rs.kind == "ReplicaSetList" and rs.api_version == "apps/v1"
    slices = client.DiscoveryV1Api(c).list_namespaced_endpoint_slice(
        "payments", label_selector="kubernetes.io/service-name=service-a"
    )
    assert [e.target_ref.name for e in slices.items[0].endpoints] == [
        "service-a-5d8f7c9b4-x2k9p",
        "service-a-5d8f7c9b4-m7q4d",
    ]
    svc = core.read_namespaced_service("service-a", "payments")
    assert svc.spec.cluster_ip == "10.96.44.18"
    # Namespaces are synthesised from the objects when the world lists none.
    assert [n.metadata.name for n in core.list_namespace().items] == ["payments"]
    assert core.read_namespace("payments").status.phase == "Active"
    # The example Node lacks required nodeInfo fields for the typed model: read it raw.
    nodes = raw(core.list_node(_preload_content=False))
    assert nodes["kind"] == "NodeList"
    assert [n["metadata"]["name"] for n in nodes["items"]] == ["worker-04", "worker-05"]
    on_node = core.list_pod_for_all_namespaces(field_selector="spec.nodeName=worker-04")
    assert [p.metadata.name for p in on_node.items] == ["service-a-5d8f7c9b4-x2k9p"]


def test_not_found_is_a_status_body(edge: WorldSimulators) -> None:
    apps = client.AppsV1Api(api(edge, "dc-a"))
    with pytest.raises(ApiException) as err:
        apps.read_namespaced_deployment("service-z", "payments")
    body = status_of(err.value)
    assert err.value.status == 404
    assert body["kind"] == "Status" and body["reason"] == "NotFound" and body["code"] == 404
    assert body["details"] == {"name": "service-z", "kind": "deployments", "group": "apps"}
    assert body["message"] == 'deployments.apps "service-z" not found'


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("app=web", ["web-1", "web-2"]),
        ("app==web,tier=front", ["web-1", "web-2"]),
        ("app!=web", ["db-0"]),
        ("app in (db, web)", ["db-0", "web-1", "web-2"]),
        ("app notin (web),app", ["db-0"]),
        ("canary", ["web-2"]),
        ("app=web,!canary", ["web-1"]),
    ],
)
def test_label_selectors(small: WorldSimulators, selector: str, expected: list[str]) -> None:
    pods = client.CoreV1Api(api(small, "dc-a")).list_namespaced_pod("shop", label_selector=selector)
    assert sorted(p.metadata.name for p in pods.items) == expected


def test_field_selectors_and_rejected_fields(small: WorldSimulators) -> None:
    core = client.CoreV1Api(api(small, "dc-a"))
    pending = core.list_pod_for_all_namespaces(field_selector="status.phase=Pending")
    assert [p.metadata.name for p in pending.items] == ["job-x"]
    named = core.list_pod_for_all_namespaces(
        field_selector="metadata.namespace=shop,metadata.name!=db-0"
    )
    assert [p.metadata.name for p in named.items] == ["web-1", "web-2"]
    events = core.list_namespaced_event(
        "shop", field_selector="involvedObject.name=web-1,involvedObject.kind=Pod"
    )
    assert [e.reason for e in events.items] == ["FailedMount"]
    assert events.items[0].count == 3
    with pytest.raises(ApiException) as err:
        core.list_namespaced_pod("shop", field_selector="spec.containers=x")
    assert err.value.status == 400
    assert status_of(err.value)["message"] == "field label not supported: spec.containers"


def test_limit_and_continue_walk_the_whole_list(small: WorldSimulators) -> None:
    core = client.CoreV1Api(api(small, "dc-a"))
    first = core.list_pod_for_all_namespaces(limit=3)
    assert len(first.items) == 3
    assert first.metadata.remaining_item_count == 1 and first.metadata._continue
    rest = core.list_pod_for_all_namespaces(limit=3, _continue=first.metadata._continue)
    assert rest.metadata._continue is None
    names = [p.metadata.name for p in first.items + rest.items]
    assert names == ["job-x", "db-0", "web-1", "web-2"]  # namespace, then name order


def test_pod_logs_options(small: WorldSimulators) -> None:
    core = client.CoreV1Api(api(small, "dc-a"))
    log = core.read_namespaced_pod_log("web-1", "shop")
    assert log.splitlines()[0] == "2026-07-20T10:59:00Z start"
    stamped = core.read_namespaced_pod_log("web-1", "shop", timestamps=True, tail_lines=2)
    assert stamped.splitlines() == [
        "2026-07-20T11:00:01.500000000Z   continuation",
        "2026-07-20T11:05:00.000000000Z 2026-07-20T11:05:00Z ERROR boom",
    ]
    # sinceTime is a real query parameter the generated method does not offer.
    c = api(small, "dc-a")
    req = c.param_serialize(
        "GET",
        "/api/v1/namespaces/shop/pods/web-1/log",
        query_params=[("sinceTime", "2026-07-20T11:00:00Z")],
    )
    resp = c.call_api(*req)
    resp.read()
    assert resp.data.decode().splitlines() == [
        "2026-07-20T11:00:01.5Z INFO ready",
        "  continuation",
        "2026-07-20T11:05:00Z ERROR boom",
    ]
    with pytest.raises(ApiException) as err:
        core.read_namespaced_pod_log("job-x", "ops")
    assert err.value.status == 400
    assert "choose one of: [main sidecar]" in status_of(err.value)["message"]
    assert core.read_namespaced_pod_log("job-x", "ops", container="main").startswith(
        "2026-07-20T11:00:00Z main"
    )
    with pytest.raises(ApiException) as err:
        core.read_namespaced_pod_log("web-1", "shop", previous=True)
    assert err.value.status == 400
    assert "previous terminated container" in status_of(err.value)["message"]
    with pytest.raises(ApiException) as err:
        core.read_namespaced_pod_log("web-9", "shop")
    assert err.value.status == 404


def test_previous_container_logs() -> None:
    world = small_world()
    # "namespace/pod/container/previous" (see the report: world.py accepts only 2 slashes)
    world.pod_logs["dc-a"]["shop/web-1/app/previous"] = "2026-07-20T10:50:00Z OOM soon\n"
    with serve(world) as sims:
        core = client.CoreV1Api(api(sims, "dc-a"))
        assert core.read_namespaced_pod_log("web-1", "shop", previous=True) == (
            "2026-07-20T10:50:00Z OOM soon\n"
        )


def test_a_crash_looping_containers_log_is_its_last_terminated_run() -> None:
    """A world holds one log per container (the documented key). A container waiting to
    restart has no running instance, so that log is its last terminated run's, and the
    kubelet serves it for previous=true; a running container without a recorded previous
    run still answers 400."""
    world = small_world()
    crashing = world.kubernetes["dc-a"][0]
    crashing["status"]["containerStatuses"] = [
        {
            "name": "app",
            "restartCount": 7,
            "state": {"waiting": {"reason": "CrashLoopBackOff"}},
            "lastState": {"terminated": {"reason": "Error", "exitCode": 2}},
        }
    ]
    with serve(world) as sims:
        core = client.CoreV1Api(api(sims, "dc-a"))
        last_run = core.read_namespaced_pod_log("web-1", "shop", previous=True)
        assert last_run.splitlines()[-1] == "2026-07-20T11:05:00Z ERROR boom"
        with pytest.raises(ApiException) as err:
            core.read_namespaced_pod_log("web-2", "shop", previous=True)
        assert err.value.status == 400


def test_audit_events_through_custom_objects_api() -> None:
    world = _kube_only(load_world(EXAMPLES / "who-deployed-roles.yaml"))
    with serve(world) as sims:
        custom = client.CustomObjectsApi(api(sims, "dc-b"))
        listed = custom.list_namespaced_custom_object(
            "audit.infrabot.dev", "v1", "orders", "auditevents"
        )
        assert listed["kind"] == "AuditEventList"
        assert listed["apiVersion"] == "audit.infrabot.dev/v1"
        assert len(listed["items"]) == 4
        patch = listed["items"][1]
        assert patch["kind"] == "Event" and patch["apiVersion"] == "audit.k8s.io/v1"
        assert patch["user"]["username"] == "system:serviceaccount:ci:svc-deployer"
        page = custom.list_cluster_custom_object("audit.infrabot.dev", "v1", "auditevents", limit=3)
        assert len(page["items"]) == 3 and page["metadata"]["continue"]
        assert (
            custom.list_namespaced_custom_object(
                "audit.infrabot.dev", "v1", "payments", "auditevents"
            )["items"]
            == []
        )
        groups = {g.name for g in client.ApisApi(api(sims, "dc-b")).get_api_versions().groups}
        assert "audit.infrabot.dev" in groups


def test_audit_api_is_absent_where_the_world_has_no_audit(small: WorldSimulators) -> None:
    custom = client.CustomObjectsApi(api(small, "dc-b"))
    with pytest.raises(ApiException) as err:
        custom.list_cluster_custom_object("audit.infrabot.dev", "v1", "auditevents")
    assert err.value.status == 404


def test_read_only_and_query_log(small: WorldSimulators) -> None:
    small.query_log.clear()
    core = client.CoreV1Api(api(small, "dc-a"))
    with pytest.raises(ApiException) as err:
        core.delete_namespaced_pod("web-1", "shop")
    assert err.value.status == 405
    core.list_namespaced_pod("shop", label_selector="app=web")
    records = small.query_log.matches(source="kubernetes", env="dc-a")
    assert [(r.method, r.path, r.status) for r in records] == [
        ("DELETE", "/api/v1/namespaces/shop/pods/web-1", 405),
        ("GET", "/api/v1/namespaces/shop/pods", 200),
    ]
    assert records[1].params == {"labelSelector": "app=web"}


# -- faults ------------------------------------------------------------------------------


def test_forbidden_and_unsupported_faults() -> None:
    faults = [
        {"source": "kubernetes", "env": "dc-a", "kind": "forbidden", "resource": "events"},
        {
            "source": "kubernetes",
            "env": "dc-a",
            "kind": "unsupported",
            "resource": "endpointslices",
        },
    ]
    with serve(small_world(faults)) as sims:
        c = api(sims, "dc-a")
        with pytest.raises(ApiException) as err:
            client.CoreV1Api(c).list_namespaced_event("shop")
        body = status_of(err.value)
        assert err.value.status == 403 and body["reason"] == "Forbidden"
        assert 'cannot list resource "events"' in body["message"]
        with pytest.raises(ApiException) as err:
            client.DiscoveryV1Api(c).list_namespaced_endpoint_slice("shop")
        assert err.value.status == 404 and status_of(err.value)["reason"] == "NotFound"
        assert client.CoreV1Api(c).list_namespaced_pod("shop").items  # other kinds unaffected
        statuses = [r.status for r in sims.query_log.matches("kubernetes", "dc-a")]
        assert statuses == [403, 404, 200]


def test_truncate_fault_cuts_the_list_and_expires_the_continue_token() -> None:
    faults = [{"source": "kubernetes", "kind": "truncate", "resource": "pods", "max_hits": 2}]
    with serve(small_world(faults)) as sims:
        core = client.CoreV1Api(api(sims, "dc-a"))
        first = core.list_pod_for_all_namespaces(limit=500)
        assert len(first.items) == 2 and first.metadata._continue
        with pytest.raises(ApiException) as err:
            core.list_pod_for_all_namespaces(limit=500, _continue=first.metadata._continue)
        assert err.value.status == 410 and status_of(err.value)["reason"] == "Expired"


def test_http_error_malformed_and_timeout_faults() -> None:
    faults = [
        {"source": "kubernetes", "kind": "http_error", "status": 503, "resource": "nodes"},
        {"source": "kubernetes", "kind": "malformed", "resource": "services"},
        {"source": "kubernetes", "kind": "timeout", "resource": "log"},
    ]
    with serve(small_world(faults), stall=2) as sims:
        core = client.CoreV1Api(api(sims, "dc-a"))
        with pytest.raises(ApiException) as err:
            core.list_node()
        assert err.value.status == 503
        resp = core.list_namespaced_service("shop", _preload_content=False)
        with pytest.raises(ValueError):
            json.loads(resp.data)
        with pytest.raises(urllib3.exceptions.ReadTimeoutError):
            core.read_namespaced_pod_log("web-1", "shop", _request_timeout=0.5)
        assert core.list_namespaced_pod("shop").items  # pods still answer
