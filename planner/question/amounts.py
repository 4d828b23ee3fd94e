"""Amounts of time as people write them, in Russian and English: "2 часа", "two hours",
"пару часов", "около двух часов", the inverted "часа два" (a guess), "полчаса", "a couple
of hours". Read by the relative forms of `timeparse` ("3 часа назад", "last 2h", "since an
hour ago").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

__all__ = ["DURATION", "MAX_SPAN", "Duration", "duration"]

MAX_SPAN = timedelta(days=366)  # "last 99999999 days" is read as a year, not an overflow

_UNITS: dict[str, timedelta] = {
    "s": timedelta(seconds=1),
    "m": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
}
_UNIT_WORDS: list[tuple[str, str]] = [
    (r"sec(?:ond)?s?|сек(?:унд[уы]?)?", "s"),
    (r"min(?:ute)?s?|мин(?:ут[уы]?)?", "m"),
    (r"h(?:ou)?rs?|hours?|час(?:а|ов)?", "h"),
    (r"days?|дн(?:я|ей)|день|сутки|суток", "d"),
    (r"weeks?|недел[юиь]|недель", "w"),
]
# Amounts as people write them: digits, number words in every case Russian puts them in
# ("два часа", "около двух часов", "минут десять"), and vague amounts ("пару", "a couple
# of", "несколько") read as their usual size.
_NUM_WORDS: dict[str, float] = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "forty-five": 45,
    "fifty": 50,
    "ninety": 90,
    "couple of": 2,
    "a couple of": 2,
    "couple": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
    "один": 1,
    "одну": 1,
    "одного": 1,
    "два": 2,
    "две": 2,
    "двух": 2,
    "пару": 2,
    "пара": 2,
    "полтора": 1.5,
    "полторы": 1.5,
    "полутора": 1.5,
    "три": 3,
    "трёх": 3,
    "трех": 3,
    "четыре": 4,
    "четырёх": 4,
    "четырех": 4,
    "пять": 5,
    "пяти": 5,
    "шесть": 6,
    "шести": 6,
    "семь": 7,
    "семи": 7,
    "восемь": 8,
    "восьми": 8,
    "девять": 9,
    "девяти": 9,
    "десять": 10,
    "десяти": 10,
    "двенадцать": 12,
    "двенадцати": 12,
    "пятнадцать": 15,
    "пятнадцати": 15,
    "двадцать": 20,
    "двадцати": 20,
    "тридцать": 30,
    "тридцати": 30,
    "сорок": 40,
    "сорока": 40,
    "пятьдесят": 50,
    "пятидесяти": 50,
    "несколько": 3,
    "нескольких": 3,
}


def _unit_of(word: str) -> str | None:
    for pattern, unit in _UNIT_WORDS:
        if re.fullmatch(pattern, word):
            return unit
    if word in _UNITS:
        return word
    return None


_NUM = (
    r"(\d+(?:[.,]\d+)?|"
    + "|".join(sorted((re.escape(w) for w in _NUM_WORDS), key=len, reverse=True))
    + r")"
)
_UNIT_RX = "|".join(p for p, _ in _UNIT_WORDS) + r"|[smhdw]"
# "about", "около": the amount is a guess, so the window around it is wider
_APPROX = (
    r"(?:(?P<approx>about|around|roughly|approximately|some|~|около|примерно|где-то|где то|"
    r"почти)\s++)?"
)
_HALF = r"(?P<half>полчаса|получаса|half an hour|half-an-hour|a half hour|half hour)"
# a duration: "2 часа", "two hours", "пару часов", inverted "часа два" / "минут 15"
# (inverted is approximate in Russian), or half an hour. Spaces are read possessively
# (`\s++`): what follows them never starts with a space, and giving them back one at a time
# would retry every number and unit word at each (bounded work on a long run of spaces).
DURATION = (
    _APPROX
    + r"(?:"
    + _HALF
    + r"|(?P<n>"
    + _NUM[1:-1]
    + r")\s*+(?P<unit>"
    + _UNIT_RX
    + r")|(?P<iunit>"
    + _UNIT_RX
    + r")\s++(?P<in>"
    + _NUM[1:-1]
    + r")(?![\w:.])|(?P<bunit>"
    + _UNIT_RX
    + r"))"
)


def _count(raw: str | None) -> float:
    if raw is None:
        return 1
    raw = raw.strip().lower().replace(",", ".")
    if raw.replace(".", "", 1).isdigit():
        return min(float(raw[:8]), 999_999.0)
    return _NUM_WORDS.get(raw, 1)


@dataclass(frozen=True)
class Duration:
    """An amount of time said, and whether it was said as a guess."""

    span: timedelta
    approximate: bool


def duration(m: re.Match[str]) -> Duration | None:
    """The duration a `DURATION` match says, and whether it is a guess ("около", "about",
    or the Russian inverted order "часа два")."""
    approximate = bool(m["approx"]) or m["iunit"] is not None
    if m["half"]:
        return Duration(timedelta(minutes=30), approximate)
    if m["unit"]:
        raw_unit, raw_n = m["unit"], m["n"]
    elif m["iunit"]:
        raw_unit, raw_n = m["iunit"], m["in"]
    else:  # "около часа": one of the unit
        raw_unit, raw_n = m["bunit"], None
    unit = _unit_of(raw_unit.lower())
    if unit is None:
        return None
    span = min(_count(raw_n) * _UNITS[unit], MAX_SPAN)
    return Duration(span, approximate) if span > timedelta(0) else None
