"""Finalizer without a model: facts, hypotheses, gaps and bounded recommendations.

Redaction is not done here but once, at the exit of the turn (planner.turn.conduct), for
every field of the Answer and whichever way the turn ended. Facts come from the evidence
packet (per-source budgets), each with source, observed_at, link and scope. A negative
statement ("no restarts") is written only for an objective resolved by a complete empty
read; an empty partial or failed read is a gap, never "no problem".
"""

from __future__ import annotations

from typing import assert_never

from pydantic import BaseModel

from planner.conclude.diagnosis import Finding, IndexedFact, diagnose, within_normal
from planner.conclude.evidence import FACT_ORDER, EvidencePacket, fact_rank
from planner.conclude.guard import EnvOutcome, EnvStatus, why_failed
from planner.plan.objectives import QuestionPlan
from planner.question.asked import value_priority, value_sentence
from planner.question.change import human_step, version_asked
from planner.question.context import ContextState
from planner.read.executor import CallRecord
from planner.shapes.answer import (
    Answer,
    AnswerFact,
    Gap,
    Hypothesis,
    ObjectiveReport,
    ObjectiveStatus,
    Timings,
)
from planner.shapes.language import Language, Phrase, language_of, say
from planner.shapes.turn import Turn
from policy.facts import K8sWorkload, Negative
from policy.gaps import GapNote, GapReason
from policy.results import ResultFact

MAX_RECOMMENDATIONS = 4
DIAGNOSTIC_INTENTS = {"http_errors", "workload_startup", None}
_RANK: dict[ObjectiveStatus, int] = {"resolved": 0, "unavailable": 1, "unresolved": 2}


def _objective_status(status: EnvStatus) -> ObjectiveStatus:
    """One env's outcome as the answer reports it; an objective is as settled as its
    least settled env."""
    match status:
        case "resolved":
            return "resolved"
        case "unavailable" | "failed":
            return "unavailable"
        case "unresolved" | "pending":
            return "unresolved"
        case _:
            assert_never(status)


