"""Kubernetes audit events read from an Elasticsearch index (k8s.audit_log) against the
same events read from the aggregated audit API (k8s.audit_trail): both simulators over
real HTTP, the official clients, the policy gate."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from connectors.elasticsearch import ElasticsearchTarget
from connectors.elasticsearch import build_tools as es_tools
from connectors.kubernetes import KubernetesTarget
from connectors.kubernetes import build_tools as k8s_tools
from evals.session import WorldSession
from evals.simulators.elasticsearch._store import AUDIT_PATTERN, audit_indices
from evals.simulators.host import WorldSimulators
from evals.world import World, load_world, world_from_data
from planner.shapes.turn import Turn
from policy import CallContext, PolicyGate, Scope, TimeSpec, ToolResult, ToolSet

EXAMPLES = Path(__file__).resolve().parents[2] / "evals" / "scenarios"
ENV = "dc-b"
SERVICE_C = {"env": ENV, "namespace": "orders", "service": "service-c"}
YESTERDAY = CallContext(
    user="alice",
    role="engineer",
    scope=Scope(
        time=TimeSpec(
            at=datetime.fromisoformat("2026-07-20T12:00:00+03:00"), window="P1D", mode="historical"
        )
    ),
    now=datetime.fromisoformat("2026-07-21T10:15:00+03:00"),
)


def shipped(
    world: World, *, faults: list[dict[str, Any]] | None = None, gitlab: bool = False
) -> World:
    """dc-b with its Kubernetes API and its log index, the audit events in both: as the
    aggregated API serves them, and as the log backend's lines a shipper indexed."""
    data = world.model_dump(mode="json")
    data["environments"] = {ENV: ["kubernetes", "logs"]}
    data["metrics"] = {}
    if not gitlab:
        data["gitlab"] = {}
    data["logs"] = {ENV: {**data["logs"].get(ENV, {}), **audit_indices(data["audit"][ENV])}}
    data["faults"] = faults or []
    return world_from_data(data)


def roles_world(**kwargs: Any) -> World:
    return shipped(load_world(EXAMPLES / "who-deployed-roles.yaml"), **kwargs)


@contextmanager
def gate_for(world: World) -> Iterator[tuple[PolicyGate, WorldSimulators]]:
    with WorldSimulators(world, stall_seconds=2) as sims:
        ep = sims.endpoints.envs[ENV]
        tools = k8s_tools([KubernetesTarget(env=ENV, url=ep.kubernetes, timeout_s=5)])
        assert ep.logs is not None
        target = ElasticsearchTarget(env=ENV, url=ep.logs, timeout_s=5, audit_index=AUDIT_PATTERN)
        yield PolicyGate(ToolSet([*tools, *es_tools([target])])), sims


def seen(result: ToolResult) -> list[tuple[str, dict[str, Any], datetime | None]]:
    """What a user reads of each fact, whichever backend it came from."""
    return [(f.text, f.attrs.model_dump(), f.observed_at) for f in result.facts]


async def both(gate: PolicyGate, args: dict[str, Any]) -> tuple[ToolResult, ToolResult]:
    api = await gate.call("k8s.audit_trail", args, YESTERDAY)
    index = await gate.call("k8s.audit_log", args, YESTERDAY)
    return api, index


# -- the same trail from either place --------------------------------------------------


async def test_the_index_tells_the_same_trail_as_the_audit_api() -> None:
    with gate_for(roles_world()) as (gate, sims):
        api, index = await both(gate, SERVICE_C)
        api_env, index_env = await both(gate, {"env": ENV})
        api_reads, index_reads = await both(gate, {**SERVICE_C, "include_reads": True})
    assert api.status == "ok" and index.status == "partial"  # what its pods mount: below
    assert seen(index) == seen(api) and len(index.facts) == 2
    assert index.facts[0].text.startswith(
        "ServiceAccount system:serviceaccount:ci:svc-deployer patched deployment "
        "orders/service-c (200) at 2026-07-20T13:44:12.318204Z"
    )
    assert index.facts[0].source == "elasticsearch/k8s-audit"
    assert "auditID" in (index.facts[0].link or "")
    assert {e.kind for e in index.entities} == {e.kind for e in api.entities}
    # the whole environment: Kubernetes' own work left out the same way
    assert index_env.status == "ok" and index_env.coverage.complete_for_negative
    assert seen(index_env) == seen(api_env) and index_env.facts
    assert seen(index_reads) == seen(api_reads)
    assert sims.query_log.matches("logs", ENV)


