"""The Kubernetes tools through the policy gate, the official client and the simulator."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from connectors.kubernetes import KubernetesTarget, build_tools
from evals.simulators.host import WorldSimulators
from evals.world import Fault, World, load_world, world_from_data
from policy import CallContext, PolicyGate, Scope, TimeSpec, ToolResult, ToolSet
from policy.vocabulary import EVIDENCE_KINDS

EXAMPLES = Path(__file__).resolve().parents[2] / "evals" / "scenarios"
NOW = datetime.fromisoformat("2026-07-20T14:40:00+03:00")
TOOLS = {
    "k8s.inventory",
    "k8s.health_sweep",
    "k8s.workload_status",
    "k8s.events",
    "k8s.endpoints",
    "k8s.node_health",
    "k8s.pod_logs",
    "k8s.pod_placement",
    "k8s.quotas",
    "k8s.audit_trail",
    "k8s.autoscaler",
    "k8s.log_errors",
}


def now_ctx(env: str = "dc-a") -> CallContext:
    return CallContext(user="alice", role="engineer", scope=Scope(env=env), now=NOW)


def past_ctx(at: str, window: str = "PT30M", now: datetime = NOW) -> CallContext:
    time = TimeSpec(at=datetime.fromisoformat(at), window=window, mode="historical")
    return CallContext(user="alice", role="engineer", scope=Scope(time=time), now=now)


def _kube_only(world: World) -> World:
    return world.model_copy(
        update={
            "environments": {env: ["kubernetes"] for env in world.environments},
            "metrics": {},
            "logs": {},
        }
    )


@contextmanager
def gate_for(
    world: World, *, timeout_s: float = 5.0
) -> Iterator[tuple[PolicyGate, WorldSimulators]]:
    with WorldSimulators(world, stall_seconds=2) as sims:
        targets = [
            KubernetesTarget(env=env, url=ep.kubernetes, timeout_s=timeout_s)
            for env, ep in sims.endpoints.envs.items()
            if ep.kubernetes
        ]
        yield PolicyGate(ToolSet(build_tools(targets))), sims


def texts(result: ToolResult, kind: str | None = None) -> list[str]:
    return [f.text for f in result.facts if kind is None or f.kind == kind]


# -- an inline world with the classic failures ----------------------------------------


def _container(name: str, **status: Any) -> dict[str, Any]:
    return {
        "name": name,
        "image": f"registry.example.com/shop/{name}:2.0",
        "ready": False,
        "restartCount": 0,
        "state": {},
        "lastState": {},
        **status,
    }


def _pod(
    name: str,
    node: str | None,
    phase: str,
    statuses: list[dict[str, Any]],
    conditions: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "shop",
            "labels": {"app": "cart"},
            "ownerReferences": [{"kind": "ReplicaSet", "name": "cart-7f9c", "controller": True}],
        },
        "spec": {
            "nodeName": node,
            "containers": [{"name": "app", "image": "registry.example.com/shop/app:2.0"}],
        },
        "status": {"phase": phase, "containerStatuses": statuses, "conditions": conditions or []},
    }


def _event(
    name: str, obj: str, reason: str, etype: str, message: str, last: str, count: int = 1
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "shop"},
        "involvedObject": {"kind": "Pod", "name": obj, "namespace": "shop"},
        "reason": reason,
        "type": etype,
        "message": message,
        "count": count,
        "firstTimestamp": last,
        "lastTimestamp": last,
    }


def shop_world(faults: list[dict[str, Any]] | None = None) -> World:
    oom = _pod(
        "cart-7f9c-oom01",
        "node-1",
        "Running",
        [
            _container(
                "app",
                ready=True,
                restartCount=4,
                state={"running": {"startedAt": "2026-07-20T11:02:00Z"}},
                lastState={
                    "terminated": {
                        "reason": "OOMKilled",
                        "exitCode": 137,
                        "startedAt": "2026-07-20T10:40:00Z",
                        "finishedAt": "2026-07-20T11:01:55Z",
                    }
                },
            )
        ],
    )
    crash = _pod(
        "cart-7f9c-crash1",
        "node-2",
        "Running",
        [
            _container(
                "app",
                restartCount=7,
                state={
                    "waiting": {
                        "reason": "CrashLoopBackOff",
                        "message": "back-off 5m0s restarting failed container=app",
                    }
                },
                lastState={
                    "terminated": {
                        "reason": "Error",
                        "exitCode": 1,
                        "finishedAt": "2026-07-20T11:03:00Z",
                    }
                },
            )
        ],
    )
    pending = _pod(
        "cart-7f9c-pend99",
        None,
        "Pending",
        [],
        [
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": "Unschedulable",
                "message": "0/3 nodes are available: 3 Insufficient memory.",
            }
        ],
    )
    objects = [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": "cart",
                "namespace": "shop",
                "uid": "d-1",
                "annotations": {"deployment.kubernetes.io/revision": "9"},
            },
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": "cart"}},
                "template": {
                    "spec": {
                        "containers": [
                            {"name": "app", "image": "registry.example.com/shop/app:2.0"}
                        ]
                    }
                },
            },
            "status": {
                "replicas": 3,
                "readyReplicas": 1,
                "updatedReplicas": 3,
                "availableReplicas": 1,
                "conditions": [
                    {
                        "type": "Available",
                        "status": "False",
                        "reason": "MinimumReplicasUnavailable",
                        "message": "Deployment does not have minimum availability.",
                    }
                ],
            },
        },
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {
                "name": "cart-7f9c",
                "namespace": "shop",
                "labels": {"app": "cart"},
                "ownerReferences": [{"kind": "Deployment", "name": "cart", "uid": "d-1"}],
            },
            "spec": {
                "replicas": 3,
                "template": {
                    "spec": {
                        "containers": [
                            {"name": "app", "image": "registry.example.com/shop/app:2.0"}
                        ]
                    }
                },
            },
            "status": {"replicas": 3, "readyReplicas": 1},
        },
        oom,
        crash,
        pending,
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "cart", "namespace": "shop"},
            "spec": {"selector": {"app": "cart"}},
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "storefront", "namespace": "shop"},
            "spec": {"selector": {"app": "cart"}},
        },
        {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "name": "cart-abcde",
                "namespace": "shop",
                "labels": {"kubernetes.io/service-name": "cart"},
            },
            "addressType": "IPv4",
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
            "endpoints": [
                {
                    "addresses": ["10.1.0.5"],
                    "conditions": {"ready": True},
                    "nodeName": "node-1",
                    "targetRef": {"kind": "Pod", "name": "cart-7f9c-oom01"},
                },
                {
                    "addresses": ["10.1.0.6"],
                    "conditions": {"ready": False},
                    "nodeName": "node-2",
                    "targetRef": {"kind": "Pod", "name": "cart-7f9c-crash1"},
                },
            ],
        },
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "node-2"},
            "spec": {"unschedulable": True},
            "status": {
                "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                "conditions": [
                    {
                        "type": "MemoryPressure",
                        "status": "True",
                        "reason": "KubeletHasInsufficientMemory",
                        "message": "kubelet has insufficient memory available",
                    },
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "KubeletReady",
                        "message": "kubelet is posting ready status",
                    },
                ],
            },
        },
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "compute", "namespace": "shop"},
            "spec": {"hard": {"requests.memory": "30Gi", "pods": "50"}},
            "status": {
                "hard": {"requests.memory": "30Gi", "pods": "50"},
                "used": {"requests.memory": "27Gi", "pods": "10"},
            },
        },
        _event(
            "e1",
            "cart-7f9c-oom01",
            "FailedMount",
            "Warning",
            'MountVolume.SetUp failed for volume "config" : configmap "cart-config" not found',
            "2026-07-20T11:04:00Z",
            count=12,
        ),
        _event(
            "e2",
            "cart-7f9c-pend99",
            "FailedScheduling",
            "Warning",
            "0/3 nodes are available: 3 Insufficient memory.",
            "2026-07-20T11:05:00Z",
        ),
        _event(
            "e3",
            "cart-7f9c-oom01",
            "Pulled",
            "Normal",
            "Container image already present",
            "2026-07-20T11:06:00Z",
        ),
        _event(
            "e4", "billing-1", "BackOff", "Warning", "Back-off restarting", "2026-07-20T11:05:00Z"
        ),
        _event(
            "e5",
            "cart-7f9c-oom01",
            "Killing",
            "Normal",
            "Stopping container app",
            "2026-07-19T08:00:00Z",
        ),
    ]
    logs = "".join(
        f"2026-07-20T11:{m:02d}:00Z {'ERROR' if m % 2 else 'INFO'} line {m}\n" for m in range(2, 12)
    )
    return world_from_data(
        {
            "environments": {"dc-a": ["kubernetes"]},
            "kubernetes": {"dc-a": objects},
            "pod_logs": {
                "dc-a": {
                    "shop/cart-7f9c-oom01/app": logs,
                    "shop/cart-7f9c-crash1/app": "2026-07-20T11:03:00Z FATAL bad config\n"
                    # gunicorn's worker dying at import (a Python traceback, line by line)
                    "[2026-07-20 11:03:01 +0000] [7] [ERROR] Exception in worker process\n"
                    "Traceback (most recent call last):\n"
                    '  File "/app/cart/settings.py", line 41, in <module>\n'
                    '    BUCKET = os.environ["CART_BUCKET"]\n'
                    "KeyError: 'CART_BUCKET'\n"
                    "[2026-07-20 11:03:02 +0000] [1] [ERROR] Reason: Worker failed to boot.\n",
                }
            },
            "faults": faults or [],
        }
    )


WINDOW_CTX = "2026-07-20T14:05:00+03:00"  # 10:50Z .. 11:20Z


@pytest.fixture(scope="module")
def shop() -> Iterator[tuple[PolicyGate, WorldSimulators]]:
    with gate_for(shop_world()) as pair:
        yield pair


@pytest.fixture(scope="module")
def edge() -> Iterator[tuple[PolicyGate, WorldSimulators]]:
    with gate_for(_kube_only(load_world(EXAMPLES / "edge-502-too-big-header.yaml"))) as pair:
        yield pair


# -- contracts ---------------------------------------------------------------------------


def test_contracts_are_closed_read_only_schemas() -> None:
    tools = build_tools(
        [
            KubernetesTarget(env="dc-a", url="http://127.0.0.1:1"),
            KubernetesTarget(env="dc-b", url="http://127.0.0.1:2"),
        ]
    )
    by_name = {t.contract.name: t.contract for t in tools}
    assert set(by_name) == TOOLS
    for contract in by_name.values():
        schema = contract.input_schema()
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
        assert schema["properties"]["env"]["enum"] == ["dc-a", "dc-b"]
        assert contract.agent.read_only is True
        # every kind is the shared vocabulary's, or declared by the tool with its facet
        assert all(
            k in EVIDENCE_KINDS or k == "inventory" or k in contract.agent.facets
            for k in contract.agent.evidence
        )
    live = {n for n, c in by_name.items() if c.agent.current_only}
    assert live == {
        "k8s.inventory",
        "k8s.health_sweep",
        "k8s.workload_status",
        "k8s.endpoints",
        "k8s.node_health",
        "k8s.quotas",
        "k8s.autoscaler",
    }
    assert by_name["k8s.autoscaler"].agent.facets == {"k8s.autoscaler": "state"}
    assert by_name["k8s.events"].agent.negative_semantics == "none"
    assert by_name["k8s.audit_trail"].agent.freshness == "event_time"


async def test_bad_arguments_are_denied_before_any_read(shop) -> None:
    gate, sims = shop
    sims.query_log.clear()
    for args in (
        {"env": "dc-x", "namespace": "shop", "service": "cart"},
        {"env": "dc-a", "namespace": "shop", "service": "cart", "verbose": True},
        {"env": "dc-a", "namespace": "shop", "grep": "("},
        {"env": "dc-a", "namespace": "shop"},
    ):
        tool = "k8s.pod_logs" if "grep" in args or "service" not in args else "k8s.workload_status"
        result = await gate.call(tool, args, now_ctx())
        assert result.status == "denied" and result.error_kind == "invalid_arguments"
    assert sims.query_log.records() == []


# -- the example worlds --------------------------------------------------------------


async def test_workload_endpoints_and_node_of_the_edge_world(edge) -> None:
    gate, sims = edge
    sims.query_log.clear()
    args = {"env": "dc-a", "namespace": "payments", "service": "service-a"}
    status = await gate.call("k8s.workload_status", args, now_ctx())
    assert status.status == "ok" and status.coverage.complete_for_negative
    assert texts(status, "k8s.workload")[0].startswith(
        "Deployment payments/service-a: 2/2 ready (2 updated, 2 available), "
        "image registry.example.com/payments/service-a:3.12.4, revision 31"
    )
    pods = {f.attrs.pod: f.attrs for f in status.facts if f.kind == "k8s.pod"}
    assert {p: a.node for p, a in pods.items()} == {
        "service-a-5d8f7c9b4-x2k9p": "worker-04",
        "service-a-5d8f7c9b4-m7q4d": "worker-05",
    }
    assert all(f.historical is False and f.observed_at == NOW for f in status.facts)
    edges = {(r.src, r.rel, r.dst) for r in status.relations}
    assert ("deployment/service-a", "owns", "replicaset/service-a-5d8f7c9b4") in edges
    assert ("pod/service-a-5d8f7c9b4-x2k9p", "runs_on", "node/worker-04") in edges
    assert not texts(status, "k8s.termination") and not texts(status, "k8s.waiting")

    endpoints = await gate.call("k8s.endpoints", args, now_ctx())
    fact = endpoints.facts[0]
    assert (fact.attrs.ready, fact.attrs.not_ready) == (2, 0)
    assert "10.42.3.17 (pod service-a-5d8f7c9b4-x2k9p on worker-04, ready)" in fact.text
    assert ("service/service-a", "routes_to", "pod/service-a-5d8f7c9b4-m7q4d") in {
        (r.src, r.rel, r.dst) for r in endpoints.relations
    }

    node = await gate.call("k8s.node_health", {"env": "dc-a", "node": "worker-04"}, now_ctx())
    assert node.status == "ok"
    assert not [f for f in node.facts if f.attrs.abnormal]
    ready = next(f for f in node.facts if f.attrs.condition == "Ready")
    assert "1 pods placed (0 not ready): payments/service-a-5d8f7c9b4-x2k9p" in ready.text
    assert ready.link == "k8s://dc-a/-/node/worker-04"

    inventory = await gate.call("k8s.inventory", {"env": "dc-a"}, now_ctx())
    assert {(e.kind, e.name) for e in inventory.entities} == {
        ("namespace", "payments"),
        ("deployment", "service-a"),
        ("service", "service-a"),
        ("node", "worker-04"),  # nodes too: a question may name one
        ("node", "worker-05"),
    }
    paths = {r.path for r in sims.query_log.matches("kubernetes", "dc-a")}
    assert "/apis/apps/v1/namespaces/payments/deployments/service-a" in paths
    assert "/apis/discovery.k8s.io/v1/namespaces/payments/endpointslices" in paths


async def test_pod_placement_maps_upstream_addresses_to_pods_and_nodes(edge) -> None:
    gate, _ = edge
    ctx = past_ctx("2026-07-20T14:11:00+03:00")
    result = await gate.call(
        "k8s.pod_placement",
        {"env": "dc-a", "addresses": ["10.42.3.17:8080", "10.42.9.99"]},
        ctx,
    )
    assert result.status == "ok"
    (fact,) = texts(result, "k8s.placement")
    assert "10.42.3.17 is pod payments/service-a-5d8f7c9b4-x2k9p on node worker-04" in fact
    assert any(e.kind == "node" and e.name == "worker-04" for e in result.entities)
    assert "10.42.9.99" in result.warnings[0]  # a gone pod is said, never guessed
    assert not result.coverage.complete_for_negative
    # a pod created after the moment asked about cannot have served it
    early = await gate.call(
        "k8s.pod_placement",
        {"env": "dc-a", "addresses": ["10.42.5.22"]},
        past_ctx("2026-07-17T09:00:00+03:00"),
    )
    assert "AFTER the time asked about" in texts(early, "k8s.placement")[0]
    assert not any(e.kind == "node" for e in early.entities)
    denied = await gate.call("k8s.pod_placement", {"env": "dc-a"}, ctx)
    assert denied.status == "denied" and "addresses, pods or service" in (denied.error or "")


async def test_current_only_tool_refuses_a_historical_question(edge) -> None:
    gate, _ = edge
    args = {"env": "dc-a", "namespace": "payments", "service": "service-a"}
    result = await gate.call("k8s.workload_status", args, past_ctx("2026-07-20T14:11:00+03:00"))
    assert result.status == "denied" and result.error_kind == "current_only"


async def test_audit_trail_keeps_the_service_account_apart_from_people() -> None:
    world = _kube_only(load_world(EXAMPLES / "who-deployed-roles.yaml"))
    yesterday = past_ctx(
        "2026-07-20T12:00:00+03:00",
        window="P1D",
        now=datetime.fromisoformat("2026-07-21T10:15:00+03:00"),
    )
    args = {"env": "dc-b", "namespace": "orders", "service": "service-c"}
    with gate_for(world) as (gate, sims):
        result = await gate.call("k8s.audit_trail", args, yesterday)
        with_reads = await gate.call("k8s.audit_trail", {**args, "include_reads": True}, yesterday)
    assert result.status == "ok" and result.coverage.complete_for_negative
    patch, create = result.facts
    assert patch.text.startswith(
        "ServiceAccount system:serviceaccount:ci:svc-deployer patched deployment "
        "orders/service-c (200) at 2026-07-20T13:44:12.318204Z via kubectl/v1.30.3"
    )
    assert "CI job https://gitlab.example.com/orders/service-c/-/jobs/5523817" in patch.text
    assert "pipeline https://gitlab.example.com/orders/service-c/-/pipelines/90211" in patch.text
    assert patch.attrs.actor == "system:serviceaccount:ci:svc-deployer"
    assert patch.attrs.actor_type == "service_account"
    assert patch.attrs.images == ["registry.example.com/orders/service-c:1.14.0"]
    assert patch.observed_at == datetime.fromisoformat("2026-07-20T13:44:12.318204+00:00")
    assert create.attrs.verb == "create" and create.attrs.name == "service-c-6c9d7f8b5"
    assert create.text.startswith(
        "ServiceAccount system:serviceaccount:kube-system:deployment-controller created replicaset"
    )
    assert not any("User system:" in f.text or "n.volkova" in f.text for f in result.facts)
    assert {e.kind for e in result.entities} == {"serviceaccount"}
    assert [f.attrs.verb for f in with_reads.facts] == ["get", "patch", "create"]
    assert sims.query_log.matches("kubernetes", "dc-b")[0].path == (
        "/apis/audit.infrabot.dev/v1/namespaces/orders/auditevents"
    )


async def test_an_audit_trail_of_a_whole_environment_leaves_kubernetes_own_work_out() -> None:
    """No object named: every change a person or a CI job made, across namespaces; the
    deployment controller's ReplicaSet creation is Kubernetes' own work, not a change."""
    world = _kube_only(load_world(EXAMPLES / "who-deployed-roles.yaml"))
    yesterday = past_ctx(
        "2026-07-20T12:00:00+03:00",
        window="P1D",
        now=datetime.fromisoformat("2026-07-21T10:15:00+03:00"),
    )
    with gate_for(world) as (gate, sims):
        result = await gate.call("k8s.audit_trail", {"env": "dc-b"}, yesterday)
    assert result.status == "ok"
    actors = {f.attrs.actor for f in result.facts}
    assert "system:serviceaccount:ci:svc-deployer" in actors
    assert not any(str(a).startswith("system:serviceaccount:kube-system:") for a in actors)
    assert sims.query_log.matches("kubernetes", "dc-b")[0].path == (
        "/apis/audit.infrabot.dev/v1/auditevents"
    )


async def test_audit_trail_without_an_audit_backend_is_a_gap(edge) -> None:
    gate, _ = edge
    result = await gate.call(
        "k8s.audit_trail",
        {"env": "dc-a", "namespace": "payments", "service": "service-a"},
        past_ctx("2026-07-20T14:11:00+03:00"),
    )
    assert result.status == "error" and result.error_kind == "unsupported"
    assert "no audit backend is exposed in dc-a" in (result.error or "")


# -- the classic failures ------------------------------------------------------------


async def test_oomkilled_crashloop_and_pending_pods(shop) -> None:
    gate, _ = shop
    result = await gate.call(
        "k8s.workload_status", {"env": "dc-a", "namespace": "shop", "service": "cart"}, now_ctx()
    )
    assert result.status == "ok"
    workload = texts(result, "k8s.workload")[0]
    assert "1/3 ready" in workload and "Available=False (MinimumReplicasUnavailable" in workload
    oom = next(
        f for f in result.facts if f.kind == "k8s.termination" and f.attrs.reason == "OOMKilled"
    )
    assert oom.attrs.exit_code == 137 and oom.attrs.pod == "cart-7f9c-oom01"
    assert oom.attrs.finished_at == "2026-07-20T11:01:55Z"
    assert oom.historical and oom.observed_at == datetime.fromisoformat("2026-07-20T11:01:55Z")
    assert "was OOMKilled (exit code 137) at 2026-07-20T11:01:55Z" in oom.text
    waiting = result.facts[[f.kind for f in result.facts].index("k8s.waiting")]
    assert waiting.attrs.reason == "CrashLoopBackOff" and waiting.attrs.restarts == 7
    assert "CrashLoopBackOff - back-off 5m0s" in waiting.text
    pending = next(f for f in result.facts if f.kind == "k8s.pod" and f.attrs.phase == "Pending")
    assert "0/3 nodes are available: 3 Insufficient memory." in pending.text


async def test_events_in_window_warning_first_with_prefix_match(shop) -> None:
    gate, _ = shop
    result = await gate.call(
        "k8s.events", {"env": "dc-a", "namespace": "shop", "service": "cart"}, past_ctx(WINDOW_CTX)
    )
    assert [f.attrs.reason for f in result.facts] == [
        "FailedScheduling",
        "FailedMount",
        "Pulled",
    ]
    mount = result.facts[1]
    assert mount.attrs.count == 12 and mount.attrs.type == "Warning"
    assert 'configmap "cart-config" not found' in mount.text and "(x12," in mount.text
    assert not result.coverage.complete_for_negative  # events expire
    quiet = await gate.call(
        "k8s.events",
        {"env": "dc-a", "namespace": "shop", "service": "cart"},
        past_ctx("2026-07-18T10:00:00+03:00"),
    )
    assert quiet.status == "empty" and not quiet.coverage.complete_for_negative
    assert any("about an hour" in w for w in quiet.warnings)


async def test_quota_near_limit_is_flagged(shop) -> None:
    gate, _ = shop
    result = await gate.call("k8s.quotas", {"env": "dc-a", "namespace": "shop"}, now_ctx())
    memory, pods = result.facts
    assert memory.attrs.model_dump(exclude={"kind"}, exclude_none=True) == {
        "quota": "compute",
        "namespace": "shop",
        "resource": "requests.memory",
        "used": "27Gi",
        "hard": "30Gi",
        "ratio": 0.9,
        "near_limit": True,
    }
    assert memory.text == (
        "ResourceQuota shop/compute: requests.memory used 27Gi of 30Gi (90%)"
        " - at or above 85% of the quota"
    )
    assert pods.attrs.ratio == 0.2 and not pods.attrs.near_limit
    none = await gate.call("k8s.quotas", {"env": "dc-a", "namespace": "nowhere"}, now_ctx())
    assert none.status == "empty" and none.coverage.complete_for_negative


async def test_node_pressure_cordon_and_not_ready_endpoints(shop) -> None:
    gate, _ = shop
    node = await gate.call("k8s.node_health", {"env": "dc-a", "node": "node-2"}, now_ctx())
    abnormal = [
        f.attrs.condition for f in node.facts if f.kind == "k8s.node_condition" and f.attrs.abnormal
    ]
    assert abnormal == ["MemoryPressure", "Unschedulable"]
    assert any("CrashLoopBackOff" in t for t in texts(node, "k8s.waiting"))
    eps = await gate.call(
        "k8s.endpoints", {"env": "dc-a", "namespace": "shop", "service": "cart"}, now_ctx()
    )
    assert (eps.facts[0].attrs.ready, eps.facts[0].attrs.not_ready) == (1, 1)
    assert "10.1.0.6 (pod cart-7f9c-crash1 on node-2, NOT ready)" in eps.facts[0].text


async def test_missing_objects_are_empty_and_complete(shop) -> None:
    gate, _ = shop
    wl = await gate.call(
        "k8s.workload_status",
        {"env": "dc-a", "namespace": "nowhere", "service": "ghost"},
        now_ctx(),
    )
    assert wl.status == "empty" and wl.coverage.complete_for_negative
    assert wl.warnings == [
        "no Deployment, StatefulSet or DaemonSet named ghost in namespace nowhere of dc-a",
        "namespace nowhere does not exist in dc-a",
    ]
    # No workload of that name, but a Service: its pods are shown, and it says so.
    via_service = await gate.call(
        "k8s.workload_status",
        {"env": "dc-a", "namespace": "shop", "service": "storefront"},
        now_ctx(),
    )
    assert via_service.status == "ok"
    assert "showing the pods Service storefront selects" in via_service.warnings[0]
    assert len(texts(via_service, "k8s.pod")) == 3
    node = await gate.call("k8s.node_health", {"env": "dc-a", "node": "node-9"}, now_ctx())
    assert node.status == "empty" and node.warnings == ["no node named node-9 in dc-a"]


async def test_pod_logs_window_grep_cap_and_previous(shop) -> None:
    gate, sims = shop
    sims.query_log.clear()
    ctx = past_ctx(WINDOW_CTX, window="PT10M")  # 11:00Z .. 11:10Z
    base = {"env": "dc-a", "namespace": "shop", "pod": "cart-7f9c-oom01"}
    result = await gate.call("k8s.pod_logs", {**base, "grep": "ERROR"}, ctx)
    assert [f.attrs.message for f in result.facts] == [
        f"2026-07-20T11:{m:02d}:00Z ERROR line {m}" for m in (3, 5, 7, 9)
    ]
    assert result.facts[0].attrs.level == "ERROR" and result.facts[0].kind == "k8s.log"
    assert result.facts[0].observed_at == datetime.fromisoformat("2026-07-20T11:03:00+00:00")
    # the container restarted at 11:02 after an OOM kill: the window reaches the previous one
    assert not result.coverage.complete_for_negative
    assert any("previous=true" in w for w in result.warnings)
    log_read = sims.query_log.matches("kubernetes", "dc-a")[-1]
    assert log_read.path == "/api/v1/namespaces/shop/pods/cart-7f9c-oom01/log"
    assert log_read.params["sinceTime"] == "2026-07-20T11:00:00Z"
    assert log_read.params["timestamps"] == "true"

    capped = await gate.call("k8s.pod_logs", {**base, "limit": 3}, ctx)
    assert capped.status == "partial" and capped.coverage.truncated
    assert [f.attrs.message.split(" line ")[1] for f in capped.facts] == ["8", "9", "10"]

    by_service = await gate.call(
        "k8s.pod_logs",
        {"env": "dc-a", "namespace": "shop", "service": "cart", "grep": "FATAL"},
        ctx,
    )
    assert texts(by_service) == ["cart-7f9c-crash1/app: 2026-07-20T11:03:00Z FATAL bad config"]

    previous = await gate.call("k8s.pod_logs", {**base, "previous": True}, ctx)
    assert previous.status == "empty"
    assert any("has no previous container" in w for w in previous.warnings)


async def test_the_exception_a_traceback_ends_with_is_marked_as_raised(shop) -> None:
    """A KeyError line has no level and no failure word: it is still the line that says
    why the process died, marked so that answers quote it before the shutdown lines."""
    gate, _ = shop
    ctx = past_ctx(WINDOW_CTX, window="PT10M")
    result = await gate.call(
        "k8s.pod_logs", {"env": "dc-a", "namespace": "shop", "pod": "cart-7f9c-crash1"}, ctx
    )
    raised = [f.attrs.message for f in result.facts if f.attrs.raised]
    assert raised == ["KeyError: 'CART_BUCKET'"]


# -- faults ------------------------------------------------------------------------------

WL = ("k8s.workload_status", {"env": "dc-a", "namespace": "shop", "service": "cart"})


@pytest.mark.parametrize(
    ("fault", "call", "kind", "reason"),
    [
        ({"kind": "http_error", "status": 503, "resource": "pods"}, WL, "unavailable", "503"),
        ({"kind": "http_error", "status": 504}, WL, "timeout", "504"),
        (
            {"kind": "forbidden", "resource": "events"},
            ("k8s.events", {"env": "dc-a", "namespace": "shop"}),
            "forbidden",
            "403",
        ),
        (
            {"kind": "unsupported", "resource": "endpointslices"},
            ("k8s.endpoints", {"env": "dc-a", "namespace": "shop", "service": "cart"}),
            "unsupported",
            "404",
        ),
        ({"kind": "malformed", "resource": "replicasets"}, WL, "malformed", "invalid JSON"),
        (
            {"kind": "malformed", "resource": "log"},
            ("k8s.pod_logs", {"env": "dc-a", "namespace": "shop", "pod": "cart-7f9c-oom01"}),
            "malformed",
            "no kubelet timestamp",
        ),
        (
            {"kind": "forbidden", "resource": "log"},
            ("k8s.pod_logs", {"env": "dc-a", "namespace": "shop", "pod": "cart-7f9c-oom01"}),
            "forbidden",
            'cannot get resource "pods/log"',
        ),
    ],
)
async def test_faults_become_gaps(fault, call, kind, reason) -> None:
    with gate_for(shop_world([{"source": "kubernetes", **fault}])) as (gate, _):
        result = await gate.call(
            *call, past_ctx(WINDOW_CTX) if call[0] in ("k8s.events", "k8s.pod_logs") else now_ctx()
        )
    assert result.status == "error" and result.error_kind == kind
    assert result.coverage.source == "kubernetes/dc-a" and not result.facts
    assert reason in (result.error or "")


async def test_timeout_fault_is_a_timeout_gap() -> None:
    faults = [{"source": "kubernetes", "kind": "timeout", "resource": "nodes"}]
    with gate_for(shop_world(faults), timeout_s=0.5) as (gate, _):
        result = await gate.call("k8s.node_health", {"env": "dc-a", "node": "node-2"}, now_ctx())
    assert result.status == "error" and result.error_kind == "timeout"
    assert "did not answer within 0.5 s" in (result.error or "")


async def test_truncated_lists_are_partial_never_proof_of_absence() -> None:
    faults = [{"source": "kubernetes", "kind": "truncate", "resource": "pods", "max_hits": 1}]
    with gate_for(shop_world(faults)) as (gate, sims):
        result = await gate.call(*WL, now_ctx())
        reads = [(r.path, r.status) for r in sims.query_log.matches("kubernetes", "dc-a")]
    assert result.status == "partial"
    assert result.coverage.truncated and not result.coverage.complete_for_negative
    assert len(texts(result, "k8s.pod")) == 1
    assert any("expired the continue token after 1 items" in w for w in result.warnings)
    pod_lists = [r for r in reads if r[0] == "/api/v1/namespaces/shop/pods"]
    assert pod_lists[-2:] == [
        ("/api/v1/namespaces/shop/pods", 200),
        ("/api/v1/namespaces/shop/pods", 410),
    ]


async def test_one_failed_sub_read_leaves_the_inventory_partial() -> None:
    faults = [{"source": "kubernetes", "kind": "forbidden", "resource": "namespaces"}]
    with gate_for(shop_world(faults)) as (gate, _):
        result = await gate.call("k8s.inventory", {"env": "dc-a"}, now_ctx())
    assert result.status == "partial" and not result.coverage.complete_for_negative
    assert ("deployment", "cart") in {(e.kind, e.name) for e in result.entities}
    assert any("namespaces" in w and "403" in w for w in result.warnings)


async def test_unreachable_api_is_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    gate = PolicyGate(
        ToolSet(
            build_tools([KubernetesTarget(env="dc-a", url=f"http://127.0.0.1:{port}", timeout_s=1)])
        )
    )
    result = await gate.call("k8s.quotas", {"env": "dc-a"}, now_ctx())
    assert result.status == "error" and result.error_kind == "unavailable"


def test_link_template_is_checked_and_used() -> None:
    target = KubernetesTarget(
        env="dc-a",
        url="https://k8s.example.com/",
        link_template="https://dash.example.com/{env}/{namespace}/{kind}/{name}",
    )
    assert target.url == "https://k8s.example.com"
    assert target.link("Pod", "p-1", "shop") == "https://dash.example.com/dc-a/shop/pod/p-1"
    with pytest.raises(ValueError, match="link_template"):
        KubernetesTarget(env="dc-a", url="https://k8s.example.com", link_template="{cluster}")


async def test_truncated_audit_list_is_partial() -> None:
    world = _kube_only(load_world(EXAMPLES / "who-deployed-roles.yaml"))
    world.faults = [Fault(source="kubernetes", kind="truncate", resource="auditevents", max_hits=2)]
    ctx = past_ctx(
        "2026-07-20T12:00:00+03:00",
        window="P1D",
        now=datetime.fromisoformat("2026-07-21T10:15:00+03:00"),
    )
    args = {"env": "dc-b", "namespace": "orders", "service": "service-c"}
    with gate_for(world) as (gate, _):
        result = await gate.call("k8s.audit_trail", args, ctx)
    assert result.status == "partial" and not result.coverage.complete_for_negative
    assert [f.attrs.verb for f in result.facts] == ["patch"]  # the get is a read


# -- a sweep of a whole environment -------------------------------------------------------


async def test_a_sweep_finds_what_is_unhealthy_worst_first_and_says_what_it_covered(
    shop,
) -> None:
    gate, sims = shop
    args = {"env": "dc-a", "start": "2026-07-20T13:40:00+03:00"}  # warnings of the last hour
    result = await gate.call("k8s.health_sweep", args, now_ctx())
    assert result.status == "ok" and result.coverage.complete_for_negative
    sweep = result.facts[0]
    assert sweep.kind == "k8s.sweep" and sweep.attrs.unhealthy_pods == 3
    assert sweep.attrs.abnormal_nodes == 1 and sweep.text.startswith("Swept dc-a: ")
    pods = [f.attrs.pod for f in result.facts if f.kind == "k8s.pod"]
    # a container that cannot run, then a memory kill, then a pod not scheduled
    assert pods == ["cart-7f9c-crash1", "cart-7f9c-oom01", "cart-7f9c-pend99"]
    nodes = {
        (f.attrs.node, f.attrs.condition) for f in result.facts if f.kind == "k8s.node_condition"
    }
    assert nodes == {("node-2", "MemoryPressure"), ("node-2", "Unschedulable")}
    events = [f for f in result.facts if f.kind == "k8s.event"]
    assert events and all(e.attrs.type == "Warning" for e in events)
    assert events[0].attrs.reason == "FailedMount" and events[0].attrs.count == 12
    # each failing pod is an entity later rounds can read the logs of
    assert {e.name for e in result.entities if e.kind == "pod"} == set(pods)
    reads = [r for r in sims.query_log.records() if r.path.endswith("/events")]
    assert any(r.params.get("fieldSelector") == "type=Warning" for r in reads)


async def test_a_sweep_cut_by_its_limit_is_partial_and_says_so(shop) -> None:
    gate, _ = shop
    result = await gate.call("k8s.health_sweep", {"env": "dc-a", "limit": 1}, now_ctx())
    assert result.status == "partial" and not result.coverage.complete_for_negative
    assert [f.attrs.pod for f in result.facts if f.kind == "k8s.pod"] == ["cart-7f9c-crash1"]
    assert any("3 pods are not healthy; the 1 worst are shown" in w for w in result.warnings)


async def test_the_inventory_reads_ingress_rules_as_routes_to_services() -> None:
    ingress = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "media-public", "namespace": "media"},
        "spec": {
            "defaultBackend": {"service": {"name": "fallback", "port": {"number": 80}}},
            "rules": [
                {
                    "host": "media.example.org",
                    "http": {
                        "paths": [
                            {
                                "path": "/api/v2/thumbnails",
                                "pathType": "Prefix",
                                "backend": {
                                    "service": {"name": "thumbs", "port": {"number": 8080}}
                                },
                            }
                        ]
                    },
                }
            ],
        },
    }
    world = world_from_data(
        {"environments": {"dc-a": ["kubernetes"]}, "kubernetes": {"dc-a": [ingress]}}
    )
    with gate_for(world) as (gate, _):
        result = await gate.call("k8s.inventory", {"env": "dc-a"}, now_ctx())
    (entity,) = [e for e in result.entities if e.kind == "ingress"]
    assert (entity.name, entity.namespace) == ("media-public", "media")
    assert [(r.host, r.path, r.service) for r in entity.routes] == [
        ("media.example.org", "/api/v2/thumbnails", "thumbs"),
        ("", "/", "fallback"),
    ]
    assert ("ingress/media-public", "routes_to", "service/thumbs") in {
        (r.src, r.rel, r.dst) for r in result.relations
    }


def _with_mounts(world: World) -> World:
    """service-c's pods mount ConfigMap tariffs and take env from Secret billing-db;
    n.volkova edited tariffs, a ConfigMap nobody mounts, and (denied) billing-db."""
    data = world.model_dump(mode="json")
    for obj in data["kubernetes"]["dc-b"]:
        if obj["kind"] == "Deployment" and obj["metadata"]["name"] == "service-c":
            spec = obj["spec"]["template"]["spec"]
            spec["volumes"] = [{"name": "cfg", "configMap": {"name": "tariffs"}}]
            spec["containers"][0]["envFrom"] = [{"secretRef": {"name": "billing-db"}}]

    def edit(i: int, resource: str, name: str, code: int) -> dict[str, Any]:
        return {
            "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
            "auditID": f"00000000-0000-4000-8000-00000000000{i}", "stage": "ResponseComplete",
            "requestURI": f"/api/v1/namespaces/orders/{resource}/{name}", "verb": "patch",
            "user": {"username": "oidc:n.volkova"}, "userAgent": "kubectl/v1.30.3",
            "objectRef": {"resource": resource, "namespace": "orders", "name": name,
                          "apiVersion": "v1"},
            "responseStatus": {"code": code},
            "requestReceivedTimestamp": f"2026-07-20T1{i}:00:00.000000Z",
            "stageTimestamp": f"2026-07-20T1{i}:00:00.100000Z",
        }  # fmt: skip

    data["audit"]["dc-b"] += [
        edit(1, "configmaps", "tariffs", 200),
        edit(2, "configmaps", "unrelated", 200),
        edit(3, "secrets", "billing-db", 403),
    ]
    return world_from_data(data)


async def test_an_objects_audit_trail_has_the_changes_to_what_its_pods_mount() -> None:
    """A ConfigMap edit reaches the pods with no change to the Deployment: it is in the
    object's audit trail, said as mounted; a ConfigMap the pods do not mount is not."""
    world = _kube_only(_with_mounts(load_world(EXAMPLES / "who-deployed-roles.yaml")))
    yesterday = past_ctx(
        "2026-07-20T12:00:00+03:00",
        window="P1D",
        now=datetime.fromisoformat("2026-07-21T10:15:00+03:00"),
    )
    args = {"env": "dc-b", "namespace": "orders", "service": "service-c"}
    with gate_for(world) as (gate, _):
        result = await gate.call("k8s.audit_trail", args, yesterday)
    by_name = {f.attrs.name: f for f in result.facts}
    assert "unrelated" not in by_name
    tariffs = by_name["tariffs"]
    assert tariffs.text.startswith(
        "User oidc:n.volkova patched configmap orders/tariffs (200) at 2026-07-20T11:00:00"
    )
    assert "(the pods of Deployment service-c mount it)" in tariffs.text
    assert tariffs.attrs.mounted_by == "Deployment service-c"
    assert by_name["billing-db"].attrs.code == 403  # tried and refused: still said
    assert "service-c" in by_name  # the Deployment's own patch is still there


