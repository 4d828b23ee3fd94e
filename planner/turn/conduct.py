"""The path of one turn, top-down: the one place a question becomes an Answer.

    inventory (round 0)  what each environment runs, so names in the question resolve;
                         read through the executor like every other call (one timeout
                         and failure path; not retried), or kept from a turn moments ago
    context              env, namespace, object, time: explicit scope > memory > defaults
    early exits          an unknown environment, a time in the future: answered as gaps,
                         nothing read
    investigation        plan, route, gate, execute, guard, finalise (planner.turn.investigation)
    knowledge            confirmed knowledge after the live facts, marked as knowledge
    exit                 one redaction of everything the answer carries

Surfaces (bot/) hand a Turn in and render the Answer out; working memory and the
knowledge store stay there and come in as `previous` and `knowledge`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import structlog

from planner.model.roles import ModelSet
from planner.plan.routing import PlannedCall, canonical
from planner.question.context import (
    ContextState,
    InventoryItem,
    ScopeField,
    build_context,
    names_not_listed,
)
from planner.question.envs import envs_named
from planner.read.executor import CallRecord, Executor
from planner.read.inventory_cache import InventoryCache
from planner.read.workspace import TurnWorkspace
from planner.shapes.answer import Answer, AnswerFact, Gap
from planner.shapes.language import Phrase, language_of, say
from planner.shapes.progress import ProgressSink
from planner.shapes.turn import Turn
from planner.turn.investigation import (
    Investigation,
    InvestigationSettings,
    investigate,
)
from policy.facts import RelationKind
from policy.gaps import GapNote, GapReason
from policy.hostile import describe, describe_obj
from policy.redaction import redact_memo, redact_obj
from policy.results import ToolResult
from policy.scope import Scope
from policy.toolset import CallContext, Toolset
from policy.wrappers import RedactingToolset

log = structlog.get_logger(__name__)

KnowledgeLookup = Callable[[str, Scope], list[AnswerFact]]
"""Confirmed knowledge for a question and its scope (bot.knowledge provides it)."""

INVENTORY = "inventory"


@dataclass(frozen=True)
class TurnSettings:
    investigation: InvestigationSettings
    envs: list[str]
    env_aliases: dict[str, list[str]]
    timezone: str


@dataclass
class TurnOutcome:
    answer: Answer
    context: ContextState
    investigation: Investigation | None
    inventory_calls: list[dict[str, Any]]


@dataclass
class _Inventory:
    items: list[InventoryItem]
    calls: list[dict[str, Any]]
    failed: dict[tuple[str, str | None], GapNote]
    # lists that came back cut short: a name may be missing from them
    partial: list[GapNote] = field(default_factory=list)


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
    Results come
    in redacted (the rules, the model and the workspace never hold a secret a source
    returned); whatever way the turn ends, the Answer leaves redacted (the question itself
    may carry one)."""
    keep = settings.investigation.keep_query_hosts
    if len(turn.question) > MAX_QUESTION_CHARS:
        return _leave(_too_long(turn), settings)
    gate = redacting = RedactingToolset(gate, keep)
    # a question that names its environments needs only their names listed
    named = envs_named(turn.question, settings.envs, settings.env_aliases)
    inventory = await _read_inventory(turn, gate, settings, inventory_cache, only=named)

    def unlisted() -> bool:
        return bool(
            names_not_listed(
                turn.question,
                inventory=inventory.items,
                envs=settings.envs,
                env_aliases=settings.env_aliases,
            )
        )

    if named and unlisted():
        # a name the named envs do not list (or they have no list): the others' names tell
        # "it runs in another env, not in this one" from "no such thing"
        inventory = await _read_inventory(turn, gate, settings, inventory_cache)
    if any(c.get("cached") for c in inventory.calls) and unlisted():
        # the question names something the kept lists do not have: perhaps deployed since
        # they were read, so list again rather than answer about something else
        fresh = await _read_inventory(turn, gate, settings, inventory_cache, fresh=True, only=named)
        if named:
            # the other envs' names, read just before, still tell "it runs elsewhere"
            kept = [i for i in inventory.items if i.env not in named]
            fresh.items += kept
        inventory = fresh
    # reading the question is linear but not free (tens of ms for a long paste): off the
    # event loop, so other threads' turns and the listener keep going
    # listed nowhere (it failed, a list was cut short, or no source lists the env: logs
    # only): a workload-like name in the question is taken as the object, not dropped
    guess_names = (
        bool(inventory.failed)
        or any(n.env in (None, *(named or settings.envs)) for n in inventory.partial)
        or not any(i.env in (named or settings.envs) for i in inventory.items)
    )

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

    if pending is not None:
        previous = None  # the turn that asked back read nothing: only its question carries
    context = await asyncio.to_thread(read, turn.question)
    if pending is not None and (context.intent is None or needs_scope(context)):
        # the reply to "which environment and service?" ("<env>, <service>") completes the
        # question it answers; a reply that is a question of its own is read alone
        joined = f"{pending}\n{turn.question}"
        if len(joined) <= MAX_QUESTION_CHARS:
            turn = turn.model_copy(update={"question": joined})
            context = await asyncio.to_thread(read, joined)
    if context.unknown_envs and ScopeField.ENV not in context.explicit:
        answer = _unknown_env_answer(turn, context, settings.envs)
        return _leave(TurnOutcome(answer, context, None, inventory.calls), settings, redacting.memo)
    if (previous is None or pending is not None) and needs_scope(context):
        # (a thread with history is located by it: "and in the last 3 hours?")
        # class "mixing up data centres": no env, object or identifier to read about in
        # several envs; one question back beats an answer about whatever fails anywhere
        answer = _clarify_answer(turn, context)
        return _leave(TurnOutcome(answer, context, None, inventory.calls), settings, redacting.memo)
    start, _ = context.scope.time.bounds(turn.now)
    if start > turn.now:
        # nothing can have been observed yet: reading would only produce empty "complete"
        # reads that look like proof of absence
        answer = _future_answer(turn, context, start)
        return _leave(TurnOutcome(answer, context, None, inventory.calls), settings, redacting.memo)
    investigation = await investigate(
        turn,
        context,
        gate,
        settings.investigation,
        models=models,
        unavailable_sources=inventory.failed,
        inventory=inventory.items,
        progress=progress,
    )
    # a source that failed in this turn is listed afresh next time
    failed_now = [r.call for r in investigation.records if r.result.status == "error"]
    inventory_cache.invalidate((c.source, c.env) for c in failed_now)
    answer = investigation.answer
    answer.tool_calls = inventory.calls + answer.tool_calls
    # a list of names cut short: what the question names may be missing from it
    answer.gaps.extend(
        Gap.of("scope", note, answer.lang)
        for note in inventory.partial
        if note.env in (None, *context.envs)
    )
    if knowledge is not None:
        # after the live facts, so supported_by indexes stay valid; never stored as observed
        answer.facts.extend(knowledge(turn.question, context.scope))
    return _leave(
        TurnOutcome(answer, context, investigation, inventory.calls), settings, redacting.memo
    )