async def test_what_the_pods_mount_is_named_as_not_checked_without_their_spec() -> None:
    """The Deployment's spec is not in the index (its patch is logged at Request level):
    a ConfigMap its pods mount under another name cannot be found, and the answer says so
    instead of proving that nothing changed."""
    with gate_for(roles_world()) as (gate, _):
        index = await gate.call("k8s.audit_log", SERVICE_C, YESTERDAY)
    assert not index.coverage.complete_for_negative
    assert "ConfigMaps and Secrets the pods of service-c mount: not read" in (
        index.coverage.note or ""
    )
    assert "the Kubernetes API has it" in (index.coverage.note or "")


def _with_spec_and_mounts(world: World) -> World:
    """service-c mounts ConfigMap tariffs; n.volkova edits it, and an unrelated one. The
    Deployment's last patch is logged at RequestResponse level: its whole spec."""
    data = world.model_dump(mode="json")
    spec = {
        "containers": [{"name": "app", "envFrom": [{"secretRef": {"name": "billing-db"}}]}],
        "volumes": [{"name": "cfg", "configMap": {"name": "tariffs"}}],
    }
    for obj in data["kubernetes"][ENV]:
        if obj["kind"] == "Deployment" and obj["metadata"]["name"] == "service-c":
            obj["spec"]["template"]["spec"].update(spec)
    events = data["audit"][ENV]
    for event in events:
        if event.get("verb") == "patch" and event["objectRef"]["name"] == "service-c":
            event["level"] = "RequestResponse"
            event["responseObject"] = {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "service-c", "namespace": "orders"},
                "spec": {"template": {"spec": spec}},
            }

    def edit(n: int, resource: str, name: str, code: int) -> dict[str, Any]:
        return {
            "kind": "Event",
            "apiVersion": "audit.k8s.io/v1",
            "level": "Metadata",
            "auditID": f"mount-{n}",
            "stage": "ResponseComplete",
            "verb": "patch",
            "user": {"username": "oidc:n.volkova"},
            "objectRef": {"resource": resource, "namespace": "orders", "name": name},
            "responseStatus": {"code": code},
            "requestReceivedTimestamp": f"2026-07-20T11:0{n}:00.000000Z",
            "stageTimestamp": f"2026-07-20T11:0{n}:00.010000Z",
        }

    events += [
        edit(1, "configmaps", "tariffs", 200),
        edit(2, "configmaps", "unrelated", 200),
        edit(3, "secrets", "billing-db", 403),
    ]
    return world_from_data(data)


async def test_what_the_pods_mount_is_read_from_a_spec_in_the_index() -> None:
    world = shipped(_with_spec_and_mounts(load_world(EXAMPLES / "who-deployed-roles.yaml")))
    with gate_for(world) as (gate, _):
        api, index = await both(gate, SERVICE_C)
    assert index.status == "ok" and index.coverage.complete_for_negative
    assert seen(index) == seen(api)
    by_name = {f.attrs.name: f for f in index.facts}
    assert "unrelated" not in by_name
    assert by_name["tariffs"].attrs.mounted_by == "Deployment service-c"
    assert "(the pods of Deployment service-c mount it)" in by_name["tariffs"].text
    assert by_name["billing-db"].attrs.code == 403


async def test_who_deployed_is_answered_from_the_index_where_both_hold_the_audit() -> None:
    """The whole path: with the audit API and the audit index both configured, the plan
    reads the index (where a real cluster's audit log is) and not the API as well."""
    world = shipped(load_world(EXAMPLES / "who-deployed-roles.yaml"), gitlab=True)
    with WorldSession(world, timezone="Europe/Moscow", now=YESTERDAY.now) as session:
        assert session.conversation is not None
        turn = Turn(
            question="кто вчера выкатывал service-c в dc-b?",
            user="alice",
            role="engineer",
            channel="c",
            root_id="r1",
            now=YESTERDAY.now,
        )
        reply = await session.conversation.answer(turn)
        await session.conversation.aclose()
        audit_reads = [r.path for r in session.simulators.query_log.records()]
    answer = reply.answer
    tools = [c.tool for c in answer.tool_calls]
    assert "k8s.audit_log" in tools and "k8s.audit_trail" not in tools
    assert not any("auditevents" in path for path in audit_reads)
    actor = [f for f in answer.facts if f.kind == "k8s.audit" and "svc-deployer" in f.text]
    assert actor and actor[0].source == "elasticsearch/k8s-audit"
    # the CI identity's patch while the job ran is that job's release: the summary names
    # the job and who started it, the patch is the evidence below
    assert answer.summary.startswith("Изменения service-c в dc-b ")
    assert "задание деплоя deploy:dc-b" in answer.summary