def _autoscaled(world: World, *, current: int, limited: bool) -> World:
    """service-c in dc-b scaled by an HPA (cpu target 70%), with a decoy HPA for another."""
    data = world.model_dump(mode="json")

    def hpa(name: str, target: str, now: int, high: int, limit: bool) -> dict[str, Any]:
        return {
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": name, "namespace": "orders"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                        "name": target},
                     "minReplicas": 2, "maxReplicas": high,
                     "metrics": [{"type": "Resource", "resource": {
                         "name": "cpu", "target": {"type": "Utilization",
                                                   "averageUtilization": 70}}}]},
            "status": {"currentReplicas": now, "desiredReplicas": now,
                       "lastScaleTime": "2026-07-20T09:28:10Z",
                       "currentMetrics": [{"type": "Resource", "resource": {
                           "name": "cpu", "current": {"averageUtilization": 138}}}],
                       "conditions": [{"type": "ScalingLimited",
                                       "status": "True" if limit else "False",
                                       "reason": "TooManyReplicas" if limit else "InRange",
                                       "message": "the desired replica count is more than the "
                                       "maximum replica count"}]},
        }  # fmt: skip

    data["kubernetes"]["dc-b"] += [
        hpa("service-c", "service-c", current, 6, limited),
        hpa("other", "service-x", 3, 8, False),
    ]
    return world_from_data(data)


