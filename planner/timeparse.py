"""Time expressions in Russian and English -> TimeSpec, in the configured timezone.

Recognised (case-insensitive): "в 14:11", "at 14:11", "14:11 UTC", "вчера в 21:00",
"yesterday", "позавчера", "сегодня"/"today", "за последний час", "за последние 2 часа",
"last 2h", "past 30 minutes", "3 часа назад", "2 hours ago", "сейчас"/"now"/"currently",
ISO dates and datetimes ("2026-07-20", "2026-07-20T14:11", "2026-07-20 14:11:05+03:00"),
"20.07.2026 14:11".

Semantics: a moment in the past (`at`) or a closed past interval is `historical`; a window
that ends at the clock ("last hour") or "now" is `now`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
_NUM_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "ten": 10,
    "twelve": 12,
    "один": 1,
    "одну": 1,
    "два": 2,
    "две": 2,
    "три": 3,
    "четыре": 4,
    "пять": 5,
    "шесть": 6,
    "десять": 10,
    "двенадцать": 12,
    "полчаса": 30,
}


def _unit_of(word: str) -> str | None:
    for pattern, unit in _UNIT_WORDS:
        if re.fullmatch(pattern, word):
            return unit
    if word in _UNITS:
        return word
    return None


_NUM = r"(\d+|" + "|".join(_NUM_WORDS) + r")"
_UNIT_RX = "|".join(p for p, _ in _UNIT_WORDS) + r"|[smhdw]"
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
RX_LAST = re.compile(
    r"\b(?:за\s+)?(?:last|past|previous|the last|the past|последн\w*|прошедш\w*|за)\s+"
    r"(?:" + _NUM + r"\s*)?(?P<unit>" + _UNIT_RX + r")\b",
    re.I,
)
RX_COMPACT = re.compile(r"\b(?:last|past|за)\s+(?P<n>\d+)(?P<u>[smhdw])\b", re.I)
RX_AGO = re.compile(r"\b(?:" + _NUM + r"\s*)?(?P<unit>" + _UNIT_RX + r")\s+(?:ago|назад)\b", re.I)
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
RX_YESTERDAY = re.compile(r"\b(yesterday|вчера|вчерашн\w*)\b", re.I)
RX_DAY_BEFORE = re.compile(r"\b(day before yesterday|позавчера)\b", re.I)
RX_TODAY = re.compile(r"\b(today|сегодня|сегодняшн\w*)\b", re.I)
RX_HALF_HOUR = re.compile(
    r"\b(?:за\s+)?(?:последние\s+)?полчаса\b|\blast half(?: an)? hour\b", re.I
)


@dataclass(frozen=True)
class TimeMatch:
    """The time found in one message, or None if it says nothing about time."""

    spec: TimeSpec
    explicit: bool  # the message itself stated a time (beats memory)
    text: str


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


def _count(raw: str | None) -> int:
    if raw is None:
        return 1
    return min(int(raw[:6]), 999_999) if raw.isdigit() else _NUM_WORDS.get(raw.lower(), 1)


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


def _parse_time(text: str, now: datetime, tz: tzinfo) -> TimeMatch | None:
    local_now = now.astimezone(tz)
    low = text.lower()

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
        if day is None and since > now:
            since -= timedelta(days=1)
        if since < now:
            window = now - since
            return TimeMatch(
                TimeSpec(at=since + window / 2, window=window, mode="now"), True, m.group(0)
            )

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
        return TimeMatch(spec, True, m.group(0))

    if m := _clock_like(RX_CLOCK, text):
        zone = _tz_of(m["tz"], tz)
        base_day = day or now.astimezone(zone).date()
        at = datetime.combine(base_day, time(int(m["hh"]), int(m["mm"]), int(m["ss"] or 0)), zone)
        if day is None and at > now + timedelta(minutes=5):
            at -= timedelta(days=1)  # "at 23:10" asked at 09:00 means last night
        return TimeMatch(_moment(at, now), True, (day_text + " " + m.group(0)).strip())

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

    if m := RX_AGO.search(low):
        unit = _unit_of(m["unit"])
        if unit is not None:
            at = now - min(_count(m.group(1)) * _UNITS[unit], MAX_SPAN)
            return TimeMatch(_moment(at, now), True, m.group(0))

    if RX_HALF_HOUR.search(low):
        return TimeMatch(TimeSpec(window=timedelta(minutes=30), mode="now"), True, "30m")
    if m := RX_COMPACT.search(low):
        window = min(int(m["n"][:6]) * _UNITS[m["u"].lower()], MAX_SPAN)
        if window > timedelta(0):
            return TimeMatch(TimeSpec(window=window, mode="now"), True, m.group(0))
    if m := RX_LAST.search(low):
        unit = _unit_of(m["unit"])
        if unit is not None:
            window = min(_count(m.group(1)) * _UNITS[unit], MAX_SPAN)
            return TimeMatch(TimeSpec(window=window, mode="now"), True, m.group(0))

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


def _moment(at: datetime, now: datetime) -> TimeSpec:
    mode: TimeMode = "historical" if at < now - timedelta(minutes=2) else "now"
    return TimeSpec(at=at, window=DEFAULT_WINDOW, mode=mode)


def _whole_day(d: date, tz: tzinfo, now: datetime) -> TimeSpec:
    start = datetime.combine(d, time(0), tz)
    centre = start + timedelta(hours=12)
    mode: TimeMode = "historical" if start + timedelta(days=1) <= now else "now"
    return TimeSpec(at=centre, window=timedelta(days=1), mode=mode)
