"""A workload's name written short, the way people write it ("storefront" for
storefront-web), is read as that workload when it is the only one the word starts; never
a namespace, an env, a host's part, nor a guess between two."""

from __future__ import annotations

from datetime import UTC, datetime

from planner.question.context import build_context
from planner.question.objects import InventoryItem
from policy.facts import EntityKind

NOW = datetime(2026, 11, 23, 21, 0, tzinfo=UTC)
ENV = "prod-lux"


def _item(name: str, kind: EntityKind, ns: str | None = "shopfront") -> InventoryItem:
    return InventoryItem(env=ENV, namespace=ns, name=name, kind=kind)


INVENTORY = [
    _item("storefront-web", EntityKind.DEPLOYMENT),
    _item("checkout-api", EntityKind.DEPLOYMENT),
    _item("checkout-worker", EntityKind.DEPLOYMENT),
    _item("billing-api", EntityKind.DEPLOYMENT, "billing"),
    _item("billing", EntityKind.NAMESPACE, None),
]


def _object(question: str) -> str | None:
    context = build_context(question, envs=[ENV], inventory=INVENTORY, now=NOW, tz=UTC)
    return context.scope.object


def test_a_name_written_short_is_the_one_workload_it_starts() -> None:
    assert _object("storefront in prod-lux gives 500 since 8:40, why?") == "storefront-web"


def test_a_word_two_workloads_start_is_no_guess() -> None:
    assert _object("checkout in prod-lux is slow, why?") is None


def test_a_namespace_or_a_hosts_part_is_not_a_short_name() -> None:
    assert _object("сколько в namespace billing в prod-lux используется CPU?") != "billing-api"
    assert _object("storefront.example.com returned 502 in prod-lux") != "storefront-web"
