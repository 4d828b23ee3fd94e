"""What a workload depends on, read through the gate, the official client and the
simulator: the addresses its env and ConfigMaps name (never a credential), a Service whose
target port no container declares, the pull secret of an image the registry refused, and
a Service's cluster IP in the inventory."""

from __future__ import annotations

from typing import Any

import pytest

from connectors.kubernetes._workloads import template_diff
from evals.world import world_from_data
from policy.facts import K8sDependency, K8sEndpoints, K8sNetworkPolicy, K8sWaiting, K8sWorkload
from tests.integration.test_kubernetes_connector import gate_for, now_ctx

NS = "ledger"


def _deployment(env: list[dict[str, Any]], volumes: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "posting-api", "namespace": NS, "uid": "u-1"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "posting-api"}},
            "template": {
                "metadata": {"labels": {"app": "posting-api"}},
                "spec": {
                    "containers": [
                        {
                            "name": "api",
                            "image": "registry.example.net/ledger/posting-api:3.1",
                            "env": env,
                            "ports": [{"name": "http", "containerPort": 8080}],
                        }
                    ],
                    "volumes": volumes,
                },
            },
        },
        "status": {"replicas": 1, "readyReplicas": 1},
    }


def _pod(waiting: dict[str, Any] | None = None) -> dict[str, Any]:
    state = {"waiting": waiting} if waiting else {"running": {"startedAt": "2026-07-20T10:00:00Z"}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "posting-api-6d8b9c7f5-x2k9p",
            "namespace": NS,
            "labels": {"app": "posting-api"},
        },
        "spec": {
            "nodeName": "node-1",
            "imagePullSecrets": [{"name": "regcred-ledger"}],
            "containers": [
                {
                    "name": "api",
                    "image": "registry.example.net/ledger/posting-api:3.1",
                    "ports": [{"name": "http", "containerPort": 8080}],
                }
            ],
        },
        "status": {
            "phase": "Pending" if waiting else "Running",
            "podIP": "10.1.4.7",
            "containerStatuses": [
                {"name": "api", "ready": not waiting, "restartCount": 0, "state": state}
            ],
        },
    }


def _service(target: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "posting-api", "namespace": NS},
        "spec": {
            "clusterIP": "10.96.40.12",
            "selector": {"app": "posting-api"},
            "ports": [{"name": "http", "port": 80, "targetPort": target}],
        },
    }


def _slice() -> dict[str, Any]:
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "name": "posting-api-abcde",
            "namespace": NS,
            "labels": {"kubernetes.io/service-name": "posting-api"},
        },
        "addressType": "IPv4",
        "ports": [{"name": "http", "port": 8080}],
        "endpoints": [
            {
                "addresses": ["10.1.4.7"],
                "conditions": {"ready": True},
                "targetRef": {"kind": "Pod", "name": "posting-api-6d8b9c7f5-x2k9p"},
            }
        ],
    }


CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "posting-api-config", "namespace": NS},
    "data": {
        "app.yaml": "fx:\n  grpc_target: dns:///fx-quotes.rates.svc.cluster.local:9090\n",
        "LOG_LEVEL": "info",
    },
}
ENV = [
    {"name": "DATABASE_URL", "value": "postgres://posting:hunter2@acct-db-rw.ledger.svc:5432/acct"},
    {"name": "CACHE_HOST", "value": "hot-cache"},
    {"name": "LOG_FORMAT", "value": "json"},
]
MOUNT = [{"name": "config", "configMap": {"name": "posting-api-config"}}]


def _world(*objects: dict[str, Any]) -> Any:
    return world_from_data(
        {"environments": {"dc-a": ["kubernetes"]}, "kubernetes": {"dc-a": list(objects)}}
    )