async def test_an_autoscaler_at_its_maximum_says_so_with_its_metric_against_target() -> None:
    world = _kube_only(_autoscaled(load_world(EXAMPLES / "who-deployed-roles.yaml"), current=6,
                                   limited=True))  # fmt: skip
    args = {"env": "dc-b", "namespace": "orders", "service": "service-c"}
    with gate_for(world) as (gate, sims):
        result = await gate.call("k8s.autoscaler", args, now_ctx("dc-b"))
    assert result.status == "ok" and result.coverage.complete_for_negative
    (fact,) = result.facts
    assert fact.text.startswith(
        "HorizontalPodAutoscaler orders/service-c scales Deployment service-c: 6 replicas "
        "(desired 6, bounds 2..6), AT ITS MAXIMUM; cpu 138% of request (target 70%); "
        "ScalingLimited=True (TooManyReplicas: "
    )
    assert fact.attrs.at_max and fact.attrs.limited and fact.attrs.max_replicas == 6
    assert sims.query_log.matches("kubernetes", "dc-b")[0].path == (
        "/apis/autoscaling/v2/namespaces/orders/horizontalpodautoscalers"
    )


async def test_a_workload_no_autoscaler_scales_is_a_complete_empty_answer() -> None:
    world = _kube_only(load_world(EXAMPLES / "who-deployed-roles.yaml"))
    args = {"env": "dc-b", "namespace": "orders", "service": "service-c"}
    with gate_for(world) as (gate, _):
        result = await gate.call("k8s.autoscaler", args, now_ctx("dc-b"))
    assert result.status == "empty" and result.coverage.complete_for_negative
    assert "no HorizontalPodAutoscaler scales service-c" in (result.coverage.note or "")


