"""What a diagnosis rule reads and returns: the answer's facts by index, each kind's facts
typed as its model, and findings (planner/conclude/diagnosis.py runs the rules)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Generic, Literal, TypeVar

from policy.language import Language
from policy.results import ResultFact


@dataclass(frozen=True)
class IndexedFact:
    index: int
    fact: ResultFact
    env: str | None


Confidence = Literal["low", "medium", "high"]


@dataclass
class Finding:
    summary: str
    hypothesis: str | None
    supported_by: list[int]
    confidence: Confidence = "medium"
    recommendations: list[str] = field(default_factory=list)
    weight: int = 50  # lower comes first


A = TypeVar("A")


@dataclass(frozen=True)
class Seen(Generic[A]):
    """A fact of one kind, with its attributes typed as that kind's model."""

    index: int
    fact: ResultFact
    a: A


def of_kind(facts: list[IndexedFact], model: type[A]) -> list[Seen[A]]:
    """The facts of one kind, typed as its model."""
    return [Seen(f.index, f.fact, f.fact.attrs) for f in facts if isinstance(f.fact.attrs, model)]


Rule = Callable[[list[IndexedFact], datetime | None, Language], list[Finding]]
"""A rule: the answer's facts, the onset the question states, the answer's language ->
what the facts establish. A rule only names causes that a fact names."""
