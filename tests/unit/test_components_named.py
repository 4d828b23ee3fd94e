"""A kind of component named instead of an object (class "the question names what the part
is, not its workload"): "what's up with the queue?", "база тормозит?", "как там кафка?" is
about the workloads running that software, or says none runs there; never an environment
check passed off as the answer."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from planner.question.components import component_named
from planner.question.context import InventoryItem, build_context
from policy.facts import EntityKind

TZ = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=TZ)
ENVS = ["east", "west"]


def _item(env: str, ns: str, name: str, kind: EntityKind, *images: str) -> InventoryItem:
    return InventoryItem(env=env, namespace=ns, name=name, kind=kind, images=images)


INV = [
    _item("east", "billing", "invoice-api", EntityKind.DEPLOYMENT, "reg.local/billing/invoice:3.1"),
    _item("east", "data", "ledger-pg", EntityKind.STATEFULSET, "docker.io/library/postgres:16.4"),
    _item("east", "data", "events", EntityKind.STATEFULSET, "quay.io/strimzi/kafka:0.41.0"),
    _item("east", "data", "sessions", EntityKind.STATEFULSET, "bitnami/redis:7.2.5"),
    _item("west", "billing", "invoice-api", EntityKind.DEPLOYMENT, "reg.local/billing/invoice:3.1"),
]


def ctx(text: str):
    return build_context(text, envs=ENVS, inventory=INV, now=NOW, tz=TZ)


@pytest.mark.parametrize(
    ("text", "software"),
    [
        ("что с очередью в east?", {"kafka", "rabbitmq"}),
        ("брокеры живы?", {"kafka", "rabbitmq"}),
        ("what's up with the queue in east?", {"kafka", "rabbitmq"}),
        ("база тормозит", {"postgresql", "mysql", "mongodb"}),
        ("is the db ok?", {"postgresql", "mysql", "mongodb"}),
        ("что с кешем", {"redis", "memcached"}),
        ("как там кафка?", {"kafka"}),
        ("в постгресе ошибки?", {"postgresql"}),
        ("redis alive?", {"redis"}),
        ("монга лежит", {"mongodb"}),
    ],
)
def test_kind_or_software_words_in_both_languages(text: str, software: set[str]) -> None:
    named = component_named(text)
    assert named is not None and set(named.software) == software


@pytest.mark.parametrize(
    "text", ["много ошибок в east", "почему медленно?", "реплики и поды", "редко падает"]
)
def test_words_that_only_look_alike_name_no_component(text: str) -> None:
    assert component_named(text) is None


def test_the_queue_is_the_workload_running_a_queues_software() -> None:
    c = ctx("что с очередью в east?")
    assert c.scope.object == "events" and c.scope.namespace == "data"
    assert not c.absent and not c.uncovered
    assert any("events" in note for note in c.notes)


def test_the_database_asked_with_no_env_finds_the_env_it_runs_in() -> None:
    c = ctx("база тормозит, что там?")
    assert c.scope.object == "ledger-pg" and c.envs == ["east"]


def test_a_kind_no_workload_runs_is_said_absent_not_answered_by_a_health_check() -> None:
    c = ctx("what's up with the queue in west?")
    assert c.scope.object is None
    assert c.absent == ["Kafka / RabbitMQ"]
    assert not c.uncovered


def test_a_named_object_wins_over_a_kind_word() -> None:
    c = ctx("invoice-api в east не может достучаться до базы")
    assert c.scope.object == "invoice-api" and not c.absent


def test_a_name_given_as_the_object_is_what_is_absent_not_the_software_beside_it() -> None:
    c = ctx("is the kafka consumer lag of ledger-sink in west growing?")
    assert c.absent == ["ledger-sink"] and c.component is None