async def test_log_errors_groups_a_crash_loops_last_runs_by_template() -> None:
    """service-d's pods crash on start: their last runs are read (they wait to restart), the
    same two lines of both pods are two templates, each counted twice, INFO lines left out."""
    world = _kube_only(load_world(EXAMPLES.parent / "worlds" / "demo.yaml"))
    args = {"env": "dc-b", "namespace": "orders", "service": "service-d",
            "start": "2026-07-20T13:30:00+03:00", "end": "2026-07-20T14:40:00+03:00"}  # fmt: skip
    with gate_for(world) as (gate, sims):
        result = await gate.call("k8s.log_errors", args, now_ctx("dc-b"))
    assert result.status == "ok", result.error
    by_level = {f.attrs.level: f for f in result.facts}
    assert set(by_level) == {"ERROR", "FATAL"}
    error = by_level["ERROR"]
    assert error.attrs.count == 2 and error.attrs.example == (
        "2026-07-20T11:33:00.124Z ERROR config: missing required env DATABASE_URL"
    )
    assert error.text.startswith('service-d: 2 ERROR lines like "')
    assert all("(previous run)" in o for o in error.attrs.origins or [])
    assert "error-like" in (result.coverage.note or "")
    reads = [r for r in sims.query_log.matches("kubernetes", "dc-b") if r.path.endswith("/log")]
    # every pod of the workload (the old replica set's four serve), the crashed ones' last run
    assert len(reads) == 6


