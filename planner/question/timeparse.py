"""Time expressions in Russian and English -> TimeSpec, in the configured timezone.

Recognised (case-insensitive): "в 14:11", "at 14:11", "14:11 UTC", "вчера в 21:00",
"yesterday", "позавчера", "сегодня"/"today", "за последний час", "за последние 2 часа",
"last 2h", "past 30 minutes", "3 часа назад", "2 hours ago", "сейчас"/"now"/"currently",
ISO dates and datetimes ("2026-07-20", "2026-07-20T14:11", "2026-07-20 14:11:05+03:00"),
"20.07.2026 14:11".
Amounts as people write them: number words in any case ("около двух часов назад"), vague
ones ("пару часов", "a couple of hours"), half an hour, and the Russian inverted order
that marks a guess ("часа два назад", "минут десять назад"); a guessed amount ago is read
with a window half as wide as the amount. "since an hour ago", "с 10 утра", "since 9pm";
parts of a day, of yesterday or today: "вчера вечером", "yesterday evening", "днём".

Semantics: a moment in the past (`at`) or a closed past interval is `historical`; a window
that ends at the clock ("last hour") or "now" is `now`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

from policy.scope import TimeMode, TimeSpec

DEFAULT_WINDOW = timedelta(minutes=15)

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
_DURATION = (
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
_CLOCK = r"(?P<hh>[01]?\d|2[0-3])[:.](?P<mm>[0-5]\d)(?::(?P<ss>[0-5]\d))?"
_TZ = r"(?:\s*(?P<tz>utc|gmt|мск|msk|z|[+-]\d{2}:?\d{2}))?"

RX_NOW = re.compile(
    r"\b(now|right now|currently|at the moment|current(?:ly)?|сейчас|сейчас же|в данный момент|"
    r"на данный момент|текущ\w*|still|anymore|any more|всё ещё|все ещё|до сих пор|"
    r"продолжа\w*)\b",
    re.I,
)
RX_ISO = re.compile(
    r"\b(?P<date>\d{4}-\d{2}-\d{2})(?:[T\s]" + _CLOCK + r"(?:\.\d+)?" + _TZ + r")?\b", re.I
)
RX_DMY = re.compile(
    r"\b(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})(?:\s+" + _CLOCK + _TZ + r")?", re.I
)
RX_CLOCK = re.compile(r"(?<![\d:.\-])" + _CLOCK + _TZ + r"(?![\d:]|\.\d)", re.I)
# "2 hours ago", "часа два назад", "около получаса назад", "a couple of hours ago"; a
# duration starts with a word character or "~", so any other place is refused at once.
# This and RX_SINCE_AGO read lower-cased text only (`_parse_time`'s `low`): without re.I
# each of their many alternatives is a plain comparison, 4x faster on a long text.
RX_DURATION_AGO = re.compile(r"(?<![\w-])(?=[\w~])" + _DURATION + r"\s++(?:ago|назад)\b")
# "since an hour ago", "с двух часов назад": from then until now
RX_SINCE_AGO = re.compile(
    r"\b(?:since|starting|начиная с|с|со)\s++" + _DURATION + r"\s++(?:ago|назад)\b"
)
# "часа два назад начались 503", "errors started 20 minutes ago": the amount puts the
# symptom's start, which still goes on; read like "since" (a verb of beginning beside it)
RX_BEGAN = re.compile(
    r"\b(?:начал(?:ся|ась|ось|ись|и|о|а)?|пошл[иао]|посыпал\w*|появил(?:ся|ась|ось|ись)|"
    r"started|starting|began|begun|kicked off|showed up|appeared)\b",
    re.I,
)
_BEGAN_NEAR = 40  # characters around the amount the verb of beginning must be within
# "last couple of hours", "за последние часа два", "in the past 90 minutes"
RX_DURATION_LAST = re.compile(
    r"\b(?:in the last|in the past|over the last|over the past|within the last|for the last|"
    r"during the last|the last|the past|previous|last|past|последн\w*|прошедш\w*|"
    r"за последн\w*|за прошедш\w*|за)\s++" + _DURATION + r"(?![\w-])",
    re.I,
)
# "с 10 утра", "since 9am", "с 9 вечера": an hour of the day without minutes
RX_SINCE_HOUR = re.compile(
    r"\b(?:since|starting at|from|начиная с|с|со)\s+(?P<h>[01]?\d|2[0-3])\s*"
    r"(?P<ampm>am|pm|a\.m\.|p\.m\.|ночи|утра|дня|вечера|h|ч|час\w*)(?![\w:.])",
    re.I,
)
# parts of a day, optionally of yesterday or today: "вчера вечером", "yesterday evening"
RX_EVENING = re.compile(r"\b(?:вечером|вечера|this evening|in the evening|evening|tonight)\b", re.I)
RX_AFTERNOON = re.compile(r"\b(?:днём|днем|this afternoon|in the afternoon|afternoon)\b", re.I)
_CLOCK2 = _CLOCK.replace("hh", "hh2").replace("mm", "mm2").replace("ss", "ss2")
RX_RANGE = re.compile(
    r"(?:\b(?:с|со|from|between)\s+)?"
    + _CLOCK
    + r"\s*(?:до|по|to|till|until|and|-|–|—)\s*"
    + _CLOCK2
    + _TZ,
    re.I,
)
RX_SINCE = re.compile(
    r"\b(?:since|starting (?:at|from)|начиная с|начиная со|c|с|со)\s+"
    # "since about 14:20", "примерно с 12:30" reads the same: a rounded clock time
    r"(?:(?:about|around|approximately|roughly|~|около|примерно|где-то)\s*)?"
    + _CLOCK
    + _TZ
    + r"(?!\s*(?:до|по|to|till|until|and|-|–|—)\s*\d)",
    re.I,
)
RX_MORNING = re.compile(
    r"\b(?:с утра|this morning|since (?:the )?morning|утром|since morning)\b", re.I
)
RX_NIGHT = re.compile(
    r"\b(?:ночью|этой ночью|сегодня ночью|last night|overnight|tonight|at night)\b", re.I
)
RX_HOUR_ONLY = re.compile(
    r"\b(?:around|about|at|около|в|к)\s+(?P<h>[01]?\d|2[0-3])\s*"
    r"(?P<ampm>am|pm|a\.m\.|p\.m\.|ночи|утра|дня|вечера|h|ч|час\w*)?(?![\d:.])",
    re.I,
)
# "полчаса" alone: the last half hour
RX_HALF_HOUR = re.compile(r"\bполчаса\b", re.I)
RX_YESTERDAY = re.compile(r"\b(yesterday|вчера|вчерашн\w*)\b", re.I)
RX_DAY_BEFORE = re.compile(r"\b(day before yesterday|позавчера)\b", re.I)
RX_TODAY = re.compile(r"\b(today|сегодня|сегодняшн\w*)\b", re.I)


@dataclass(frozen=True)
class TimeMatch:
    """The time found in one message, or None if it says nothing about time."""

    spec: TimeSpec
    explicit: bool  # the message itself stated a time (beats memory)
    text: str
    # the moment a clock time in the message puts the symptom's start ("503 since 12:30",
    # "502 at 14:11"); None for a vague span ("this morning", "last hour")
    onset: datetime | None = None


def _tz_of(token: str | None, default: tzinfo) -> tzinfo:
    if not token:
        return default
    token = token.lower()
    if token in ("utc", "gmt", "z"):
        return ZoneInfo("UTC")
    if token in ("мск", "msk"):
        return ZoneInfo("Europe/Moscow")
    sign = 1 if token[0] == "+" else -1
    digits = token[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


def _count(raw: str | None) -> float:
    if raw is None:
        return 1
    raw = raw.strip().lower().replace(",", ".")
    if raw.replace(".", "", 1).isdigit():
        return min(float(raw[:8]), 999_999.0)
    return _NUM_WORDS.get(raw, 1)


@dataclass(frozen=True)
class _Duration:
    span: timedelta
    approximate: bool


def _duration(m: re.Match[str]) -> _Duration | None:
    """The duration a `_DURATION` match says, and whether it is a guess ("около", "about",
    or the Russian inverted order "часа два")."""
    approximate = bool(m["approx"]) or m["iunit"] is not None
    if m["half"]:
        return _Duration(timedelta(minutes=30), approximate)
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
    return _Duration(span, approximate) if span > timedelta(0) else None


def _hour_of_day(hour: int, ampm: str | None) -> int:
    """9 pm / 9 вечера -> 21; 12 am / 12 ночи -> 0; 10 утра -> 10."""
    mark = (ampm or "").lower().replace(".", "")
    if mark in ("pm", "вечера", "дня") and hour < 12:
        return hour + 12
    if mark in ("am", "ночи") and hour == 12:
        return 0
    return hour


_TIME_WORD_BEFORE = re.compile(
    r"(?:\bв|\bat|\bс|\bсо|\bfrom|\bдо|\bto|\bк|\bоколо|\baround|\bпосле|\bafter|\bsince)\s*$",
    re.I,
)


def _clock_like(rx: re.Pattern[str], text: str) -> re.Match[str] | None:
    """A clock match, but "0.05", "1.25" or "v2.14" are numbers: a dot separates hours
    and minutes only after a time word ("в 14.11", "at 9.30")."""
    for m in rx.finditer(text):
        dotted = text[m.end("hh")] == "."
        if not dotted or _TIME_WORD_BEFORE.search(text[: m.start()]):
            return m
    return None


MAX_SPAN = timedelta(days=366)  # "last 99999999 days" is read as a year, not an overflow


def parse_time(text: str, now: datetime, tz: tzinfo) -> TimeMatch | None:
    """The time a message talks about. Never raises; returns None when it says nothing
    (or says something impossible, like "+99:99")."""
    try:
        return _parse_time(text, now, tz)
    except (ValueError, OverflowError):
        return None


# "yesterday night's rates", "last week's release": a time that qualifies a thing (a
# possessive, or the Russian adjective "вчерашний") is not when the question is about
RX_QUALIFYING_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|last night|this morning|last week)"
    r"(?:\s+(?!(?:it|that|he|she|there|what|who|this)'s\b)\w+)?'s\b"
    # the adjective of a thing ("вчерашние курсы"), not of a time ("вчерашний день")
    r"|\b(?:вчерашн|сегодняшн|позавчерашн)\w*\b(?!\s+(?:день|дня|вечер\w*|ноч\w*|утр\w*))",
    re.I,
)


@dataclass(frozen=True)
class _Said:
    """One message as every form reads it: the text as written, its lower-cased form with
    qualifying times blanked, the clock, and the day it names ("yesterday", "today"), which
    the clock-time and part-of-day forms are read on."""

    text: str
    low: str
    now: datetime
    tz: tzinfo
    day: date | None
    day_text: str

    @property
    def local_now(self) -> datetime:
        return self.now.astimezone(self.tz)

    def day_in(self, zone: tzinfo) -> date:
        """The day named, or today in `zone` (a clock time may carry its own zone)."""
        return self.day or self.now.astimezone(zone).date()


def _said(text: str, now: datetime, tz: tzinfo) -> _Said:
    low = RX_QUALIFYING_TIME.sub(" ", text.lower())
    today = now.astimezone(tz).date()
    for rx, back in ((RX_DAY_BEFORE, 2), (RX_YESTERDAY, 1), (RX_TODAY, 0)):
        if m := rx.search(low):
            return _Said(text, low, now, tz, today - timedelta(days=back), m.group(0))
    return _Said(text, low, now, tz, None, "")


def _clock_at(m: re.Match[str], day: date, zone: tzinfo, suffix: str = "") -> datetime:
    """The moment a `_CLOCK` match (its groups named with `suffix`) says on `day`."""
    hh, mm, ss = m["hh" + suffix], m["mm" + suffix], m["ss" + suffix]
    return datetime.combine(day, time(int(hh), int(mm), int(ss or 0)), zone)


def _mode_ending(end: datetime, now: datetime) -> TimeMode:
    """What ended over two minutes ago is history; anything later is still "now"."""
    return "historical" if end < now - timedelta(minutes=2) else "now"


def _dated(m: re.Match[str], day: date, said: _Said) -> TimeMatch:
    """A written date: the moment its clock time says, or the whole day without one."""
    if m["hh"] is not None:
        at = _clock_at(m, day, _tz_of(m["tz"], said.tz))
        return TimeMatch(_moment(at, said.now), True, m.group(0))
    return TimeMatch(_whole_day(day, said.tz, said.now), True, m.group(0))


def _iso_date(said: _Said) -> TimeMatch | None:
    """ "2026-07-20", "2026-07-20T14:11", "2026-07-20 14:11:05+03:00"."""
    if (m := RX_ISO.search(said.text)) is None:
        return None
    try:
        day = date.fromisoformat(m["date"])
    except ValueError:
        return None
    return _dated(m, day, said)


def _dmy_date(said: _Said) -> TimeMatch | None:
    """ "20.07.2026", "20.07.2026 14:11"."""
    if (m := RX_DMY.search(said.text)) is None:
        return None
    try:
        day = date(int(m["y"]), int(m["m"]), int(m["d"]))
    except ValueError:
        return None
    return _dated(m, day, said)


def _since_clock(said: _Said) -> TimeMatch | None:
    """ "since 10:30": from then until now."""
    if (m := _clock_like(RX_SINCE, said.text)) is None:
        return None
    zone = _tz_of(m["tz"], said.tz)
    since = _clock_at(m, said.day_in(zone), zone)
    return _since(since, said.day is None, said.now, m.group(0))


def _since_hour(said: _Said) -> TimeMatch | None:
    """ "с 10 утра", "since 9pm": from that hour until now."""
    if (m := RX_SINCE_HOUR.search(said.low)) is None:
        return None
    hour = time(_hour_of_day(int(m["h"]), m["ampm"]))
    since = datetime.combine(said.day_in(said.tz), hour, said.tz)
    return _since(since, said.day is None, said.now, m.group(0))


def _clock_range(said: _Said) -> TimeMatch | None:
    """ "с 14:00 до 14:30", "between 9:10 and 9:40": that closed span (over midnight when
    the second is earlier; yesterday's when it would begin later today)."""
    if (m := _clock_like(RX_RANGE, said.text)) is None:
        return None
    zone = _tz_of(m["tz"], said.tz)
    base_day = said.day_in(zone)
    first, last = _clock_at(m, base_day, zone), _clock_at(m, base_day, zone, "2")
    if last < first:
        last += timedelta(days=1)
    if said.day is None and first > said.now + timedelta(minutes=5):
        first -= timedelta(days=1)
        last -= timedelta(days=1)
    spec = TimeSpec(
        at=first + (last - first) / 2,
        window=max(last - first, timedelta(minutes=1)),
        mode=_mode_ending(last, said.now),
    )
    return TimeMatch(spec, True, m.group(0), onset=first)


def _clock_time(said: _Said) -> TimeMatch | None:
    """ "в 14:11", "вчера в 21:00", "at 11:11 UTC": that moment."""
    if (m := _clock_like(RX_CLOCK, said.text)) is None:
        return None
    zone = _tz_of(m["tz"], said.tz)
    at = _clock_at(m, said.day_in(zone), zone)
    if said.day is None and at > said.now + timedelta(minutes=5):
        at -= timedelta(days=1)  # "at 23:10" asked at 09:00 means last night
    return TimeMatch(
        _moment(at, said.now), True, (said.day_text + " " + m.group(0)).strip(), onset=at
    )


def _part_of_day(start: datetime, end: datetime, now: datetime, text: str) -> TimeMatch | None:
    """A part of a day from `start` to `end` (cut at now); None when it has not begun."""
    if start >= now:
        return None
    end = min(end, now)
    window = max(end - start, timedelta(minutes=1))
    spec = TimeSpec(at=start + window / 2, window=window, mode=_mode_ending(end, now))
    return TimeMatch(spec, True, text)


def _evening_or_afternoon(said: _Said) -> TimeMatch | None:
    """ "вчера вечером" 18:00-24:00, "днём" 12:00-18:00 of that day; without a day, the last
    such part that has begun. A night or a morning named beside it wins (read later)."""
    part = RX_EVENING.search(said.low) or RX_AFTERNOON.search(said.low)
    if not part or RX_NIGHT.search(said.low) or RX_MORNING.search(said.low):
        return None
    first_hour = 18 if RX_EVENING.fullmatch(part.group(0)) else 12
    start = datetime.combine(said.day_in(said.tz), time(first_hour), said.tz)
    if said.day is None and start > said.now:
        start -= timedelta(days=1)
    said_text = (said.day_text + " " + part.group(0)).strip()
    return _part_of_day(start, start + timedelta(hours=6), said.now, said_text)


def _since_ago(said: _Said) -> TimeMatch | None:
    """ "since an hour ago": from then until now."""
    if (m := RX_SINCE_AGO.search(said.low)) is None or (found := _duration(m)) is None:
        return None
    spec = TimeSpec(at=said.now - found.span / 2, window=found.span, mode="now")
    return TimeMatch(spec, True, m.group(0))


def _last_span(said: _Said) -> TimeMatch | None:
    """ "last 2h", "за последние часа два": a window that ends now."""
    if (m := RX_DURATION_LAST.search(said.low)) is None or (found := _duration(m)) is None:
        return None
    return TimeMatch(TimeSpec(window=found.span, mode="now"), True, m.group(0))


def _span_ago(said: _Said) -> TimeMatch | None:
    """ "2 hours ago": a moment that long ago; a guessed amount ("часа два", "about 20
    minutes") is read with a window as wide as half of it, never narrower than the default.
    With a verb of beginning beside it, the symptom began then and still goes on."""
    if (m := RX_DURATION_AGO.search(said.low)) is None or (found := _duration(m)) is None:
        return None
    if (ongoing := _began_ago(said, m, found)) is not None:
        return ongoing
    spec = _moment(said.now - found.span, said.now)
    if found.approximate and found.span / 2 > spec.window:
        spec = spec.model_copy(update={"window": found.span / 2})
    return TimeMatch(spec, True, m.group(0))


def _began_ago(said: _Said, m: re.Match[str], found: _Duration) -> TimeMatch | None:
    """ "errors started 20 minutes ago": from a little before it until now (a guessed amount
    a quarter of it before, an exact one five minutes); None without a verb of beginning."""
    near = said.low[max(0, m.start() - _BEGAN_NEAR) : m.end() + _BEGAN_NEAR]
    if not RX_BEGAN.search(near):
        return None
    began = said.now - found.span
    margin = found.span / 4 if found.approximate else timedelta(minutes=5)
    ongoing = _since(began - margin, False, said.now, m.group(0))
    if ongoing is None:
        return None
    # the onset bounds what can have caused it: a guess may be late by its margin
    late = margin if found.approximate else timedelta()
    return replace(ongoing, onset=began + late)


def _night_or_morning(said: _Said) -> TimeMatch | None:
    """ "ночью", "last night" (00:00-06:00 of the day, or the hour named in it); else "с
    утра", "this morning" (06:00 until now or the day's end)."""
    base = said.day_in(said.tz)
    if night := RX_NIGHT.search(said.low):
        if hour_m := RX_HOUR_ONLY.search(said.low):
            at = datetime.combine(base, time(int(hour_m["h"])), said.tz)
            mode: TimeMode = "historical" if at < said.now else "now"
            spec = TimeSpec(at=at, window=timedelta(hours=1), mode=mode)
            return TimeMatch(spec, True, night.group(0))
        start = datetime.combine(base, time(0), said.tz)
        return _part_of_day(start, start + timedelta(hours=6), said.now, "night")
    if RX_MORNING.search(said.low):
        start = datetime.combine(base, time(6), said.tz)
        end = min(said.now, datetime.combine(base, time(23, 59), said.tz))
        return _part_of_day(start, end, said.now, "morning")
    return None


def _half_hour(said: _Said) -> TimeMatch | None:
    """ "полчаса" alone: the last half hour."""
    if not RX_HALF_HOUR.search(said.low):
        return None
    return TimeMatch(TimeSpec(window=timedelta(minutes=30), mode="now"), True, "30m")


def _named_day(said: _Said) -> TimeMatch | None:
    """A day with nothing more: today until now, or that whole day. "is it running now? we
    deployed yesterday" is about now; the day is context."""
    if said.day is None:
        return None
    if RX_NOW.search(said.low):
        return TimeMatch(TimeSpec(mode="now"), True, "now")
    if said.day == said.local_now.date():
        midnight = datetime.combine(said.day, time(0), said.tz)
        window = max(said.now - midnight, timedelta(minutes=1))
        return TimeMatch(TimeSpec(window=window, mode="now"), True, said.day_text)
    return TimeMatch(_whole_day(said.day, said.tz, said.now), True, said.day_text)


def _now(said: _Said) -> TimeMatch | None:
    """ "сейчас", "now", "still": the present."""
    if not RX_NOW.search(said.low):
        return None
    return TimeMatch(TimeSpec(mode="now"), True, "now")


# The forms a time is written in, most specific first: the first that reads the message
# decides its time (a written date beats a clock time, which beats a part of the day).
_FORMS: tuple[Callable[[_Said], TimeMatch | None], ...] = (
    _iso_date,
    _dmy_date,
    _since_clock,
    _since_hour,
    _clock_range,
    _clock_time,
    _evening_or_afternoon,
    _since_ago,
    _last_span,
    _span_ago,
    _night_or_morning,
    _half_hour,
    _named_day,
    _now,
)


def _parse_time(text: str, now: datetime, tz: tzinfo) -> TimeMatch | None:
    said = _said(text, now, tz)
    for form in _FORMS:
        if (found := form(said)) is not None:
            return found
    return None


def _since(since: datetime, roll_back: bool, now: datetime, said: str) -> TimeMatch | None:
    """From `since` until now; a time later today than now means yesterday's when no day
    was named (`roll_back`)."""
    if roll_back and since > now:
        since -= timedelta(days=1)
    if since >= now:
        return None
    window = now - since
    spec = TimeSpec(at=since + window / 2, window=window, mode="now")
    return TimeMatch(spec, True, said, onset=since)


def _moment(at: datetime, now: datetime) -> TimeSpec:
    return TimeSpec(at=at, window=DEFAULT_WINDOW, mode=_mode_ending(at, now))


def _whole_day(d: date, tz: tzinfo, now: datetime) -> TimeSpec:
    start = datetime.combine(d, time(0), tz)
    centre = start + timedelta(hours=12)
    mode: TimeMode = "historical" if start + timedelta(days=1) <= now else "now"
    return TimeSpec(at=centre, window=timedelta(days=1), mode=mode)
