"""Finalizer without a model: facts, hypotheses, gaps and bounded recommendations.

Redaction is not done here but once, at the exit of the turn (planner.turn.conduct), for
every field of the Answer and whichever way the turn ended. Facts come from the evidence
packet (per-source budgets), each with source, observed_at, link and scope. A negative
statement ("no restarts") is written only for an objective resolved by a complete empty
read; an empty partial or failed read is a gap, never "no problem".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import assert_never

from pydantic import BaseModel

from planner.conclude.compared import compared
from planner.conclude.counted import count_sentence
from planner.conclude.deployed import change_sentence
from planner.conclude.diagnosis import diagnose, within_normal
from planner.conclude.evidence import EvidencePacket, fact_rank
from planner.conclude.guard import EnvOutcome, why_failed
from planner.conclude.listed import listing_sentence
from planner.conclude.named_series import series_named
from planner.conclude.ranked import ranking_sentence
from planner.conclude.restarts import restarts_total
from planner.conclude.rule import Finding, IndexedFact
from planner.conclude.settle import reported
from planner.conclude.tailed import tail_sentence
from planner.conclude.verdict import verdict
from planner.plan.objectives import Objective, QuestionPlan
from planner.question.asked import carrier, resource_asked, value_sentence
from planner.question.change import ChangeAction, human_step, version_asked
from planner.question.context import ContextState
from planner.question.deployer import ChangeAuthor
from planner.question.listing import Listing
from planner.question.logtail import LogTail, pods_named
from planner.question.phrase import PhraseCount
from planner.question.ranking import Ranking
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
from policy.facts import FactKind, HttpRate, K8sWorkload, Negative
from policy.gaps import GapNote, GapReason
from policy.language import Bilingual, phrase
from policy.results import ResultFact

MAX_RECOMMENDATIONS = 4
DIAGNOSTIC_INTENTS = {"http_errors", "workload_startup", None}
_RANK: dict[ObjectiveStatus, int] = {"resolved": 0, "unavailable": 1, "unresolved": 2}


@dataclass(frozen=True)
class _Turn:
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
class _Facts:
    """The answer's facts, with the indexes diagnosis cites them by."""

    indexed: list[IndexedFact] = field(default_factory=list)
    facts: list[AnswerFact] = field(default_factory=list)
    lead: set[int] = field(default_factory=set)  # facts read for a required objective

    def add(self, fact: ResultFact, env: str | None, call_id: str | None, t: _Turn) -> None:
        self.indexed.append(IndexedFact(len(self.facts), fact, env))
        self.facts.append(_answer_fact(fact, env, call_id, t.context))


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
    t = _Turn(turn, context, plan, records, outcomes, language)
    collected = _facts(t, packet)
    # an onset the question states ("503 since 12:30") bounds what can have caused it
    findings = diagnose(collected.indexed, context.onset, t.language)
    hypotheses = [
        Hypothesis(text=f.hypothesis, supported_by=f.supported_by, confidence=f.confidence)
        for f in findings
        if f.hypothesis
    ]
    _set_aside_normal(collected, hypotheses)
    recommendations = _recommendations(findings)
    gaps = _gaps(t)
    reports = _reports(t)
    head, lead = _head(t, findings, collected)
    if context.change is not None:
        # asked to act: the answer says first that nothing was changed, and the step a
        # person would take comes first among the next steps
        read_only = say(Phrase.READ_ONLY, t.language, action=context.change.value)
        head, lead = read_only + head, read_only + lead
        recommendations.insert(0, _human_step(t, context.change))
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


def _facts(t: _Turn, packet: EvidencePacket) -> _Facts:
    """The packet's facts, best first and each observation once, then what a complete
    empty read proved absent, said as a fact."""
    out = _Facts()
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


def _nothing_found(t: _Turn, obj_id: str, env: str, outcome: EnvOutcome) -> ResultFact:
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


def _set_aside_normal(collected: _Facts, hypotheses: list[Hypothesis]) -> None:
    """A reading within its normal range that no hypothesis cites and no required
    objective asked for is kept, but out of the short answer."""
    cited = {i for h in hypotheses for i in h.supported_by}
    for item in collected.indexed:
        if item.index not in collected.lead | cited and within_normal(item.fact.attrs):
            collected.facts[item.index].signal = False


def _recommendations(findings: list[Finding]) -> list[str]:
    out: list[str] = []
    for f in findings:
        for r in f.recommendations:
            if r not in out and len(out) < MAX_RECOMMENDATIONS:
                out.append(r)
    return out