def _leave(
    outcome: TurnOutcome, settings: TurnSettings, memo: dict[str, str] | None = None
) -> TurnOutcome:
    """The exit of every turn: what the user pasted (the question), what tools returned
    (facts, links, errors in gaps and tool calls) and what was derived from them (summary,
    hypotheses, scope) are redacted here, once, whichever way the turn ended. The answer
    is told the timezone its times are shown in."""
    answer = redact_answer(outcome.answer, settings.investigation.keep_query_hosts, memo)
    answer.timezone = settings.timezone
    outcome.answer = answer
    return outcome


def redact_answer(
    answer: Answer,
    keep_query_hosts: frozenset[str] = frozenset(),
    memo: dict[str, str] | None = None,
) -> Answer:
    memo = {} if memo is None else memo

    def r(text: str) -> str:
        return describe(redact_memo(text, keep_query_hosts, memo))

    def maybe(text: str | None) -> str | None:
        return r(text) if text is not None else None

    scope = answer.scope.model_copy(
        update={
            "env": maybe(answer.scope.env),
            "namespace": maybe(answer.scope.namespace),
            "object": maybe(answer.scope.object),
            "subject": maybe(answer.scope.subject),
        }
    )
    return answer.model_copy(
        update={
            "question": r(answer.question),
            "scope": scope,
            "summary": r(answer.summary),
            "facts": [
                f.model_copy(
                    update={
                        "text": r(f.text),
                        "link": maybe(f.link),
                        "scope": describe_obj(redact_obj(f.scope, keep_query_hosts, memo)),
                        "fields": describe_obj(redact_obj(f.fields, keep_query_hosts, memo)),
                    }
                )
                for f in answer.facts
            ],
            "hypotheses": [h.model_copy(update={"text": r(h.text)}) for h in answer.hypotheses],
            "gaps": [g.model_copy(update={"reason": r(g.reason)}) for g in answer.gaps],
            "recommendations": [r(x) for x in answer.recommendations],
            "tool_calls": describe_obj(redact_obj(answer.tool_calls, keep_query_hosts, memo)),
        }
    )