async def test_the_inventory_relates_each_service_to_the_workloads_it_selects() -> None:
    """Deployment storefront is fronted by Service storefront-http (its selector matches
    the pod template), and Ingress www-shop routes to that Service: the names its traffic
    is labelled with."""
    world = _kube_only(load_world(EXAMPLES / "c-en-rps-ingress-named-differently.yaml"))
    with gate_for(world) as (gate, _):
        result = await gate.call("k8s.inventory", {"env": "dc-b"}, now_ctx("dc-b"))
    edges = {(r.src, r.rel, r.dst) for r in result.relations}
    assert ("service/storefront-http", "selects", "deployment/storefront") in edges
    assert ("ingress/www-shop", "routes_to", "service/storefront-http") in edges
    assert not any(
        src == "service/storefront-http" and dst == "deployment/storefront-admin"
        for src, _, dst in edges
    )


async def test_pods_all_younger_than_the_window_leave_its_start_unread() -> None:
    """Every pod of service-a was created after the window began: the pods that served its
    start are gone, so an empty read of the pods' logs proves nothing about it."""
    world = _kube_only(load_world(EXAMPLES.parent / "worlds" / "demo.yaml"))
    args = {"env": "dc-a", "namespace": "payments", "service": "service-a",
            "start": "2026-07-01T00:00:00+03:00", "end": "2026-07-20T14:40:00+03:00"}  # fmt: skip
    with gate_for(world) as (gate, _):
        result = await gate.call("k8s.log_errors", args, now_ctx("dc-a"))
    assert not result.coverage.complete_for_negative
    assert "created after the window start" in (result.coverage.note or ""), result.coverage