def _gaps(t: _Turn) -> list[Gap]:
    """What the answer could not establish: each objective's, then the reads that failed
    or were cut short behind an objective another read settled, then an ambiguous name."""
    gaps = _objective_gaps(t)
    reported = {(g.subject, g.env) for out in t.outcomes.values() for g in out.reasons}
    gaps += _failed_read_gaps(t, reported)
    gaps += _cut_read_gaps(t, reported)
    gaps = list({(g.objective, g.reason): g for g in gaps}.values())
    if t.context.ambiguous_objects:
        names = ", ".join(t.context.ambiguous_objects)
        note = GapNote(GapReason.AMBIGUOUS_NAME, detail=names)
        gaps.append(Gap.of("scope", note, t.language))
    return gaps


def _objective_gaps(t: _Turn) -> list[Gap]:
    gaps: list[Gap] = []
    language = t.language
    for (obj_id, env), out in t.outcomes.items():
        if out.status == "resolved" and out.negative and t.by_id[obj_id].absence_is_gap:
            read = ", ".join(out.sources) or say(Phrase.THE_SOURCE, language)
            title = t.by_id[obj_id].title_in(language)
            gaps.append(Gap.of(obj_id, GapNote(GapReason.ABSENCE_ONLY, env, title, read), language))
        if out.status != "resolved":
            for note in out.reasons or [GapNote(GapReason.NO_CALL, env)]:
                gaps.append(Gap.of(obj_id, note, language))
    return gaps


def _gap_for(rec: CallRecord) -> str:
    return sorted(rec.objectives)[0] if rec.objectives else rec.call.tool


def _failed_read_gaps(t: _Turn, reported: set[tuple[str, str | None]]) -> list[Gap]:
    """A read that failed behind an objective another source resolved: the answer still
    says what it could not check. Adds each to `reported`."""
    gaps: list[Gap] = []
    for rec in t.records:
        if rec.result.status == "error" and (rec.call.tool, rec.call.env) not in reported:
            note = GapNote(
                GapReason.SOURCE_FAILED, rec.call.env, rec.call.tool, why_failed(rec.result)
            )
            gaps.append(Gap.of(_gap_for(rec), note, t.language))
            reported.add((rec.call.tool, rec.call.env))
    return gaps


def _cut_read_gaps(t: _Turn, reported: set[tuple[str, str | None]]) -> list[Gap]:
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
            gaps.append(Gap.of(_gap_for(rec), note, t.language))
    return gaps


def _reports(t: _Turn) -> list[ObjectiveReport]:
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


def _head(t: _Turn, findings: list[Finding], collected: _Facts) -> tuple[str, str]:
    """The summary's conclusion: the value asked for first, then what leads; and its lead,
    what no model's prose replaces (the asked thing, or the check said as standing in)."""
    context = t.context
    lead = collected.lead
    pods = pods_named(t.turn.question, context.scope.object)
    # the value asked for first; a cause found beside it follows ("runs image X; 0 of 2
    # ready. Pod … is in CrashLoopBackOff …")
    value = (
        _absent(t)
        or _exact_asked(t)
        or _value_asked(collected.indexed, context, t.language, pods, t.records, t.turn.question)
        or _series_value(t, collected)
    )
    # a digest of observations (no hypothesis) leads only when it digests what the question
    # asked: a p99 asked for is the answer's first line, not the request rate read beside it
    # a cause found beside the facts asked for leads only a question for a cause: "what
    # changed?" is answered with the changes, the crash the sweep found follows them
    diagnostic = _asks_diagnosis(context)
    leading = [
        f
        for f in findings
        if (f.hypothesis and diagnostic) or not lead or set(f.supported_by) & lead
    ]
    if context.ask is not None or value is not None:
        # the exact sentence or the value says what was asked: a digest of the same reads
        # repeats it
        leading = [f for f in leading if f.hypothesis]
    elif not diagnostic:
        # a digest of what was asked ("who deployed": the release) before a cause that
        # only cites it
        leading.sort(key=lambda f: f.hypothesis is not None)
    # what else the reads found is a second part after an absent name, an exact ask or the
    # asked thing not determined, said as such
    apart = value is not None and (context.ask is not None or bool(context.absent))
    if value is None and (value := _not_determined(t)) is not None:
        apart = True
    head = _summary(leading, collected, context, t.language, min(lead, default=0), value, apart)
    frame = _uncovered(context, t.language)
    return frame + head, frame + (f"{value}. " if value else "")


def _series_value(t: _Turn, collected: _Facts) -> str | None:
    """A measure no kind of question covers, named in the question's words: the series
    discovery found that those words name, in each env asked of. Not for a question for a
    cause, nor one whose kind or asked value has its own reads."""
    context = t.context
    if context.asks_cause or context.intent is not None or context.asked is not None:
        return None
    words = t.turn.question
    if context.follow_up:
        # "and an hour earlier?": the measure is named in the question it follows
        asked_before = [m.text for m in t.turn.thread if not m.is_bot]
        words = " ".join([*asked_before[-1:], words])
    lead = series_named(words, collected.indexed, context.scope.object, context.envs)
    if lead is None:
        return None
    return "; ".join(
        s.fact.text.rstrip(".") for s in compared(lead, collected.indexed, context.envs)
    )


