"""Which plan a question gets: a question that names no object, where its kind of plan
cannot start without one, is about the whole environment (triage)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from planner.plan.objectives import plan_for
from planner.question.context import InventoryItem, build_context
from policy.vocabulary import Facet

TZ = ZoneInfo("UTC")
NOW = datetime(2026, 7, 20, 11, 40, tzinfo=TZ)
INV = [InventoryItem(env="dc-b", namespace="orders", name="service-d", kind="deployment")]


def plan(question: str):
    return plan_for(build_context(question, envs=["dc-b"], inventory=INV, now=NOW, tz=TZ))


@pytest.mark.parametrize(
    "question",
    [
        "что не так в dc-b прямо сейчас?",
        "почему в dc-b всё падает?",
        "anything broken in dc-b?",
    ],
)
def test_no_object_named_sweeps_the_environment(question: str) -> None:
    p = plan(question)
    assert p.intent == "triage"
    required = [o for o in p.objectives if o.required]
    assert [o.id for o in required] == ["env.health"] and required[0].needs == []


@pytest.mark.parametrize(
    "question", ["which pods are not ready in dc-b?", "какие ноды в dc-b под disk pressure?"]
)
def test_a_list_asked_sweeps_the_environment_and_reads_nothing_else(question: str) -> None:
    """The list is the answer: the sweep alone, not the triage around it."""
    p = plan(question)
    assert p.intent == "listing"
    assert [o.id for o in p.objectives] == ["env.health"]


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("почему service-d в dc-b не стартует?", "workload_startup"),
        ('run this PromQL in dc-b: max(up{job="api"})', "raw_query"),
        ("is 10.0.0.5:5432 reachable from dc-b?", "network_check"),
    ],
)
def test_a_named_object_or_a_given_query_keeps_its_own_plan(question: str, intent: str) -> None:
    assert plan(question).intent == intent


def test_a_value_outside_an_arguments_declared_shape_is_not_bound() -> None:
    """An upstream address named in the question is not a virtual host: the edge log's
    Host filter declares a name, so the address is left out of it (it reached the filter
    and matched nothing)."""
    from planner.plan.routing import _coerce

    vhost = {"type": "string", "pattern": r"^\S*[A-Za-z_]\S*$"}
    assert _coerce(vhost, "10.233.71.42") is None
    assert _coerce(vhost, "media.fotoprint.example") == "media.fotoprint.example"
    assert _coerce({"anyOf": [vhost, {"type": "null"}]}, "10.0.0.1:8080") is None


def test_a_host_and_path_name_the_service_an_ingress_routes_them_to() -> None:
    """Scope from evidence: the question names no service, only what users hit; the
    Ingress rules read with the inventory say which Service serves it."""
    from planner.question.context import InventoryItem
    from policy.facts import EntityKind
    from policy.results import IngressRoute

    ingress = InventoryItem(
        env="dc-b",
        namespace="media",
        name="media-public",
        kind=EntityKind.INGRESS,
        routes=(
            IngressRoute(host="media.example.org", path="/", service="web"),
            IngressRoute(host="media.example.org", path="/api/v2/thumbnails", service="thumbs"),
            IngressRoute(host="media.example.org", path="/api/v2/orders", service="orders"),
        ),
    )

    def scope(question: str):
        ctx = build_context(question, envs=["dc-b"], inventory=[*INV, ingress], now=NOW, tz=TZ)
        return ctx.scope.object, ctx.scope.namespace

    assert scope("502 on media.example.org/api/v2/thumbnails/x since 10:40") == (
        "thumbs",
        "media",
    )
    assert scope("why is media.example.org slow?") == ("web", "media")
    assert scope("502 on shop.example.org/api/v2/thumbnails") == (None, None)


def _with(served: dict[str, Facet | None], question: str):  # type: ignore[no-untyped-def]
    context = build_context(question, envs=["dc-b"], inventory=INV, now=NOW, tz=TZ)
    return plan_for(context, served=served)


SERVED: dict[str, Facet | None] = {
    "http.latency": Facet.SYMPTOM,
    "http.request_rate": Facet.SYMPTOM,
    "k8s.workload_status": Facet.STATE,
    "k8s.events": Facet.EVENTS,
    "k8s.audit": Facet.CHANGES,
    "ci.release_timeline": Facet.CHANGES,
    "vendor.autoscaler": Facet.STATE,  # a kind only its own connector declares
}


def test_a_question_for_a_cause_reads_every_facet_of_the_baseline_the_plan_lacks() -> None:
    """ "Why is X slow" has a latency plan: the object's state (with a kind no plan names),
    events and changes are read beside it, each kind once."""
    objectives = {o.id: o for o in _with(SERVED, "why is service-d slow in dc-b?").objectives}
    assert objectives["object.state"].evidence == ["k8s.workload_status", "vendor.autoscaler"]
    assert objectives["object.events"].evidence == ["k8s.events"]
    changes = objectives["object.changes"]
    assert changes.evidence == ["ci.release_timeline", "k8s.audit"] and changes.all_of
    kinds = [k for o in objectives.values() for k in o.evidence]
    assert len(kinds) == len(set(kinds))


def test_a_question_for_a_value_gets_no_baseline() -> None:
    ids = {o.id for o in _with(SERVED, "p99 latency of service-d in dc-b").objectives}
    assert not any(i.startswith("object.") for i in ids)


def test_a_baseline_facet_no_tool_serves_is_left_out_not_a_gap() -> None:
    ids = {
        o.id for o in _with({"http.latency": Facet.SYMPTOM}, "why is service-d slow?").objectives
    }
    assert not any(i.startswith("object.") for i in ids)


def test_a_message_that_asks_two_things_gets_both_plans() -> None:
    """The releases (the first thing asked) are required; the crash objectives join as
    optional, each once."""
    objectives = plan("who deployed service-d today, and why does it keep crashing?").objectives
    by_id = {o.id: o for o in objectives}
    assert by_id["ci.release_timeline"].required
    assert "k8s.pod_logs" in by_id and not by_id["k8s.pod_logs"].required
    assert len(by_id) == len(objectives)


def test_a_weak_second_match_adds_nothing() -> None:
    """ "errors" alone does not make a latency question an error investigation."""
    ids = {o.id for o in plan("p99 latency of service-d, any errors?").objectives}
    assert "edge.error_log" not in ids


@pytest.mark.parametrize(
    "question",
    ["how many 502s did service-c return in dc-b today?", "сколько 5xx отдал service-c в dc-b?"],
)
def test_a_question_for_a_number_reads_the_count_not_a_cause(question: str) -> None:
    assert {o.id for o in plan(question).objectives} == {"http.error_rate", "edge.error_log"}


def test_a_question_for_a_number_and_a_cause_reads_both() -> None:
    ids = {o.id for o in plan("why did service-c return 502s in dc-b, and how many?").objectives}
    assert {"http.error_rate", "k8s.restarts", "changes.before"} <= ids