def finalize(
    *,
    turn: Turn,
    context: ContextState,
    plan: QuestionPlan,
    records: list[CallRecord],
    outcomes: dict[tuple[str, str], EnvOutcome],
    packet: EvidencePacket,
    total_ms: int,
    timed_out: bool,
) -> Answer:
    language = language_of(turn.question)
    indexed: list[IndexedFact] = []
    facts: list[AnswerFact] = []
    seen: set[tuple[str, str, str | None]] = set()
    lead: set[int] = set()  # facts read for a required objective
    order = value_priority(context.asked, FACT_ORDER)
    entries = sorted(
        enumerate(packet.entries), key=lambda ie: (fact_rank(ie[1].fact, order), ie[0])
    )
    for _, entry in entries:
        fact = entry.fact
        key = (fact.text, fact.source, entry.env)
        if key in seen:  # the same observation read through two tools
            continue
        seen.add(key)
        if entry.lead:
            lead.add(len(facts))
        indexed.append(IndexedFact(len(facts), fact, entry.env))
        facts.append(_answer_fact(fact, entry.env, entry.call_id, context))

    by_id = {o.id: o for o in plan.objectives}
    for (obj_id, env), out in outcomes.items():
        if out.status == "resolved" and out.negative and not _has_facts(records, obj_id, env):
            text = say(
                Phrase.NOTHING_FOUND,
                language,
                what=by_id[obj_id].title_in(language),
                env=env,
                read=", ".join(out.sources) or say(Phrase.THE_SOURCE, language),
            )
            rf = ResultFact(
                text=text,
                attrs=Negative(),
                source=", ".join(out.sources),
                observed_at=turn.now,
                historical=context.scope.time.mode != "now",
            )
            indexed.append(IndexedFact(len(facts), rf, env))
            facts.append(_answer_fact(rf, env, None, context))

    # an onset the question states ("503 since 12:30") bounds what can have caused it
    findings = diagnose(indexed, context.onset, language)
    hypotheses = [
        Hypothesis(text=f.hypothesis, supported_by=f.supported_by, confidence=f.confidence)
        for f in findings
        if f.hypothesis
    ]
    # a reading within its normal range that no hypothesis cites and no required objective
    # asked for is kept, but out of the short answer
    cited = {i for h in hypotheses for i in h.supported_by}
    for item in indexed:
        if item.index not in lead | cited and within_normal(item.fact.attrs):
            facts[item.index].signal = False
    recommendations: list[str] = []
    for f in findings:
        for r in f.recommendations:
            if r not in recommendations and len(recommendations) < MAX_RECOMMENDATIONS:
                recommendations.append(r)

    gaps: list[Gap] = []
    for (obj_id, env), out in outcomes.items():
        if out.status == "resolved" and out.negative and by_id[obj_id].absence_is_gap:
            read = ", ".join(out.sources) or say(Phrase.THE_SOURCE, language)
            title = by_id[obj_id].title_in(language)
            gaps.append(Gap.of(obj_id, GapNote(GapReason.ABSENCE_ONLY, env, title, read), language))
        if out.status != "resolved":
            for note in out.reasons or [GapNote(GapReason.NO_CALL, env)]:
                gaps.append(Gap.of(obj_id, note, language))
    reported = {(g.subject, g.env) for out in outcomes.values() for g in out.reasons}
    for rec in records:
        if rec.result.status == "error" and (rec.call.tool, rec.call.env) not in reported:
            # a read that failed behind an objective another source resolved: the answer
            # still says what it could not check
            gap_for = sorted(rec.objectives)[0] if rec.objectives else rec.call.tool
            note = GapNote(
                GapReason.SOURCE_FAILED, rec.call.env, rec.call.tool, why_failed(rec.result)
            )
            gaps.append(Gap.of(gap_for, note, language))
            reported.add((rec.call.tool, rec.call.env))
    for rec in records:
        cov = rec.result.coverage
        # a read cut short: with facts, they are not all there is; without, it proves
        # nothing (and an objective another read resolved would otherwise hide that); an
        # empty read that says its emptiness proves nothing is one too
        cut = rec.result.facts or (rec.call.tool, rec.call.env) not in reported
        empty_cut = rec.result.status == "empty" and "none_partial" in rec.result.evidence.values()
        if (rec.result.status == "partial" or empty_cut) and cut:
            read = cov.what_was_read()
            gap_for = sorted(rec.objectives)[0] if rec.objectives else rec.call.tool
            gaps.append(
                Gap.of(
                    gap_for,
                    GapNote(GapReason.TRUNCATED, rec.call.env, rec.call.tool, read),
                    language,
                )
            )
    gaps = list({(g.objective, g.reason): g for g in gaps}.values())
    if context.ambiguous_objects:
        names = ", ".join(context.ambiguous_objects)
        gaps.append(Gap.of("scope", GapNote(GapReason.AMBIGUOUS_NAME, detail=names), language))

    reports: list[ObjectiveReport] = []
    for objective in plan.objectives:
        per_env = [
            outcomes[(objective.id, env)] for env in context.envs if (objective.id, env) in outcomes
        ]
        status = max(
            (_objective_status(o.status) for o in per_env),
            key=_RANK.__getitem__,
            default="unresolved",
        )
        sources = sorted({s for o in per_env for s in o.sources})
        reports.append(
            ObjectiveReport(
                id=objective.id,
                required=objective.required,
                status=status,
                sources=sources,
            )
        )
    final = not timed_out and all(
        r.status in ("resolved", "unavailable") for r in reports if r.required
    )
    # a digest of observations (no hypothesis) leads only when it digests what the question
    # asked: a p99 asked for is the answer's first line, not the request rate read beside it
    # a cause found beside the facts asked for leads only a question for a cause: "what
    # changed?" is answered with the changes, the crash the sweep found follows them
    diagnostic = context.intent in DIAGNOSTIC_INTENTS or context.asks_cause
    leading = [
        f
        for f in findings
        if (f.hypothesis and diagnostic) or not lead or set(f.supported_by) & lead
    ]
    if not diagnostic:
        # a digest of what was asked ("who deployed": the release) before a cause that
        # only cites it
        leading.sort(key=lambda f: f.hypothesis is not None)
    # the value asked for first; a cause found beside it follows ("runs image X; 0 of 2
    # ready. Pod … is in CrashLoopBackOff …")
    value = _value_asked(indexed, context, language)
    head = _summary(leading, facts, context, language, min(lead, default=0), value)
    if context.change is not None:
        # asked to act: the answer says first that nothing was changed, and the step a
        # person would take comes first among the next steps
        action = context.change.value
        head = say(Phrase.READ_ONLY, language, action=action) + head
        step = human_step(
            context.change,
            env=context.scope.env,
            namespace=context.scope.namespace,
            name=context.scope.object,
            version=version_asked(turn.question),
        )
        recommendations.insert(0, say(Phrase.HUMAN_STEP, language, action=action, step=step))
    tools_ms = sum(r.duration_ms for r in records)
    answer = Answer(
        question=turn.question,
        scope=context.scope,
        summary=frame_summary(head, len(gaps), final, language),
        facts=facts,
        hypotheses=hypotheses,
        gaps=gaps,
        recommendations=recommendations,
        objectives=reports,
        tool_calls=[r.as_dict() for r in records],
        timings=Timings(total_ms=total_ms, model_ms=0, tools_ms=tools_ms),
        final=final,
    )
    answer.conclusion = head
    return answer


