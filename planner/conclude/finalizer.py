"""Finalizer without a model: facts, hypotheses, gaps and bounded recommendations.

Redaction is not done here but once, at the exit of the turn (planner.turn.conduct), for
every field of the Answer and whichever way the turn ended. Facts come from the evidence
packet (per-source budgets), each with source, observed_at, link and scope. A negative
statement ("no restarts") is written only for an objective resolved by a complete empty
read; an empty partial or failed read is a gap, never "no problem".
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.conclude.collected import Collected, TurnView
from planner.conclude.diagnosis import diagnose, within_normal
from planner.conclude.evidence import EvidencePacket, fact_rank
from planner.conclude.guard import EnvOutcome, why_failed
from planner.conclude.head import head_of
from planner.conclude.rule import Finding
from planner.conclude.settle import reported
from planner.plan.objectives import QuestionPlan
from planner.question.change import ChangeAction, human_step, version_asked
from planner.question.context import ContextState
from planner.question.supported import closest_questions
from planner.read.executor import CallRecord
from planner.shapes.answer import (
    AnswerFact,
    Gap,
    Hypothesis,
    ObjectiveReport,
    ObjectiveStatus,
    ToolCallRecord,
)
from planner.shapes.language import Language, Phrase, say
from planner.shapes.turn import Turn
from policy.facts import Negative
from policy.gaps import GapNote, GapReason
from policy.language import Bilingual, phrase
from policy.results import ResultFact

MAX_RECOMMENDATIONS = 4
_RANK: dict[ObjectiveStatus, int] = {"resolved": 0, "unavailable": 1, "unresolved": 2}


@dataclass(frozen=True)
class Conclusions:
    """What the code concludes from a turn's reads, before the Answer is written from it
    (planner.conclude.compose): the conclusion, the cited facts, hypotheses, gaps, next
    steps and each objective's status."""

    conclusion: str
    facts: list[AnswerFact]
    hypotheses: list[Hypothesis]
    gaps: list[Gap]
    recommendations: list[str]
    objectives: list[ObjectiveReport]
    tool_calls: list[ToolCallRecord]
    final: bool  # every required objective settled within the turn
    language: Language
    # what the conclusion opens with that no model's prose replaces: the asked thing (a
    # value, a ranking, who deployed, an absent name), or the check that stood in for it
    lead: str = ""


def finalize(
    *,
    turn: Turn,
    context: ContextState,
    plan: QuestionPlan,
    records: list[CallRecord],
    outcomes: dict[tuple[str, str], EnvOutcome],
    packet: EvidencePacket,
    timed_out: bool,
    language: Language,
) -> Conclusions:
    t = TurnView(turn, context, plan, records, outcomes, language)
    collected = _facts(t, packet)
    # an onset the question states ("503 since 12:30") bounds what can have caused it
    asked = frozenset(
        name for name in [context.scope.object, *(o.name for o in context.objects)] if name
    )
    findings = diagnose(collected.indexed, context.onset, t.language, asked)
    hypotheses = [
        Hypothesis(text=f.hypothesis, supported_by=f.supported_by, confidence=f.confidence)
        for f in findings
        if f.hypothesis
    ]
    _set_aside_normal(collected, hypotheses)
    recommendations = _recommendations(findings)
    gaps = _gaps(t)
    reports = _reports(t)
    head, lead = head_of(t, findings, collected)
    if context.change is not None:
        # asked to act: the answer says first that nothing was changed, and the step a
        # person would take comes first among the next steps
        read_only = say(Phrase.READ_ONLY, t.language, action=context.change.value)
        head, lead = read_only + head, read_only + lead
        recommendations.insert(0, _human_step(t, context.change))
    if context.uncovered:
        recommendations.insert(0, _closer(t))
    return Conclusions(
        conclusion=head,
        lead=lead,
        facts=collected.facts,
        hypotheses=hypotheses,
        gaps=gaps,
        recommendations=recommendations,
        objectives=reports,
        tool_calls=[r.as_record() for r in records],
        final=not timed_out
        and all(r.status in ("resolved", "unavailable") for r in reports if r.required),
        language=t.language,
    )


