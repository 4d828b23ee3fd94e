"""Time references as a class (issue 28): onsets to now, parts of a day and scheduled runs,
midnight crossings in the asker's zone, a time moved by a follow-up. One example of each
phrasing people use; the invariants over generated phrasings are in
tests/property/test_time_phrasings.py."""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

import pytest

from planner.question.dayparts import PARTS, DayPart
from planner.question.timeparse import APPROX_MARGIN, parse_time
from planner.question.timeshift import moved, shift_asked
from policy.scope import TimeSpec

TZ = ZoneInfo("Europe/Moscow")
UTC = ZoneInfo("UTC")
# a Monday afternoon in the asker's zone
NOW = datetime(2026, 12, 7, 14, 40, tzinfo=TZ)


def at(day: int, hour: int, minute: int = 0, tz: tzinfo = TZ) -> datetime:
    return datetime(2026, 12, day, hour, minute, tzinfo=tz)


def window(text: str, now: datetime = NOW, tz: tzinfo = TZ) -> tuple[datetime, datetime]:
    found = parse_time(text, now, tz)
    assert found is not None, text
    return found.spec.bounds(now)


# -- onsets to now ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "onset"),
    [
        ("503 since 11:10", at(7, 11, 10)),
        ("с 11:10 отдаёт 503", at(7, 11, 10)),
        ("since the deploy at 11:10 the queue grows", at(7, 11, 10)),
        ("после деплоя в 11:10 поды рестартуют", at(7, 11, 10)),
        ("начиная с 9 утра растёт latency", at(7, 9)),
        ("errors since 9am", at(7, 9)),
        ("since 11 pm yesterday", at(6, 23)),
        ("SINCE 11:10", at(7, 11, 10)),
        ("с 3 часов", at(7, 3)),  # the most recent of 03:00 and 15:00 (not yet)
        ("since 2pm UTC", at(7, 14, tz=UTC) - timedelta(days=1)),  # 17:00 local: not yet
    ],
)
def test_an_onset_on_the_clock_is_read_from_then_until_now(text: str, onset: datetime) -> None:
    found = parse_time(text, NOW, TZ)
    assert found is not None and found.onset == onset, text
    assert found.spec.bounds(NOW) == (onset, NOW) and found.spec.mode == "now", text


@pytest.mark.parametrize(
    "text",
    [
        "stuck since this morning's deploy (around 11:10)",
        "висит с утреннего деплоя, примерно с 11:10",
        "since ~11:10",
        "с деплоя около 11:10",
    ],
)
def test_a_rounded_onset_stays_an_onset_read_a_little_earlier(text: str) -> None:
    """Not 15 minutes around 11:10: from just before it until now, the onset at 11:10."""
    found = parse_time(text, NOW, TZ)
    assert found is not None and found.onset == at(7, 11, 10), text
    assert found.spec.bounds(NOW) == (at(7, 11, 10) - APPROX_MARGIN, NOW), text


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("since this morning", at(7, 6)),
        ("с утра", at(7, 6)),
        ("с самого утра", at(7, 6)),
        ("since this morning's deploy", at(7, 6)),
        ("since yesterday evening", at(6, 18)),
        ("со вчерашнего вечера", at(6, 18)),
        ("since last night", at(6, 20)),
        ("с ночи", at(6, 20)),
        ("since yesterday", at(6, 0)),
        ("since Monday", at(7, 0)),  # today is a Monday
        ("since Friday", at(4, 0)),
        ("с пятницы", at(4, 0)),
        ("since 5 Dec", at(5, 0)),
        ("с 5 декабря", at(5, 0)),
    ],
)
def test_an_onset_named_by_the_calendar_is_read_from_its_start(text: str, start: datetime) -> None:
    found = parse_time(text, NOW, TZ)
    assert found is not None, text
    assert found.spec.bounds(NOW) == (start, NOW) and found.spec.mode == "now", text


