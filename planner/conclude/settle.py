"""Where an objective stands, in one vocabulary: the evidence guard's status of an
objective in an env (planner.conclude.guard: the Answer's resolved, unavailable and
unresolved, plus pending and failed while the turn runs), settled here into what the
Answer reports when the turn ends, and read here as the model planner's todo list
(Progress) while it runs. Both read the same two things, what the guard makes of the
records and why the rounds could not ask for more (planner.plan.routing.Blocked)."""

from __future__ import annotations

from typing import Literal, assert_never

from planner.conclude.guard import EnvOutcome, EnvStatus, Outcome
from planner.plan.objectives import QuestionPlan
from planner.plan.routing import Block, Blocked
from planner.shapes.answer import ObjectiveStatus
from policy.gaps import GapNote, GapReason

BlockedMap = dict[tuple[str, str], Blocked]

Progress = Literal["resolved", "settled", "open"]
"""An objective while the turn runs, for the model planner: resolved; settled (nothing a
model could add: no source, or its reads failed); open."""


def reported(status: EnvStatus) -> ObjectiveStatus:
    """A status as the Answer reports it: a read that failed leaves the objective
    unavailable, one still pending leaves it unresolved."""
    match status:
        case "resolved":
            return "resolved"
        case "unavailable" | "failed":
            return "unavailable"
        case "unresolved" | "pending":
            return "unresolved"
        case _:
            assert_never(status)


def progress(
    plan: QuestionPlan, envs: list[str], outcome: Outcome, blocked: BlockedMap
) -> dict[str, Progress]:
    """Each objective while the turn runs: open in some env, else resolved in some env,
    else settled (nothing a model could add)."""
    out: dict[str, Progress] = {}
    for o in plan.objectives:
        states = {_progress_in(outcome(o, env), blocked.get((o.id, env))) for env in envs}
        out[o.id] = (
            "open" if "open" in states else "resolved" if "resolved" in states else "settled"
        )
    return out


def _progress_in(current: EnvOutcome, why: Blocked | None) -> Progress:
    if current.status == "resolved":
        return "resolved"
    if current.status == "failed" or (why is not None and why.kind is Block.NO_SOURCE):
        return "settled"  # nothing a model could add: no source, or it failed
    return "open"


def final_outcomes(
    plan: QuestionPlan,
    envs: list[str],
    outcome: Outcome,
    blocked: BlockedMap,
    *,
    timed_out: bool,
) -> dict[tuple[str, str], EnvOutcome]:
    """Each objective in each env when the turn ends: only resolved, unavailable and
    unresolved remain, each with the reasons the answer's gaps give."""
    outcomes: dict[tuple[str, str], EnvOutcome] = {}
    for objective in plan.objectives:
        for env in envs:
            out = outcome(objective, env)
            why = blocked.get((objective.id, env))
            if out.status == "pending" and why is not None:
                out.status = "unresolved" if why.leaves_unresolved else "unavailable"
                out.reasons.extend(why.notes)
            elif out.status == "pending":
                reason = GapReason.OUT_OF_TIME if timed_out else GapReason.NO_CALL
                out.reasons.append(GapNote(reason, env))
            out.status = reported(out.status)
            outcomes[(objective.id, env)] = out
    return outcomes