def _asks_diagnosis(context: ContextState) -> bool:
    """The question wants a cause: it asks why, or its kind is a diagnosis, or no kind was
    read and it asks for no value either ("memory usage of <service>" asks a value)."""
    if context.asks_cause:
        return True
    return context.intent in DIAGNOSTIC_INTENTS and not (
        context.intent is None and context.asked is not None
    )


def _human_step(t: _Turn, change: ChangeAction) -> str:
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


_ABSENT: Bilingual = (
    # no "<name>: <text>" shape: a name ending in a secret's word would read as a secret
    "{names} not found in {envs}, whose lists of workloads and services were read in full",
    "{names} не найдено в {envs}: списки workload'ов и сервисов прочитаны полностью",
)


_UNCOVERED: Bilingual = (
    "Health check of {envs} (nothing more specific in the question could be read): ",
    "Проверка здоровья {envs} (ничего конкретнее в вопросе прочитать не удалось): ",
)


def _uncovered(context: ContextState, language: Language) -> str:
    """The environment check that stood in for the question, said as such (never passed
    off as the answer to what was asked)."""
    if not context.uncovered:
        return ""
    return phrase(_UNCOVERED, language, envs=", ".join(context.envs))


_NOT_DETERMINED: Bilingual = (
    "Not determined: {title} of {where} in {envs} ({why})",
    "Не определено: {title} для {where} в {envs} ({why})",
)


def _not_determined(t: _Turn) -> str | None:
    """The asked thing no read produced, said first with why, never left for the first
    other fact to stand in for: a value question whose required read found nothing in any
    env ("p95 of <service>" with no latency histogram is no request rate), an exact ask
    (a ranking, a list) whose read failed. A question for a cause has its own sentence (no
    cause established)."""
    context = t.context
    if context.absent or context.uncovered:
        return None
    if context.ask is None and _asks_diagnosis(context):
        return None  # a cause not found has its own sentence
    for objective in (o for o in t.plan.objectives if o.required):
        outs = [t.outcomes.get((objective.id, env)) for env in context.envs]
        if any(out is None or out.status == "resolved" for out in outs):
            continue
        why = "; ".join(
            dict.fromkeys(n.sentence(t.language) for out in outs if out for n in out.reasons)
        )
        scope = context.scope
        where = scope.object or scope.namespace or say(Phrase.THE_QUESTION, t.language)
        title = objective.title_in(t.language)
        return phrase(
            _NOT_DETERMINED,
            t.language,
            title=title,
            where=where,
            envs=", ".join(context.envs),
            why=why or GapNote(GapReason.NO_CALL).sentence(t.language),
        )
    return None


def _absent(t: _Turn) -> str | None:
    """An object the question names that the envs read do not have: said first, with
    where it was looked for, never replaced by another."""
    if not t.context.absent:
        return None
    names = ", ".join(t.context.absent)
    return phrase(_ABSENT, t.language, names=names, envs=", ".join(t.context.envs))


def _exact_asked(t: _Turn) -> str | None:
    """The ranking, list, tail or count asked for, said from everything the reads
    returned (not the packet a short answer is cut to)."""
    ask, records, language = t.context.ask, t.records, t.language
    # the reads of what the plan requires (the lines that hold the phrase, the releases)
    required = {o.id for o in t.plan.objectives if o.required}
    window = t.context.scope.time.bounds(t.turn.now)
    obj = t.context.scope.object
    match ask:
        case Ranking():
            return ranking_sentence(ask, records, language)
        case Listing():
            return listing_sentence(ask, records, language)
        case LogTail():
            return tail_sentence(ask, records, language, obj or "", window)
        case ChangeAuthor():
            return change_sentence(ask, obj, t.context.envs, required, records, window, language)
        case PhraseCount():
            return count_sentence(ask.text, obj or "", required, records, language)
        case None:
            return None
        case _:
            assert_never(ask)


def _value_asked(
    indexed: list[IndexedFact],
    context: ContextState,
    language: Language,
    pods: list[str],
    records: list[CallRecord],
    question: str,
) -> str | None:
    """The value of the object asked about, once per env that has it ("; " between);
    `pods`: the pods the question names by their full name."""
    if context.asked is None:
        return None
    if (kind := carrier(context.asked)) is not FactKind.K8S_WORKLOAD:
        measured = _measured(indexed, context, kind, pods, language, records, question)
        if measured is None or not context.polar:
            return measured
        # asked yes or no: the verdict first, decided on the typed facts read
        return verdict(context.asked, records, context.envs, language) + measured
    if context.scope.time.mode != "now":
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


