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
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta, tzinfo
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
    from datetime import timezone

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


def _parse_time(text: str, now: datetime, tz: tzinfo) -> TimeMatch | None:
    local_now = now.astimezone(tz)
    low = RX_QUALIFYING_TIME.sub(" ", text.lower())

    day: date | None = None
    day_text = ""
    if m := RX_DAY_BEFORE.search(low):
        day, day_text = local_now.date() - timedelta(days=2), m.group(0)
    elif m := RX_YESTERDAY.search(low):
        day, day_text = local_now.date() - timedelta(days=1), m.group(0)
    elif m := RX_TODAY.search(low):
        day, day_text = local_now.date(), m.group(0)

    if m := RX_ISO.search(text):
        try:
            d = date.fromisoformat(m["date"])
        except ValueError:
            d = None
        if d is not None:
            if m["hh"] is not None:
                at = datetime.combine(
                    d, time(int(m["hh"]), int(m["mm"]), int(m["ss"] or 0)), _tz_of(m["tz"], tz)
                )
                return TimeMatch(_moment(at, now), True, m.group(0))
            return TimeMatch(_whole_day(d, tz, now), True, m.group(0))
    if m := RX_DMY.search(text):
        try:
            d = date(int(m["y"]), int(m["m"]), int(m["d"]))
        except ValueError:
            d = None
        if d is not None:
            if m["hh"] is not None:
                at = datetime.combine(
                    d, time(int(m["hh"]), int(m["mm"]), int(m["ss"] or 0)), _tz_of(m["tz"], tz)
                )
                return TimeMatch(_moment(at, now), True, m.group(0))
            return TimeMatch(_whole_day(d, tz, now), True, m.group(0))

    if m := _clock_like(RX_SINCE, text):
        # "since 10:30": from then until now
        zone = _tz_of(m["tz"], tz)
        base_day = day or now.astimezone(zone).date()
        since = datetime.combine(
            base_day, time(int(m["hh"]), int(m["mm"]), int(m["ss"] or 0)), zone
        )
        if (since_match := _since(since, day is None, now, m.group(0))) is not None:
            return since_match

    if m := RX_SINCE_HOUR.search(low):
        # "с 10 утра", "since 9pm": from that hour until now
        since = datetime.combine(
            day or local_now.date(), time(_hour_of_day(int(m["h"]), m["ampm"])), tz
        )
        if (since_match := _since(since, day is None, now, m.group(0))) is not None:
            return since_match

    if m := _clock_like(RX_RANGE, text):
        zone = _tz_of(m["tz"], tz)
        base_day = day or now.astimezone(zone).date()
        first = datetime.combine(
            base_day, time(int(m["hh"]), int(m["mm"]), int(m["ss"] or 0)), zone
        )
        last = datetime.combine(
            base_day, time(int(m["hh2"]), int(m["mm2"]), int(m["ss2"] or 0)), zone
        )
        if last < first:
            last += timedelta(days=1)
        if day is None and first > now + timedelta(minutes=5):
            first -= timedelta(days=1)
            last -= timedelta(days=1)
        spec = TimeSpec(
            at=first + (last - first) / 2,
            window=max(last - first, timedelta(minutes=1)),
            mode="historical" if last < now - timedelta(minutes=2) else "now",
        )
        return TimeMatch(spec, True, m.group(0), onset=first)

    if m := _clock_like(RX_CLOCK, text):
        zone = _tz_of(m["tz"], tz)
        base_day = day or now.astimezone(zone).date()
        at = datetime.combine(base_day, time(int(m["hh"]), int(m["mm"]), int(m["ss"] or 0)), zone)
        if day is None and at > now + timedelta(minutes=5):
            at -= timedelta(days=1)  # "at 23:10" asked at 09:00 means last night
        return TimeMatch(_moment(at, now), True, (day_text + " " + m.group(0)).strip(), onset=at)

    part = RX_EVENING.search(low) or RX_AFTERNOON.search(low)
    if part and not RX_NIGHT.search(low) and not RX_MORNING.search(low):
        # "вчера вечером" 18:00-24:00, "днём" 12:00-18:00 of that day; without a day, the
        # last such part that has begun
        first_hour, hours = (18, 6) if RX_EVENING.fullmatch(part.group(0)) else (12, 6)
        base = day or local_now.date()
        start = datetime.combine(base, time(first_hour), tz)
        if day is None and start > now:
            start -= timedelta(days=1)
        if start < now:
            end = min(start + timedelta(hours=hours), now)
            mode_part: TimeMode = "historical" if end < now - timedelta(minutes=2) else "now"
            window = max(end - start, timedelta(minutes=1))
            said = (day_text + " " + part.group(0)).strip()
            return TimeMatch(
                TimeSpec(at=start + window / 2, window=window, mode=mode_part), True, said
            )

    if m := RX_SINCE_AGO.search(low):
        # "since an hour ago": from then until now
        found = _duration(m)
        if found is not None:
            window = found.span
            return TimeMatch(
                TimeSpec(at=now - window / 2, window=window, mode="now"), True, m.group(0)
            )

    if m := RX_DURATION_LAST.search(low):
        found = _duration(m)
        if found is not None:
            return TimeMatch(TimeSpec(window=found.span, mode="now"), True, m.group(0))

    if m := RX_DURATION_AGO.search(low):
        # a moment that long ago; a guessed amount ("часа два", "about 20 minutes") is read
        # with a window as wide as half of it, never narrower than the default
        found = _duration(m)
        near = low[max(0, m.start() - _BEGAN_NEAR) : m.end() + _BEGAN_NEAR]
        if found is not None and RX_BEGAN.search(near):
            # began that long ago and still goes on: from a little before it until now
            # (a guessed amount a quarter of it before, an exact one five minutes)
            began = now - found.span
            margin = found.span / 4 if found.approximate else timedelta(minutes=5)
            ongoing = _since(began - margin, False, now, m.group(0))
            if ongoing is not None:
                # the onset bounds what can have caused it: a guess may be late by its margin
                late = margin if found.approximate else timedelta()
                return replace(ongoing, onset=began + late)
        if found is not None:
            at = now - found.span
            spec = _moment(at, now)
            if found.approximate and found.span / 2 > spec.window:
                spec = spec.model_copy(update={"window": found.span / 2})
            return TimeMatch(spec, True, m.group(0))

    night = RX_NIGHT.search(low)
    if night or RX_MORNING.search(low):
        hour_m = RX_HOUR_ONLY.search(low)
        base = day or local_now.date()
        if night:
            # the night that just ended (or the one before, if it is night now)
            if local_now.hour < 6 and day is None:
                base = local_now.date()
            start = datetime.combine(base, time(0), tz)
            end = datetime.combine(base, time(6), tz)
            if hour_m:
                hour = int(hour_m["h"]) % 12 if int(hour_m["h"]) < 12 else int(hour_m["h"])
                at = datetime.combine(base, time(hour), tz)
                return TimeMatch(
                    TimeSpec(
                        at=at, window=timedelta(hours=1), mode="historical" if at < now else "now"
                    ),
                    True,
                    night.group(0),
                )
        else:
            start = datetime.combine(base, time(6), tz)
            end = min(now, datetime.combine(base, time(23, 59), tz))
        if start < now:
            end = min(end, now)
            window = max(end - start, timedelta(minutes=1))
            mode: TimeMode = "historical" if end < now - timedelta(minutes=2) else "now"
            return TimeMatch(
                TimeSpec(at=start + window / 2, window=window, mode=mode),
                True,
                "night" if night else "morning",
            )

    if RX_HALF_HOUR.search(low):
        return TimeMatch(TimeSpec(window=timedelta(minutes=30), mode="now"), True, "30m")

    if day is not None and RX_NOW.search(low):
        # "is it running now? we deployed yesterday": the question is about now; the day
        # is context
        return TimeMatch(TimeSpec(mode="now"), True, "now")
    if day is not None:
        if day == local_now.date():
            midnight = datetime.combine(day, time(0), tz)
            window = max(now - midnight, timedelta(minutes=1))
            return TimeMatch(TimeSpec(window=window, mode="now"), True, day_text)
        return TimeMatch(_whole_day(day, tz, now), True, day_text)

    if RX_NOW.search(low):
        return TimeMatch(TimeSpec(mode="now"), True, "now")
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
    mode: TimeMode = "historical" if at < now - timedelta(minutes=2) else "now"
    return TimeSpec(at=at, window=DEFAULT_WINDOW, mode=mode)


def _whole_day(d: date, tz: tzinfo, now: datetime) -> TimeSpec:
    start = datetime.combine(d, time(0), tz)
    centre = start + timedelta(hours=12)
    mode: TimeMode = "historical" if start + timedelta(days=1) <= now else "now"
    return TimeSpec(at=centre, window=timedelta(days=1), mode=mode)
