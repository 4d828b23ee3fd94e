"""Parts of a day and named days, in the asker's time zone: "last night", "этой ночью",
"yesterday evening", "утром", "since Monday", "7 Dec", "07.12".

Class "a time named by the calendar, not by the clock". A part is one row of `PARTS`
(its hours, local); which day it is of comes from the words beside it (a named day, a
weekday, a date) or, without them, from the clock: the most recent such part that has
begun. The night is the one part that crosses midnight: the night *of* a day begins the
evening before (20:00) and ends that morning (08:00), wide enough for the scheduled runs
people ask about ("last night's backup", "ночной cron") wherever they are put in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from enum import StrEnum
from typing import Final


class DayPart(StrEnum):
    NIGHT = "night"
    MORNING = "morning"
    AFTERNOON = "afternoon"
    EVENING = "evening"


@dataclass(frozen=True)
class PartHours:
    """Local hours of a part of day D: from `start` (on D-1 when `overnight`) to `end` on
    D (24 is D's midnight)."""

    start: int
    end: int
    overnight: bool = False


PARTS: Final[dict[DayPart, PartHours]] = {
    DayPart.NIGHT: PartHours(20, 8, overnight=True),
    DayPart.MORNING: PartHours(6, 12),
    DayPart.AFTERNOON: PartHours(12, 18),
    DayPart.EVENING: PartHours(18, 24),
}

# The words of each part, in both languages; "tonight" is read apart (`RX_TONIGHT`): it is
# the night that has begun most recently, where every other night word is the night that
# ends (or ended) this morning.
_PART_WORDS: Final[dict[DayPart, str]] = {
    DayPart.NIGHT: (
        r"last night|overnight|at night|nightly|night's|nighttime|night-time|this night|"
        r"tonight|ночью|ночи|ночн\w*|ночь|за ночь|этой ночью|сегодня ночью"
    ),
    DayPart.MORNING: r"this morning|in the morning|morning's|morning|утром|утра|утро|утренн\w*",
    DayPart.AFTERNOON: r"this afternoon|in the afternoon|afternoon|днём|днем",
    DayPart.EVENING: (
        r"this evening|in the evening|evening's|evening|вечером|вечера|вечер|вечерн\w*"
    ),
}
RX_PART: Final = re.compile(
    r"(?<![\w-])(?:" + "|".join(f"(?P<{p.value}>{w})" for p, w in _PART_WORDS.items()) + r")\b",
    re.I,
)
RX_TONIGHT: Final = re.compile(r"\btonight(?:'s)?\b", re.I)


# "good morning", "добрый вечер" are greetings; "10 утра", "9 вечера" are hours (the
# genitive after a number), where "8 this morning" is an hour in the part it names
RX_GREETING_BEFORE: Final = re.compile(r"(?:\bgood|\bдобр\w*|\bспокойной)\s*$", re.I)
RX_HOUR_BEFORE: Final = re.compile(r"(?:^|[^\d.:])\d{1,2}\s*$")
_HOUR_MARKS: Final = frozenset({"утра", "вечера", "ночи"})


def part_named(text: str) -> tuple[DayPart, re.Match[str]] | None:
    """The first part of day the text names, and where. "10 утра", "9 вечера" name an hour,
    not a part (a number just before the word leaves it to the clock forms), and a
    greeting names none."""
    for m in RX_PART.finditer(text):
        before = text[max(0, m.start() - 12) : m.start()]
        if RX_GREETING_BEFORE.search(before):
            continue
        if m.group(0).lower() in _HOUR_MARKS and RX_HOUR_BEFORE.search(before):
            continue
        part = next(p for p in DayPart if m.group(p.value) is not None)
        return part, m
    return None


def part_window(part: DayPart, day: date, tz: tzinfo) -> tuple[datetime, datetime]:
    """[start, end) of `part` of `day`, local."""
    hours = PARTS[part]
    first_day = day - timedelta(days=1) if hours.overnight else day
    start = datetime.combine(first_day, time(hours.start), tz)
    end = datetime.combine(day, time(0), tz) + timedelta(hours=hours.end)
    return start, end


def recent_part(part: DayPart, now: datetime, tz: tzinfo, *, tonight: bool) -> date:
    """The day whose `part` a question without a named day means. A night word means the
    night of today (the one that ends this morning: in progress before 08:00, over after);
    "tonight" and every other part mean the most recent one that has begun."""
    today = now.astimezone(tz).date()
    if part is DayPart.NIGHT and not tonight:
        return today
    for day in (today + timedelta(days=1), today, today - timedelta(days=1)):
        if part_window(part, day, tz)[0] <= now:
            return day
    return today - timedelta(days=1)  # unreachable: yesterday's part has always begun


def hour_in_part(part: DayPart, hour: int, day: date, tz: tzinfo) -> datetime:
    """ "вечером в 9", "last night at 2": the hour read inside the part (9 in the evening
    is 21:00; 2 at night is on the night's second day, 23 on its first)."""
    hours = PARTS[part]
    if part in (DayPart.AFTERNOON, DayPart.EVENING) and hour < 12:
        hour += 12
    if hours.overnight and hour >= hours.start:
        return datetime.combine(day - timedelta(days=1), time(hour % 24), tz)
    return datetime.combine(day, time(hour % 24), tz)


# -- named days: weekdays and dates without a year --------------------------------------

_WEEKDAYS: Final[tuple[str, ...]] = (
    r"monday|понедельник\w{0,2}",
    r"tuesday|вторник\w{0,2}",
    # "в среде" is "in the environment": only the forms a weekday takes ("в среду", "со
    # среды") are read as Wednesday
    r"wednesday|среду|(?<=со\s)среды|(?<=с\s)среды",
    r"thursday|четверг\w{0,2}",
    r"friday|пятниц[уыае]",
    r"saturday|суббот[уыае]",
    r"sunday|воскресень[еяю]",
)
RX_WEEKDAY: Final = re.compile(
    r"\b(?:" + "|".join(f"(?P<d{i}>{w})" for i, w in enumerate(_WEEKDAYS)) + r")\b", re.I
)


def weekday_named(text: str, today: date) -> tuple[date, str] | None:
    """ "since Monday", "в пятницу": the most recent such day, today included."""
    if (m := RX_WEEKDAY.search(text)) is None:
        return None
    index = next(i for i in range(7) if m.group(f"d{i}") is not None)
    back = (today.weekday() - index) % 7
    return today - timedelta(days=back), m.group(0)


_MONTHS: Final[tuple[str, ...]] = (
    r"jan(?:uary)?|январ[яь]",
    r"feb(?:ruary)?|феврал[яь]",
    r"mar(?:ch)?|марта?",
    r"apr(?:il)?|апрел[яь]",
    r"may|ма[яй]",
    r"june?|июн[яь]",
    r"july?|июл[яь]",
    r"aug(?:ust)?|августа?",
    r"sep(?:t|tember)?|сентябр[яь]",
    r"oct(?:ober)?|октябр[яь]",
    r"nov(?:ember)?|ноябр[яь]",
    r"dec(?:ember)?|декабр[яь]",
)
_MONTH = "(?:" + "|".join(f"(?P<m{i}>{w})" for i, w in enumerate(_MONTHS)) + r")\.?"
_ORD = r"(?:st|nd|rd|th|-?го|-?е)?"
# "7 Dec", "7 декабря", "Dec 7th"; a year may follow ("7 Dec 2026")
RX_DAY_MONTH: Final = re.compile(
    r"(?<![\w.:])(?:(?P<d>[0-2]?\d|3[01])" + _ORD + r"\s++" + _MONTH + r"|"
    r"" + _MONTH.replace("(?P<m", "(?P<n") + r"\s++(?P<d2>[0-2]?\d|3[01])" + _ORD + r")"
    r"(?:\s+(?P<y>\d{4}))?(?![\w:])",
    re.I,
)
# "07.12": a day and month written with a dot. "12.05" is as often a number (a latency, a
# version), so it is a date only after a word that takes a date ("on", "за", "с") or at
# the start, or before a clock time or a part of day ("07.12 в 23:50", "07.12 ночью").
RX_DOTTED_DAY: Final = re.compile(r"(?<![\w.:,])(?P<d>[0-2]\d|3[01])\.(?P<m>0\d|1[0-2])(?![\d.])")
RX_DATE_WORD_BEFORE: Final = re.compile(
    r"(?:^|\b(?:on|of|since|from|till|until|by|за|от|с|со|до|на|к))\s*$", re.I
)
RX_TIME_AFTER: Final = re.compile(
    r"\s+(?:в|at|around|около|ночью|утром|днём|днем|вечером|night|morning|evening)\b", re.I
)


def _dotted_day(text: str) -> re.Match[str] | None:
    for m in RX_DOTTED_DAY.finditer(text):
        if RX_DATE_WORD_BEFORE.search(text[max(0, m.start() - 8) : m.start()]) or (
            RX_TIME_AFTER.match(text, m.end())
        ):
            return m
    return None


def _month(m: re.Match[str], prefix: str) -> int | None:
    return next((i + 1 for i in range(12) if m.group(f"{prefix}{i}") is not None), None)


def date_named(text: str, today: date) -> tuple[date, str] | None:
    """A day and month the text names, in the year that makes it the most recent past
    such day (the asker's today included); a written year is kept."""
    found: tuple[int, int, int | None, str] | None = None
    if (m := RX_DAY_MONTH.search(text)) is not None:
        if m["d"] is not None:
            month = _month(m, "m")
            day_s = m["d"]
        else:
            month = _month(m, "n")
            day_s = m["d2"]
            # "may 5 pods": only a capitalised May starts a date
            if month == 5 and not m.group(0).startswith("May"):
                month = None
        if month is not None:
            found = (int(day_s), month, int(m["y"]) if m["y"] else None, m.group(0))
    if found is None and (m := _dotted_day(text)) is not None:
        found = (int(m["d"]), int(m["m"]), None, m.group(0))
    if found is None:
        return None
    day_n, month_n, year, said = found
    try:
        if year is not None:
            return date(year, month_n, day_n), said
        named = date(today.year, month_n, day_n)
        if named > today:
            named = date(today.year - 1, month_n, day_n)
    except ValueError:  # "31 Feb", "29.02" of a year without it
        return None
    return named, said
