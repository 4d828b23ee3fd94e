"""The progress note: the post a turn shows while it reads, updated per source.

The executor tells the note each read as it starts and ends (planner/shapes/progress.py); the
note edits its post with what is being read now ("events and logs of X in prod", the words
in planner/shapes/progress_said.py) and how many reads are done, at most
once every `every_s` seconds (Mattermost rate-limits edits, and a person cannot read
faster), in the question's language. A failed edit is logged and forgotten: the note is
a courtesy, the answer is what counts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

import structlog

from bot.mattermost._api import MattermostApi
from planner import (
    Language,
    Phrase,
    ProgressEvent,
    ProgressKey,
    counted,
    reading_now,
    say,
    summarize,
)

log = structlog.get_logger(__name__)

UPDATE_EVERY_S = 2.0


def progress_text(reads: Iterable[ProgressEvent], language: Language) -> str:
    """ "Investigating… 3 of 7 reads done, 1 failed. Reading now: events and logs of X in
    prod; …" from the last event of each read."""
    summary = summarize(reads, language)
    if not summary.total:
        return f"_{say(Phrase.PROGRESS_START, language)}_"
    text = counted(summary, language)
    if now := reading_now(summary, language):
        text += f". {now}"
    return f"_{text.rstrip('.')}._"


class ProgressNote:
    """One turn's progress post. `tell` is the turn's progress sink; `close` stops the
    updates before the answer is posted (no edit lands after the note is deleted)."""

    def __init__(
        self,
        api: MattermostApi,
        post_id: str,
        language: Language,
        *,
        every_s: float = UPDATE_EVERY_S,
    ) -> None:
        self._api = api
        self._post_id = post_id
        self._language = language
        self._every = every_s
        self._reads: dict[ProgressKey, ProgressEvent] = {}
        self._loop = asyncio.get_running_loop()
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._editing = False  # an edit request is on its way
        self._shown = ""

    def tell(self, event: ProgressEvent) -> None:
        """The sink: may be called from any thread; the post is edited from the loop."""
        self._loop.call_soon_threadsafe(self._record, event)

    def _record(self, event: ProgressEvent) -> None:
        self._reads[event.key] = event
        if not self._closed and self._task is None:
            self._task = self._loop.create_task(self._update())

    async def _update(self) -> None:
        try:
            await asyncio.sleep(self._every)
            text = progress_text(self._reads.values(), self._language)
            if not self._closed and text != self._shown:
                self._editing = True
                try:
                    await self._api.patch_post(self._post_id, text, props={"infrabot": "progress"})
                finally:
                    self._editing = False
                self._shown = text
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a courtesy note must never fail the turn
            log.warning("mattermost.progress_not_updated", post=self._post_id, error=str(exc))
        finally:
            self._task = None

    async def close(self) -> None:
        """No edit after this returns: a wait for the next edit is cancelled, an edit
        already sent is waited for (cancelling would leave its HTTP request running, to
        land after the answer)."""
        self._closed = True
        task, self._task = self._task, None
        if task is None:
            return
        if not self._editing:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