async def _read_inventory(
    turn: Turn,
    gate: Toolset,
    settings: TurnSettings,
    cache: InventoryCache,
    *,
    fresh: bool = False,
    only: list[str] | None = None,
) -> _Inventory:
    """Names known in each env, the calls made, and the sources that failed (those stay
    unavailable for the rest of the turn, so the answer says why, not "no service").
    A read kept from a turn moments ago is reused unless `fresh`; its record says so."""
    ctx = CallContext(
        user=turn.user,
        role=turn.role,
        scope=Scope(),
        now=turn.now,
        timezone=settings.timezone,
    )
    planned: list[PlannedCall] = []
    listers = [c for c in gate.contracts(ctx) if INVENTORY in c.agent.evidence]
    # an env's objects from the source that keeps them (a live API) first; a source that
    # only sees their names in passing (a log index) lists an env nothing else lists
    listers.sort(key=lambda c: c.agent.freshness != "live")
    covered: set[str | None] = set()
    secondary: set[str] = set()
    for contract in listers:
        source = contract.agent.sources[0]
        envs: list[str | None] = list(contract.enums.get("env", [None]))
        for env in envs:
            if (only and env is not None and env not in only) or env in covered:
                continue
            covered.add(env)
            args = {"env": env} if env else {}
            call = PlannedCall(contract.name, canonical(args), env, source, (INVENTORY,))
            planned.append(call)
            if contract.agent.freshness != "live":
                secondary.add(call.key)
    kept: dict[str, tuple[ToolResult, datetime]] = {}
    if not fresh:
        for call in planned:
            hit = cache.get(call.tool, call.env, turn.now)
            if hit is not None:
                kept[call.key] = (hit.result, hit.observed_at)
    executor = Executor(
        gate=gate,
        ctx=ctx,
        workspace=TurnWorkspace(),
        timeouts=settings.investigation.source_timeouts,
        default_timeout=settings.investigation.default_timeout,
        # the first thing every turn waits for: a source that is down is reported after one
        # timeout, not two (the investigation's own calls to it are then skipped as down)
        retry_transient=False,
    )
    began = time.perf_counter()
    records = {r.call.key: r for r in await executor.run([c for c in planned if c.key not in kept])}
    log.debug("inventory.read", calls=len(records), kept=len(kept), ms=_ms_since(began))
    out = _Inventory([], [], {})
    for call in planned:
        record: dict[str, Any] = {"tool": call.tool, "arguments": call.arguments}
        record |= {"purpose": INVENTORY, "source": call.source, "env": call.env}
        if call.key in kept:
            result, observed_at = kept[call.key]
            record |= {
                "status": result.status,
                "duration_ms": 0,
                "cached": True,
                "observed_at": observed_at.isoformat(),
            }
        else:
            made: CallRecord = records[call.key]
            result = made.result
            cache.put(call.tool, call.env, result, turn.now)
            record |= {"status": result.status, "duration_ms": made.duration_ms}
            if result.error_kind is not None:
                record["error_kind"] = result.error_kind.value
        out.calls.append(record)
        if result.status in ("error", "denied") and call.key not in secondary:
            # a lister that only sees names in passing failing says nothing of its source's
            # other reads: only a live inventory's failure stands for the source's
            source = result.coverage.source.split("/")[0]
            note = GapNote(GapReason.SOURCE_FAILED, call.env, source, result.error or "")
            out.failed[(source, call.env)] = note
        if result.status == "partial" and call.key not in secondary:
            cov = result.coverage
            read = cov.note or f"read {cov.returned} of {cov.total or 'more'}"
            out.partial.append(GapNote(GapReason.TRUNCATED, call.env, call.tool, read))
        fronts = _fronts(result)
        for ent in result.entities:
            out.items.append(
                InventoryItem(
                    env=ent.env or call.env or "",
                    namespace=ent.namespace,
                    name=ent.name,
                    kind=ent.kind,
                    routes=tuple(ent.routes),
                    fronted_by=tuple(fronts.get(f"{ent.kind.value}/{ent.name}", ())),
                )
            )
    return out


