"""A value asked of several envs is paired with the same measure in each, by what the fact
measures (its typed attributes), never by its text."""

from __future__ import annotations

from planner.conclude.compared import compared
from planner.conclude.rule import IndexedFact
from policy.facts import HttpLatency, HttpRate, K8sEvent
from policy.results import ResultFact


def fact(index: int, env: str, attrs: HttpRate | HttpLatency | K8sEvent) -> IndexedFact:
    return IndexedFact(index, ResultFact(text=f"fact {index}", source="s", attrs=attrs), env)


def test_the_same_quantile_of_the_same_service_is_paired_in_the_order_the_envs_were_named() -> None:
    facts = [
        fact(0, "east", HttpLatency(quantile=0.95, service="api", value_seconds=0.2)),
        fact(1, "west", HttpLatency(quantile=0.99, service="api", value_seconds=0.9)),
        fact(2, "west", HttpRate(what="requests", service="api", value=3.0)),
        fact(3, "west", HttpLatency(quantile=0.95, service="api", value_seconds=0.4)),
    ]
    sides = compared(facts[0], facts, ["west", "east"])
    assert [s.index for s in sides] == [3, 0]


def test_one_env_asked_or_a_fact_that_measures_nothing_stays_alone() -> None:
    rate = fact(0, "east", HttpRate(what="requests", service="api", value=1.0))
    other = fact(1, "west", HttpRate(what="requests", service="api", value=2.0))
    assert compared(rate, [rate, other], ["east"]) == [rate]
    event = fact(2, "east", K8sEvent(reason="BackOff"))
    peer = fact(3, "west", K8sEvent(reason="BackOff"))
    assert compared(event, [event, peer], ["east", "west"]) == [event]


def test_another_service_or_the_error_rate_is_not_the_same_measure() -> None:
    lead = fact(0, "east", HttpRate(what="requests", service="api", value=1.0))
    facts = [
        lead,
        fact(1, "west", HttpRate(what="errors", status="502", service="api", value=0.1)),
        fact(2, "west", HttpRate(what="requests", service="web", value=9.0)),
    ]
    assert compared(lead, facts, ["east", "west"]) == [lead]
