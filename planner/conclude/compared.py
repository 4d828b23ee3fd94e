"""A value asked of two or more environments ("p95 of <service> in <env-a> and <env-b>",
"compare <measure> in <env-a> vs <env-b>"): the fact that leads the answer is said beside
the same measure of the same object read in each other environment the question names,
so the first sentence holds both sides of the comparison, not the first env's value and
"more below".

The same measure is decided by the fact's typed attributes (its kind and the fields that
say what was measured of what), never by its text: a p95 pairs with a p95, a request
rate with a request rate, summed CPU of a workload's pods with the same sum. A pod's own
name differs between clusters, so a per-pod fact pairs by its container and resource."""

from __future__ import annotations

from collections.abc import Hashable

from planner.conclude.rule import IndexedFact
from policy.facts import (
    HttpLatency,
    HttpRate,
    K8sWorkload,
    MetricsRestarts,
    MetricsUsage,
    MetricsValue,
)


def measure_of(attrs: object) -> tuple[Hashable, ...] | None:
    """What a fact measures and of what, equal for the same measure in another env; None
    for a fact that is no measure (an event, a log line, a pod's state)."""
    match attrs:
        case HttpRate():
            return (attrs.kind, attrs.what, attrs.status, attrs.service, attrs.ingress)
        case HttpLatency():
            return (attrs.kind, attrs.quantile, attrs.service)
        case MetricsUsage() if attrs.scope is not None:
            return (attrs.kind, attrs.scope, attrs.resource)
        case MetricsUsage():
            return (attrs.kind, attrs.container, attrs.resource)
        case MetricsRestarts():
            return (attrs.kind, attrs.container)
        case MetricsValue() if attrs.query is not None:
            return (attrs.kind, attrs.query)
        case K8sWorkload():
            return (attrs.kind, attrs.name)
        case _:
            return None


def compared(lead: IndexedFact, indexed: list[IndexedFact], envs: list[str]) -> list[IndexedFact]:
    """The lead fact and, for each other env asked of, the first fact of the same measure
    read there, in the order the envs were named; the lead alone when the question names
    one env or the lead measures nothing another env could be compared on."""
    key = measure_of(lead.fact.attrs)
    if key is None or len(envs) < 2 or lead.env not in envs:
        return [lead]
    sides: dict[str | None, IndexedFact] = {lead.env: lead}
    for item in indexed:
        if item.env in envs and item.env not in sides and measure_of(item.fact.attrs) == key:
            sides[item.env] = item
    return [sides[env] for env in envs if env in sides]


def sides_said(lead: IndexedFact, indexed: list[IndexedFact], envs: list[str]) -> str:
    """The lead fact's sentence and the same measure's in each other env asked of."""
    return "; ".join(side.fact.text.rstrip(".") for side in compared(lead, indexed, envs))