def _facts(t: TurnView, packet: EvidencePacket) -> Collected:
    """The packet's facts, best first and each observation once, then what a complete
    empty read proved absent, said as a fact."""
    out = Collected()
    seen: set[tuple[str, str, str | None]] = set()
    entries = sorted(
        enumerate(packet.entries), key=lambda ie: (fact_rank(ie[1].fact, packet.priority), ie[0])
    )
    for _, entry in entries:
        fact = entry.fact
        key = (fact.text, fact.source, entry.env)
        if key in seen:  # the same observation read through two tools
            continue
        seen.add(key)
        if entry.lead:
            out.lead.add(len(out.facts))
        out.add(fact, entry.env, entry.call_id, t)
    for (obj_id, env), outcome in t.outcomes.items():
        negative = outcome.status == "resolved" and outcome.negative
        if negative and not _has_facts(t.records, obj_id, env):
            out.add(_nothing_found(t, obj_id, env, outcome), env, None, t)
    return out


def _nothing_found(t: TurnView, obj_id: str, env: str, outcome: EnvOutcome) -> ResultFact:
    language = t.language
    text = say(
        Phrase.NOTHING_FOUND,
        language,
        what=t.by_id[obj_id].title_in(language),
        env=env,
        read=", ".join(outcome.sources) or say(Phrase.THE_SOURCE, language),
    )
    return ResultFact(
        text=text,
        attrs=Negative(),
        source=", ".join(outcome.sources),
        observed_at=t.turn.now,
        historical=t.context.scope.time.mode != "now",
    )


def _set_aside_normal(collected: Collected, hypotheses: list[Hypothesis]) -> None:
    """A reading within its normal range that no hypothesis cites and no required
    objective asked for is kept, but out of the short answer."""
    cited = {i for h in hypotheses for i in h.supported_by}
    for item in collected.indexed:
        if item.index not in collected.lead | cited and within_normal(item.fact.attrs):
            collected.facts[item.index].signal = False


_ASK_CLOSER: Bilingual = (
    "The question names no object or kind of question I read; the closest I answer: {asked}",
    "В вопросе не прочитаны ни объект, ни вид вопроса; ближайшие, на которые я отвечаю: {asked}",
)


def _closer(t: TurnView) -> str:
    """What an environment check that stood in for the question cannot say: which
    questions are answered, the closest to this one first."""
    env = t.context.scope.env or (t.context.envs[0] if t.context.envs else "<env>")
    asked = closest_questions(t.turn.question, env, t.language)
    return phrase(_ASK_CLOSER, t.language, asked="; ".join(f"«{q}»" for q in asked))


def _recommendations(findings: list[Finding]) -> list[str]:
    out: list[str] = []
    for f in findings:
        for r in f.recommendations:
            if r not in out and len(out) < MAX_RECOMMENDATIONS:
                out.append(r)
    return out


def _gaps(t: TurnView) -> list[Gap]:
    """What the answer could not establish: each objective's, then the reads that failed
    or were cut short behind an objective another read settled, then an ambiguous name."""
    gaps = _objective_gaps(t)
    reported = {(g.subject, g.env) for out in t.outcomes.values() for g in out.reasons}
    gaps += _failed_read_gaps(t, reported)
    gaps += _cut_read_gaps(t, reported)
    gaps = _merged(list({(g.objective, g.reason): g for g in gaps}.values()))
    if t.context.ambiguous_objects:
        names = ", ".join(t.context.ambiguous_objects)
        note = GapNote(GapReason.AMBIGUOUS_NAME, detail=names)
        gaps.append(Gap.of("scope", note, t.language))
    return gaps


def _merged(gaps: list[Gap]) -> list[Gap]:
    """Gaps an engineer reads as one (the same objective, env, source and meaning: two
    reads of one kind cut short) are one, their details joined: the count the summary
    says is the lines the answer shows."""
    out: dict[tuple[str, str | None, str, str], Gap] = {}
    for g in gaps:
        key = (g.objective, g.env, g.source, g.meaning)
        if not g.meaning or key not in out:
            out[key if g.meaning else (g.objective, g.env, g.source, g.reason)] = g
        elif g.reason not in out[key].reason:
            out[key] = out[key].model_copy(update={"reason": f"{out[key].reason}; {g.reason}"})
    return list(out.values())