def _measured(
    indexed: list[IndexedFact],
    context: ContextState,
    kind: FactKind,
    pods: list[str],
    language: Language,
    records: list[CallRecord],
    question: str,
) -> str | None:
    """A value measured over the window (restarts, usage): the first fact of its kind, of
    the pod the question names when it names one, with the same measure in each other
    env asked of."""
    # the errors asked: the error rate, not the request rate read beside it
    facts = [
        i
        for i in indexed
        if i.fact.kind is kind
        and not (isinstance(i.fact.attrs, HttpRate) and i.fact.attrs.what != "errors")
    ]
    named = [i for i in facts if getattr(i.fact.attrs, "pod", None) in pods]
    if resource := resource_asked(question):
        # "how much memory": the memory read of the pod, not its CPU read first
        named.sort(key=lambda i: getattr(i.fact.attrs, "resource", resource) != resource)
    if not (lead := next(iter(named or facts), None)):
        return None
    if kind is FactKind.METRICS_RESTARTS and not named:
        # restarts of a workload: the sum over its containers, per env, each named, from
        # everything the reads returned (the packet a short answer is cut to may hold
        # only some of the counters)
        counters = [
            IndexedFact(-1, fact, r.call.env)
            for r in records
            for fact in r.result.facts
            if fact.kind is kind
        ]
        return "; ".join(
            restarts_total(counters, env, context.scope.object or "", language)
            for env in dict.fromkeys(i.env for i in counters)
        )
    return "; ".join(s.fact.text.rstrip(".") for s in compared(lead, indexed, context.envs))


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
    collected: _Facts,
    context: ContextState,
    language: Language,
    first_asked: int = 0,
    value: str | None = None,
    apart: bool = False,
) -> str:
    """`first_asked`: the index of the first fact read for a required objective; `value`:
    the value the question asks for, said first; `apart`: what else was found follows it
    as a second part, said as not asked."""
    facts, indexed = collected.facts, collected.indexed
    where = context.scope.object or say(Phrase.THE_QUESTION, language)
    env = context.scope.env or ", ".join(context.envs)
    if value and findings and apart:
        # what else the reads found is a second part, said as such, after what was asked
        head = f"{value}. {say(Phrase.ALSO_FOUND, language)}{findings[0].summary}"
    elif value and findings:
        head = f"{value}. {findings[0].summary}" + _second_cause(findings, language)
    elif value:
        head = f"{value}."
    elif findings:
        head = findings[0].summary + _other_sides(findings[0], collected, context)
        head += _second_cause(findings, language)
    elif facts and _asks_diagnosis(context):
        head = say(Phrase.NO_CAUSE, language, count=len(facts), where=where, env=env)
    elif facts:
        # a question for a value, not a cause: lead with the value asked for, in each env
        # the question names when it names several
        sides = compared(indexed[first_asked], indexed, context.envs)
        head = "; ".join(facts[s.index].text.rstrip(".") for s in sides) + "."
        if len(facts) > len(sides):
            head += say(Phrase.MORE_BELOW, language, count=len(facts) - len(sides))
    else:
        head = say(Phrase.NOTHING_ESTABLISHED, language, where=where, env=env)
    return head


_SECOND_CAUSE: Bilingual = (" Also: {cause}", " Кроме того: {cause}")


def _second_cause(findings: list[Finding], language: Language) -> str:
    """A second cause, independent of the first (supported by other facts, as sure), said
    too: "cannot reach 9 replicas" is both the quota that refuses two pods and the nodes
    that cannot fit a third; the answer that names one stops halfway."""
    if len(findings) < 2 or not findings[0].hypothesis:
        return ""
    first, second = findings[0], findings[1]
    independent = not set(first.supported_by) & set(second.supported_by)
    if second.hypothesis and second.confidence == first.confidence == "high" and independent:
        return phrase(_SECOND_CAUSE, language, cause=second.summary)
    return ""


def _other_sides(finding: Finding, collected: _Facts, context: ContextState) -> str:
    """A digest of one measured fact that leads a question naming several envs: the same
    measure in the other envs follows it ("; <env-b>: ..."); a cause says no sides."""
    if finding.hypothesis or len(finding.supported_by) != 1:
        return ""
    lead = collected.indexed[finding.supported_by[0]]
    sides = compared(lead, collected.indexed, context.envs)
    return "".join(f"; {collected.facts[s.index].text.rstrip('.')}" for s in sides if s is not lead)
