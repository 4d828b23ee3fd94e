"""Audit events as facts (connectors.kit.audit), shipped documents as Events, the simulator's
audit index, and which audit tool a plan reads first."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from connectors.elasticsearch import ElasticsearchTarget
from connectors.elasticsearch import build_tools as es_tools
from connectors.elasticsearch._audit import event_of
from connectors.kit.audit import Selection, actor_of, ci_links, dedupe, mounts, singular
from connectors.kubernetes import KubernetesTarget
from connectors.kubernetes import build_tools as k8s_tools
from evals.simulators.elasticsearch._store import AUDIT_PATTERN, Store, audit_indices
from evals.simulators.host import EnvEndpoints, WorldEndpoints
from evals.world import world_from_data
from evals.worldconfig import config_for_world
from planner.plan.objectives import Objective
from planner.plan.routing import candidates
from policy.contracts import ToolContract

START = datetime(2026, 7, 20, tzinfo=UTC)
END = datetime(2026, 7, 21, tzinfo=UTC)


def event(
    verb: str = "patch",
    name: str = "service-c",
    *,
    resource: str = "deployments",
    namespace: str | None = "orders",
    user: str = "oidc:n.volkova",
    at: str = "2026-07-20T13:44:12.318204Z",
    **extra: Any,
) -> dict[str, Any]:
    ref = {"resource": resource, "name": name}
    if namespace:
        ref["namespace"] = namespace
    return {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "auditID": extra.pop("auditID", f"{verb}-{resource}-{namespace}-{name}-{at}"),
        "stage": extra.pop("stage", "ResponseComplete"),
        "verb": verb,
        "user": {"username": user},
        "objectRef": ref,
        "responseStatus": {"code": 200},
        "requestReceivedTimestamp": at,
        **extra,
    }


# -- who, what, which events -----------------------------------------------------------


def test_a_service_account_is_a_program_never_a_person() -> None:
    assert actor_of("system:serviceaccount:ci:deployer") == (
        "service_account",
        "ServiceAccount system:serviceaccount:ci:deployer",
    )
    assert actor_of("system:node:worker-1")[0] == "node"
    assert actor_of("system:kube-scheduler")[0] == "system"
    assert actor_of("oidc:k.morozov") == ("user", "User oidc:k.morozov")


def test_resources_are_named_in_the_singular() -> None:
    assert [singular(r) for r in ("configmaps", "ingresses", "networkpolicies", "endpoints")] == [
        "configmap",
        "ingress",
        "networkpolicy",
        "endpoints",
    ]


def test_one_event_per_request_the_most_complete_stage() -> None:
    received = event(stage="RequestReceived", auditID="a1")
    complete = event(stage="ResponseComplete", auditID="a1")
    assert dedupe([received, complete, event(auditID="a2")]) == [complete, event(auditID="a2")]


def test_ci_links_come_from_the_annotations_of_the_request() -> None:
    body = {
        "metadata": {"annotations": {"ci.example.com/job-url": "https://gl/x/-/jobs/7"}},
        "spec": {"template": {"metadata": {"annotations": {"app.commit": "3f1c9a7e"}}}},
    }
    assert ci_links(event(requestObject=body)) == {
        "ci_job_url": "https://gl/x/-/jobs/7",
        "commit_sha": "3f1c9a7e",
    }


def test_an_annotation_holding_a_whole_object_is_no_ci_link() -> None:
    """kubectl's last-applied-configuration holds the whole object, job links and secrets
    included: it is never shown as "the CI job" link."""
    applied = (
        '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":'
        '{"ci/job":"https://gl/x/-/jobs/9"}},"spec":{"template":{"spec":{"containers":'
        '[{"env":[{"name":"DB_PASSWORD","value":"Zq7Lm2Tk9Rw4"}]}]}}}}'
    )
    body = {
        "metadata": {
            "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": applied,
                "ci.example.com/job-url": "https://gl/x/-/jobs/7",
            }
        }
    }
    assert ci_links(event(requestObject=body)) == {"ci_job_url": "https://gl/x/-/jobs/7"}


def test_a_selection_keeps_the_changes_of_the_object_and_what_its_pods_mount() -> None:
    asked = Selection(
        start=START,
        end=END,
        namespace="orders",
        service="service-c",
        mounted=frozenset({("configmaps", "tariffs")}),
    )
    kept = [
        event(),
        event("create", "service-c-6c9d7f8b5", resource="replicasets"),
        event(name="tariffs", resource="configmaps"),
        event(name="namespace-wide", resource="namespaces", namespace=None),
    ]
    dropped = [
        event("get"),  # a read
        event(name="service-cache"),  # another object that shares a prefix
        event(name="tariffs", resource="secrets"),  # a Secret of that name is not mounted
        event(namespace="payments"),
        event(at="2026-07-21T00:00:01Z"),  # after the window
    ]
    chosen = [e for _, e in asked.select([*kept, *dropped])]
    assert chosen == sorted(kept, key=lambda e: e["requestReceivedTimestamp"])[:3]
    assert asked.mounted_by(kept[2], "Deployment service-c") == "Deployment service-c"
    assert asked.mounted_by(kept[0], "Deployment service-c") is None


def test_a_whole_environment_leaves_kubernetes_own_work_out() -> None:
    asked = Selection(start=START, end=END)
    own = [
        event(user="system:serviceaccount:kube-system:deployment-controller", auditID="c"),
        event(name="kube-scheduler", resource="leases", auditID="l"),
        event(auditID="s"),
    ]
    own[2]["objectRef"]["subresource"] = "status"
    person = event(user="oidc:k.morozov", auditID="p")
    assert [e for _, e in asked.select([*own, person])] == [person]


def test_mounts_are_the_configmaps_and_secrets_of_the_pod_template() -> None:
    spec = {
        "volumes": [
            {"configMap": {"name": "cfg"}},
            {"projected": {"sources": [{"secret": {"name": "tls"}}]}},
        ],
        "containers": [
            {"envFrom": [{"secretRef": {"name": "db"}}]},
            {"env": [{"valueFrom": {"configMapKeyRef": {"name": "flags"}}}]},
        ],
    }
    assert mounts({"spec": {"template": {"spec": spec}}}) == {
        ("configmaps", "cfg"),
        ("secrets", "tls"),
        ("secrets", "db"),
        ("configmaps", "flags"),
    }


# -- shipped documents -----------------------------------------------------------------


def test_flat_dotted_keys_are_the_event_they_stand_for() -> None:
    """Keys inside an annotation map keep their dots; Elastic Agent's kubernetes.audit.*
    holds the same Event."""
    nested = event(
        requestObject={"metadata": {"annotations": {"ci.example.com/job-url": "https://j"}}}
    )
    flat = {
        "@timestamp": "2026-07-20T13:44:12.337Z",
        "auditID": nested["auditID"],
        "stage": "ResponseComplete",
        "verb": "patch",
        "user.username": "oidc:n.volkova",
        "objectRef.resource": "deployments",
        "objectRef.name": "service-c",
        "objectRef.namespace": "orders",
        "responseStatus.code": 200,
        "requestReceivedTimestamp": nested["requestReceivedTimestamp"],
        "requestObject.metadata.annotations.ci.example.com/job-url": "https://j",
    }
    read = event_of(flat)
    assert read["objectRef"] == nested["objectRef"] and read["user"] == nested["user"]
    assert read["requestObject"] == nested["requestObject"]
    assert ci_links(read) == {"ci_job_url": "https://j"}
    agent = event_of({"@timestamp": "t", "kubernetes": {"audit": nested}})
    assert agent == {**nested, "@timestamp": "t"}
    keyed = event_of({**nested, "user": {"username": "u", "extra": {"a.b/c": ["x"]}}})
    assert keyed["user"]["extra"] == {"a.b/c": ["x"]}  # a nested object's keys stay whole


def test_the_simulator_files_audit_events_as_a_shipper_indexes_them() -> None:
    late = event(at="2026-07-20T23:59:59.999999Z", stageTimestamp="2026-07-21T00:00:00.004213Z")
    undated = {**event(), "requestReceivedTimestamp": None}
    indices = audit_indices([event(), late, undated])
    assert list(indices) == ["k8s-audit-2026.07.20"]  # by the request's day
    (doc, late_doc) = indices["k8s-audit-2026.07.20"]
    assert doc["@timestamp"] == "2026-07-20T13:44:12.318Z"
    assert late_doc["@timestamp"] == "2026-07-21T00:00:00.004Z"  # written at its stage
    own = {"k8s-audit-2026.07.20": [{"@timestamp": "2026-07-20T01:00:00Z", "msg": "own"}]}
    store = Store(own, audit=[event(), event(at="2026-07-19T08:00:00Z")])
    assert [d.source.get("msg") for d in store.docs(["k8s-audit-2026.07.20"])] == ["own"]
    assert len(store.docs(["k8s-audit-2026.07.19"])) == 1


def test_a_world_that_writes_an_audit_index_configures_it() -> None:
    world = world_from_data(
        {
            "environments": {"dc-a": ["logs"], "dc-b": ["logs"]},
            "logs": {"dc-a": audit_indices([event()]), "dc-b": {"app-x-2026.07.20": []}},
        }
    )
    endpoints = WorldEndpoints(
        envs={
            "dc-a": EnvEndpoints(logs="http://127.0.0.1:1/logs/dc-a"),
            "dc-b": EnvEndpoints(logs="http://127.0.0.1:1/logs/dc-b"),
        }
    )
    config = config_for_world(world, endpoints)
    logs = {env: e.logs for env, e in config.environments.items()}
    assert logs["dc-a"] is not None and logs["dc-a"].audit_index == AUDIT_PATTERN
    assert logs["dc-b"] is not None and logs["dc-b"].audit_index is None


# -- which tool a plan reads -----------------------------------------------------------


def _contracts(*, audit_index: str | None) -> list[ToolContract]:
    k8s = k8s_tools([KubernetesTarget(env="dc-b", url="http://127.0.0.1:1")])
    es = es_tools(
        [ElasticsearchTarget(env="dc-b", url="http://127.0.0.1:2", audit_index=audit_index)]
    )
    return [t.contract for t in [*k8s, *es]]


def test_the_audit_log_in_the_index_is_read_before_the_audit_api() -> None:
    """Where both are configured, a plan reads the index: it is where a real cluster's
    audit log is; the aggregated audit API exists only where an operator built one."""
    who = Objective(id="k8s.audit", title="t", required=True, evidence=["k8s.audit"])
    changes = Objective(
        id="changes",
        title="t",
        required=False,
        evidence=["ci.release_timeline", "k8s.audit"],
        all_of=True,
    )
    questions = [
        "кто вчера выкатывал service-c в dc-b?",
        "who deployed service-c in dc-b today?",
        "show the kubernetes audit trail of service-c: who patched it, user agent, response code",
        "what changed in dc-b in the last 3 hours?",
    ]
    contracts = _contracts(audit_index="k8s-audit-*")
    for objective in (who, changes):
        for mode in ("historical", "now"):
            for question in questions:
                ranked = candidates(objective, "dc-b", contracts, mode, question)
                audit = [c.name for c in ranked if "k8s.audit" in c.agent.evidence]
                assert audit == ["k8s.audit_log", "k8s.audit_trail"], (question, mode)
    # an index no operator named: the audit API is the only audit source
    names = {c.name for c in _contracts(audit_index=None)}
    assert "k8s.audit_trail" in names and "k8s.audit_log" not in names


def test_a_patch_says_what_it_set_and_a_refused_one_that_nothing_changed() -> None:
    from connectors.kit.audit import patch_values

    patch = {
        "verb": "patch",
        "requestObject": {"spec": {"template": {"spec": {"containers": [
            {"name": "scorer", "resources": {"limits": {"memory": "1Gi"}}}]}}},
            "metadata": {"managedFields": [{"manager": "kubectl"}]}},
    }  # fmt: skip
    assert patch_values(patch) == [
        "spec.template.spec.containers[scorer].resources.limits.memory=1Gi"
    ]
    assert patch_values({**patch, "verb": "update"}) == []  # a whole object: no "what moved"