def _objective_gaps(t: TurnView) -> list[Gap]:
    gaps: list[Gap] = []
    language = t.language
    reads = _reads_by_tool(t)
    for (obj_id, env), out in t.outcomes.items():
        title = t.by_id[obj_id].title_in(language)
        if out.status == "resolved" and out.negative and t.by_id[obj_id].absence_is_gap:
            read = ", ".join(out.sources) or say(Phrase.THE_SOURCE, language)
            note = GapNote(GapReason.ABSENCE_ONLY, env, title, read)
            gaps.append(Gap.of(obj_id, note, language, title=title))
        unpointed = all(n.reason is GapReason.NOT_OBSERVED for n in out.reasons)
        if t.by_id[obj_id].until_observed and out.reasons and unpointed:
            continue  # nothing in the evidence pointed there: nothing left unread
        if out.status != "resolved":
            for note in out.reasons or [GapNote(GapReason.NO_CALL, env)]:
                rec = reads.get((note.subject, note.env))
                gaps.append(
                    Gap.of(
                        obj_id,
                        note,
                        language,
                        title=title,
                        source=rec.call.source if rec else "",
                        error=rec.result.error_kind if rec else None,
                    )
                )
    return gaps


def _reads_by_tool(t: TurnView) -> dict[tuple[str, str | None], CallRecord]:
    """Each (tool, env)'s read, a failed one over one that answered: what a gap note
    naming that tool is about."""
    out: dict[tuple[str, str | None], CallRecord] = {}
    for rec in t.records:
        key = (rec.call.tool, rec.call.env)
        if key not in out or rec.result.status == "error":
            out[key] = rec
    return out


def _gap_for(rec: CallRecord) -> str:
    return sorted(rec.objectives)[0] if rec.objectives else rec.call.tool


def _read_gap(t: TurnView, rec: CallRecord, note: GapNote) -> Gap:
    """A gap about one read: its first objective's, titled by it, the read's source."""
    objective = t.by_id.get(_gap_for(rec))
    return Gap.of(
        _gap_for(rec),
        note,
        t.language,
        title=objective.title_in(t.language) if objective else "",
        source=rec.call.source,
        error=rec.result.error_kind,
    )


def _failed_read_gaps(t: TurnView, reported: set[tuple[str, str | None]]) -> list[Gap]:
    """A read that failed behind an objective another source resolved: the answer still
    says what it could not check. Adds each to `reported`."""
    gaps: list[Gap] = []
    for rec in t.records:
        if rec.result.status == "error" and (rec.call.tool, rec.call.env) not in reported:
            note = GapNote(
                GapReason.SOURCE_FAILED, rec.call.env, rec.call.tool, why_failed(rec.result)
            )
            gaps.append(_read_gap(t, rec, note))
            reported.add((rec.call.tool, rec.call.env))
    return gaps


def _cut_read_gaps(t: TurnView, reported: set[tuple[str, str | None]]) -> list[Gap]:
    """A read cut short: with facts, they are not all there is; without, it proves nothing
    (and an objective another read resolved would otherwise hide that); an empty read that
    says its emptiness proves nothing is one too."""
    gaps: list[Gap] = []
    for rec in t.records:
        cov = rec.result.coverage
        cut = rec.result.facts or (rec.call.tool, rec.call.env) not in reported
        empty_cut = rec.result.status == "empty" and "none_partial" in rec.result.evidence.values()
        if (rec.result.status == "partial" or empty_cut) and cut:
            note = GapNote(GapReason.TRUNCATED, rec.call.env, rec.call.tool, cov.what_was_read())
            gaps.append(_read_gap(t, rec, note))
    return gaps


def _reports(t: TurnView) -> list[ObjectiveReport]:
    """Each objective as settled as its least settled env."""
    reports: list[ObjectiveReport] = []
    for objective in t.plan.objectives:
        per_env = [
            t.outcomes[(objective.id, env)]
            for env in t.context.envs
            if (objective.id, env) in t.outcomes
        ]
        status = max(
            (reported(o.status) for o in per_env),
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
    return reports


def _human_step(t: TurnView, change: ChangeAction) -> str:
    """The step a person would take for the change the question asked the bot to make."""
    scope = t.context.scope
    step = human_step(
        change,
        env=scope.env,
        namespace=scope.namespace,
        name=scope.object,
        version=version_asked(t.turn.question),
    )
    return say(Phrase.HUMAN_STEP, t.language, action=change.value, step=step)


def _has_facts(records: list[CallRecord], obj_id: str, env: str) -> bool:
    """Some read for the objective found what it looks for; an empty read may still carry
    context (a deploy job nobody played), which is no finding."""
    return any(
        r.result.facts and r.result.status != "empty"
        for r in records
        if obj_id in r.objectives and r.call.env in (env, None)
    )
