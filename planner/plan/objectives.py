"""The question plan: the objectives to prove (causality and the stop condition are code:
planner/conclude/diagnosis.py, planner/conclude/guard.py).

Objectives come from the versioned catalogue `objectives.yaml`; the plan for a turn is the
catalogue entry for the intent (and variant), filtered by time mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from functools import cache
from importlib import resources
from typing import Final, Literal, assert_never

import yaml
from pydantic import BaseModel, ConfigDict, Field

from planner.question.asked import AskedValue
from planner.question.context import ContextState
from planner.question.extract import Identifiers
from planner.question.intent import Intent
from policy.gaps import Need
from policy.language import Language
from policy.vocabulary import Facet


class Objective(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    title: str
    title_ru: str | None = Field(default=None, description="the title in Russian answers")
    required: bool
    evidence: list[str]
    needs: list[Need] = Field(default_factory=list)
    when: Literal["now", "historical"] | None = None
    absence_is_gap: bool = Field(
        default=False,
        description="a complete read that finds nothing still leaves the question open "
        "(no error line tied to a request does not tell why it failed)",
    )
    lookback: timedelta | None = Field(
        default=None,
        description="read this much before the question's window too: a change that "
        "explains a symptom comes before it (a deployment deleted this morning, asked about "
        "in the afternoon)",
    )
    follows_evidence: bool = Field(
        default=False,
        description="also read for the workloads the evidence names (a dependency a log "
        "line connects to: a Redis the readiness check pings, the database that refuses)",
    )
    until_observed: bool = Field(
        default=False,
        description="read only once the evidence yields its input, and no gap before: "
        "nothing pointed there (the pods behind the addresses a failed call named)",
    )
    facet: Facet | None = Field(
        default=None,
        description="a baseline objective: every evidence kind of this facet an admitted "
        "tool declares (and the plan does not read already) is its evidence",
    )
    all_of: bool = Field(
        default=False,
        description="every acceptable evidence kind a configured tool serves must be read: "
        "the objective is a union (changes = releases + people's changes in the cluster), so "
        "one source's empty read never proves the whole of it absent",
    )

    def title_in(self, language: Language) -> str:
        return self.title_ru if language is Language.RU and self.title_ru else self.title


IdentifierName = Literal["request_ids", "job_ids", "promql", "log_query"]
"""An identifier a variant may start from (the catalogue names them)."""


def _given(identifiers: Identifiers, name: IdentifierName) -> bool:
    """Does the question give this identifier?"""
    match name:
        case "request_ids":
            return bool(identifiers.request_ids)
        case "job_ids":
            return bool(identifiers.job_ids)
        case "promql":
            return bool(identifiers.promql)
        case "log_query":
            return bool(identifiers.log_query)
        case _:
            assert_never(name)


class Variant(BaseModel):
    model_config = ConfigDict(extra="forbid")

    when_identifiers: list[IdentifierName] = Field(
        default_factory=list, description="the variant for a question that gives all of these"
    )
    when_counting: bool = Field(
        default=False,
        description="for a question that asks how many and not why: the count, not a cause",
    )
    objectives: list[Objective]


TRIAGE: Final = "triage"
GENERAL: Final = "general"
PlanIntent = Intent | Literal["triage", "general"]
"""The kind of plan: a kind of question the catalogue knows, a triage of the environment
(no object for a question that needs one), or `general` (no known kind: the model plans
it, when there is one)."""


class IntentEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    variants: dict[str, Variant]


class Catalogue(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int
    intents: dict[PlanIntent, IntentEntry]
    baseline: list[Objective] = Field(
        default_factory=list,
        description="what any object in scope gets when the question asks for a cause, "
        "whatever its kind of plan",
    )
    asked_values: dict[AskedValue, Objective] = Field(
        default_factory=dict,
        description="the read that produces each state value a question asks for, added to "
        "any plan that does not read it already",
    )


class QuestionPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intent: PlanIntent
    variant: str
    catalogue_version: int
    objectives: list[Objective]


def _needs_an_object(variant: Variant) -> bool:
    """Every required objective of the variant needs an object."""
    required = [o for o in variant.objectives if o.required]
    return bool(required) and all("object" in o.needs for o in required)


@cache
def load_catalogue() -> Catalogue:
    text = resources.files("planner.plan").joinpath("objectives.yaml").read_text(encoding="utf-8")
    # libyaml when PyYAML has it: the pure-Python parser took a quarter of a cold turn
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return Catalogue.model_validate(yaml.load(text, Loader=loader))


def plan_for(
    context: ContextState,
    catalogue: Catalogue | None = None,
    served: Mapping[str, Facet | None] | None = None,
) -> QuestionPlan:
    """The plan for the question; `served`: the evidence kinds the admitted tools declare,
    with their facets, from which the baseline is drawn."""
    cat = catalogue or load_catalogue()
    plan = _plan_for(context, cat)
    if context.ask is not None:
        # answered by exactly what it asks (a ranking, a list, log lines, who deployed):
        # that read alone, with no other kind of question's objectives and no baseline
        return plan
    if plan.intent != TRIAGE:
        plan.objectives += _also(plan, cat, context)
        plan.objectives += _value_read(plan, cat, context)
    if served and context.scope.object is not None:
        # the whole baseline for a question for a cause; for any other, the reads only the
        # evidence can call for (the dependencies a failed call names): nothing unless it
        # points there
        pointed = not context.asks_cause
        plan.objectives += _baseline(plan, cat, context, served, pointed_only=pointed)
    return plan


def _value_read(plan: QuestionPlan, cat: Catalogue, context: ContextState) -> list[Objective]:
    """The read of the value the question asks for ("memory usage of <service>"), required,
    when the plan of its kind of question does not read it: a value question gets its
    value, whatever kind of plan it fell to."""
    if context.asked is None or (wanted := cat.asked_values.get(context.asked)) is None:
        return []
    read = {k for o in plan.objectives for k in o.evidence}
    if set(wanted.evidence) <= read or any(o.id == wanted.id for o in plan.objectives):
        return []
    if "object" in wanted.needs and context.scope.object is None:
        return []
    return [wanted]


def _also(plan: QuestionPlan, cat: Catalogue, context: ContextState) -> list[Objective]:
    """The objectives of the other kinds of question the message asks too, as optional:
    "who deployed X, and why does it return 502?" reads the releases and the errors."""
    ids = {o.id for o in plan.objectives}
    mode = context.scope.time.mode
    out: list[Objective] = []
    for intent in context.also:
        entry = cat.intents.get(intent)
        if entry is None:
            continue
        _, variant = _variant(entry, context)
        for o in variant.objectives:
            if o.id in ids or (o.when is not None and o.when != mode):
                continue
            if "object" in o.needs and context.scope.object is None:
                continue  # it could only say the question names no object
            out.append(o.model_copy(update={"required": False}))
            ids.add(o.id)
    return out


def _baseline(
    plan: QuestionPlan,
    cat: Catalogue,
    context: ContextState,
    served: Mapping[str, Facet | None],
    *,
    pointed_only: bool = False,
) -> list[Objective]:
    """Each baseline objective with the kinds it adds: those of its facet (or its own
    list) that a tool serves and no objective of the plan reads. Class "additive plans":
    a source the plan was not written for (an autoscaler's state) is still read.
    `pointed_only`: only those read once the evidence points there (`until_observed`)."""
    read = {k for o in plan.objectives for k in o.evidence}
    ids = {o.id for o in plan.objectives}
    mode = context.scope.time.mode
    out: list[Objective] = []
    for o in cat.baseline:
        if o.id in ids or (o.when is not None and o.when != mode):
            continue
        if pointed_only and not o.until_observed:
            continue
        if o.facet is not None:
            kinds = sorted(k for k, f in served.items() if f == o.facet and k not in read)
        else:
            # one read only once the evidence points there has an input of its own
            kinds = [k for k in o.evidence if k in served and (o.until_observed or k not in read)]
        if kinds:
            out.append(o.model_copy(update={"evidence": kinds}))
            read.update(kinds)
    return out


def _plan_for(context: ContextState, cat: Catalogue) -> QuestionPlan:
    intent: PlanIntent = context.intent or GENERAL
    entry = cat.intents.get(intent) or cat.intents[GENERAL]
    variant_name, variant = _variant(entry, context)
    if context.scope.object is None and _needs_an_object(variant):
        # no object named, and this kind of question cannot start without one: the
        # question is about the whole environment (class "no object, no investigation")
        triage = cat.intents[TRIAGE]
        name = intent if intent in triage.variants else "environment"
        return _plan(TRIAGE, name, triage.variants[name], cat, context)
    return _plan(intent, variant_name, variant, cat, context)


def _plan(
    intent: PlanIntent, variant_name: str, variant: Variant, cat: Catalogue, context: ContextState
) -> QuestionPlan:
    mode = context.scope.time.mode
    objectives = [o for o in variant.objectives if o.when is None or o.when == mode]
    return QuestionPlan(
        intent=intent,
        variant=variant_name,
        catalogue_version=cat.version,
        objectives=objectives,
    )


def _variant(entry: IntentEntry, context: ContextState) -> tuple[str, Variant]:
    """The first variant whose identifiers the question has, else the plain one."""
    for name, candidate in entry.variants.items():
        wanted = candidate.when_identifiers
        if wanted and all(_given(context.identifiers, w) for w in wanted):
            return name, candidate
    for name, candidate in entry.variants.items():
        if candidate.when_counting and context.asks_count and not context.asks_cause:
            return name, candidate
    name = next(
        (n for n, v in entry.variants.items() if not v.when_identifiers and not v.when_counting),
        "default",
    )
    return name, entry.variants[name]
