"""What the answer is written from: the turn as every part reads it (the question, its
scope and plan, the reads and their outcomes) and the facts collected from the evidence
packet, each indexed for the diagnosis and turned into the Answer's fact with its
table cells."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from pydantic import BaseModel

from planner.conclude.guard import EnvOutcome
from planner.conclude.rule import IndexedFact
from planner.plan.objectives import Objective, QuestionPlan
from planner.question.context import ContextState
from planner.read.executor import CallRecord
from planner.shapes.answer import (
    AnswerFact,
)
from planner.shapes.language import Language
from planner.shapes.turn import Turn
from policy.results import ResultFact


@dataclass(frozen=True)
class TurnView:
    """What every part of the answer reads: the question, its scope and plan, and what the
    turn's reads established."""

    turn: Turn
    context: ContextState
    plan: QuestionPlan
    records: list[CallRecord]
    outcomes: dict[tuple[str, str], EnvOutcome]
    language: Language

    @cached_property
    def by_id(self) -> dict[str, Objective]:
        return {o.id: o for o in self.plan.objectives}


@dataclass
class Collected:
    """The answer's facts, with the indexes diagnosis cites them by."""

    indexed: list[IndexedFact] = field(default_factory=list)
    facts: list[AnswerFact] = field(default_factory=list)
    lead: set[int] = field(default_factory=set)  # facts read for a required objective

    def add(self, fact: ResultFact, env: str | None, call_id: str | None, t: TurnView) -> None:
        self.indexed.append(IndexedFact(len(self.facts), fact, env))
        self.facts.append(answer_fact(fact, env, call_id, t.context))


def answer_fact(
    fact: ResultFact,
    env: str | None,
    call_id: str | None,
    context: ContextState,
) -> AnswerFact:
    scope: dict[str, str | None] = {"env": env}
    if context.scope.namespace:
        scope["namespace"] = context.scope.namespace
    return AnswerFact(
        text=fact.text,
        source=fact.source,
        observed_at=fact.observed_at,
        link=fact.link,
        scope=scope,
        kind=fact.kind,
        fields=cells_of(fact.attrs, fact.text),
    )


CELL_CHARS = 64
PROSE_WORDS = 3  # a value of more words is prose (a message, a log line), not a cell


def cells_of(attrs: object, text: str) -> dict[str, str | int | float | bool]:
    """The typed attributes of a fact that fit a table's cell, in the model's order: set
    scalars, short, not prose. None for a fact whose sentence quotes a source's prose (a
    log line, an event message): those words are the evidence, so it stays a line."""
    if not isinstance(attrs, BaseModel):
        return {}
    out: dict[str, str | int | float | bool] = {}
    for name, value in attrs:
        if name == "kind" or value is None:
            continue
        if isinstance(value, str) and len(value.split()) > PROSE_WORDS:
            if value in text:
                return {}
            continue
        if isinstance(value, bool | int | float) or (
            isinstance(value, str) and 0 < len(value) <= CELL_CHARS
        ):
            out[name] = value
    return out
