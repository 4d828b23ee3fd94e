"""A follow-up that moves the thread's time: "and an hour earlier?", "а часом раньше?",
"two hours later?", "на день раньше", "30 минут спустя".

Class "a time relative to the previous turn": the thread's moment (or its window's end)
moved by the amount said, in the direction said; the window stays the thread's.
"""

from __future__ import annotations

import re
from datetime import timedelta

_UNITS: tuple[tuple[re.Pattern[str], timedelta], ...] = (
    (re.compile(r"^(?:min|mins|minute|minutes|минут\w{0,2})$", re.I), timedelta(minutes=1)),
    (re.compile(r"^(?:h|hr|hrs|hour|hours|час\w{0,3})$", re.I), timedelta(hours=1)),
    (re.compile(r"^(?:day|days|ден\w{0,2}|дн\w{0,3}|сутк\w{0,2})$", re.I), timedelta(days=1)),
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
    r"(?:\b(?P<n>\d{1,3}|an?|one|two|three|half|один|одну|два|две|три)\s+)?"
    r"(?:на\s+)?(?P<unit>[a-zа-яё]{1,8})\s+"
    r"(?P<dir>earlier|later|before|after|раньше|ранее|позже|позднее|спустя)\b",
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
        sign = (
            1 if m.group("dir").lower() in ("later", "after", "позже", "позднее", "спустя") else -1
        )
        return sign * count * unit
    return None
