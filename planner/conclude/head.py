"""The summary's first sentence, decided in one place: what the question asked, said
first (an object absent from the envs read, the exact ask, the asked value or the series
the question's words name, a verdict for a yes/no, or "not determined" with why), then
the cause found beside it or what else was found, said as not asked; an environment
check that stood in for the question is labelled as such."""

from __future__ import annotations

from typing import assert_never

from planner.conclude.collected import Collected, TurnView
from planner.conclude.compared import compared, sides_said
from planner.conclude.counted import count_sentence
from planner.conclude.deployed import change_sentence
from planner.conclude.healthy import health_of, healthy_sentence
from planner.conclude.listed import listing_sentence
from planner.conclude.named_series import series_named
from planner.conclude.ranked import ranking_sentence
from planner.conclude.reads import every_fact
from planner.conclude.restarts import restarts_total
from planner.conclude.rule import Finding, IndexedFact
from planner.conclude.tailed import tail_sentence
from planner.conclude.verdict import verdict
from planner.question.asked import AskedValue, carrier, carries, resource_asked, value_sentence
from planner.question.context import ContextState
from planner.question.deployer import ChangeAuthor
from planner.question.listing import Listing
from planner.question.logtail import LogTail, pods_named
from planner.question.phrase import PhraseCount
from planner.question.ranking import Ranking
from planner.shapes.language import Language, Phrase, say
from policy.facts import FactKind, K8sWorkload
from policy.gaps import GapNote, GapReason
from policy.language import Bilingual, phrase

DIAGNOSTIC_INTENTS = {"http_errors", "workload_startup", None}


def head_of(t: TurnView, findings: list[Finding], collected: Collected) -> tuple[str, str]:
    """The summary's conclusion: the value asked for first, then what leads; and its lead,
    what no model's prose replaces (the asked thing, or the check said as standing in)."""
    context = t.context
    lead = collected.lead
    # the value asked for first; a cause found beside it follows ("runs image X; 0 of 2
    # ready. Pod … is in CrashLoopBackOff …")
    value = (
        _absent(t)
        or _exact_asked(t)
        or _value_asked(t, collected.indexed)
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


def _series_value(t: TurnView, collected: Collected) -> str | None:
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
    return sides_said(lead, collected.indexed, context.envs)


def _asks_diagnosis(context: ContextState) -> bool:
    """The question wants a cause: it asks why, or its kind is a diagnosis, or no kind was
    read and it asks for no value either ("memory usage of <service>" asks a value)."""
    if context.asks_cause:
        return True
    return context.intent in DIAGNOSTIC_INTENTS and not (
        context.intent is None and context.asked is not None
    )


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


def _not_determined(t: TurnView) -> str | None:
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


def _absent(t: TurnView) -> str | None:
    """An object the question names that the envs read do not have: said first, with
    where it was looked for, never replaced by another."""
    if not t.context.absent:
        return None
    names = ", ".join(t.context.absent)
    return phrase(_ABSENT, t.language, names=names, envs=", ".join(t.context.envs))


def _exact_asked(t: TurnView) -> str | None:
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


def _value_asked(t: TurnView, indexed: list[IndexedFact]) -> str | None:
    """The value of the object asked about, once per env that has it ("; " between)."""
    context, language = t.context, t.language
    if context.asked is None:
        return None
    if carrier(context.asked) is not FactKind.K8S_WORKLOAD:
        measured = _measured(t, indexed, context.asked)
        if measured is None or not context.polar:
            return measured
        # asked yes or no: the verdict first, decided on the typed facts read
        return verdict(context.asked, t.records, context.envs, language) + measured
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


def _measured(t: TurnView, indexed: list[IndexedFact], asked: AskedValue) -> str | None:
    """A value measured over the window (restarts, usage, errors): the first fact that
    carries it, of the pod the question names when it names one, with the same measure in
    each other env asked of."""
    context, question = t.context, t.turn.question
    facts = [i for i in indexed if carries(asked, i.fact.attrs)]
    pods = pods_named(question, context.scope.object)
    named = [i for i in facts if getattr(i.fact.attrs, "pod", None) in pods]
    if resource := resource_asked(question):
        # "how much memory": the memory read of the pod, not its CPU read first
        named.sort(key=lambda i: getattr(i.fact.attrs, "resource", resource) != resource)
    if not (lead := next(iter(named or facts), None)):
        return None
    if asked is AskedValue.RESTARTS and not named:
        # restarts of a workload: the sum over its containers, per env, each named, from
        # everything the reads returned (the packet a short answer is cut to may hold
        # only some of the counters)
        read = list(every_fact(t.records))
        return "; ".join(
            restarts_total(read, env, context.scope.object or "", t.language)
            for env in dict.fromkeys(env for env, fact in read if carries(asked, fact.attrs))
        )
    return sides_said(lead, indexed, context.envs)


def _summary(
    findings: list[Finding],
    collected: Collected,
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
    elif facts and _asks_diagnosis(context) and (healthy := _healthy(indexed, context, language)):
        head = f"{healthy}."
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


def _healthy(indexed: list[IndexedFact], context: ContextState, language: Language) -> str:
    """The object's health when the evidence of its one env shows it healthy, else ""."""
    name, env = context.scope.object, context.scope.env
    if not name or not env or len(context.envs) > 1:
        return ""
    health = health_of(indexed, name, env)
    return healthy_sentence(health, name, env, language) if health else ""


_SECOND_CAUSE: Bilingual = (" Also: {cause}", " Кроме того: {cause}")


def _second_cause(findings: list[Finding], language: Language) -> str:
    """A second cause, independent of the first (other facts, as sure, as explanatory),
    said too: "cannot reach 9 replicas" is both the quota that refuses two pods and the
    nodes that cannot fit a third; the answer that names one stops halfway."""
    if len(findings) < 2 or not findings[0].hypothesis:
        return ""
    first, second = findings[0], findings[1]
    independent = not set(first.supported_by) & set(second.supported_by)
    # as explanatory as the first (a symptom the first explains ranks after it, and
    # is no second cause): the same weight, as sure, other facts
    peer = second.weight == first.weight and second.confidence == first.confidence == "high"
    if second.hypothesis and peer and independent:
        return phrase(_SECOND_CAUSE, language, cause=second.summary)
    return ""


def _other_sides(finding: Finding, collected: Collected, context: ContextState) -> str:
    """A digest of one measured fact that leads a question naming several envs: the same
    measure in the other envs follows it ("; <env-b>: ..."); a cause says no sides."""
    if finding.hypothesis or len(finding.supported_by) != 1:
        return ""
    lead = collected.indexed[finding.supported_by[0]]
    sides = compared(lead, collected.indexed, context.envs)
    return "".join(f"; {collected.facts[s.index].text.rstrip('.')}" for s in sides if s is not lead)
