"""Time expressions in the configured timezone (failure class "wrong time semantics")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.question.timeparse import parse_time

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


# -- amounts as people write them (class: "a guessed or inverted amount is not one unit") --

_RU_WORDS = {2: "два", 3: "три", 5: "пять", 10: "десять", 15: "пятнадцать", 20: "двадцать"}
_RU_GENITIVE = {2: "двух", 3: "трёх", 5: "пяти", 10: "десяти", 20: "двадцати"}
_EN_WORDS = {2: "two", 3: "three", 5: "five", 10: "ten", 15: "fifteen", 20: "twenty"}
_RU_UNIT = {"m": "минут", "h": "часа"}
_EN_UNIT = {"m": "minutes", "h": "hours"}
_SPAN = {"m": timedelta(minutes=1), "h": timedelta(hours=1)}


def _phrasings(n: int, unit: str) -> list[tuple[str, bool]]:
    """(phrase, approximate) for `n` units ago, in the ways people say it."""
    out = [
        (f"{n} {_RU_UNIT[unit]} назад", False),
        (f"{_RU_UNIT[unit]} {n} назад", True),  # inverted: a guess
        (f"около {n} {_RU_UNIT[unit]} назад", True),
        (f"{n} {_EN_UNIT[unit]} ago", False),
        (f"about {n} {_EN_UNIT[unit]} ago", True),
    ]
    if n in _RU_WORDS:
        out += [
            (f"{_RU_UNIT[unit]} {_RU_WORDS[n]} назад", True),
            (f"{_EN_WORDS[n]} {_EN_UNIT[unit]} ago", False),
        ]
    if n in _RU_GENITIVE:
        out.append((f"около {_RU_GENITIVE[n]} {'часов' if unit == 'h' else 'минут'} назад", True))
    return out


@given(
    n=st.sampled_from([2, 3, 5, 10, 15, 20, 45]),
    unit=st.sampled_from(["m", "h"]),
    lead=st.sampled_from(["", "почему service-a отдаёт 503? началось ", "errors started "]),
)
def test_an_amount_ago_a_symptom_began_is_read_since_then(n: int, unit: str, lead: str) -> None:
    """ "началось часа два назад": from a little before then until now, and the onset (what
    bounds its causes) no earlier than the amount says."""
    span = n * _SPAN[unit]
    for phrase, approximate in _phrasings(n, unit):
        m = parse_time(lead + phrase, NOW, TZ) if lead else None
        if m is None:
            continue
        start, end = m.spec.bounds(NOW)
        assert m.spec.mode == "now" and end == NOW, phrase
        margin = span / 4 if approximate else timedelta(minutes=5)
        assert start == NOW - span - margin, phrase
        assert m.onset is not None and m.onset >= NOW - span, phrase


@given(
    n=st.sampled_from([2, 3, 5, 10, 15, 20, 45]),
    unit=st.sampled_from(["m", "h"]),
    lead=st.sampled_from(["", "почему service-a отдаёт 503? было ", "errors at "]),
)
def test_an_amount_ago_is_that_long_ago_however_it_is_written(n: int, unit: str, lead: str) -> None:
    span = n * _SPAN[unit]
    for phrase, approximate in _phrasings(n, unit):
        m = parse_time(lead + phrase, NOW, TZ)
        assert m is not None, phrase
        assert m.spec.at == NOW - span, phrase
        # two minutes ago is still "now": history begins after that
        assert m.spec.mode == ("historical" if span > timedelta(minutes=2) else "now"), phrase
        # a guess is read with room around it; an exact amount with the usual window
        assert m.spec.window == (
            max(span / 2, timedelta(minutes=15)) if approximate else timedelta(minutes=15)
        ), phrase


@given(n=st.sampled_from([2, 3, 5, 10, 20]), unit=st.sampled_from(["m", "h"]))
def test_the_last_amount_is_a_window_up_to_now(n: int, unit: str) -> None:
    span = n * _SPAN[unit]
    for phrase in (
        f"за последние {n} {_RU_UNIT[unit]}",
        f"за последние {_RU_UNIT[unit]} {n}",
        f"in the last {n} {_EN_UNIT[unit]}",
        f"past {n} {_EN_UNIT[unit]}",
    ):
        m = parse_time(phrase, NOW, TZ)
        assert m is not None and m.spec.mode == "now", phrase
        assert m.spec.window == span and m.spec.at is None, phrase


@pytest.mark.parametrize(
    ("text", "start", "end", "mode"),
    [
        (
            "часа два назад начались 503",  # began then and goes on: since a guess's margin
            NOW - timedelta(hours=2, minutes=30),
            NOW,
            "now",
        ),
        ("503s started 20 minutes ago", NOW - timedelta(minutes=25), NOW, "now"),
        # a rounded clock time after "since" is since then, read from 10 minutes before
        ("answering 500 since about 14:20", NOW.replace(hour=14, minute=10), NOW, "now"),
        # "yesterday night's rates" qualifies the rates: the question is about this morning
        (
            "it stopped this morning, clients still get yesterday night's rates",
            NOW.replace(hour=6, minute=0),
            NOW,
            "now",
        ),
        (
            "около получаса назад",
            NOW - timedelta(minutes=37, seconds=30),
            NOW - timedelta(minutes=22, seconds=30),
            "historical",
        ),
        (
            "пару часов назад",
            NOW - timedelta(hours=2, minutes=7, seconds=30),
            NOW - timedelta(hours=1, minutes=52, seconds=30),
            "historical",
        ),
        ("since an hour ago", NOW - timedelta(hours=1), NOW, "now"),
        ("in the last couple of hours", NOW - timedelta(hours=2), NOW, "now"),
        ("с 10 утра", NOW.replace(hour=10, minute=0), NOW, "now"),
        ("since 9am", NOW.replace(hour=9, minute=0), NOW, "now"),
        ("since 9 pm", NOW.replace(hour=21, minute=0) - timedelta(days=1), NOW, "now"),
        (
            "вчера вечером",
            NOW.replace(hour=18, minute=0) - timedelta(days=1),
            NOW.replace(hour=0, minute=0),
            "historical",
        ),
        (
            "yesterday evening",
            NOW.replace(hour=18, minute=0) - timedelta(days=1),
            NOW.replace(hour=0, minute=0),
            "historical",
        ),
        ("сегодня днём", NOW.replace(hour=12, minute=0), NOW, "now"),
    ],
)
def test_phrases_of_a_window(text: str, start: datetime, end: datetime, mode: str) -> None:
    m = parse_time(text, NOW, TZ)
    assert m is not None
    assert m.spec.bounds(NOW) == (start, end)
    assert m.spec.mode == mode


@pytest.mark.parametrize(
    ("text", "onset"),
    [
        ("503 примерно с 12:30", NOW.replace(hour=12, minute=30)),
        ("502 at 14:11", NOW.replace(hour=14, minute=11)),
        ("since 9am", NOW.replace(hour=9, minute=0)),
        ("с 13:00 до 13:20", NOW.replace(hour=13, minute=0)),
        ("since this morning", None),  # a span, not the moment it began
        ("since the deploy this morning (around 11:10)", NOW.replace(hour=11, minute=10)),
        ("за последний час", None),
    ],
)
def test_a_clock_time_says_when_the_symptom_began(text: str, onset: datetime | None) -> None:
    m = parse_time(text, NOW, TZ)
    assert m is not None and m.onset == onset


@pytest.mark.parametrize(
    ("text", "day_offset"),
    [
        ("checkout failed at 09:10 yesterday that's when it broke", -1),
        ("ошибки за вчерашний день", -1),
    ],
)
def test_a_day_named_as_the_time_is_kept(text: str, day_offset: int) -> None:
    m = parse_time(text, NOW, TZ)
    assert m is not None
    start, _ = m.spec.bounds(NOW)
    assert start.date() == (NOW + timedelta(days=day_offset)).date()


def test_a_word_that_only_starts_like_a_verb_of_beginning_is_not_one() -> None:
    """ "начальник" is no "начались": two hours ago stays a moment, not "since"."""
    m = parse_time("деплой 2 часа назад, начальник спрашивает почему 502", NOW, TZ)
    assert m is not None and m.spec.mode == "historical" and m.onset is None


@pytest.mark.parametrize(
    "at", [datetime(9999, 12, 31, 23, 59, tzinfo=UTC), datetime(1, 1, 1, 0, 0, tzinfo=UTC)]
)
def test_a_time_at_the_calendars_ends_is_a_window_not_a_crash(at: datetime) -> None:
    from policy.scope import TimeSpec

    start, end = TimeSpec(at=at, window=timedelta(days=2), mode="historical").bounds(
        datetime(2026, 7, 20, tzinfo=UTC)
    )
    assert start <= end and 1970 <= start.year <= 9000 and 1970 <= end.year <= 9000


@pytest.mark.parametrize("unit", ["1.", "a-", "a1-", "10.0.0.", "a@", "1:", "аa"])
def test_reading_a_question_is_linear_on_adversarial_text(unit: str) -> None:
    """200 KB of what makes a nested pattern backtrack: well under a second for the
    extraction of identifiers and names (before the fix: 64 KB took half a minute)."""
    import time

    from planner.question.extract import extract_identifiers
    from planner.question.names import normalise

    text = unit * (200_000 // len(unit))
    began = time.perf_counter()
    extract_identifiers(text)
    normalise(text)
    assert time.perf_counter() - began < 1.5
