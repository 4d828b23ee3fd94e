"""Planning one round of reads: which calls can advance each unsettled objective in each
env, given the plan, the records so far and the entities found, and why the objectives
that cannot be asked are blocked.

A round's plan is computed from its inputs alone; the one thing it writes is which made
call serves which objective (a call already made for another objective, or read ahead,
that this objective accepts), and only when `commit` is set: a dry run (what the next
round would probably ask, to start it early) changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

from planner.conclude.guard import Outcome
from planner.plan.objectives import Objective, QuestionPlan
from planner.plan.routing import (
    Block,
    Blocked,
    Discovered,
    Given,
    PlannedCall,
    bind_arguments,
    candidates,
    canonical,
    needs_missing,
)
from planner.question.context import ContextState
from planner.read.executor import CallRecord, Executor
from policy.contracts import ToolContract
from policy.errors import ErrorKind
from policy.gaps import GapNote, GapReason
from policy.results import ToolResult

Wanted = dict[str, tuple[PlannedCall, set[str]]]
"""Calls a round asks, by key, each with the objectives it serves."""


@dataclass(frozen=True)
class RoundInputs:
    """What every round of one turn plans from."""

    plan: QuestionPlan
    context: ContextState
    question: str
    asker: str  # "<user> (<role>)", for a gap that says who may not read
    now: datetime
    contracts: list[ToolContract]
    by_name: dict[str, ToolContract]
    refused: list[tuple[ToolContract, str]]
    executor: Executor
    outcome: Outcome


@dataclass
class RoundPlan:
    wanted: Wanted = field(default_factory=dict)
    # some calls wait for entities a later round may observe
    deferred: bool = False
    blocked: dict[tuple[str, str], Blocked] = field(default_factory=dict)

    def calls(self) -> list[PlannedCall]:
        return [
            PlannedCall(c.tool, c.arguments_json, c.env, c.source, tuple(sorted(objectives)))
            for c, objectives in self.wanted.values()
        ]


class _Sources(Enum):
    """How trying an objective's acceptable sources in turn ended."""

    DONE = "done"  # called, or already settled by a made call
    DEFERRED = "deferred"  # a source waits for entities of a later round
    EXHAUSTED = "exhausted"  # every source tried; the reasons say why none could be asked


def plan_round(
    inputs: RoundInputs, round_no: int, found: Discovered, *, commit: bool = True
) -> RoundPlan:
    """The calls round `round_no` wants, whether some waited for entities not seen yet,
    and why each objective that cannot be asked is blocked."""
    out = RoundPlan()
    for objective in inputs.plan.objectives:
        for env in inputs.context.envs:
            _plan_objective(inputs, objective, env, round_no, found, out, commit)
    return out


def _plan_objective(
    inputs: RoundInputs,
    objective: Objective,
    env: str,
    round_no: int,
    found: Discovered,
    out: RoundPlan,
    commit: bool,
) -> None:
    current = inputs.outcome(objective, env)
    follow = objective.follows_evidence and bool(found.objects.get(env))
    if current.status == "resolved" and not follow:
        return
    records = inputs.executor.records
    if _share_a_call(objective, env, out.wanted, records, inputs.by_name, commit):
        return
    missing = needs_missing(objective, env, inputs.context, found)
    if missing:
        out.blocked[(objective.id, env)] = missing
        return
    cands = candidates(
        objective,
        env,
        inputs.contracts,
        inputs.context.scope.time.mode,
        inputs.question,
        Given.of(inputs.context),
    )
    if not cands:
        out.blocked[(objective.id, env)] = _no_candidate(inputs, objective, env)
        return
    ended, reasons = _try_sources(inputs, objective, env, cands, round_no, found, out, commit)
    if ended is _Sources.DEFERRED:
        out.deferred = True
    elif ended is _Sources.EXHAUSTED and reasons:
        out.blocked[(objective.id, env)] = Blocked(Block.UNAVAILABLE, tuple(dict.fromkeys(reasons)))


def _not_served(result: ToolResult) -> bool:
    return result.failed and result.error_kind is ErrorKind.UNSUPPORTED


