"""Where an objective stands: while the turn runs (for the model planner's todo list) and
when it ends (for the Answer). Both read the same two things, what the evidence guard
makes of the records and why the rounds could not ask for more, so they live together.
"""

from __future__ import annotations

from planner.conclude.guard import EnvOutcome, Progress
from planner.plan.objectives import QuestionPlan
from planner.plan.routing import Block, Blocked
from planner.turn.rounds import Outcome
from policy.gaps import GapNote, GapReason

BlockedMap = dict[tuple[str, str], Blocked]


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
            elif out.status == "failed":
                out.status = "unavailable"
            elif out.status == "pending":
                out.status = "unresolved"
                reason = GapReason.OUT_OF_TIME if timed_out else GapReason.NO_CALL
                out.reasons.append(GapNote(reason, env))
            outcomes[(objective.id, env)] = out
    return outcomes