async def test_the_addresses_a_workloads_configuration_names_are_read_without_credentials() -> None:
    world = _world(_deployment(ENV, MOUNT), _pod(), CONFIG)
    with gate_for(world) as (gate, _):
        result = await gate.call(
            "k8s.workload_status", {"env": "dc-a", "namespace": NS, "service": "posting-api"},
            now_ctx(),
        )  # fmt: skip
    deps = {f.attrs.host: f for f in result.facts if isinstance(f.attrs, K8sDependency)}
    assert set(deps) == {"acct-db-rw.ledger.svc", "hot-cache", "fx-quotes.rates.svc.cluster.local"}
    db = deps["acct-db-rw.ledger.svc"]
    assert db.attrs.software == "postgresql" and db.attrs.port == 5432
    assert db.attrs.setting == "env DATABASE_URL"
    # a bare host, under a key that says it is one
    assert deps["hot-cache"].attrs.setting == "env CACHE_HOST"
    assert deps["fx-quotes.rates.svc.cluster.local"].attrs.setting.startswith(
        "configmap posting-api-config"
    )
    # the URL's credentials never leave the read
    assert all("hunter2" not in f.text for f in result.facts)


async def test_a_target_port_no_container_declares_is_said_and_a_declared_one_is_not() -> None:
    for target, unserved in ((8443, ["8443"]), ("http", None), (8080, None)):
        with gate_for(_world(_deployment([], []), _pod(), _service(target), _slice())) as (g, _):
            result = await g.call(
                "k8s.endpoints", {"env": "dc-a", "namespace": NS, "service": "posting-api"},
                now_ctx(),
            )  # fmt: skip
        [fact] = [f for f in result.facts if isinstance(f.attrs, K8sEndpoints)]
        assert fact.attrs.unserved_ports == unserved, target
        if unserved:
            assert (
                "8443 is no port its pods' containers declare or listen on (http 8080/TCP)"
                in fact.text
            )


async def test_a_port_the_containers_log_says_it_binds_is_compared_with_the_target() -> None:
    world = world_from_data(
        {
            "environments": {"dc-a": ["kubernetes"]},
            "kubernetes": {"dc-a": [_deployment([], []), _pod(), _service("http"), _slice()]},
            "pod_logs": {
                "dc-a": {
                    f"{NS}/posting-api-6d8b9c7f5-x2k9p/api": (
                        '{"level":"info","ts":"2026-07-20T10:00:01Z","msg":"metrics server '
                        'listening","addr":":9102"}\n'
                        '{"level":"info","ts":"2026-07-20T10:00:01Z","msg":"http server '
                        'listening","addr":":8081"}\n'
                    )
                }
            },
        }
    )
    with gate_for(world) as (gate, _):
        result = await gate.call(
            "k8s.endpoints", {"env": "dc-a", "namespace": NS, "service": "posting-api"},
            now_ctx(),
        )  # fmt: skip
    [fact] = [f for f in result.facts if isinstance(f.attrs, K8sEndpoints)]
    # declared as http 8080 and targeted by name, but the process binds 8081
    assert fact.attrs.unserved_ports == ["8080"]
    assert "8081 (its log says it listens there)" in fact.text


async def test_an_image_that_does_not_pull_names_the_pull_secret() -> None:
    waiting = {"reason": "ImagePullBackOff", "message": "Back-off pulling image"}
    with gate_for(_world(_deployment([], []), _pod(waiting))) as (gate, _):
        result = await gate.call(
            "k8s.workload_status", {"env": "dc-a", "namespace": NS, "service": "posting-api"},
            now_ctx(),
        )  # fmt: skip
    [fact] = [f for f in result.facts if isinstance(f.attrs, K8sWaiting)]
    assert fact.attrs.pull_secrets == ["regcred-ledger"]
    assert "image pull secret: regcred-ledger" in fact.text


async def test_the_inventory_knows_a_services_cluster_ip() -> None:
    with gate_for(_world(_deployment([], []), _service(8080))) as (gate, _):
        result = await gate.call("k8s.inventory", {"env": "dc-a"}, now_ctx())
    [svc] = [e for e in result.entities if e.kind == "service"]
    assert svc.addresses == ["10.96.40.12"]


POLICY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {
        "name": "db-ingress",
        "namespace": NS,
        "creationTimestamp": "2026-07-20T07:58:14Z",
    },
    "spec": {
        "podSelector": {"matchLabels": {"app": "posting-api"}},
        "policyTypes": ["Ingress"],
        "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"team": "bi"}}}]}],
    },
}
OTHER = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "selects-others", "namespace": NS},
    "spec": {"podSelector": {"matchLabels": {"app": "another"}}, "policyTypes": ["Ingress"]},
}


