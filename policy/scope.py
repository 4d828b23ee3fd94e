"""Scope of a question: which environment, object and time it is about.

`Scope` lives in `policy` because every tool result carries the scope it actually read;
the planner's context state (`planner.question.context`) produces it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

TimeMode = Literal["now", "historical"]


def parse_iso_duration(text: str) -> timedelta:
    """Parse the small ISO-8601 duration subset we emit and accept (PnDTnHnMnS)."""
    m = re.fullmatch(
        r"P(?:(?P<d>\d+)D)?(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?",
        text.strip().upper(),
    )
    if not m or text.strip().upper() in ("P", "PT"):
        raise ValueError(f"not an ISO-8601 duration: {text!r}")
    return timedelta(
        days=int(m["d"] or 0),
        hours=int(m["h"] or 0),
        minutes=int(m["m"] or 0),
        seconds=float(m["s"] or 0),
    )


def format_iso_duration(delta: timedelta) -> str:
    total = int(delta.total_seconds())
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    out = "P" + (f"{days}D" if days else "")
    tail = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    tail += f"{seconds}S" if seconds else ""
    if tail:
        out += "T" + tail
    return out if out != "P" else "PT0S"


class TimeSpec(BaseModel):
    """When a question is about.

    `mode="now"` asks about the present: only live observations may confirm it.
    `mode="historical"` asks about the past around `at` (or the `window` before the clock).
    """

    model_config = ConfigDict(extra="forbid")

    at: datetime | None = None
    window: timedelta = timedelta(minutes=15)
    mode: TimeMode = "now"

    @field_validator("window", mode="before")
    @classmethod
    def _parse_window(cls, value: object) -> object:
        if isinstance(value, str) and value.upper().startswith("P"):
            return parse_iso_duration(value)
        return value

    @field_serializer("window")
    def _dump_window(self, value: timedelta) -> str:
        return format_iso_duration(value)

    def bounds(self, now: datetime) -> tuple[datetime, datetime]:
        """The [start, end] interval to read: centred on `at`, or the window before now.
        Never past the calendar's ends (a question about 9999-12-31 is still a question)."""
        if self.at is not None:
            half = self.window / 2
            late = shifted(self.at, half)
            end = min(late, now) if self.at <= now else late
            return shifted(self.at, -half), end
        return shifted(now, -self.window), now


EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def shifted(moment: datetime, delta: timedelta) -> datetime:
    """`moment + delta` held inside 1970..9000: the datetime range ends at year 9999 and
    no source has data beyond these anyway."""
    try:
        out = moment + delta
    except OverflowError:
        out = LATEST if delta > timedelta(0) else EARLIEST
    aware = out if out.tzinfo else out.replace(tzinfo=UTC)
    return min(max(aware, EARLIEST), LATEST)


class Scope(BaseModel):
    """What a question (or one tool read) is about. Unset fields are unknown, not 'all'."""

    model_config = ConfigDict(extra="forbid")

    env: str | None = None
    namespace: str | None = None
    object: str | None = None
    subject: str | None = None
    time: TimeSpec = Field(default_factory=TimeSpec)