# -- reads, truncation, missing fields -------------------------------------------------


def _read_after_patch(world: World, reads: int) -> World:
    """The deploy job's patch, then a controller polling the Deployment `reads` times."""
    data = world.model_dump(mode="json")
    events = data["audit"][ENV]
    patch = next(e for e in events if e.get("verb") == "patch")
    for n in range(reads):
        events.append(
            {
                **patch,
                "auditID": f"poll-{n}",
                "verb": "get",
                "user": {"username": "oidc:n.volkova"},
                "requestReceivedTimestamp": f"2026-07-20T14:{n:02d}:00.000000Z",
                "stageTimestamp": f"2026-07-20T14:{n:02d}:00.004000Z",
            }
        )
    return world_from_data(data)


async def test_read_verbs_are_left_out_in_the_query_not_after_it() -> None:
    """Forty newer reads would fill a read of four documents; the query leaves them out,
    so both changes are found and the read is complete."""
    world = shipped(_read_after_patch(load_world(EXAMPLES / "who-deployed-roles.yaml"), 40))
    args = {**SERVICE_C, "limit": 2}
    with gate_for(world) as (gate, _):
        api, index = await both(gate, args)
        with_reads = await gate.call("k8s.audit_log", {**args, "include_reads": True}, YESTERDAY)
    assert [f.attrs.verb for f in index.facts] == ["patch", "create"]
    assert seen(index) == seen(api)
    assert index.coverage.total == 2 and not index.coverage.truncated
    # asked for: the latest requests are reads, and the read says it was cut
    assert [f.attrs.verb for f in with_reads.facts] == ["get", "get"]
    assert not with_reads.coverage.complete_for_negative and with_reads.coverage.truncated


async def test_a_truncated_search_is_not_a_complete_trail() -> None:
    world = roles_world(
        faults=[
            {
                "source": "logs",
                "env": ENV,
                "index": "k8s-audit-*",
                "kind": "truncate",
                "max_hits": 1,
            }
        ]
    )
    with gate_for(world) as (gate, _):
        index = await gate.call("k8s.audit_log", {"env": ENV}, YESTERDAY)
    assert index.status == "partial" and index.facts
    assert not index.coverage.complete_for_negative and index.coverage.truncated
    assert "read 1 of >= " in (index.coverage.note or "")
    assert any("showing the latest" in w for w in index.warnings)


async def test_an_index_without_object_fields_is_a_named_gap() -> None:
    """A shipper that renamed objectRef (here to `object`) leaves nothing a filter on the
    object can match: the index is not searched, and the gap names the field."""
    world = load_world(EXAMPLES / "who-deployed-roles.yaml")
    data = shipped(world).model_dump(mode="json")
    for docs in data["logs"][ENV].values():
        for doc in docs:
            doc["object"] = doc.pop("objectRef")
    with gate_for(world_from_data(data)) as (gate, _):
        index = await gate.call("k8s.audit_log", SERVICE_C, YESTERDAY)
    assert index.status == "empty" and not index.facts
    assert not index.coverage.complete_for_negative
    note = index.coverage.note or ""
    assert "objectRef.name" in note and "was not searched" in note
    assert any("absence is not proven" in w for w in index.warnings)


async def test_flat_and_agent_layouts_read_as_the_same_events() -> None:
    """Flat dotted keys (a shipper's flattening) and Elastic Agent's kubernetes.audit.*
    are the same Events."""
    data = roles_world().model_dump(mode="json")
    (name, docs), *_ = data["logs"][ENV].items()
    flat = [_flatten(d) for d in docs]
    agent = [
        {"@timestamp": d["@timestamp"], "kubernetes": {"audit": {k: v for k, v in d.items()}}}
        for d in docs
    ]
    expected = data["logs"][ENV]
    worlds = []
    for variant in (flat, agent):
        copy = {**data, "logs": {ENV: {**expected, name: variant}}}
        worlds.append(world_from_data(copy))
    results = []
    for world in [roles_world(), *worlds]:
        with gate_for(world) as (gate, _):
            results.append(await gate.call("k8s.audit_log", {"env": ENV}, YESTERDAY))
    nested, *others = results
    assert nested.facts
    for other in others:
        assert seen(other) == seen(nested)


def _flatten(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Top-level dotted keys for objectRef/user/responseStatus, the rest left nested."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if key in ("objectRef", "user", "responseStatus") and isinstance(value, dict):
            for inner, v in value.items():
                out[f"{key}.{inner}"] = v
        else:
            out[key] = value
    return out