def _value_asked(
    indexed: list[IndexedFact], context: ContextState, language: Language
) -> str | None:
    """The value of the object asked about, once per env that has it ("; " between)."""
    if context.asked is None or context.scope.time.mode != "now":
        return None  # the state read is today's: it is no answer for a past moment
    said: dict[str | None, str] = {}
    for item in indexed:
        attrs = item.fact.attrs
        if not isinstance(attrs, K8sWorkload) or attrs.name != context.scope.object:
            continue
        if item.env not in said and (
            sentence := value_sentence(context.asked, item.fact, item.env, language)
        ):
            said[item.env] = sentence
    return "; ".join(said.values()) or None


def _has_facts(records: list[CallRecord], obj_id: str, env: str) -> bool:
    """Some read for the objective found what it looks for; an empty read may still carry
    context (a deploy job nobody played), which is no finding."""
    return any(
        r.result.facts and r.result.status != "empty"
        for r in records
        if obj_id in r.objectives and r.call.env in (env, None)
    )


def _answer_fact(
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


def _summary(
    findings: list[Finding],
    facts: list[AnswerFact],
    context: ContextState,
    language: Language,
    first_asked: int = 0,
    value: str | None = None,
) -> str:
    """`first_asked`: the index of the first fact read for a required objective; `value`:
    the value the question asks for, said first."""
    where = context.scope.object or say(Phrase.THE_QUESTION, language)
    env = context.scope.env or ", ".join(context.envs)
    if value and findings:
        head = f"{value}. {findings[0].summary}"
    elif value:
        head = f"{value}."
    elif findings:
        head = findings[0].summary
    elif facts and (context.intent in DIAGNOSTIC_INTENTS or context.asks_cause):
        head = say(Phrase.NO_CAUSE, language, count=len(facts), where=where, env=env)
    elif facts:
        # a question for a value, not a cause: lead with the value asked for
        head = facts[first_asked].text.rstrip(".") + "."
        if len(facts) > 1:
            head += say(Phrase.MORE_BELOW, language, count=len(facts) - 1)
    else:
        head = say(Phrase.NOTHING_ESTABLISHED, language, where=where, env=env)
    return head


def frame_summary(head: str, gaps: int, final: bool, language: Language = Language.EN) -> str:
    """The summary around its conclusion: what is partial and what was not checked is
    said by the code, whoever wrote the conclusion (the finalizer model's prose too), in
    the question's language."""
    if gaps:
        if head and head.rstrip()[-1:] not in ".!?…":
            head = head.rstrip() + "."
        head += say(Phrase.NOT_CHECKED, language, count=gaps)
    if not final:
        head = say(Phrase.PARTIAL, language) + head
    return head
