"""What every log tool shares: the time window, sub-reads and an honest result."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from connectors.elasticsearch._reader import SOURCE, LogReader, Read
from policy.contracts import AgentMeta, OutputKind
from policy.errors import SourceError, SourceUnsupported, attempt
from policy.findings import Findings
from policy.results import EvidenceState, ResultFact, ToolResult
from policy.scope import Scope
from policy.toolset import CallContext
from policy.window import WindowArgs, WindowRule, resolve_window

# Logs: a half-given window that lands beyond the question's other end reads the instant
# the caller named, not an inverted range (which no document falls in).
LOG_WINDOW = WindowRule(inverted="collapse")


def window(args: WindowArgs, ctx: CallContext) -> tuple[datetime, datetime]:
    """The span a log read covers (policy.window's one rule, with the log sources' twist)."""
    return resolve_window(args, ctx, LOG_WINDOW)


def unknown_env(env: str) -> SourceUnsupported:
    return SourceUnsupported(SOURCE, f"no Elasticsearch log source is configured for {env}")


@dataclass
class SubRead:
    """One evidence kind's read: what came back, or why it could not be had."""

    evidence: str
    label: str
    read: Read | None = None
    error: SourceError | None = None
    found: bool = False
    skipped: str | None = None  # why the read was not attempted
    complete_override: bool | None = None  # e.g. aggregation counts cover all, hits do not
    in_coverage: bool = True  # False: not applicable to this call (nothing to anchor it)

    @property
    def complete(self) -> bool:
        if self.error is not None or self.skipped is not None or self.read is None:
            return False
        if self.complete_override is not None:
            return self.complete_override
        return self.read.complete

    def state(self) -> EvidenceState:
        if self.found:
            return "found"
        if self.error is not None:
            return "failed"
        return "none_complete" if self.complete else "none_partial"

    def note(self) -> str:
        if self.error is not None:
            return f"{self.label}: failed ({self.error.reason})"
        if self.skipped is not None:
            return f"{self.label}: not read ({self.skipped})"
        assert self.read is not None
        return f"{self.label}: {self.read.describe()}"


async def attempt_all(*coros: Awaitable[Read]) -> list[tuple[Read | None, SourceError | None]]:
    return list(await asyncio.gather(*(attempt(c) for c in coros)))


def build_result(
    tool: str,
    scope: Scope,
    subs: list[SubRead],
    facts: list[ResultFact],
    *,
    graph: Findings | None = None,
    warnings: list[str],
    limit: int,
    raw: Any,
) -> ToolResult:
    """Completeness and coverage from the sub-reads; every failed sub-read is named in
    warnings.

    When every attempted sub-read failed, the first failure is raised: the call is a gap,
    never an empty success.
    """
    attempted = [s for s in subs if s.skipped is None]
    failures = [s for s in attempted if s.error is not None]
    if attempted and len(failures) == len(attempted):
        raise failures[0].error  # type: ignore[misc]
    for sub in failures:
        warnings.append(f"{sub.label} could not be read: {sub.error.reason}")  # type: ignore[union-attr]
    # one read may close several kinds: count it once
    reads = list({id(s.read): s.read for s in subs if s.read is not None}.values())
    found = graph if graph is not None else Findings(SOURCE)
    found.facts = facts
    found.warnings = warnings
    found.notes = [s.note() for s in subs]
    found.complete = all(s.complete for s in subs if s.in_coverage)
    found.truncated = any(s.read is not None and not s.complete for s in subs)
    if not found.complete and not facts:
        warnings.append("nothing was found, but the read was not complete: absence is not proven")
    totals = [r.total for r in reads]
    return found.result(
        tool,
        scope,
        returned=sum(len(r.hits) for r in reads),
        limit=limit,
        total=sum(t for t in totals if t is not None) if totals and None not in totals else None,
        total_is_exact=all(r.exact for r in reads),
        evidence={s.evidence: s.state() for s in _merge_by_kind(subs)},
        raw=raw,
    )


def _merge_by_kind(subs: list[SubRead]) -> list[SubRead]:
    """Several sub-reads may close one kind (one error-log read per access record)."""
    by_kind: dict[str, list[SubRead]] = {}
    for sub in subs:
        by_kind.setdefault(sub.evidence, []).append(sub)
    merged = []
    for kind, group in by_kind.items():
        if len(group) == 1:
            merged.append(group[0])
            continue
        proxy = SubRead(evidence=kind, label=kind, found=any(s.found for s in group))
        if not proxy.found:
            failed = next((s for s in group if s.error is not None), None)
            partial = next((s for s in group if not s.complete), None)
            proxy = failed or partial or group[0]
        merged.append(proxy)
    return merged


def log_agent(
    evidence: list[str], *, output_kind: OutputKind = "log_lines", admin_only: bool = False
) -> AgentMeta:
    """The x-agent block every log tool shares: event-time facts, history, and absence
    proven only by an exact, fully read hit count."""
    return AgentMeta(
        evidence=evidence,
        sources=["elasticsearch"],
        output_kind=output_kind,
        freshness="event_time",
        negative_semantics="exact_count",
        supports_history=True,
        current_only=False,
        read_only=True,
        admin_only=admin_only,
    )


def reader_for(readers: dict[str, LogReader], env: str) -> LogReader:
    reader = readers.get(env)
    if reader is None:
        raise unknown_env(env)
    return reader
