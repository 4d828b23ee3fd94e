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

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from planner.plan.objectives import Objective
from planner.read.executor import CallRecord
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


EnvStatus = Literal["pending", "resolved", "failed", "unavailable", "unresolved"]
"""pending: nothing settled it yet; failed: every read of it failed (the turn then says
unavailable). After the turn only resolved, unavailable and unresolved remain."""


Progress = Literal["resolved", "settled", "open"]
"""An objective while the turn runs, for the model planner: resolved; settled (nothing a
model could add: no source, or its reads failed); open."""


@dataclass
class EnvOutcome:
    status: EnvStatus = "pending"
    negative: bool = False  # resolved by a complete empty read
    reasons: list[GapNote] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def outcome_for(
    objective: Objective,
    env: str,
    records: list[CallRecord],
    contracts: dict[str, ToolContract],
    fresh_after: datetime | None = None,
) -> EnvOutcome:
    """What the records of this turn establish for one objective in one env."""
    out = EnvOutcome()
    states: list[tuple[str, CallRecord]] = []
    read_kinds: dict[str, set[str]] = {}
    for rec in records:
        if objective.id not in rec.objectives or rec.call.env not in (env, None):
            continue
        contract = contracts.get(rec.call.tool)
        kinds = [
            k for k in (contract.agent.evidence if contract else []) if k in objective.evidence
        ]
        for kind in kinds or objective.evidence[:1]:
            state = evidence_state(rec.result, kind, fresh_after)
            states.append((state, rec))
            read_kinds.setdefault(kind, set()).add(state)
    for _, rec in states:
        if rec.call.source not in out.sources:
            out.sources.append(rec.call.source)
    if objective.all_of and not any(s == "found" for s, _ in states):
        # a union is absent only when every kind a tool here serves was read, completely
        served = _served_kinds(objective, env, contracts)
        if not served:
            return out  # nothing here can read it: never "absent" (routing says no source)
        if not served <= set(read_kinds):
            if not any(s in ("none_partial", "stale", "failed") for s, _ in states):
                return out  # pending: a kind still to read
        elif all("none_complete" in read_kinds[k] for k in served):
            out.status, out.negative = "resolved", True
            return out
        states = [(s, r) for s, r in states if s != "none_complete"]
    if any(s == "found" for s, _ in states):
        out.status = "resolved"
    elif any(s == "none_complete" for s, _ in states):
        out.status, out.negative = "resolved", True
    elif any(s == "none_partial" for s, _ in states):
        out.status = "unresolved"
        for s, rec in states:
            if s == "none_partial":
                cov = rec.result.coverage
                note = cov.what_was_read()
                out.reasons.append(GapNote(GapReason.PARTIAL_READ, env, rec.call.tool, note))
    elif any(s == "stale" for s, _ in states):
        out.status = "unresolved"
        for s, rec in states:
            if s == "stale":
                latest = max(f.observed_at for f in rec.result.facts if f.observed_at)
                out.reasons.append(
                    GapNote(GapReason.HISTORY_ONLY, env, rec.call.tool, latest.isoformat())
                )
    elif states and all(s == "failed" for s, _ in states):
        out.status = "failed"
        # a source serving every env (GitLab) failed once: its gap names no env
        out.reasons.extend(
            GapNote(GapReason.SOURCE_FAILED, rec.call.env, rec.call.tool, why_failed(rec.result))
            for _, rec in states
        )
    return out


def why_failed(result: ToolResult) -> str:
    """A failed call says why in `error`; a call whose sub-read failed says it in its
    warnings (the other sub-reads still answered)."""
    return result.error or "; ".join(result.warnings) or "the read failed without a reason"


def _served_kinds(objective: Objective, env: str, contracts: dict[str, ToolContract]) -> set[str]:
    """The objective's evidence kinds that some admitted tool serves in this env."""
    return {
        kind
        for c in contracts.values()
        if env in c.enums.get("env", [env])
        for kind in c.agent.evidence
        if kind in objective.evidence
    }