def _fronts(result: ToolResult) -> dict[str, list[str]]:
    """'deployment/x' -> the Services that select its pods, then the Ingresses that route
    to those Services, from the relations the inventory observed."""
    services: dict[str, list[str]] = {}
    ingresses: dict[str, list[str]] = {}
    for rel in result.relations:
        src_kind, _, src = rel.src.partition("/")
        _, _, dst = rel.dst.partition("/")
        if rel.rel is RelationKind.SELECTS and src_kind == "service":
            services.setdefault(rel.dst, []).append(src)
        elif rel.rel is RelationKind.ROUTES_TO and src_kind == "ingress":
            ingresses.setdefault(dst, []).append(src)
    # a name in more than one namespace cannot be told apart by these edges: no fronts for
    # it, rather than another namespace's
    namespaces: dict[str, set[str | None]] = {}
    for ent in result.entities:
        namespaces.setdefault(f"{ent.kind.value}/{ent.name}", set()).add(ent.namespace)
    return {
        workload: [*svcs, *(i for svc in svcs for i in ingresses.get(svc, []))]
        for workload, svcs in services.items()
        if len(namespaces.get(workload, set())) <= 1
        and all(len(namespaces.get(f"service/{s}", set())) <= 1 for s in svcs)
    }


def _ms_since(began: float) -> int:
    return round((time.perf_counter() - began) * 1000)


def _future_answer(turn: Turn, context: ContextState, start: datetime) -> Answer:
    language = language_of(turn.question)
    text = say(
        Phrase.FUTURE,
        language,
        start=start.isoformat(timespec="minutes"),
        now=turn.now.isoformat(timespec="minutes"),
    )
    return Answer(
        question=turn.question,
        scope=context.scope,
        summary=text,
        gaps=[Gap.of("scope.time", GapNote(GapReason.FUTURE_TIME, detail=text), language)],
        final=True,
    )


MAX_QUESTION_CHARS = 8000  # a question, and a paste of an alert or a log excerpt with it


def _too_long(turn: Turn) -> TurnOutcome:
    """A message past the cap is not read for a scope or a plan (the parse of any text is
    linear, but a turn's work must stay bounded): it is answered at once, saying so."""
    language = language_of(turn.question)
    text = say(Phrase.TOO_LONG, language, length=len(turn.question), most=MAX_QUESTION_CHARS)
    context = ContextState(scope=Scope(), envs=[])
    answer = Answer(
        question=turn.question[:MAX_QUESTION_CHARS],
        scope=context.scope,
        summary=text,
        gaps=[Gap.of("scope", GapNote(GapReason.NOT_BOUND, detail=text), language)],
        final=True,
    )
    return TurnOutcome(answer, context, None, [])


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
    )
    return (
        len(context.envs) > 1
        and ScopeField.ENV not in context.explicit  # "in all DCs" names them all
        and context.scope.env is None
        and not context.scope.object
        and not context.scope.namespace
        and not located
    )


def _clarify_answer(turn: Turn, context: ContextState) -> Answer:
    language = language_of(turn.question)
    asked = turn.question.splitlines()[0][:120].rstrip("?. ")
    example = f"{asked} ({context.envs[0]}, <service>)?"
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
        summary=text,
        gaps=[Gap.of("scope", GapNote(GapReason.NO_SCOPE), language)],
        final=True,
    )


def _unknown_env_answer(turn: Turn, context: ContextState, envs: list[str]) -> Answer:
    unknown = ", ".join(context.unknown_envs)
    configured = ", ".join(envs)
    language = language_of(turn.question)
    text = say(Phrase.UNKNOWN_ENV, language, unknown=unknown, configured=configured)
    return Answer(
        question=turn.question,
        scope=context.scope.model_copy(update={"env": None}),
        summary=text,
        gaps=[Gap.of("scope.env", GapNote(GapReason.UNKNOWN_ENV, detail=text), language)],
        final=True,
    )
