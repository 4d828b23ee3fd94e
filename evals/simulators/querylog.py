"""A record of every read the simulators served, for `queried` / `not_queried` checks."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class QueryRecord:
    source: str  # kubernetes | metrics | logs | gitlab
    env: str | None  # None for gitlab (one instance for all envs)
    method: str
    path: str
    params: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    status: int = 200

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "env": self.env,
            "method": self.method,
            "path": self.path,
            "params": self.params,
            "body": self.body,
            "status": self.status,
        }


class QueryLog:
    """Thread-safe: simulators run in their own thread, the bot reads from another."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: list[QueryRecord] = []

    def add(self, record: QueryRecord) -> None:
        with self._lock:
            self._records.append(record)

    def records(self) -> list[QueryRecord]:
        with self._lock:
            return list(self._records)

    def matches(self, source: str | None = None, env: str | None = None) -> list[QueryRecord]:
        return [
            r
            for r in self.records()
            if (source is None or r.source == source) and (env is None or r.env == env)
        ]

    def clear(self) -> None:
        with self._lock:
            self._records.clear()
