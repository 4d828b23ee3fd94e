"""Turns answered before anything is read: a message past the size cap, an environment
that is not configured, a message that says nowhere to read among several envs (asked
back), a time still in the future. Each answers in the question's language (in English,
saying so first, when asked in neither English nor Russian) with the gap that says why."""

from __future__ import annotations

from datetime import datetime

from planner.question.context import ContextState, ScopeField
from planner.shapes.answer import Answer, Gap
from planner.shapes.language import AskedLanguage, Phrase, noted, read_language, say
from planner.shapes.turn import Turn
from policy.gaps import GapNote, GapReason
from policy.scope import Scope


def future_answer(
    turn: Turn, context: ContextState, start: datetime, asked: AskedLanguage
) -> Answer:
    language = asked.answer
    text = say(
        Phrase.FUTURE,
        language,
        start=start.isoformat(timespec="minutes"),
        now=turn.now.isoformat(timespec="minutes"),
    )
    return Answer(
        question=turn.question,
        scope=context.scope,
        summary=noted(text, asked),
        gaps=[Gap.of("scope.time", GapNote(GapReason.FUTURE_TIME, detail=text), language)],
        final=True,
        language=language,
    )


MAX_QUESTION_CHARS = 8000  # a question, and a paste of an alert or a log excerpt with it


def too_long(turn: Turn) -> tuple[Answer, ContextState]:
    """A message past the cap is not read for a scope or a plan (the parse of any text is
    linear, but a turn's work must stay bounded): it is answered at once, saying so."""
    asked = read_language(turn.question[:MAX_QUESTION_CHARS])
    language = asked.answer
    text = say(Phrase.TOO_LONG, language, length=len(turn.question), most=MAX_QUESTION_CHARS)
    context = ContextState(scope=Scope(), envs=[])
    answer = Answer(
        question=turn.question[:MAX_QUESTION_CHARS],
        scope=context.scope,
        summary=noted(text, asked),
        gaps=[Gap.of("scope", GapNote(GapReason.NOT_BOUND, detail=text), language)],
        final=True,
        language=language,
    )
    return answer, context


def needs_scope(context: ContextState) -> bool:
    """Nothing in the message (or the thread before it) says where to read: no env while
    several are configured, no object or namespace, no identifier a source can find
    across envs (a request id, a job, a commit, a host, a query)."""
    ids = context.identifiers
    located = (
        ids.request_ids
        or ids.job_ids
        or ids.pipeline_ids
        or ids.commits
        or ids.hosts
        or ids.promql
        or ids.log_query
        or context.nodes  # a node is in one env ("retransmits on <node>")
        # a name no env lists: that it is absent everywhere is the answer, not a question
        or context.absent
    )
    return (
        len(context.envs) > 1
        and ScopeField.ENV not in context.explicit  # "in all DCs" names them all
        and context.scope.env is None
        and not context.scope.object
        and not context.scope.namespace
        and not located
    )


def clarify_answer(turn: Turn, context: ContextState, asked: AskedLanguage) -> Answer:
    language = asked.answer
    # an empty or blank message has no first line to repeat: the example says a question
    first = next(iter(turn.question.strip().splitlines()), "")[:120].rstrip("?. ")
    example = f"{first or say(Phrase.A_QUESTION, language)} ({context.envs[0]}, <service>)?"
    text = say(
        Phrase.WHICH_SCOPE,
        language,
        count=len(context.envs),
        envs=", ".join(context.envs),
        example=example,
    )
    return Answer(
        question=turn.question,
        scope=context.scope,
        summary=noted(text, asked),
        gaps=[Gap.of("scope", GapNote(GapReason.NO_SCOPE), language)],
        final=True,
        language=language,
    )


def unknown_env_answer(
    turn: Turn, context: ContextState, envs: list[str], asked: AskedLanguage
) -> Answer:
    language = asked.answer
    unknown = ", ".join(context.unknown_envs)
    configured = ", ".join(envs)
    text = say(Phrase.UNKNOWN_ENV, language, unknown=unknown, configured=configured)
    return Answer(
        question=turn.question,
        scope=context.scope.model_copy(update={"env": None}),
        summary=noted(text, asked),
        gaps=[Gap.of("scope.env", GapNote(GapReason.UNKNOWN_ENV, detail=text), language)],
        final=True,
        language=language,
    )
