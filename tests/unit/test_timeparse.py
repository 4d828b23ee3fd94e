"""Time expressions in the configured timezone (failure class "wrong time semantics")."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from planner.timeparse import parse_time

TZ = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 7, 20, 14, 40, tzinfo=TZ)


@pytest.mark.parametrize(
    ("text", "at", "mode"),
    [
        ("в 14:11", datetime(2026, 7, 20, 14, 11, tzinfo=TZ), "historical"),
        ("at 14:11", datetime(2026, 7, 20, 14, 11, tzinfo=TZ), "historical"),
        ("вчера в 21:00", datetime(2026, 7, 19, 21, 0, tzinfo=TZ), "historical"),
        ("at 23:10", datetime(2026, 7, 19, 23, 10, tzinfo=TZ), "historical"),  # last night
        ("at 11:11 UTC", datetime(2026, 7, 20, 11, 11, tzinfo=ZoneInfo("UTC")), "historical"),
        ("2026-07-20T14:11:00+03:00", datetime(2026, 7, 20, 14, 11, tzinfo=TZ), "historical"),
        ("20.07.2026 10:00", datetime(2026, 7, 20, 10, 0, tzinfo=TZ), "historical"),
        ("2 hours ago", NOW - timedelta(hours=2), "historical"),
        ("3 часа назад", NOW - timedelta(hours=3), "historical"),
    ],
)
def test_moments(text: str, at: datetime, mode: str) -> None:
    m = parse_time(text, NOW, TZ)
    assert m is not None and m.explicit
    assert m.spec.at == at
    assert m.spec.mode == mode


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("за последний час", timedelta(hours=1)),
        ("за последние 2 часа", timedelta(hours=2)),
        ("last 2h", timedelta(hours=2)),
        ("past 30 minutes", timedelta(minutes=30)),
        ("за полчаса", timedelta(minutes=30)),
    ],
)
def test_windows_ending_now(text: str, window: timedelta) -> None:
    m = parse_time(text, NOW, TZ)
    assert m is not None
    assert m.spec.at is None and m.spec.window == window and m.spec.mode == "now"
    start, end = m.spec.bounds(NOW)
    assert end == NOW and start == NOW - window


def test_yesterday_is_the_whole_local_day() -> None:
    m = parse_time("кто вчера выкатывал", NOW, TZ)
    assert m is not None
    start, end = m.spec.bounds(NOW)
    assert start == datetime(2026, 7, 19, 0, 0, tzinfo=TZ)
    assert end == datetime(2026, 7, 20, 0, 0, tzinfo=TZ)
    assert m.spec.mode == "historical"


def test_now_words_and_silence() -> None:
    for text in ("что сейчас с сервисом", "what is happening right now"):
        m = parse_time(text, NOW, TZ)
        assert m is not None and m.spec.mode == "now" and m.spec.at is None
    assert parse_time("почему сервис отдаёт ошибки", NOW, TZ) is None


def test_numbers_that_are_not_times() -> None:
    assert parse_time("request_id 7f9e2c21a4b84d0c9e51b0d3f6a27c85", NOW, TZ) is None
    assert parse_time("version 3.12.4 on port 8080", NOW, TZ) is None
