"""Executor: independent calls in parallel, through the gate, with per-source timeouts.

Rules (failure classes: degradation, lost evidence):
- each call gets its source's timeout; a transient failure (timeout, unavailable) is retried
  at most once;
- a source that failed is marked unavailable for the rest of the turn: later calls to it
  are not made (no loops on a broken source) and become gaps with the first reason;
- an identical call (same tool, same arguments) is never made twice in a turn;
- every result, success or not, goes into the turn workspace.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import structlog

from planner.plan.routing import PlannedCall
from planner.read.workspace import TurnWorkspace
from planner.shapes.answer import ToolCallRecord
from planner.shapes.progress import (
    CallState,
    ProgressEvent,
    ProgressSink,
    ended,
    read_kind,
    read_subject,
    tell,
)
from policy.contracts import ToolContract
from policy.errors import ErrorKind
from policy.gaps import GapNote, GapReason
from policy.results import ToolResult
from policy.toolset import CallContext, failure_result

log = structlog.get_logger(__name__)


class GatedTools(Protocol):
    async def call(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult: ...


@dataclass
class CallRecord:
    call_id: str
    call: PlannedCall
    result: ToolResult
    duration_ms: int
    attempts: int
    objectives: set[str] = field(default_factory=set)
    seq: int = 0

    def __post_init__(self) -> None:
        self.objectives |= set(self.call.objectives)

    def as_record(self) -> ToolCallRecord:
        """The call as the Answer lists it."""
        return ToolCallRecord(
            tool=self.call.tool,
            arguments=self.call.arguments,
            source=self.call.source,
            env=self.call.env,
            status=self.result.status,
            duration_ms=self.duration_ms,
            call_id=self.call_id,
            objectives=sorted(self.objectives),
            error=self.result.error or None,
            error_kind=self.result.error_kind,
        )


@dataclass
class Executor:
    gate: GatedTools
    ctx: CallContext
    workspace: TurnWorkspace
    timeouts: dict[str, float] = field(default_factory=dict)
    default_timeout: float = 20.0
    retry_transient: bool = True  # the inventory does not: a down source would cost twice
    clock: Callable[[], float] = time.perf_counter
    records: list[CallRecord] = field(default_factory=list)
    unavailable: dict[tuple[str, str | None], GapNote] = field(default_factory=dict)
    _seen: set[str] = field(default_factory=set)
    _seq: int = 0
    _prefetched: dict[str, asyncio.Task[tuple[ToolResult, int, int]]] = field(default_factory=dict)
    progress: ProgressSink | None = None  # told when each read starts and ends
    # the admitted contracts by tool name: what each read is, for the progress it tells
    contracts: dict[str, ToolContract] = field(default_factory=dict)

    def already_made(self, call: PlannedCall) -> bool:
        return call.key in self._seen

    def source_down(self, call: PlannedCall) -> GapNote | None:
        return self.unavailable.get((call.source, call.env))

    def prefetch(self, call: PlannedCall) -> None:
        """Start a call that the next round will probably plan, before this round ends.

        Its result is held back: it becomes a record (evidence) only when a later `run`
        plans the same call, and `drop_prefetched` cancels what no round asked for. A
        source already down is not read ahead."""
        if call.key in self._seen or call.key in self._prefetched or self.source_down(call):
            return
        log.debug("executor.prefetch", tool=call.tool, env=call.env)
        self._prefetched[call.key] = asyncio.ensure_future(self._attempts(call))

    async def drop_prefetched(self) -> None:
        """Cancel what was read ahead and never planned, and let it finish cancelling."""
        tasks, self._prefetched = list(self._prefetched.values()), {}
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def run(
        self, calls: list[PlannedCall], *, on_progress: Callable[[], None] | None = None
    ) -> list[CallRecord]:
        """Make these calls at once; the records in the order given. `on_progress` is
        told each time one call ends while others still run (to read ahead)."""
        fresh: list[PlannedCall] = []
        for call in calls:
            if call.key in self._seen:
                log.debug("executor.duplicate_refused", tool=call.tool)
                continue
            self._seen.add(call.key)
            fresh.append(call)
        # each record is kept as soon as its call ends: a turn deadline that cancels the
        # gather never erases what already came back
        numbered = []
        for call in fresh:
            self._seq += 1
            numbered.append((self._seq, call))
        # which sources are down is decided for the whole round before any call starts: a
        # read-ahead result that failed must not skip its siblings in the same round
        downs = [self.source_down(c) for _, c in numbered]
        tasks = [
            asyncio.ensure_future(self._one(c, n, down))
            for (n, c), down in zip(numbered, downs, strict=True)
        ]
        try:
            pending: set[asyncio.Future[CallRecord]] = set(tasks)
            while on_progress is not None and len(pending) > 1:
                _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                if pending:
                    on_progress()
            return list(await asyncio.gather(*tasks))
        finally:
            for task in tasks:  # cancelled by the turn deadline: so are the calls
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def ordered(self) -> list[CallRecord]:
        """Records in the order the calls were planned, not the order they finished: the
        same question renders the same answer every time."""
        return sorted(self.records, key=lambda r: r.seq)

    def record_for(self, key: str) -> CallRecord | None:
        return next((r for r in self.records if r.call.key == key), None)

    def _tell(self, call: PlannedCall, state: CallState) -> None:
        if self.progress is None:
            return
        contract = self.contracts.get(call.tool)
        event = ProgressEvent(
            tool=call.tool,
            source=call.source,
            env=call.env,
            state=state,
            read=read_kind(contract) if contract is not None else None,
            subject=read_subject(call.arguments),
        )
        tell(self.progress, event)

    async def _one(self, call: PlannedCall, seq: int, down: GapNote | None) -> CallRecord:
        call_id = f"c{seq}-{call.tool}"
        self._tell(call, CallState.READING if down is None else CallState.FAILED)
        if down is not None:
            result = self._failed(call, f"skipped: {down.sentence()}", ErrorKind.SOURCE_UNAVAILABLE)
            record = CallRecord(call_id, call, result, 0, 0, seq=seq)
            self.workspace.put(call_id, result)
            self.records.append(record)
            return record
        early = self._prefetched.pop(call.key, None)
        result, attempts, duration = await (early if early is not None else self._attempts(call))
        kind = result.error_kind
        if result.status == "error" and kind is not None and kind.source_down:
            # only a source that is down is skipped for the rest of the turn; a 404 or a
            # refused resource says nothing about the next read
            note = GapNote(GapReason.SOURCE_DOWN, call.env, call.source, result.error or "")
            self.unavailable.setdefault((call.source, call.env), note)
        failed = {"error_kind": kind.value, "error": result.error} if kind is not None else {}
        # a failed read says why in the log too: the source's URL and how it failed
        log.info(
            "tool.call",
            tool=call.tool,
            env=call.env,
            status=result.status,
            ms=duration,
            attempts=attempts,
            **failed,
        )
        self.workspace.put(call_id, result)
        record = CallRecord(call_id, call, result, duration, attempts, seq=seq)
        self.records.append(record)
        self._tell(call, ended(result.status))
        return record

    async def _attempts(self, call: PlannedCall) -> tuple[ToolResult, int, int]:
        """The call, retried once on a transient failure: (result, attempts, ms)."""
        started = self.clock()
        attempts = 0
        while True:
            attempts += 1
            result = await self._attempt(call)
            retry = self.retry_transient and attempts == 1
            transient = result.error_kind is not None and result.error_kind.transient
            if result.status != "error" or not transient or not retry:
                break
            log.info("executor.retry", tool=call.tool, env=call.env, kind=result.error_kind)
        return result, attempts, int((self.clock() - started) * 1000)

    async def _attempt(self, call: PlannedCall) -> ToolResult:
        timeout = self.timeouts.get(call.source, self.default_timeout)
        try:
            return await asyncio.wait_for(
                self.gate.call(call.tool, call.arguments, self.ctx), timeout
            )
        except TimeoutError:
            return self._failed(call, f"no answer within {timeout:g} s", ErrorKind.TIMEOUT)
        except Exception as exc:  # a bug in one tool must not erase the others' evidence
            log.exception("tool.internal_error", tool=call.tool, env=call.env)
            message = f"internal error in {call.tool}: {type(exc).__name__}"
            return self._failed(call, message, ErrorKind.INTERNAL_ERROR)

    def _failed(self, call: PlannedCall, message: str, kind: ErrorKind) -> ToolResult:
        """A call the executor failed without an answer from its tool, in the call's env."""
        return failure_result(
            call.tool,
            self.ctx.scope.model_copy(update={"env": call.env}),
            call.source,
            "error",
            message,
            kind,
        )
