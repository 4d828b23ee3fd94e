"""A follow-up that moves the thread's time: "and an hour earlier?", "а часом раньше?",
"two hours later?", "на день раньше", "30 минут спустя", "а накануне?", "the day before?".

Class "a time relative to the previous turn": the thread's time moved by the amount said,
in the direction said; the window keeps its width (`moved`).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from policy.scope import TimeSpec, shifted

_UNITS: tuple[tuple[re.Pattern[str], timedelta], ...] = (
    (re.compile(r"^(?:min|mins|minute|minutes|минут\w{0,2})$", re.I), timedelta(minutes=1)),
    (re.compile(r"^(?:h|hr|hrs|hour|hours|час\w{0,3})$", re.I), timedelta(hours=1)),
    (re.compile(r"^(?:day|days|ден\w{0,2}|дн\w{0,3}|сутк\w{0,2})$", re.I), timedelta(days=1)),
    (re.compile(r"^(?:week|weeks|недел\w{0,2})$", re.I), timedelta(weeks=1)),
)
_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "half": 0.5,
    "один": 1,
    "одну": 1,
    "два": 2,
    "две": 2,
    "три": 3,
    "полчаса": 0.5,
}
_LATER = frozenset({"later", "after", "позже", "позднее", "спустя"})
_SHIFT = re.compile(
    r"(?:\b(?P<n>\d{1,3}|an?|one|two|three|half|один|одну|два|две|три)\s++)?"
    r"(?:на\s++)?(?P<unit>[a-zа-яё]{1,8})\s++"
    r"(?P<dir>earlier|later|before|after|раньше|ранее|позже|позднее|спустя)\b",
    re.I,
)
# "а накануне?", "the day before?", "the previous day", "на следующий день": a day moved
_DAY_BEFORE = re.compile(
    r"\b(?:накануне|the day before|the previous day|the night before|днём раньше|днем раньше|"
    r"за день до)\b",
    re.I,
)
_DAY_AFTER = re.compile(
    r"\b(?:the day after|the next day|the following day|на следующий день|на другой день)\b",
    re.I,
)


def shift_asked(message: str) -> timedelta | None:
    """The signed shift the message asks of the thread's time, or None."""
    for m in _SHIFT.finditer(message):
        unit = next((size for rx, size in _UNITS if rx.match(m.group("unit"))), None)
        if unit is None:
            continue
        n_word = (m.group("n") or "1").lower()
        count = float(n_word) if n_word.isdigit() else float(_WORDS.get(n_word, 1))
        sign = 1 if m.group("dir").lower() in _LATER else -1
        return sign * count * unit
    if _DAY_BEFORE.search(message):
        return -timedelta(days=1)
    if _DAY_AFTER.search(message):
        return timedelta(days=1)
    return None


def moved(before: TimeSpec, delta: timedelta, now: datetime) -> TimeSpec:
    """The thread's time moved by `delta`, its width kept: its moment, or for a window
    that ended at the clock ("the last 2 hours") its end, so "an hour earlier" of the last
    2 hours reads from 3 hours ago to 1 hour ago, not the 2 hours around an hour ago. A
    window that ended at the clock moved later still ends at the clock."""
    if before.at is not None:
        return TimeSpec(at=shifted(before.at, delta), window=before.window, mode="historical")
    if delta >= timedelta(0):
        return before
    at = shifted(now, delta - before.window / 2)
    return TimeSpec(at=at, window=before.window, mode="historical")
