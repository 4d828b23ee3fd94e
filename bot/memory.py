"""Working memory: per thread (channel, root post), process-local, lost on restart.

Limits (the product's rules for working memory): 90 minutes TTL, at most 20 entries per
thread, at most 12 KB when rendered into a prompt. Each entry keeps the turn's decided
context (scope, time, subject) and compact observations with observed_at, freshness, the
historical flag, scope and subject. The clock is injected so TTL behaviour is tested
instantly. An explicit new scope in a message beats memory; that rule lives in
planner.question.context.

Memory is context, never live evidence: `prompt_block` marks every line as remembered, with
its age, so nothing read from it can confirm "now". The number of threads is bounded too
(least recently used first out), so a busy channel cannot grow the process without limit.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from planner import ContextState

if TYPE_CHECKING:
    from bot.settings import MemorySettings
    from planner import AnswerFact

_MAX_TEXT_CHARS = 600  # one observation's text in a prompt line; longer text is cut


@dataclass(frozen=True)
class Observation:
    text: str
    source: str
    env: str | None
    observed_at: datetime | None
    freshness: str  # live | sample_time | event_time | snapshot
    historical: bool
    subject: str | None
    scope: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @classmethod
    def from_fact(
        cls,
        fact: AnswerFact,
        *,
        subject: str | None,
        freshness: str = "snapshot",
        historical: bool = True,
    ) -> Observation:
        """An answer fact as remembered: a snapshot of the past unless told otherwise."""
        return cls(
            text=fact.text,
            source=fact.source,
            env=fact.scope.get("env"),
            observed_at=fact.observed_at,
            freshness=freshness,
            historical=historical,
            subject=subject,
            scope=dict(fact.scope),
        )


@dataclass
class MemoryEntry:
    at: datetime
    question: str
    context: ContextState
    observations: list[Observation] = field(default_factory=list)
    # the turn asked back which env and object were meant: the reply completes this
    # question rather than starting a new one
    asked_back: bool = False


ThreadKey = tuple[str, str]


class WorkingMemory:
    def __init__(
        self,
        *,
        clock: Callable[[], datetime],
        ttl: timedelta = timedelta(minutes=90),
        max_entries: int = 20,
        max_prompt_bytes: int = 12 * 1024,
        max_threads: int = 1000,
    ) -> None:
        self._clock = clock
        self._ttl = ttl
        self._max_entries = max_entries
        self._max_prompt_bytes = max_prompt_bytes
        self._max_threads = max_threads
        self._threads: OrderedDict[ThreadKey, list[MemoryEntry]] = OrderedDict()

    @classmethod
    def from_settings(
        cls, settings: MemorySettings, *, clock: Callable[[], datetime]
    ) -> WorkingMemory:
        return cls(
            clock=clock,
            ttl=timedelta(minutes=settings.ttl_minutes),
            max_entries=settings.max_entries,
            max_prompt_bytes=settings.max_prompt_bytes,
        )

    def _fresh(self, entry: MemoryEntry, now: datetime) -> bool:
        return now - entry.at <= self._ttl

    def _live(self, key: ThreadKey) -> list[MemoryEntry]:
        now = self._clock()
        entries = [e for e in self._threads.get(key, []) if self._fresh(e, now)]
        if entries:
            self._threads[key] = entries
            self._threads.move_to_end(key)
        else:
            self._threads.pop(key, None)
        return entries

    def purge(self) -> None:
        """Drop every expired entry and every thread left empty."""
        now = self._clock()
        for key in list(self._threads):
            entries = [e for e in self._threads[key] if self._fresh(e, now)]
            if entries:
                self._threads[key] = entries
            else:
                del self._threads[key]

    def remember(self, channel: str, root: str, entry: MemoryEntry) -> None:
        key = (channel, root)
        self.purge()
        entries = self._live(key)
        entries.append(entry)
        self._threads[key] = entries[-self._max_entries :]
        self._threads.move_to_end(key)
        while len(self._threads) > self._max_threads:
            self._threads.popitem(last=False)

    def forget(self, channel: str, root: str) -> None:
        self._threads.pop((channel, root), None)

    def last_context(self, channel: str, root: str) -> ContextState | None:
        entries = self._live((channel, root))
        return entries[-1].context if entries else None

    def entries(self, channel: str, root: str) -> list[MemoryEntry]:
        return list(self._live((channel, root)))

    def prompt_block(self, channel: str, root: str) -> str:
        """Newest first, cut to the byte budget; marked as memory, never as live evidence.

        A line that does not fit is skipped (a smaller older one may still fit), so the
        block is never longer than `max_prompt_bytes` bytes, newlines included.
        """
        now = self._clock()
        lines: list[str] = []
        size = 0
        for entry in reversed(self._live((channel, root))):
            for obs in entry.observations:
                line = _prompt_line(entry, obs, now)
                cost = len(line.encode()) + (1 if lines else 0)
                if size + cost > self._max_prompt_bytes:
                    continue
                lines.append(line)
                size += cost
        return "\n".join(lines)

    def threads(self) -> int:
        return len(self._threads)


def _prompt_line(entry: MemoryEntry, obs: Observation, now: datetime) -> str:
    text = obs.text if len(obs.text) <= _MAX_TEXT_CHARS else obs.text[:_MAX_TEXT_CHARS] + "…"
    age = int((now - entry.at).total_seconds() // 60)
    return json.dumps(
        {
            "memory_of": entry.question[:200],
            "remembered_minutes_ago": age,
            "text": text,
            "source": obs.source,
            "env": obs.env,
            "scope": obs.scope or None,
            "subject": obs.subject,
            "observed_at": obs.observed_at.isoformat() if obs.observed_at else None,
            "freshness": obs.freshness,
            "historical": obs.historical,
        },
        ensure_ascii=False,
        default=str,
    )