def _no_candidate(inputs: RoundInputs, objective: Objective, env: str) -> Blocked:
    """No admitted tool serves the objective here: the user may not use the ones that
    could (which the gate refused), or no configured source serves it."""
    hidden = [why for c, why in inputs.refused if c.serves(objective.evidence, env)]
    if hidden:
        note = GapNote(GapReason.NOT_ALLOWED, env, inputs.asker, hidden[0])
        return Blocked(Block.NOT_ALLOWED, (note,))
    asked = " or ".join(objective.evidence)
    return Blocked(Block.NO_SOURCE, (GapNote(GapReason.NO_SOURCE, env, asked),))


def _try_sources(
    inputs: RoundInputs,
    objective: Objective,
    env: str,
    cands: list[ToolContract],
    round_no: int,
    found: Discovered,
    out: RoundPlan,
    commit: bool,
) -> tuple[_Sources, list[GapNote]]:
    """The acceptable sources best first: the first that can be asked is asked (for an
    `all_of` objective, one for each evidence kind); one that is down, cannot be bound or
    was already read without settling the objective gives way to the next."""
    executor = inputs.executor
    reasons: list[GapNote] = []
    covered: set[str] = set()  # an all_of objective: kinds already asked for
    wants = set(objective.evidence)
    for contract in cands:
        kinds = set(contract.agent.evidence) & wants
        if objective.all_of and kinds <= covered:
            continue
        source = contract.agent.sources[0]
        if (source, env) in executor.unavailable:
            reasons.append(executor.unavailable[(source, env)])
            continue
        arg_sets, why = bind_arguments(
            contract, objective, env, inputs.context, inputs.now, found, round_no
        )
        if why is not None and why.kind is Block.DEFERRED:
            return _Sources.DEFERRED, reasons
        if why is not None:
            reasons.extend(why.notes)
            continue
        calls = [
            PlannedCall(
                contract.name, canonical(a), env if "env" in a else None, source, (objective.id,)
            )
            for a in arg_sets
        ]
        made = [executor.record_for(c.key) for c in calls]
        if commit:
            for rec in made:
                if rec is not None:
                    rec.objectives.add(objective.id)
        if all(m is not None for m in made):
            if not all(m is not None and _not_served(m.result) for m in made):
                # a source that does not serve the env leaves its kinds to the next
                # acceptable one (the pods' own logs when no index holds them)
                covered |= kinds
            if not objective.all_of and inputs.outcome(objective, env).status == "resolved":
                return _Sources.DONE, reasons
            continue  # tried and failed, or a union: next acceptable source
        down = executor.unavailable.get((source, env))
        if down:
            reasons.append(down)
            continue
        for call in calls:
            if executor.record_for(call.key) is None:
                out.wanted.setdefault(call.key, (call, set()))[1].add(objective.id)
        covered |= kinds
        if objective.all_of and not covered >= wants:
            continue  # a union: ask the sources of its other kinds too
        return _Sources.DONE, reasons
    return _Sources.EXHAUSTED, reasons


def _covers(contract: ToolContract | None, objective: Objective) -> bool:
    return contract is not None and contract.serves(objective.evidence)


def _share_a_call(
    objective: Objective,
    env: str,
    wanted: Wanted,
    records: list[CallRecord],
    by_name: dict[str, ToolContract],
    commit: bool,
) -> bool:
    """One call that closes several evidence kinds serves every objective that accepts
    one of them: attach this objective to a call already planned this round, or to one
    already made whose result did not fail, instead of calling another tool. A read only
    the evidence points to has an input of its own: another call's never serves it."""
    if objective.until_observed:
        return False
    for call, objectives in wanted.values():
        if call.env in (env, None) and _covers(by_name.get(call.tool), objective):
            objectives.add(objective.id)
            return True
    for rec in records:
        if (
            rec.call.env in (env, None)
            and objective.id not in rec.objectives
            and not rec.result.failed
            and _covers(by_name.get(rec.call.tool), objective)
        ):
            if commit:
                rec.objectives.add(objective.id)
            return True
    return False