def _batch_world() -> World:
    """A nightly CronJob whose one run failed: its pod (restartPolicy Never) exited once,
    never restarted, and the job controller gave up on the Job."""
    pod = _pod(
        "db-dump-29554680-7mxtq",
        "node-1",
        "Failed",
        [
            _container(
                "dump",
                state={"terminated": {"reason": "Error", "exitCode": 1}},
            )
        ],
    )
    pod["metadata"]["ownerReferences"] = [
        {"kind": "Job", "name": "db-dump-29554680", "controller": True}
    ]
    pod["spec"]["containers"] = [{"name": "dump", "image": "registry.example.com/shop/dump:1"}]
    pod["spec"]["restartPolicy"] = "Never"
    batch = [
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {"name": "db-dump", "namespace": "shop", "uid": "cj-1"},
            "spec": {"schedule": "0 2 * * *", "jobTemplate": {"spec": {}}},
        },
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": "db-dump-29554680",
                "namespace": "shop",
                "uid": "j-1",
                "ownerReferences": [{"kind": "CronJob", "name": "db-dump", "uid": "cj-1"}],
            },
            "spec": {"backoffLimit": 0},
            "status": {"failed": 1},
        },
    ]
    return world_from_data(
        {
            "environments": {"dc-a": ["kubernetes"]},
            "kubernetes": {"dc-a": [*batch, pod]},
            "pod_logs": {
                "dc-a": {
                    "shop/db-dump-29554680-7mxtq/dump": (
                        "2026-07-20T11:01:00Z starting dump\n"
                        "2026-07-20T11:01:02Z FATAL: password authentication failed\n"
                    )
                }
            },
        }
    )


async def test_a_failed_run_of_a_cronjob_is_listed_and_its_log_read() -> None:
    """A CronJob was "not found" (the inventory listed no batch kinds), and the log of its
    failed pod, asked as the crashed run, read as empty and complete: a never-restarted
    container's failed run is its current log."""
    with gate_for(_batch_world()) as (gate, _):
        inventory = await gate.call("k8s.inventory", {"env": "dc-a"}, now_ctx())
        kinds = {(e.kind, e.name) for e in inventory.entities}
        assert ("cronjob", "db-dump") in kinds and ("job", "db-dump-29554680") in kinds
        args = {"env": "dc-a", "namespace": "shop", "service": "db-dump", "previous": True}
        logs = await gate.call("k8s.pod_logs", args, past_ctx(WINDOW_CTX))
    assert [f.attrs.message for f in logs.facts][-1].endswith(
        "FATAL: password authentication failed"
    )
    # the lines are said to be of the run read (the current one), not the run asked
    assert not any(f.attrs.previous for f in logs.facts)
