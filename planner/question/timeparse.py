"""Time expressions in Russian and English -> TimeSpec, in the asker's time zone.

The classes of time a question names, each one form below (`_FORMS`, most specific first):
- a written date or clock time: "2026-07-20 14:11", "20.07.2026", "в 14:11", "at 11pm",
  "11:30 pm", "в 9 утра", "14:11 UTC" (a zone written with it is kept; otherwise the
  asker's). A clock time with no day is the most recent past such time in the asker's
  zone ("at 23:50" asked at 00:20 is 30 minutes ago), never tomorrow;
- a range: "с 14:00 до 14:30", "between 9:10 and 9:40";
- an onset to now: "since 11:10", "с утра", "со вчерашнего вечера", "после деплоя в
  11:10", "since the deploy this morning (around 11:10)", "since Monday", "since an hour
  ago", "errors started 20 minutes ago": the window from the onset to now, the onset kept
  for the rules that bound causes by it;
- an amount relative to now: "за последний час", "last 2h", "3 часа назад", "около
  двух часов назад", "часа два назад" (the inverted order marks a guess: a window half as
  wide as the amount);
- a part of a day, of a named day or the most recent: "last night", "этой ночью", "вчера
  вечером", "this morning", "ночной бэкап" (hours and midnight crossing in `dayparts`);
- a named day: "вчера", "today", "в понедельник", "7 Dec", "07.12";
- the present: "сейчас", "now", "still".
A time said only as a qualifier of a thing ("yesterday night's rates") gives way to any
other time the message says; alone, it is the time ("why didn't last night's backup run?").

Semantics: a moment in the past (`at`) or a closed past interval is `historical`; a window
that ends at the clock ("last hour") or "now" is `now`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

from planner.question.amounts import DURATION, MAX_SPAN, Duration, duration
from planner.question.dayparts import (
    RX_DAY_MONTH,
    RX_PART,
    RX_TONIGHT,
    RX_WEEKDAY,
    DayPart,
    date_named,
    hour_in_part,
    part_named,
    part_window,
    recent_part,
    weekday_named,
)
from policy.scope import TimeMode, TimeSpec

__all__ = ["APPROX_MARGIN", "MAX_SPAN", "TimeMatch", "parse_time"]

DEFAULT_WINDOW = timedelta(minutes=15)

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
_AMPM = r"(?P<ampm>am|pm|a\.m\.|p\.m\.|утра|вечера|ночи|дня)"
# "23:50", "11:30 pm", "в 9.30 вечера", "10:00Z"
RX_CLOCK = re.compile(
    r"(?<![\d:.\-])" + _CLOCK + r"(?:\s*" + _AMPM + r"(?!\w))?" + _TZ + r"(?![\d:]|\.\d)", re.I
)
# "2 hours ago", "часа два назад", "около получаса назад", "a couple of hours ago"; a
# duration starts with a word character or "~", so any other place is refused at once.
# This and RX_SINCE_AGO read lower-cased text only (`_parse_time`'s `low`): without re.I
# each of their many alternatives is a plain comparison, 4x faster on a long text.
RXDURATION_AGO = re.compile(r"(?<![\w-])(?=[\w~])" + DURATION + r"\s++(?:ago|назад)\b")
# "since an hour ago", "с двух часов назад": from then until now
RX_SINCE_AGO = re.compile(
    r"\b(?:since|starting|начиная с|с|со)\s++" + DURATION + r"\s++(?:ago|назад)\b"
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
RXDURATION_LAST = re.compile(
    r"\b(?:in the last|in the past|over the last|over the past|within the last|for the last|"
    r"during the last|the last|the past|previous|last|past|последн\w*|прошедш\w*|"
    r"за последн\w*|за прошедш\w*|за)\s++" + DURATION + r"(?![\w-])",
    re.I,
)
# An hour without minutes: "11 pm", "at 11pm", "9 утра", "в 14 ч", "с 10 часов". With a
# mark of the half of the day it is a time wherever it stands; "h", "ч", "часов" make it
# one only after a word that takes a time ("в 2 часа", not "за 2 часа").
RX_HOUR_CLOCK = re.compile(
    r"(?<![\w:.])(?:(?P<prep>at|around|about|since|from|after|till|until|by|в|к|около|"
    r"примерно|с|со|после|до|начиная с)\s+)?(?P<h>[01]?\d|2[0-3])\s*"
    r"(?:"
    + _AMPM
    + r"|(?P<oclock>o'clock)|(?P<hmark>h|ч|час(?:а|ов)?))"
    + _TZ
    + r"(?![\w:.])(?!\s*(?:ago|назад)\b)",
    re.I,
)
# the words after which "3 дня" is 15:00, and "2 часа", "14h" an hour rather than an
# amount ("after 2h", "после 2 часов работы" are amounts)
_TAKES_AN_HOUR = re.compile(r"at|since|from|after|till|until|by|в|к|с|со|после|до|начиная с", re.I)
_TAKES_AN_HOUR_MARK = re.compile(r"at|since|from|в|к|с|со|начиная с", re.I)
# "ночью около 3", "вечером в 9": a bare hour beside a part of the day
RX_HOUR_ONLY = re.compile(
    r"\b(?:around|about|at|около|в|к)\s+(?P<h>[01]?\d|2[0-3])\s*"
    r"(?P<ampm>am|pm|a\.m\.|p\.m\.|ночи|утра|дня|вечера|h|ч|час\w*)?(?![\d:.])",
    re.I,
)
_CLOCK2 = _CLOCK.replace("hh", "hh2").replace("mm", "mm2").replace("ss", "ss2")
RX_RANGE = re.compile(
    r"(?:\b(?:с|со|from|between)\s+)?"
    + _CLOCK
    + r"\s*(?:до|по|to|till|until|and|-|–|—)\s*"
    + _CLOCK2
    + _TZ,
    re.I,
)
# A word that puts an onset: from the time after it until now. After a "loose" one an
# event may stand before the time ("since the deploy at 11:10", "после деплоя в 11:10");
# after a "tight" one ("с", "from") the time follows at once, as "что с сервисом в 11:10"
# is no onset.
RX_ONSET = re.compile(
    r"(?<![\w-])(?:(?P<loose>ever since|since|starting(?: from| at)?|beginning(?: from| at)?|"
    r"after|начиная\s+со?|после|с\s+момента)|(?P<tight>from|со|с|c))\s+",
    re.I,
)
# where an onset's phrase ends: a clause's end ("." not inside "11.10"), and no further
# than this many characters (the time of "since this morning's deploy (around 11:10)")
RX_CLAUSE_END = re.compile(r"[?!;\n,]|\.(?!\d)|\b(?:and|but|и|но|а)\b", re.I)
_ONSET_REACH = 64
_ONSET_TRIES = 16  # markers tried per message: a long paste is not read many times over
# "около", "around", "~" before a clock time: a rounded time, read with room before it
RX_APPROX_BEFORE = re.compile(
    r"(?:about|around|approximately|roughly|~|около|примерно|приблизительно|где-то|где то)"
    r"\s*(?:(?:at|в|с|со|since|from)\s+)?$",
    re.I,
)
# a rounded onset ("since around 11:10") is read from this much earlier: a deploy that the
# asker remembers as "around 11:10" may have been at 11:03
APPROX_MARGIN = timedelta(minutes=10)
# what may stand between a tight onset word and its time: "с самого утра", "from about 9"
RX_TIGHT_LEAD = re.compile(
    r"(?:(?:самого|the|about|around|approximately|roughly|~|около|примерно|где-то)\s*)*", re.I
)
# "с деплоя в 11:10", "с рестарта около 9:30", "с релиза в 9 утра": an event in the
# genitive, then its clock time; "с сервисом в 11:10" (the instrumental: "what is with
# the service") is no onset
RX_GENITIVE_THEN_CLOCK = re.compile(
    r"[а-яё]+(?<!ом)(?<!ем)(?<!ём)(?<!ой)(?<!ей)(?<!ою)(?<!ею)(?<!ами)(?<!ями)(?<!им)(?<!ым)"
    r"\s+(?:(?:около|примерно|где-то|~)\s*)?(?:в\s+)?\d{1,2}"
    r"(?:[:.]\d{2}(?!\d)|\s*(?:утра|вечера|ночи|дня|ч|час)\b)"
)
RX_DAY_WORD = re.compile(
    r"(?:yesterday|today|this|last|вчера|вчерашн\w*|позавчера\w*|сегодня\w*)\b", re.I
)
# "полчаса" alone: the last half hour
RX_HALF_HOUR = re.compile(r"\bполчаса\b", re.I)
RX_YESTERDAY = re.compile(r"\b(yesterday|вчера|вчерашн\w*)\b", re.I)
RX_DAY_BEFORE = re.compile(r"\b(day before yesterday|позавчера\w*)\b", re.I)
RX_TODAY = re.compile(r"\b(today|сегодня|сегодняшн\w*)\b", re.I)


@dataclass(frozen=True)
class TimeMatch:
    """The time found in one message, or None if it says nothing about time."""

    spec: TimeSpec
    explicit: bool  # the message itself stated a time (beats memory)
    text: str
    # when the symptom began: a clock time in the message ("503 since 12:30", "502 at
    # 14:11", "after the deploy at 11:10"); None for a span ("since this morning", "last
    # hour"), whose ends people stretch
    onset: datetime | None = None
    # the clock time was said as a guess ("around 11:10")
    approximate: bool = False


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
        if not dotted or _TIME_WORD_BEFORE.search(text[max(0, m.start() - 16) : m.start()]):
            return m
    return None


def parse_time(text: str, now: datetime, tz: tzinfo) -> TimeMatch | None:
    """The time a message talks about. Never raises; returns None when it says nothing
    (or says something impossible, like "+99:99")."""
    try:
        return _parse_time(text, now, tz)
    except (ValueError, OverflowError):
        return None


# "yesterday night's rates", "last week's release": a time that qualifies a thing (a
# possessive, or the Russian adjective "вчерашний") is not when the question is about,
# when the question says another time; alone, it is ("why didn't last night's backup
# run?"), and after an onset word it is the onset ("since this morning's deploy")
RX_QUALIFYING_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|last night|this morning|last week)"
    r"(?:\s+(?!(?:it|that|he|she|there|what|who|this)'s\b)\w+)?'s\b"
    # the adjective of a thing ("вчерашние курсы"), not of a time ("вчерашний день")
    r"|\b(?:вчерашн|сегодняшн|позавчерашн)\w*\b(?!\s+(?:день|дня|вечер\w*|ноч\w*|утр\w*))",
    re.I,
)
RX_ONSET_BEFORE = re.compile(
    r"(?:since|after|from|после|со?|начиная\s+со?)\s+(?:the\s+)?$",
    re.I,
)


@dataclass(frozen=True)
class _Said:
    """One message as every form reads it: the text as written, its lower-cased form with
    qualifying times blanked, the clock, and the day it names ("yesterday", "today", a
    weekday, a date), which the clock-time and part-of-day forms are read on."""

    text: str
    low: str
    now: datetime
    tz: tzinfo
    day: date | None
    day_text: str
    # the day was named relative to today ("yesterday"): its night is the one that began
    # that evening, where a weekday's or a date's is the one in its early hours
    relative: bool = False

    @property
    def local_now(self) -> datetime:
        return self.now.astimezone(self.tz)

    def day_in(self, zone: tzinfo) -> date:
        """The day named, or today in `zone` (a clock time may carry its own zone)."""
        return self.day or self.now.astimezone(zone).date()


def _unqualified(low: str) -> str:
    """`low` with the times that qualify a thing blanked (not one after an onset word)."""

    def blank(m: re.Match[str]) -> str:
        return m.group(0) if RX_ONSET_BEFORE.search(low[: m.start()]) else " "

    return RX_QUALIFYING_TIME.sub(blank, low)


def _said(text: str, now: datetime, tz: tzinfo, *, keep_qualifying: bool = False) -> _Said:
    low = text.lower() if keep_qualifying else _unqualified(text.lower())
    today = now.astimezone(tz).date()
    for rx, back in ((RX_DAY_BEFORE, 2), (RX_YESTERDAY, 1), (RX_TODAY, 0)):
        if m := rx.search(low):
            day = today - timedelta(days=back)
            return _Said(text, low, now, tz, day, m.group(0), relative=back > 0)
    if (named := date_named(low, today)) or (named := weekday_named(low, today)):
        return _Said(text, low, now, tz, named[0], named[1])
    return _Said(text, low, now, tz, None, "")


def _clock_at(m: re.Match[str], day: date, zone: tzinfo, suffix: str = "") -> datetime:
    """The moment a `_CLOCK` match (its groups named with `suffix`) says on `day`."""
    hh, mm, ss = m["hh" + suffix], m["mm" + suffix], m["ss" + suffix]
    hour = _hour_of_day(int(hh), m.groupdict().get("ampm"))
    return datetime.combine(day, time(hour, int(mm), int(ss or 0)), zone)


def _mode_ending(end: datetime, now: datetime) -> TimeMode:
    """What ended over two minutes ago is history; anything later is still "now"."""
    return "historical" if end < now - timedelta(minutes=2) else "now"


def _dated(m: re.Match[str], day: date, said: _Said) -> TimeMatch:
    """A written date: the moment its clock time says, or the whole day without one."""
    if m["hh"] is not None:
        at = _clock_at(m, day, _tz_of(m["tz"], said.tz))
        # a moment of the last year may be when a symptom began; 9999-12-31 is not
        recent = said.now - MAX_SPAN <= at
        return TimeMatch(
            _moment(at, said.now), True, m.group(0), onset=_past(at, said.now) if recent else None
        )
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


_SKEW = timedelta(minutes=5)  # a clock time this far ahead is the asker's clock, not tomorrow


def _on_the_clock(said: _Said, hour: int, minute: int, second: int, zone: tzinfo) -> datetime:
    """The moment a clock time names: inside the part of the day the message names ("last
    night at 23:50", "вечером в 9:30"), on the day it names, or else the most recent past
    such time in `zone` ("at 23:50" asked at 00:20 is yesterday's); never after now."""
    named = part_named(said.low) if zone is said.tz else None
    if named is not None:
        part = named[0]
        day = _part_day(said, part)
        at = hour_in_part(part, hour, day, zone) + timedelta(minutes=minute, seconds=second)
        if said.day is None and at > said.now + _SKEW:
            at -= timedelta(days=1)  # "last night at 2:10" asked at 01:30: the night before
    else:
        at = datetime.combine(said.day_in(zone), time(hour, minute, second), zone)
        if said.day is None and at > said.now + _SKEW:
            at -= timedelta(days=1)
    return min(at, said.now) if at <= said.now + _SKEW else at


def _approximate(said: _Said, start: int) -> bool:
    return RX_APPROX_BEFORE.search(said.low[max(0, start - 24) : start]) is not None


def _clock_time(said: _Said) -> TimeMatch | None:
    """ "в 14:11", "вчера в 21:00", "at 11:11 UTC", "11:30 pm": that moment."""
    if (m := _clock_like(RX_CLOCK, said.text)) is None:
        return None
    zone = _tz_of(m["tz"], said.tz)
    hour = _hour_of_day(int(m["hh"]), m["ampm"])
    at = _on_the_clock(said, hour, int(m["mm"]), int(m["ss"] or 0), zone)
    text = (said.day_text + " " + m.group(0)).strip()
    return TimeMatch(
        _moment(at, said.now),
        True,
        text,
        onset=_past(at, said.now),
        approximate=_approximate(said, m.start()),
    )


def _past(at: datetime, now: datetime) -> datetime | None:
    """A moment as a symptom's onset: only one that has come ("7 Dec 23:50" asked that
    morning names a time, but nothing can have begun then yet)."""
    return at if at <= now + _SKEW else None


def _hour_clock(said: _Said) -> TimeMatch | None:
    """ "at 11pm", "11 pm", "в 9 утра", "в 14 ч": that hour. Without a mark of the half of
    the day ("в 2 часа"), the most recent past of its two readings."""
    for m in RX_HOUR_CLOCK.finditer(said.low):
        # "около 2 часов" is as often an amount as an hour, "3 дня" as often three days
        prep = m["prep"] or ""
        if m["hmark"] is not None and not _TAKES_AN_HOUR_MARK.fullmatch(prep):
            continue
        if (m["ampm"] or "").lower() == "дня" and not _TAKES_AN_HOUR.fullmatch(prep):
            continue
        hour = _hour_of_day(int(m["h"]), m["ampm"])
        zone = _tz_of(m["tz"], said.tz)
        at = _on_the_clock(said, hour, 0, 0, zone)
        if m["ampm"] is None and hour < 12 and part_named(said.low) is None:
            later = _on_the_clock(said, hour + 12, 0, 0, zone)
            at = max(at, later) if later <= said.now else at
        return TimeMatch(
            _moment(at, said.now),
            True,
            m.group(0),
            onset=_past(at, said.now),
            approximate=bool(RX_APPROX_BEFORE.search(m["prep"] or ""))
            or _approximate(said, m.start()),
        )
    return None


def _part_day(said: _Said, part: DayPart) -> date:
    """The day whose `part` the message means: the one it names ("yesterday night" is
    the night that began yesterday evening), else the most recent (`recent_part`)."""
    if said.day is None:
        return recent_part(part, said.now, said.tz, tonight=bool(RX_TONIGHT.search(said.low)))
    if part is DayPart.NIGHT and said.relative:
        return said.day + timedelta(days=1)
    return said.day


def _day_part(said: _Said) -> TimeMatch | None:
    """ "last night", "этой ночью", "вчера вечером", "утром": that part of the day (its
    hours in `PARTS`, in the asker's zone) up to now; with a bare hour in it ("ночью около
    3") the hour it names. None when the part has not begun yet ("сегодня вечером" asked
    at noon)."""
    if (named := part_named(said.low)) is None:
        return None
    part, m = named
    day = _part_day(said, part)
    text = m.group(0) if said.day_text in m.group(0) else f"{said.day_text} {m.group(0)}"
    if hour_m := RX_HOUR_ONLY.search(said.low):
        at = hour_in_part(part, _hour_of_day(int(hour_m["h"]), hour_m["ampm"]), day, said.tz)
        if at < said.now and RX_NOW.search(said.low):
            # "stopped around 8 this morning, clients still get...": since then
            rounded = RX_APPROX_BEFORE.search(said.low[: hour_m.start("h")]) is not None
            return _from_then(
                TimeMatch(_moment(at, said.now), True, text, at, rounded), said.now, text
            )
        if at < said.now:
            return TimeMatch(
                TimeSpec(at=at, window=timedelta(hours=1), mode="historical"), True, text
            )
    start, end = part_window(part, day, said.tz)
    if start >= said.now:
        return None
    # "it stopped this morning and still fails": from the part's start until now
    end = said.now if RX_NOW.search(said.low) else min(end, said.now)
    window = max(end - start, timedelta(minutes=1))
    spec = TimeSpec(at=start + window / 2, window=window, mode=_mode_ending(end, said.now))
    return TimeMatch(spec, True, text)


def _since_ago(said: _Said) -> TimeMatch | None:
    """ "since an hour ago": from then until now."""
    if (m := RX_SINCE_AGO.search(said.low)) is None or (found := duration(m)) is None:
        return None
    spec = TimeSpec(at=said.now - found.span / 2, window=found.span, mode="now")
    return TimeMatch(spec, True, m.group(0))


def _onset(said: _Said) -> TimeMatch | None:
    """ "since 11:10", "с утра", "со вчерашнего вечера", "после деплоя в 11:10", "since
    the deploy this morning (around 11:10)", "since Monday": from the time the phrase
    names until now, the onset recorded. A clock time is the onset to the minute; a
    rounded one ("around 11:10") is read from `APPROX_MARGIN` earlier; a span (a part of
    day, a day) is read from its start and puts no onset: people stretch "this morning"
    past its hours (a crash at 12:05 is "since this morning"), so its end would rule out
    the very change that caused it."""
    first: TimeMatch | None = None
    for tries, m in enumerate(RX_ONSET.finditer(said.low)):
        if tries >= _ONSET_TRIES:
            break
        rest = said.low[m.end() : m.end() + _ONSET_REACH]
        if cut := RX_CLAUSE_END.search(rest):
            rest = rest[: cut.start()]
        if m["tight"] is not None and not _starts_with_time(rest):
            continue
        ref = _reference(said, m.group(0) + rest)
        if ref is not None and RX_APPROX_BEFORE.search(
            said.low[max(0, m.start() - 16) : m.start()]
        ):
            ref = replace(ref, approximate=True)  # "примерно с 11:10"
        if ref is None or (found := _from_then(ref, said.now, m.group(0) + rest)) is None:
            continue
        if found.onset is None and (inside := _clock_inside(said, ref)) is not None:
            found = inside  # "since this morning's deploy, around 11:05": at 11:05
        if found.onset is not None:
            return found  # a clock time beats a span said first ("с утра, примерно с 11:10")
        first = first or found
    return first


def _clock_inside(said: _Said, span: TimeMatch) -> TimeMatch | None:
    """The onset a span's phrase leaves vague, put by a clock time said elsewhere in the
    message that falls inside the span ("since this morning's deploy, around 11:05")."""
    clock_m = _clock_time(said) or _hour_clock(said)
    if clock_m is None or clock_m.onset is None:
        return None
    start, end = span.spec.bounds(said.now)
    if not start <= clock_m.onset <= max(end, start):
        return None
    return _from_then(clock_m, said.now, clock_m.text)


def _onset_within_asked_span(said: _Said) -> TimeMatch | None:
    """An onset, its window given way to a span up to now the message asks of ("failing
    since this morning: what did it log in the last hour?" reads the last hour), the onset
    kept."""
    if (found := _onset(said)) is None:
        return None
    if (asked := _last_span(said)) is not None:
        return replace(asked, onset=found.onset)
    return found


def _starts_with_time(rest: str) -> bool:
    """After "с", "from": does a time follow at once ("с 11:10", "с утра", "со вчерашнего
    вечера"), not a thing ("с сервисом")?"""
    if RX_GENITIVE_THEN_CLOCK.match(rest):
        return True
    rest = rest[RX_TIGHT_LEAD.match(rest).end() :]  # type: ignore[union-attr]
    return bool(
        rest[:1].isdigit()
        or RX_DAY_WORD.match(rest)
        or RX_PART.match(rest)
        or RX_WEEKDAY.match(rest)
        or RX_DAY_MONTH.match(rest)
    )


# the forms that can name the time an onset word points at
def _reference(said: _Said, phrase: str) -> TimeMatch | None:
    own = _said(phrase, said.now, said.tz, keep_qualifying=True)
    if own.day is None and said.day is not None:
        own = replace(own, day=said.day, day_text=said.day_text, relative=said.relative)
    for form in (_iso_date, _dmy_date, _clock_time, _hour_clock, _day_part, _whole_named_day):
        if (found := form(own)) is not None:
            return found
    return None


def _from_then(ref: TimeMatch, now: datetime, text: str) -> TimeMatch | None:
    if ref.onset is not None:
        onset = ref.onset
        start = onset - APPROX_MARGIN if ref.approximate else onset
    else:
        start, _ = ref.spec.bounds(now)
        onset = None
    if start > now:
        return None
    start = min(start, now - timedelta(minutes=1))
    if start < now - MAX_SPAN:
        # an onset past the longest window any source is asked for: read that window
        # back from now, and put no onset years away
        start, onset = now - MAX_SPAN, None
    window = now - start
    spec = TimeSpec(at=start + window / 2, window=window, mode="now")
    return TimeMatch(spec, True, text.strip(), onset=min(onset, now) if onset else None)


def _last_span(said: _Said) -> TimeMatch | None:
    """ "last 2h", "за последние часа два": a window that ends now."""
    if (m := RXDURATION_LAST.search(said.low)) is None or (found := duration(m)) is None:
        return None
    return TimeMatch(TimeSpec(window=found.span, mode="now"), True, m.group(0))


def _span_ago(said: _Said) -> TimeMatch | None:
    """ "2 hours ago": a moment that long ago; a guessed amount ("часа два", "about 20
    minutes") is read with a window as wide as half of it, never narrower than the default.
    With a verb of beginning beside it, the symptom began then and still goes on."""
    if (m := RXDURATION_AGO.search(said.low)) is None or (found := duration(m)) is None:
        return None
    if (ongoing := _began_ago(said, m, found)) is not None:
        return ongoing
    spec = _moment(said.now - found.span, said.now)
    if found.approximate and found.span / 2 > spec.window:
        spec = spec.model_copy(update={"window": found.span / 2})
    return TimeMatch(spec, True, m.group(0))


def _began_ago(said: _Said, m: re.Match[str], found: Duration) -> TimeMatch | None:
    """ "errors started 20 minutes ago": from a little before it until now (a guessed amount
    a quarter of it before, an exact one five minutes); None without a verb of beginning."""
    near = said.low[max(0, m.start() - _BEGAN_NEAR) : m.end() + _BEGAN_NEAR]
    if not RX_BEGAN.search(near):
        return None
    began = said.now - found.span
    margin = found.span / 4 if found.approximate else timedelta(minutes=5)
    # the margin before an onset at the longest window's edge reads no further back
    start = max(began - margin, said.now - MAX_SPAN)
    window = said.now - start
    spec = TimeSpec(at=start + window / 2, window=window, mode="now")
    # the onset bounds what can have caused it: a guess may be late by its margin
    late = margin if found.approximate else timedelta()
    return TimeMatch(spec, True, m.group(0), onset=began + late)


def _half_hour(said: _Said) -> TimeMatch | None:
    """ "полчаса" alone: the last half hour."""
    if not RX_HALF_HOUR.search(said.low):
        return None
    return TimeMatch(TimeSpec(window=timedelta(minutes=30), mode="now"), True, "30m")


def _whole_named_day(said: _Said) -> TimeMatch | None:
    """The day named: today until now, or that whole day."""
    if said.day is None:
        return None
    if said.day == said.local_now.date():
        midnight = datetime.combine(said.day, time(0), said.tz)
        window = max(said.now - midnight, timedelta(minutes=1))
        return TimeMatch(TimeSpec(window=window, mode="now"), True, said.day_text)
    return TimeMatch(_whole_day(said.day, said.tz, said.now), True, said.day_text)


def _named_day(said: _Said) -> TimeMatch | None:
    """A day with nothing more. "is it running now? we deployed yesterday" is about now;
    the day is context."""
    if said.day is not None and RX_NOW.search(said.low):
        return TimeMatch(TimeSpec(mode="now"), True, "now")
    return _whole_named_day(said)


def _now(said: _Said) -> TimeMatch | None:
    """ "сейчас", "now", "still": the present."""
    if not RX_NOW.search(said.low):
        return None
    return TimeMatch(TimeSpec(mode="now"), True, "now")


# The forms a time is written in, most specific first: the first that reads the message
# decides its time (a written date beats a range, an onset, a clock time, an amount, which
# beat a part of the day and a named day).
_FORMS: tuple[Callable[[_Said], TimeMatch | None], ...] = (
    _iso_date,
    _dmy_date,
    _clock_range,
    _since_ago,
    _onset_within_asked_span,
    _clock_time,
    _hour_clock,
    _last_span,
    _span_ago,
    _day_part,
    _half_hour,
    _named_day,
    _now,
)


def _parse_time(text: str, now: datetime, tz: tzinfo) -> TimeMatch | None:
    said = _said(text, now, tz)
    for form in _FORMS:
        if (found := form(said)) is not None:
            return found
    if said.low == (kept := _said(text, now, tz, keep_qualifying=True)).low:
        return None
    # the only time said qualifies a thing: "why didn't last night's backup run?"
    for form in _FORMS:
        if (found := form(kept)) is not None:
            return found
    return None


def _moment(at: datetime, now: datetime) -> TimeSpec:
    return TimeSpec(at=at, window=DEFAULT_WINDOW, mode=_mode_ending(at, now))


def _whole_day(d: date, tz: tzinfo, now: datetime) -> TimeSpec:
    start = datetime.combine(d, time(0), tz)
    centre = start + timedelta(hours=12)
    mode: TimeMode = "historical" if start + timedelta(days=1) <= now else "now"
    return TimeSpec(at=centre, window=timedelta(days=1), mode=mode)