def test_a_clock_time_beside_a_vague_onset_puts_it() -> None:
    """ "since this morning's deploy, around 11:05": the clock time after the comma is when
    this morning's deploy was."""
    found = parse_time("keeps falling over since this morning's deploy, around 11:05", NOW, TZ)
    assert found is not None and found.onset == at(7, 11, 5)
    assert found.spec.bounds(NOW) == (at(7, 11, 5) - APPROX_MARGIN, NOW)


def test_an_hour_in_a_part_of_the_day_that_still_goes_on_is_an_onset() -> None:
    text = "it stopped updating around 8 this morning, clients still get old rates"
    found = parse_time(text, NOW, TZ)
    assert found is not None and found.onset == at(7, 8)
    assert found.spec.bounds(NOW) == (at(7, 8) - APPROX_MARGIN, NOW)


def test_a_window_asked_beside_an_onset_is_the_window_read() -> None:
    """ "failing since this morning: what did it log in the last hour?" reads the last hour,
    the onset kept."""
    text = "failing since 09:30. What errors has it logged in the last hour?"
    found = parse_time(text, NOW, TZ)
    assert found is not None and found.onset == at(7, 9, 30)
    assert found.spec.bounds(NOW) == (NOW - timedelta(hours=1), NOW)


def test_a_thing_after_with_is_no_onset() -> None:
    """ "что с сервисом в 11:10": "с" takes the service, the time is a moment."""
    found = parse_time("что с сервисом в 11:10?", NOW, TZ)
    assert found is not None and found.spec.at == at(7, 11, 10)
    assert found.spec.bounds(NOW)[1] < NOW


# -- parts of a day and scheduled runs ----------------------------------------------------

NIGHT = PARTS[DayPart.NIGHT]
LAST_NIGHT = (at(6, NIGHT.start), at(7, NIGHT.end))


@pytest.mark.parametrize(
    "text",
    [
        "why didn't last night's backup run?",
        "did the backup run last night?",
        "overnight the cron job failed",
        "the night's backup job is missing",
        "tonight's backup failed",
        "почему ночью не прошёл бэкап",
        "что с бэкапом этой ночью",
        "сегодня ночью упал cron",
        "вчера ночью упал cron",
        "почему не отработал ночной бэкап",
        "Why didn't LAST NIGHT'S backup run?",
    ],
)
def test_last_night_is_the_night_in_the_askers_zone_never_the_last_hour(text: str) -> None:
    assert window(text) == LAST_NIGHT, text


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("what happened this morning?", at(7, 6), at(7, 12)),
        ("утром были 502", at(7, 6), at(7, 12)),
        ("yesterday evening", at(6, 18), at(7, 0)),
        ("вчера вечером", at(6, 18), at(7, 0)),
        ("this afternoon", at(7, 12), NOW),
        ("сегодня днём", at(7, 12), NOW),
        ("вчера вечером около 9", at(6, 20, 30), at(6, 21, 30)),
        ("что было 05.12 ночью", at(4, NIGHT.start), at(5, NIGHT.end)),
        ("last night at 3", at(7, 2, 30), at(7, 3, 30)),
        # "still": what began this morning goes on
        ("it broke this morning and still fails", at(7, 6), NOW),
    ],
)
def test_a_part_of_the_day(text: str, start: datetime, end: datetime) -> None:
    assert window(text) == (start, end), text


@pytest.mark.parametrize("text", ["last night", "ночью", "этой ночью", "overnight", "tonight"])
def test_last_night_asked_after_midnight_is_the_night_in_progress(text: str) -> None:
    now = at(7, 1, 30)
    assert window(text, now) == (at(6, NIGHT.start), now), text


def test_tonight_asked_in_the_evening_is_the_night_begun_and_last_night_the_one_before() -> None:
    now = at(7, 22, 0)
    assert window("tonight's backup", now) == (at(7, NIGHT.start), now)
    assert window("last night's backup", now) == LAST_NIGHT


def test_a_greeting_names_no_part_of_the_day() -> None:
    assert parse_time("good morning, why is the queue growing?", NOW, TZ) is None
    assert parse_time("добрый вечер, почему растёт очередь?", NOW, TZ) is None


# -- midnight crossings and zones ---------------------------------------------------------

