"""The path of one turn, top-down: the one place a question becomes an Answer.

    inventory (round 0)  what each environment runs, so names in the question resolve
                         (planner.turn.inventory)
    scope                env, namespace, object, time: explicit scope > memory > defaults
                         (planner.question); the turn's language, decided once
    early answers        too long, an unknown environment, nowhere to read, a time in the
                         future: answered as gaps, nothing read (planner.turn.early)
    investigation        plan, rounds of gated reads, statuses, conclusions, and the Answer
                         written once with what the turn adds around the reads
                         (planner.turn.investigation, planner.conclude.compose)
    exit                 one redaction of everything the answer carries (planner.turn.exit)

Surfaces (bot/) hand a Turn in and render the Answer out; working memory and the
knowledge store stay there and come in as `previous` and `knowledge`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from planner.conclude.compose import TurnParts
from planner.model.roles import ModelSet
from planner.question.alert import asker_words, scope_words
from planner.question.context import ContextState, ScopeField, build_context
from planner.question.envs import envs_named
from planner.read.inventory_cache import InventoryCache
from planner.shapes.answer import Answer, AnswerFact, ToolCallRecord
from planner.shapes.language import AskedLanguage, read_language
from planner.shapes.progress import ProgressSink
from planner.shapes.turn import Turn
from planner.turn.early import (
    MAX_QUESTION_CHARS,
    clarify_answer,
    future_answer,
    needs_scope,
    too_long,
    unknown_env_answer,
)
from planner.turn.exit import redact_answer
from planner.turn.inventory import Inventory, inventory_for
from planner.turn.investigation import Investigation, investigate
from planner.turn.settings import TurnSettings
from policy.scope import Scope
from policy.toolset import Toolset
from policy.wrappers import RedactingToolset

KnowledgeLookup = Callable[[str, Scope], list[AnswerFact]]
"""Confirmed knowledge for a question and its scope (bot.knowledge provides it)."""

__all__ = ["MAX_QUESTION_CHARS", "TurnOutcome", "TurnSettings", "answer_turn"]


@dataclass
class TurnOutcome:
    answer: Answer
    context: ContextState
    investigation: Investigation | None
    inventory_calls: list[ToolCallRecord]


async def answer_turn(
    turn: Turn,
    *,
    previous: ContextState | None,
    gate: Toolset,
    settings: TurnSettings,
    inventory_cache: InventoryCache,
    models: ModelSet | None = None,
    knowledge: KnowledgeLookup | None = None,
    progress: ProgressSink | None = None,
    pending: str | None = None,
) -> TurnOutcome:
    """Answer one turn; `progress` is told of each read as it starts and ends; `pending`:
    the question this thread was last asked back about, which the message may complete.
    Results come in redacted (the rules, the model and the workspace never hold a secret
    a source returned); whatever way the turn ends, the Answer leaves redacted (the
    question itself may carry one)."""
    if len(turn.question) > MAX_QUESTION_CHARS:
        answer, context = too_long(turn)
        return _leave(TurnOutcome(answer, context, None, []), settings)
    redacting = RedactingToolset(gate, settings.investigation.keep_query_hosts)
    memo = redacting.memo
    named = envs_named(scope_words(turn.question), settings.envs, settings.env_aliases)
    inventory = await inventory_for(turn, redacting, settings, inventory_cache, named)
    turn, context = await _read_scope(turn, previous, pending, inventory, settings, named)
    # decided once, from the asker's own words (not a pasted alert's): every sentence uses it
    # (a message that is nothing but a paste is read whole)
    words = asker_words(turn.question)
    asked = (
        AskedLanguage(turn.language)
        if turn.language is not None
        else read_language(words if words.strip() else turn.question)
    )
    language = asked.answer
    early = _early_answer(turn, context, previous, pending, settings, asked)
    if early is not None:
        return _leave(TurnOutcome(early, context, None, inventory.calls), settings, memo)
    investigation = await investigate(
        turn,
        context,
        redacting,
        settings.investigation,
        models=models,
        unavailable_sources=inventory.failed,
        inventory=inventory.items,
        progress=progress,
        parts=_turn_parts(turn, context, inventory, knowledge, asked),
        language=language,
    )
    # a source that failed in this turn is listed afresh next time
    failed_now = [r.call for r in investigation.records if r.result.status == "error"]
    inventory_cache.invalidate((c.source, c.env) for c in failed_now)
    outcome = TurnOutcome(investigation.answer, context, investigation, inventory.calls)
    return _leave(outcome, settings, memo)


async def _read_scope(
    turn: Turn,
    previous: ContextState | None,
    pending: str | None,
    inventory: Inventory,
    settings: TurnSettings,
    named: list[str],
) -> tuple[Turn, ContextState]:
    """The question read into a scope, and the turn it was read from: a reply to the
    question asked back ("<env>, <service>") completes the question it answers; a reply
    that is a question of its own is read alone."""
    guess_names = inventory.guess_names(named or settings.envs)
    if pending is not None:
        previous = None  # the turn that asked back read nothing: only its question carries

    def read(question: str) -> ContextState:
        return build_context(
            question,
            envs=settings.envs,
            inventory=inventory.items,
            now=turn.now,
            tz=settings.investigation.timezone,
            previous=previous,
            env_aliases=settings.env_aliases,
            guess_names=guess_names,
        )

    # reading the question is linear but not free (tens of ms for a long paste): off the
    # event loop, so other threads' turns and the listener keep going
    context = await asyncio.to_thread(read, turn.question)
    if pending is not None and (context.intent is None or needs_scope(context)):
        joined = f"{pending}\n{turn.question}"
        if len(joined) <= MAX_QUESTION_CHARS:
            turn = turn.model_copy(update={"question": joined})
            context = await asyncio.to_thread(read, joined)
    return turn, context


def _early_answer(
    turn: Turn,
    context: ContextState,
    previous: ContextState | None,
    pending: str | None,
    settings: TurnSettings,
    asked: AskedLanguage,
) -> Answer | None:
    """An answer that needs no read, or None when the turn goes on to investigate."""
    if context.unknown_envs and ScopeField.ENV not in context.explicit:
        return unknown_env_answer(turn, context, settings.envs, asked)
    if (previous is None or pending is not None) and needs_scope(context):
        # (a thread with history is located by it: "and in the last 3 hours?")
        # class "mixing up data centres": no env, object or identifier to read about in
        # several envs; one question back beats an answer about whatever fails anywhere
        return clarify_answer(turn, context, asked)
    start, _ = context.scope.time.bounds(turn.now)
    if start > turn.now:
        # nothing can have been observed yet: reading would only produce empty "complete"
        # reads that look like proof of absence
        return future_answer(turn, context, start, asked)
    return None


def _turn_parts(
    turn: Turn,
    context: ContextState,
    inventory: Inventory,
    knowledge: KnowledgeLookup | None,
    asked: AskedLanguage,
) -> TurnParts:
    """What the turn adds around the investigation's reads (planner.conclude.compose):
    the inventory's calls, its lists cut short in the question's envs, confirmed
    knowledge for the question and its scope, and the language it was asked in."""
    return TurnParts(
        inventory_calls=inventory.calls,
        cut_lists=[n for n in inventory.partial if n.env in (None, *context.envs)],
        knowledge=knowledge(turn.question, context.scope) if knowledge is not None else [],
        asked=asked,
    )


def _leave(
    outcome: TurnOutcome, settings: TurnSettings, memo: dict[str, str] | None = None
) -> TurnOutcome:
    """The exit of every turn: the Answer redacted once, whichever way the turn ended,
    and told the timezone its times are shown in."""
    answer = redact_answer(outcome.answer, settings.investigation.keep_query_hosts, memo)
    answer.timezone = settings.timezone
    outcome.answer = answer
    return outcome
