"""What a turn is reading right now, for a surface that shows it while the turn runs (the
web chat's live progress, a Mattermost progress note).

The executor tells a `ProgressSink` when each read starts and how it ended; a sink that
fails is ignored (showing progress must never break a turn).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

import structlog
from pydantic import BaseModel, ConfigDict

log = structlog.get_logger(__name__)


class CallState(StrEnum):
    READING = "reading"
    DONE = "done"  # something came back
    EMPTY = "empty"  # the read worked and found nothing
    FAILED = "failed"  # an error, a timeout, a refusal, or skipped as down


class ProgressEvent(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    source: str
    env: str | None
    state: CallState


ProgressSink = Callable[[ProgressEvent], None]


def tell(sink: ProgressSink | None, event: ProgressEvent) -> None:
    """Give `event` to `sink`, if any; whatever the sink does wrong stays in the sink."""
    if sink is None:
        return
    try:
        sink(event)
    except Exception as exc:  # a surface's bug must not stop the investigation
        log.warning("progress.sink_failed", error=repr(exc)[:200])


def ended(status: str) -> CallState:
    """A ToolResult's status as a progress state."""
    if status == "ok":
        return CallState.DONE
    if status == "empty":
        return CallState.EMPTY
    return CallState.FAILED
