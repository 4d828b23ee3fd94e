"""One investigation: scope -> plan -> rounds of gated reads -> statuses -> Answer.

The loop is small on purpose: each round asks for the calls that can advance an
unsettled objective (planner.turn.rounds: alternatives after a failure, per-node calls
once nodes are known), runs them in parallel, learns what they point to
(planner.turn.discovery), and stops when nothing new can be called, the round limit is
hit, or the turn deadline passes. With a model, free planning follows for what stays
open. Whatever came back survives the deadline; statuses are settled once
(planner.turn.settle) and the Answer is written from them.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from enum import StrEnum

import structlog

from planner.conclude.compose import ModelPart, TurnParts, compose
from planner.conclude.evidence import EvidencePacket, build_packet
from planner.conclude.finalizer import Conclusions, finalize
from planner.conclude.guard import EnvOutcome, outcome_for
from planner.conclude.settle import BlockedMap, Progress, final_outcomes, progress
from planner.model.freeplan import FreePlanOutcome, free_planning
from planner.model.prose import write_prose
from planner.model.roles import ModelDesk, ModelSet
from planner.plan.objectives import Objective, QuestionPlan, plan_for
from planner.plan.routing import Discovered
from planner.question.asked import value_priority
from planner.question.context import ContextState, InventoryItem
from planner.read.executor import CallRecord, Executor
from planner.read.workspace import TurnWorkspace
from planner.shapes.answer import Answer, ModelTally, Timings
from planner.shapes.language import Language, language_of
from planner.shapes.progress import ProgressSink
from planner.shapes.turn import Turn
from planner.turn.discovery import discover, learn, links, seed
from planner.turn.rounds import RoundInputs, plan_round
from policy.contracts import ToolContract
from policy.facts import FACT_RANKS
from policy.gaps import GapNote
from policy.toolset import CallContext, Toolset

log = structlog.get_logger(__name__)


class Planning(StrEnum):
    """Who plans the reads when a model is configured. AUTO: the deterministic plans read
    first, and the model plans what they leave open or do not cover (a question no kind
    of plan reads, answered with an environment check). FREE: the model plans every
    objective, the deterministic plan is its todo list; it makes model mode measurable on
    any scenario (`--planning free`)."""

    AUTO = "auto"
    FREE = "free"


@dataclass(frozen=True)
class InvestigationSettings:
    timezone: tzinfo
    planning: Planning = Planning.AUTO
    source_timeouts: dict[str, float] = field(default_factory=dict)
    default_timeout: float = 20.0
    max_rounds: int = 4
    turn_deadline_s: float = 90.0
    facts_per_source: int = 12
    keep_query_hosts: frozenset[str] = frozenset()  # our own dashboards: links keep queries


@dataclass
class Investigation:
    plan: QuestionPlan
    context: ContextState
    records: list[CallRecord]
    outcomes: dict[tuple[str, str], EnvOutcome]
    packet: EvidencePacket
    workspace: TurnWorkspace
    answer: Answer
    timed_out: bool = False


@dataclass
class _Reading:
    """The state of a turn's reads: the rounds add records, entities and blocks to it;
    free planning adds records; the statuses and the Answer are read from it."""

    inputs: RoundInputs
    settings: InvestigationSettings
    inventory: list[InventoryItem]
    discovered: Discovered
    blocked: BlockedMap = field(default_factory=dict)

    @property
    def executor(self) -> Executor:
        return self.inputs.executor

    def progress(self) -> dict[str, Progress]:
        return progress(
            self.inputs.plan, self.inputs.context.envs, self.inputs.outcome, self.blocked
        )

    async def rounds(self) -> None:
        for round_no in range(self.settings.max_rounds):
            planned = plan_round(self.inputs, round_no, self.discovered)
            self.blocked.update(planned.blocked)
            if not planned.wanted:
                if planned.deferred and round_no == 0:
                    continue  # only calls that wait for round-one entities: go on
                return
            calls = planned.calls()
            log.info("plan.round", round=round_no + 1, calls=len(calls))
            ahead = functools.partial(self._read_ahead, round_no)
            new = await self.executor.run(calls, on_progress=ahead)
            every = self.executor.ordered()
            learn(new, self.inputs.context, self.inventory, self.discovered, every)

    def _read_ahead(self, round_no: int) -> None:
        """While round `round_no` still waits for its slowest calls, start what the next
        round would ask given the entities already found (the nodes of pods placed by a
        fast read, say): a round then costs its dependent reads, not its slowest one.
        A call read ahead becomes evidence only if the next round really plans it."""
        if round_no + 1 >= self.settings.max_rounds:
            return
        try:
            view = copy.deepcopy(self.discovered)
            discover(self.executor.ordered(), view)
            ahead = plan_round(self.inputs, round_no + 1, view, commit=False)
        except Exception:  # only a head start: a bug here must not cost the turn
            log.exception("investigation.read_ahead_failed", round=round_no + 1)
            return
        for call, _objectives in ahead.wanted.values():
            self.executor.prefetch(call)


def _start(
    turn: Turn,
    context: ContextState,
    gate: Toolset,
    settings: InvestigationSettings,
    *,
    unavailable_sources: dict[tuple[str, str | None], GapNote] | None,
    inventory: list[InventoryItem] | None,
    clock: Callable[[], float],
    progress_sink: ProgressSink | None,
) -> _Reading:
    """The plan from the scope and what this user's gate admits, and an executor with the
    sources the inventory already found down."""
    ctx = CallContext(
        user=turn.user,
        role=turn.role,
        scope=context.scope,
        now=turn.now,
        timezone=str(settings.timezone),
    )
    contracts = gate.contracts(ctx)
    served = {k: c.agent.facet_of(k) for c in contracts for k in c.agent.evidence}
    plan = plan_for(context, served=served)
    by_name = {c.name: c for c in contracts}
    executor = Executor(
        gate=gate,
        ctx=ctx,
        workspace=TurnWorkspace(),
        timeouts=settings.source_timeouts,
        default_timeout=settings.default_timeout,
        clock=clock,
        progress=progress_sink,
        contracts=by_name,
    )
    executor.unavailable.update(unavailable_sources or {})
    fresh_after = _fresh_after(context, turn.now)

    def outcome(objective: Objective, env: str) -> EnvOutcome:
        return outcome_for(objective, env, executor.ordered(), by_name, fresh_after)

    inputs = RoundInputs(
        plan=plan,
        context=context,
        question=turn.question,
        asker=f"{turn.user} ({turn.role})",
        now=turn.now,
        contracts=contracts,
        by_name=by_name,
        refused=gate.refused(ctx),
        executor=executor,
        outcome=outcome,
    )
    return _Reading(inputs, settings, inventory or [], seed(context))


def _fresh_after(context: ContextState, now: datetime) -> datetime | None:
    """For a question about now: the moment before which an observation is history and
    cannot confirm the present."""
    return context.scope.time.bounds(now)[0] if context.scope.time.mode == "now" else None


async def investigate(
    turn: Turn,
    context: ContextState,
    gate: Toolset,
    settings: InvestigationSettings,
    *,
    models: ModelSet | None = None,
    unavailable_sources: dict[tuple[str, str | None], GapNote] | None = None,
    inventory: list[InventoryItem] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    progress: ProgressSink | None = None,
    parts: TurnParts | None = None,
    language: Language | None = None,
) -> Investigation:
    """Reads until every objective is settled or the budget is spent, concludes, and
    writes the Answer once (with `parts`, what the turn adds around the reads)."""
    started = clock()
    reading = _start(
        turn,
        context,
        gate,
        settings,
        unavailable_sources=unavailable_sources,
        inventory=inventory,
        clock=clock,
        progress_sink=progress,
    )
    desk: ModelDesk | None = models.desk() if models is not None else None
    free = FreePlanOutcome()
    timed_out = await _read_until_deadline(reading, turn, desk, models, free)
    executor = reading.executor
    plan = reading.inputs.plan
    outcomes = final_outcomes(
        plan, context.envs, reading.inputs.outcome, reading.blocked, timed_out=timed_out
    )
    required = {o.id for o in plan.objectives if o.required}
    packet = build_packet(
        [(r.call_id, r.result) for r in executor.ordered()],
        per_source=settings.facts_per_source,
        priority=value_priority(context.asked, dict(FACT_RANKS)),
        lead=frozenset(r.call_id for r in executor.records if r.objectives & required),
        links=links(reading.discovered),
    )
    conclusions = finalize(
        turn=turn,
        context=context,
        plan=plan,
        records=executor.ordered(),
        outcomes=outcomes,
        packet=packet,
        timed_out=timed_out,
        language=language or language_of(turn.question),
    )
    model: ModelPart | None = None
    if desk is not None:
        left = settings.turn_deadline_s - (clock() - started)
        model = await _model_part(conclusions, reading, turn, desk, free, left)
    answer = compose(
        conclusions,
        question=turn.question,
        scope=context.scope,
        parts=parts or TurnParts(),
        model=model,
        total_ms=int((clock() - started) * 1000),
    )
    return Investigation(
        plan, context, executor.ordered(), outcomes, packet, executor.workspace, answer, timed_out
    )


async def _read_until_deadline(
    reading: _Reading,
    turn: Turn,
    desk: ModelDesk | None,
    models: ModelSet | None,
    free: FreePlanOutcome,
) -> bool:
    """The rounds, then free planning with a model for what stays open, within the turn's
    planning budget (with a model, the answer's prose has a reserve of its own); whether
    the budget ran out. What was read is kept whatever way it ends."""
    settings = reading.settings
    budget = settings.turn_deadline_s - _reserve(models, settings.turn_deadline_s)
    model_phase = False

    async def plan_and_read() -> None:
        nonlocal model_phase
        free_only = desk is not None and settings.planning is Planning.FREE
        if not free_only:
            await reading.rounds()
        if desk is not None and (free_only or _model_plans(reading)):
            model_phase = True
            await free_planning(
                question=turn.question,
                context=reading.inputs.context,
                plan=reading.inputs.plan,
                executor=reading.executor,
                contracts=reading.inputs.contracts,
                desk=desk,
                status_of=reading.progress,
                outcome=free,
            )
            discover(reading.executor.records, reading.discovered)

    try:
        await asyncio.wait_for(plan_and_read(), budget)
    except TimeoutError:
        log.warning("investigation.deadline", seconds=budget)
        if model_phase and desk is not None:
            free.notes.append(
                f"the model ({', '.join(desk.models.names())}) was cut after "
                f"{budget:.0f} s, the turn's planning budget; "
                "answered from the evidence already collected"
            )
        return True
    finally:
        await reading.executor.drop_prefetched()  # read ahead, never planned: not evidence
    return False


def _model_plans(reading: _Reading) -> bool:
    """A model plans when the question has no known intent, when no kind of plan read it
    (the environment check stood in for a question with no kind and no object: "how are
    the payments doing in <env>?"), when it names a kind of component no workload runs, or
    when a required objective is still open after the rounds."""
    plan = reading.inputs.plan
    status = reading.progress()
    open_required = any(o.required and status[o.id] == "open" for o in plan.objectives)
    context = reading.inputs.context
    # a kind of component no workload runs ("the queue"): it may run outside the cluster,
    # where a model's reads of the metrics may still find it
    return plan.intent == "general" or open_required or context.uncovered or bool(context.component)


async def _model_part(
    conclusions: Conclusions,
    reading: _Reading,
    turn: Turn,
    desk: ModelDesk,
    free: FreePlanOutcome,
    left_s: float,
) -> ModelPart:
    """The model's prose for the summary (checked against the citations by
    planner.model.prose), the notes of planning and prose, and what the turn asked of
    the models."""
    context = reading.inputs.context
    records = reading.executor.ordered()
    prose = await write_prose(
        conclusions,
        question=turn.question,
        desk=desk,
        # the reserve at least, and whatever planning left unused
        budget_s=max(0.0, left_s),
        planner_notes=free.closing,
        names=_known_names(context, reading.inventory, records),
        envs=_configured_envs(context, reading.inputs.contracts),
        tz=reading.settings.timezone,
    )
    return ModelPart(prose.summary, [*free.notes, *prose.notes], _model_timings(desk))


SYNTHESIS_SHARE = 0.25  # at most this share of a turn's deadline is held back for prose


def _reserve(models: ModelSet | None, deadline_s: float) -> float:
    """The seconds kept from planning for writing the answer: none without a model."""
    if models is None:
        return 0.0
    return min(models.synthesis_reserve_s, deadline_s * SYNTHESIS_SHARE)


def _model_timings(desk: ModelDesk) -> Timings:
    """What the turn asked of its models, in total and per model, from the desk's ledger."""
    ledger = desk.ledger
    t = Timings(
        model_ms=ledger.ms,
        model_calls=len(ledger.calls),
        model_failed_calls=sum(1 for c in ledger.calls if c.failure is not None),
        prompt_tokens=ledger.prompt_tokens,
        completion_tokens=ledger.completion_tokens,
        model_format_errors=ledger.format_errors,
        model_denied_calls=ledger.denied_calls,
    )
    for call in ledger.calls:
        tally = t.by_model.setdefault(call.model, ModelTally())
        tally.calls += 1
        tally.failed_calls += call.failure is not None
        tally.prompt_tokens += call.prompt_tokens
        tally.completion_tokens += call.completion_tokens
        tally.ms += call.ms
        tally.format_errors += call.format_errors
    return t


def _configured_envs(context: ContextState, contracts: list[ToolContract]) -> set[str]:
    """Every configured environment (each tool's env enum is the configured set)."""
    envs = set(context.envs)
    for contract in contracts:
        envs.update(contract.enums.get("env", []))
    return envs


MAX_NAME_CHARS = 64


def _known_names(
    context: ContextState, inventory: list[InventoryItem], records: list[CallRecord]
) -> set[str]:
    """Every name the turn knows of: namespaces and workloads of the inventory, and what
    the sources returned: entities (pods, nodes, services) and the one-word values of the
    facts' typed attributes (a job's user, a commit's author, an audit actor, a reason).
    In the model's prose each must be one its citations hold (planner.model.prose): a person or
    a pod borrowed from another fact, or from nowhere the sources named, is not."""
    names = set(context.envs)
    for item in inventory:
        names.update(n for n in (item.env, item.namespace, item.name) if n)
    for rec in records:
        for ent in rec.result.entities:
            names.update(n for n in (ent.name, ent.namespace) if n)
        for fact in rec.result.facts:
            for value in fact.attrs.model_dump(mode="json").values():
                if isinstance(value, str) and 1 < len(value) <= MAX_NAME_CHARS and " " not in value:
                    names.add(value)
    return names
