"""Findings a reader needs at the first line: a Service sending its traffic to a port its
pods do not declare (and who changed it), an image the registry refused with the pull
secret it used; and the reads that reach every layer (an edge read by the object's host,
a generic "what happened" reading the user-facing layers too)."""

from __future__ import annotations

from datetime import UTC, datetime

from planner.conclude.diagnosis import diagnose
from planner.conclude.rule import IndexedFact
from planner.question.context import build_context
from planner.question.objects import InventoryItem
from policy.facts import EntityKind, FactAttrs, K8sAudit, K8sEndpoints, K8sEvent, K8sWaiting
from policy.language import Language
from policy.results import IngressRoute, ResultFact

NOW = datetime(2026, 12, 7, 11, 30, tzinfo=UTC)


def _facts(*attrs: tuple[datetime, FactAttrs]) -> list[IndexedFact]:
    return [
        IndexedFact(i, ResultFact(text="x", source="t", observed_at=at, attrs=a), "fra-1")
        for i, (at, a) in enumerate(attrs)
    ]


def test_a_target_port_no_container_declares_leads_with_who_changed_the_service() -> None:
    endpoints = K8sEndpoints(
        service="booking-api", namespace="travel", unserved_ports=["8443"],
        container_ports=["http 8080/TCP"],
    )  # fmt: skip
    patch = K8sAudit(actor="oidc:j.doe", verb="patch", code=200, resource="services",
                     name="booking-api", namespace="travel")  # fmt: skip
    facts = _facts((NOW, endpoints), (datetime(2026, 12, 7, 10, 12, tzinfo=UTC), patch))
    first = diagnose(facts, datetime(2026, 12, 7, 10, 15, tzinfo=UTC), Language.EN)[0]
    assert "sends its traffic to port 8443" in first.summary and "http 8080/TCP" in first.summary
    assert "oidc:j.doe" in first.summary and first.supported_by == [0, 1]


def test_a_registry_that_refused_the_credential_names_the_pull_secret() -> None:
    pod = "claims-7c5d9f8b6-hx2lp"
    waiting = K8sWaiting(pod=pod, reason="ImagePullBackOff", message="Back-off pulling image",
                         pull_secrets=["cr-pull-claims"])  # fmt: skip
    refused = K8sEvent(name=pod, object_kind="Pod", type="Warning", reason="Failed",
                       message="failed to authorize: 401 Unauthorized")  # fmt: skip
    first = diagnose(_facts((NOW, waiting), (NOW, refused)), None, Language.EN)[0]
    assert "cr-pull-claims" in first.summary
    # a tag that does not exist is no credential problem
    missing = K8sEvent(name=pod, object_kind="Pod", type="Warning", reason="Failed",
                       message="manifest for claims:3.9.9 not found: manifest unknown")  # fmt: skip
    other = diagnose(_facts((NOW, waiting), (NOW, missing)), None, Language.EN)[0]
    assert "cr-pull-claims" not in other.summary


HOST = "checkout.example.eu"
INVENTORY = [
    InventoryItem(env="rhine", namespace="shop", name="checkout-api", kind=EntityKind.DEPLOYMENT,
                  fronted_by=("checkout-api",)),
    InventoryItem(env="rhine", namespace="shop", name="checkout", kind=EntityKind.INGRESS,
                  routes=(IngressRoute(host=HOST, path="/", service="checkout-api"),)),
]  # fmt: skip


def test_what_happened_with_a_service_users_reach_reads_its_hosts_layers_too() -> None:
    ctx = build_context(
        "what happened with checkout-api yesterday at 21:15?",
        envs=["rhine"],
        inventory=INVENTORY,
        now=NOW,
        tz=UTC,
    )
    assert ctx.served_hosts == ["checkout.example.eu"]
    assert "http_errors" in [ctx.intent, *ctx.also]
    # a question naming a symptom of its own is not widened
    crash = build_context(
        "checkout-api is crashlooping, why?", envs=["rhine"], inventory=INVENTORY, now=NOW, tz=UTC
    )
    assert "http_errors" not in [crash.intent, *crash.also]
