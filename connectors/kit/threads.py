"""Worker threads of one source, for the official SDKs that only block (kubernetes,
elasticsearch, python-gitlab).

`asyncio.to_thread` shares the loop's default executor, which has `cpu_count + 4`
threads: six on a two-core machine. An inventory reads six lists in each of three
environments at once, and the logs and GitLab tools wait behind them in the same queue,
so parallel reads ran six at a time. Each source gets its own pool instead, as wide as its
connection pool, so one slow source never queues another's reads.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class SourceThreads:
    """A thread pool made on first use and made again after `close` (a closed connector
    may be called again, e.g. by a later turn of a process that closed it early)."""

    def __init__(self, name: str, max_workers: int = 8) -> None:
        self._name = name
        self._max_workers = max_workers
        self._pool: ThreadPoolExecutor | None = None

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """`fn(*args)` in one of this source's threads, with the caller's contextvars."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self._max_workers, thread_name_prefix=self._name)
        call = functools.partial(contextvars.copy_context().run, fn, *args)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)

    def close(self) -> None:
        """Let running and queued calls finish in the background (a queued one cancelled
        would reach its caller as a bare CancelledError, not a source error); a later
        call starts a new pool."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False)