AFTER_MIDNIGHT = at(7, 0, 20)


@pytest.mark.parametrize(
    "text", ["at 23:50", "в 23:50", "в 23.50", "yesterday at 23:50", "вчера в 23:50", "at 11:50 pm"]
)
def test_a_clock_time_after_midnight_is_the_most_recent_one(text: str) -> None:
    """Asked at 00:20: 30 minutes ago, not 24 hours later or earlier."""
    found = parse_time(text, AFTER_MIDNIGHT, TZ)
    assert found is not None and found.spec.at == at(6, 23, 50), text
    assert found.spec.bounds(AFTER_MIDNIGHT)[1] <= AFTER_MIDNIGHT


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("at 11pm", at(6, 23)),
        ("11 pm", at(6, 23)),
        ("в 11 вечера", at(6, 23)),
        ("в 9 утра", at(7, 9)),
        ("в 14 ч", at(7, 14)),
        ("в 2 часа", at(7, 14)),  # the most recent of 02:00 and 14:00
        ("at 10:00Z", at(7, 10, tz=UTC)),
        ("at 2am UTC", at(7, 2, tz=UTC)),
        ("at 11:00 UTC", at(7, 11, tz=UTC)),  # 14:00 local: already past
        ("at 12:00 UTC", at(6, 12, tz=UTC)),  # 15:00 local: not yet, so yesterday's
        ("2026-12-06 23:50", at(6, 23, 50)),
        ("7 Dec at 09:15", at(7, 9, 15)),
        ("07.12 в 09:15", at(7, 9, 15)),
        ("6 декабря в 23:50", at(6, 23, 50)),
    ],
)
def test_a_moment_in_the_askers_zone_unless_written_in_another(text: str, moment: datetime) -> None:
    found = parse_time(text, NOW, TZ)
    assert found is not None and found.spec.at == moment, text


@pytest.mark.parametrize(
    ("text", "day"),
    [("7 Dec", 7), ("on 06.12", 6), ("за 05.12", 5), ("5 декабря", 5), ("Dec 5th", 5)],
)
def test_a_date_without_a_year_is_a_local_day(text: str, day: int) -> None:
    start, _ = window(text)
    assert start == at(day, 0), text


def test_a_date_later_this_year_is_last_years() -> None:
    start, end = window("25 Dec")
    assert (start, end) == (
        datetime(2025, 12, 25, tzinfo=TZ),
        datetime(2025, 12, 26, tzinfo=TZ),
    )


@pytest.mark.parametrize(
    "text",
    [
        "latency 12.05 s",
        "version 3.12.4",
        "p99 10.12",
        "за последние 3 дня",
        "restarts after 2h of load",
        "падает после 2 часов работы",
    ],
)
def test_numbers_are_not_dates(text: str) -> None:
    found = parse_time(text, NOW, TZ)
    assert found is None or found.spec.at is None, text


# -- a time moved by a follow-up ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("and an hour earlier?", timedelta(hours=-1)),
        ("а на 2 часа раньше?", timedelta(hours=-2)),
        ("30 минут спустя", timedelta(minutes=30)),
        ("а накануне?", timedelta(days=-1)),
        ("and the day before?", timedelta(days=-1)),
        ("a week earlier?", timedelta(weeks=-1)),
    ],
)
def test_a_follow_up_says_how_far_to_move_the_time(text: str, delta: timedelta) -> None:
    assert shift_asked(text) == delta


def test_an_hour_earlier_of_the_last_two_hours_ends_an_hour_ago() -> None:
    spec = moved(TimeSpec(window=timedelta(hours=2), mode="now"), timedelta(hours=-1), NOW)
    assert spec.bounds(NOW) == (NOW - timedelta(hours=3), NOW - timedelta(hours=1))
    assert spec.mode == "historical"


def test_a_moment_moved_keeps_its_window() -> None:
    before = TimeSpec(at=at(7, 2), window=timedelta(hours=1), mode="historical")
    spec = moved(before, timedelta(days=-1), NOW)
    assert spec.at == at(6, 2) and spec.window == timedelta(hours=1)