async def test_the_network_policies_selecting_a_workloads_pods_are_read_with_their_rules() -> None:
    space = {"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": NS, "labels": {"team": "ledger"}}}  # fmt: skip
    with gate_for(_world(_deployment([], []), _pod(), POLICY, OTHER, space)) as (gate, _):
        result = await gate.call(
            "k8s.workload_status", {"env": "dc-a", "namespace": NS, "service": "posting-api"},
            now_ctx(),
        )  # fmt: skip
    [policy] = [f for f in result.facts if isinstance(f.attrs, K8sNetworkPolicy)]
    assert policy.attrs.name == "db-ingress" and policy.attrs.egress is None
    assert policy.attrs.ingress is not None
    assert policy.attrs.ingress[0][0].namespace_labels == {"team": "bi"}
    assert "admits from namespaces team=bi" in policy.text
    [workload] = [f for f in result.facts if isinstance(f.attrs, K8sWorkload)]
    assert workload.attrs.pod_labels == {"app": "posting-api"}
    assert workload.attrs.namespace_labels == {"team": "ledger"}


def test_what_a_release_changed_in_the_pod_template_is_said_without_env_values() -> None:
    def rs(revision: str, memory: str, image: str, token: str) -> dict[str, Any]:
        return {
            "metadata": {"annotations": {"deployment.kubernetes.io/revision": revision}},
            "spec": {"template": {"spec": {"containers": [{
                "name": "api", "image": image,
                "resources": {"limits": {"memory": memory, "cpu": "1"}},
                "env": [{"name": "API_TOKEN", "value": token}, {"name": "MODE", "value": "x"}],
            }]}}},
        }  # fmt: skip

    changed = template_diff(
        [rs("24", "768Mi", "reg/api:2.1", "s3cr3t-b"), rs("23", "2Gi", "reg/api:2.0", "s3cr3t-a")]
    )
    assert "api image reg/api:2.0 -> reg/api:2.1" in changed
    assert "api memory limit 2Gi -> 768Mi" in changed
    assert "api env API_TOKEN" in changed
    assert not any("s3cr3t" in c for c in changed)
    assert template_diff([rs("1", "1Gi", "reg/api:1", "t")]) == []


def _in_state(state: str) -> dict[str, Any]:
    """The pod behind the Service in one lifecycle state the API serves."""
    pod = _pod()
    status = pod["status"]
    cs = status["containerStatuses"][0]
    if state == "being deleted":
        pod["metadata"]["deletionTimestamp"] = "2026-07-20T11:39:00Z"
        pod["metadata"]["deletionGracePeriodSeconds"] = 30
    elif state == "succeeded":
        status["phase"] = "Succeeded"
        cs["state"] = {"terminated": {"exitCode": 0, "reason": "Completed"}}
    elif state == "failed":
        status.update(phase="Failed", reason="Evicted", message="The node was low on memory.")
        cs["state"] = {"terminated": {"exitCode": 137, "reason": "Error"}}
    elif state == "unknown":
        status.update(phase="Unknown")
        cs["state"] = {}
    elif state == "pending":
        status.update(phase="Pending", podIP=None)
        pod["spec"].pop("nodeName")
        status["containerStatuses"] = []
    return pod


@pytest.mark.parametrize("state", ["being deleted", "succeeded", "failed", "unknown", "pending"])
async def test_a_pod_in_any_lifecycle_state_is_read_by_every_tool(state: str) -> None:
    sl = _slice()
    sl["endpoints"][0]["conditions"] = {"ready": False, "serving": True, "terminating": True}
    world = _world(_deployment([], []), _in_state(state), _service(8080), sl)
    args = {"env": "dc-a", "namespace": NS, "service": "posting-api"}
    with gate_for(world) as (gate, _):
        for tool in ("k8s.workload_status", "k8s.endpoints", "k8s.pod_placement", "k8s.log_errors"):
            result = await gate.call(tool, args, now_ctx())
            assert result.status != "error", (tool, state, result.error)
