"""The evidence guard: decides, in code, what each objective's status is.

- resolved:    some source returned the evidence, or an empty read with complete coverage
               proved its absence;
- unavailable: every acceptable source failed, was refused, or does not exist in that
               environment (the reason goes into the answer as a gap);
- unresolved:  the evidence was not established: a partial read (absence not proven), or
               a value the tools need is missing.
The answer is final only when every required objective is resolved or unavailable. A
negative conclusion is allowed only from a result whose coverage is complete.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, assert_never

from planner.plan.objectives import Objective
from planner.read.executor import CallRecord
from planner.shapes.answer import ObjectiveStatus
from policy.contracts import ToolContract
from policy.gaps import GapNote, GapReason
from policy.results import EvidenceState, ToolResult


def evidence_state(
    result: ToolResult, kind: str, fresh_after: datetime | None = None
) -> EvidenceState | Literal["stale"]:
    """What one result establishes for one evidence kind.

    `fresh_after` is set for questions about *now*: a result whose every fact is a
    historical observation older than that moment cannot confirm the present ("stale").
    """
    if (
        fresh_after is not None
        and result.facts
        and all(
            f.historical and f.observed_at is not None and f.observed_at < fresh_after
            for f in result.facts
        )
    ):
        return "stale"
    if kind in result.evidence:
        return result.evidence[kind]
    if result.failed:
        return "failed"
    if result.status == "empty":
        return "none_complete" if result.coverage.complete_for_negative else "none_partial"
    if result.status == "partial" and not result.facts:
        return "none_partial"
    return "found"


EnvStatus = Literal["pending", "failed"] | ObjectiveStatus
"""An objective in one env: the Answer's statuses, and while the turn runs pending
(nothing settled it yet) and failed (every read of it failed). When the turn ends
planner.conclude.settle leaves only the Answer's."""


@dataclass
class EnvOutcome:
    status: EnvStatus = "pending"
    negative: bool = False  # resolved by a complete empty read
    reasons: list[GapNote] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


State = EvidenceState | Literal["stale"]


@dataclass(frozen=True)
class _Read:
    """What one call of the turn established for one evidence kind of the objective."""

    state: State
    record: CallRecord


Union = Literal["pending", "absent", "judge"]
"""An all_of objective with nothing found: a kind still to read (pending), every kind read
completely and empty (absent), or judge the reads that are not complete-and-empty."""


Outcome = Callable[[Objective, str], EnvOutcome]
"""What the records so far establish for an objective in an env (outcome_for, bound to
the turn's records)."""


def outcome_for(
    objective: Objective,
    env: str,
    records: list[CallRecord],
    contracts: dict[str, ToolContract],
    fresh_after: datetime | None = None,
) -> EnvOutcome:
    """What the records of this turn establish for one objective in one env."""
    reads, read_kinds = _reads(objective, env, records, contracts, fresh_after)
    out = EnvOutcome()
    for r in reads:
        if r.record.call.source not in out.sources:
            out.sources.append(r.record.call.source)
    if objective.all_of and not any(r.state == "found" for r in reads):
        union = _union(objective, env, contracts, reads, read_kinds)
        match union:
            case "pending":
                return out
            case "absent":
                out.status, out.negative = "resolved", True
                return out
            case "judge":
                reads = [r for r in reads if r.state != "none_complete"]
            case _:
                assert_never(union)
    _judge(out, reads, env)
    return out


def _reads(
    objective: Objective,
    env: str,
    records: list[CallRecord],
    contracts: dict[str, ToolContract],
    fresh_after: datetime | None,
) -> tuple[list[_Read], dict[str, set[State]]]:
    """Every read of the objective in this env, and the states seen per evidence kind."""
    reads: list[_Read] = []
    read_kinds: dict[str, set[State]] = {}
    for rec in records:
        if objective.id not in rec.objectives or rec.call.env not in (env, None):
            continue
        contract = contracts.get(rec.call.tool)
        kinds = contract.evidence_for(objective.evidence) if contract else []
        for kind in kinds or objective.evidence[:1]:
            state = evidence_state(rec.result, kind, fresh_after)
            reads.append(_Read(state, rec))
            read_kinds.setdefault(kind, set()).add(state)
    return reads, read_kinds


def _union(
    objective: Objective,
    env: str,
    contracts: dict[str, ToolContract],
    reads: list[_Read],
    read_kinds: dict[str, set[State]],
) -> Union:
    """A union is absent only when every kind a tool here serves was read, completely."""
    served = _served_kinds(objective, env, contracts)
    if not served:
        return "pending"  # nothing here can read it: never "absent" (routing says no source)
    if not served <= set(read_kinds):
        if not any(r.state in ("none_partial", "stale", "failed") for r in reads):
            return "pending"  # a kind still to read
        return "judge"
    if all("none_complete" in read_kinds[k] for k in served):
        return "absent"
    return "judge"


def _judge(out: EnvOutcome, reads: list[_Read], env: str) -> None:
    """The status the reads establish, best first, with the gaps of an unsettled one."""
    states = {r.state for r in reads}
    if "found" in states:
        out.status = "resolved"
    elif "none_complete" in states:
        out.status, out.negative = "resolved", True
    elif "none_partial" in states:
        out.status = "unresolved"
        out.reasons.extend(_partial(r.record, env) for r in reads if r.state == "none_partial")
    elif "stale" in states:
        out.status = "unresolved"
        out.reasons.extend(_stale(r.record, env) for r in reads if r.state == "stale")
    elif reads and states == {"failed"}:
        out.status = "failed"
        # a source serving every env (GitLab) failed once: its gap names no env
        out.reasons.extend(
            GapNote(
                GapReason.SOURCE_FAILED,
                r.record.call.env,
                r.record.call.tool,
                why_failed(r.record.result),
            )
            for r in reads
        )


def _partial(rec: CallRecord, env: str) -> GapNote:
    note = rec.result.coverage.what_was_read()
    return GapNote(GapReason.PARTIAL_READ, env, rec.call.tool, note)


def _stale(rec: CallRecord, env: str) -> GapNote:
    latest = max(f.observed_at for f in rec.result.facts if f.observed_at)
    return GapNote(GapReason.HISTORY_ONLY, env, rec.call.tool, latest.isoformat())


def why_failed(result: ToolResult) -> str:
    """A failed call says why in `error`; a call whose sub-read failed says it in its
    warnings (the other sub-reads still answered)."""
    return result.error or "; ".join(result.warnings) or "the read failed without a reason"


def _served_kinds(objective: Objective, env: str, contracts: dict[str, ToolContract]) -> set[str]:
    """The objective's evidence kinds that some admitted tool serves in this env."""
    return {
        kind
        for c in contracts.values()
        if c.serves_env(env)
        for kind in c.evidence_for(objective.evidence)
    }
