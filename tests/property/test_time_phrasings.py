"""Time references over generated phrasings: a small grammar of what people write (parts of
a day, onset words, clock formats, both languages, any case) asked at moments around
midnight in several zones, and the invariants a user would notice when one breaks: a
window that ends after now, an onset that is not where the window starts, a clock time
read a day off, a part of the day asked inside it that leaves now out, a crash."""

from __future__ import annotations

import time as clock
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from planner.question.dayparts import PARTS, DayPart
from planner.question.timeparse import APPROX_MARGIN, parse_time
from tests.property._tier import TIER

ZONES = [
    ZoneInfo("UTC"),
    ZoneInfo("Europe/Moscow"),
    ZoneInfo("America/New_York"),
    ZoneInfo("Asia/Kathmandu"),
    ZoneInfo("Pacific/Kiritimati"),
    ZoneInfo("Pacific/Pago_Pago"),
]
# days without a change of daylight saving time in these zones
DAYS = [date(2026, 12, 7), date(2026, 7, 20), date(2027, 1, 1)]
LOCAL_TIMES = [time(h, m) for h in (0, 1, 3, 7, 9, 11, 13, 18, 20, 22, 23) for m in (0, 20, 55)]


@st.composite
def moments(draw: st.DrawFn) -> tuple[datetime, tzinfo]:
    """When the question is asked, in the asker's zone: around midnight more than not."""
    tz = draw(st.sampled_from(ZONES))
    local = datetime.combine(draw(st.sampled_from(DAYS)), draw(st.sampled_from(LOCAL_TIMES)), tz)
    return local, tz


LEADS = ["", "почему упал бэкап ", "why did the cron job fail ", "что с очередью? ", "ping: "]
TAILS = ["", "?", " ?", "!", " — почему?", ", what happened?"]


def cased(text: str, how: int) -> str:
    return (text, text.upper(), text.capitalize())[how]


@dataclass(frozen=True)
class Clock:
    """A clock time and the ways it is written."""

    hour: int
    minute: int

    def written(self, lang: str) -> list[str]:
        hm = f"{self.hour:02d}:{self.minute:02d}"
        out = [hm, f"{self.hour}:{self.minute:02d}"]
        h12 = self.hour % 12 or 12
        if lang == "en":
            half = "am" if self.hour < 12 else "pm"
            out += [f"{h12}:{self.minute:02d} {half}", f"{h12}:{self.minute:02d}{half}"]
            if self.minute == 0:
                out += [f"{h12} {half}", f"{h12}{half}"]
        elif self.minute == 0 and 5 <= self.hour <= 11:
            out.append(f"{self.hour} утра")
        elif self.minute == 0 and 17 <= self.hour <= 23:
            out.append(f"{h12} вечера")
        return out


clocks = st.builds(Clock, st.integers(0, 23), st.sampled_from([0, 5, 10, 30, 50, 59]))
MOMENT_WORDS = {"en": ["at", "around", ""], "ru": ["в", "около", ""]}
ONSET_WORDS = {
    "en": ["since", "since the deploy at", "ever since the restart at", "after the rollout at"],
    "ru": ["с", "начиная с", "после деплоя в", "с рестарта в", "после"],
}
APPROX = {"en": ["around", "about", "~"], "ru": ["около", "примерно", "~"]}


def most_recent(local_now: datetime, c: Clock, tz: tzinfo) -> datetime:
    today = datetime.combine(local_now.date(), time(c.hour, c.minute), tz)
    return today if today <= local_now + timedelta(minutes=5) else today - timedelta(days=1)


@TIER
@given(
    asked=moments(),
    c=clocks,
    lang=st.sampled_from(["en", "ru"]),
    data=st.data(),
)
def test_a_clock_time_is_the_most_recent_one_and_never_ends_after_now(
    asked: tuple[datetime, tzinfo], c: Clock, lang: str, data: st.DataObject
) -> None:
    now, tz = asked
    word = data.draw(st.sampled_from(MOMENT_WORDS[lang]))
    written = data.draw(st.sampled_from(c.written(lang)))
    text = data.draw(st.sampled_from(LEADS)) + f"{word} {written}".strip()
    text = cased(text + data.draw(st.sampled_from(TAILS)), data.draw(st.integers(0, 2)))
    found = parse_time(text, now, tz)
    assert found is not None and found.spec.at is not None, text
    expected = min(most_recent(now, c, tz), now)
    assert found.spec.at == expected, (text, now)
    assert timedelta(0) <= now - found.spec.at < timedelta(hours=24), (text, now)
    assert found.spec.bounds(now)[1] <= now, (text, now)


@TIER
@given(asked=moments(), c=clocks, lang=st.sampled_from(["en", "ru"]), data=st.data())
def test_an_onset_phrase_reads_from_the_onset_to_now(
    asked: tuple[datetime, tzinfo], c: Clock, lang: str, data: st.DataObject
) -> None:
    now, tz = asked
    word = data.draw(st.sampled_from(ONSET_WORDS[lang]))
    approx = data.draw(st.sampled_from(["", *APPROX[lang]]))
    written = data.draw(st.sampled_from(c.written(lang)))
    if approx and word.endswith(" в"):
        word = word[: -len(" в")]  # "с рестарта около 11:10", not "в около"
    text = f"{word} {approx} {written}".replace("  ", " ")
    text = data.draw(st.sampled_from(LEADS)) + text + data.draw(st.sampled_from(TAILS))
    text = cased(text, data.draw(st.integers(0, 2)))
    found = parse_time(text, now, tz)
    assert found is not None and found.onset is not None, text
    onset = min(most_recent(now, c, tz), now)
    assert found.onset == onset, (text, now)
    start, end = found.spec.bounds(now)
    assert end == now and found.spec.mode == "now", (text, now)
    margin = APPROX_MARGIN if approx else timedelta(0)
    assert start == min(onset - margin, now - timedelta(minutes=1)), (text, now)


PART_WORDS: dict[DayPart, dict[str, list[str]]] = {
    DayPart.NIGHT: {
        "en": ["last night", "overnight", "last night's backup", "the nightly cron job"],
        "ru": ["ночью", "этой ночью", "сегодня ночью", "ночной бэкап", "за ночь"],
    },
    DayPart.MORNING: {"en": ["this morning", "in the morning"], "ru": ["утром", "сегодня утром"]},
    DayPart.AFTERNOON: {"en": ["this afternoon"], "ru": ["днём", "сегодня днем"]},
    DayPart.EVENING: {"en": ["this evening", "in the evening"], "ru": ["вечером"]},
}


def inside(part: DayPart, local: datetime) -> bool:
    """Is `local` inside `part` as a question without a day reads it? A night word asked
    before midnight means the night that ended this morning, so only its after-midnight
    hours are "inside"."""
    hours = PARTS[part]
    if hours.overnight:
        return local.hour < hours.end
    return hours.start <= local.hour < hours.end


@TIER
@given(
    asked=moments(),
    part=st.sampled_from(list(DayPart)),
    lang=st.sampled_from(["en", "ru"]),
    data=st.data(),
)
def test_a_part_of_the_day_is_its_hours_in_the_askers_zone(
    asked: tuple[datetime, tzinfo], part: DayPart, lang: str, data: st.DataObject
) -> None:
    now, tz = asked
    said = data.draw(st.sampled_from(PART_WORDS[part][lang]))
    text = data.draw(st.sampled_from(LEADS)) + said + data.draw(st.sampled_from(TAILS))
    text = cased(text, data.draw(st.integers(0, 2)))
    found = parse_time(text, now, tz)
    hours = PARTS[part]
    if (now.hour, now.minute) == (hours.start, 0):
        return  # the part begins this minute: there is nothing of it to read yet
    if said.startswith("сегодня") and not hours.overnight and now.hour < hours.start:
        # "сегодня днём" asked in the morning: that part has not begun, today has
        assert found is not None and found.spec.bounds(now)[1] == now, text
        return
    assert found is not None, text
    start, end = found.spec.bounds(now)
    assert end <= now, (text, now)
    assert start.astimezone(tz).hour == hours.start and start.astimezone(tz).minute == 0, text
    assert end - start <= timedelta(hours=12), (text, now)
    assert now - start < timedelta(hours=36), (text, now)
    if inside(part, now):
        assert end == now, (text, now)  # asked inside it: it includes now
    else:
        assert end.astimezone(tz).hour == hours.end % 24, (text, now)


@TIER
@given(asked=moments(), lang=st.sampled_from(["en", "ru"]), data=st.data())
def test_yesterday_at_a_clock_time_is_on_yesterdays_local_date(
    asked: tuple[datetime, tzinfo], lang: str, data: st.DataObject
) -> None:
    now, tz = asked
    c = data.draw(clocks)
    word = {"en": "yesterday at", "ru": "вчера в"}[lang]
    found = parse_time(f"{word} {c.hour:02d}:{c.minute:02d}", now, tz)
    assert found is not None and found.spec.at is not None
    local = found.spec.at.astimezone(tz)
    assert local.date() == now.date() - timedelta(days=1), (c, now)
    assert (local.hour, local.minute) == (c.hour, c.minute)
    assert timedelta(0) < now - found.spec.at < timedelta(hours=48)


TIME_TOKENS = [
    "since",
    "с",
    "со",
    "после",
    "after",
    "around",
    "около",
    "~",
    "в",
    "at",
    "last night",
    "ночью",
    "утра",
    "вечера",
    "pm",
    "11",
    "23:50",
    "07.12",
    "7 Dec",
    "декабря",
    "Monday",
    "пятницы",
    "среды",
    "вчерашнего",
    "night's",
    "good",
    "'s",
    "(",
    ")",
    "Z",
    "UTC",
]


@TIER
@given(
    parts=st.lists(
        st.one_of(st.sampled_from(TIME_TOKENS), st.text(max_size=6)),
        max_size=12,
    ),
    asked=moments(),
)
def test_any_mixture_of_time_words_is_none_or_a_window_that_ends_by_now(
    parts: list[str], asked: tuple[datetime, tzinfo]
) -> None:
    now, tz = asked
    text = " ".join(parts)
    found = parse_time(text, now, tz)
    if found is None:
        return
    start, end = found.spec.bounds(now)
    assert start <= end, text
    if found.onset is not None:
        assert found.onset <= now + timedelta(minutes=5), text


def test_a_huge_question_is_read_in_bounded_time() -> None:
    """A paste of 200 KB full of onset words and clock times: read well under a second
    or two (a marker's phrase is read at most `_ONSET_TRIES` times per message)."""
    now = datetime(2026, 12, 7, 0, 20, tzinfo=ZONES[1])
    units = ("since the deploy at ", "с ", "после деплоя в 1", "ночью 07.12 ", "07.12 ", "7 dec ")
    units += ("good morning ", "3 дня ", "с деплоя в 11:10 ", "at 11pm ", "в 1")
    for unit in units:
        text = unit * (200_000 // len(unit))
        began = clock.perf_counter()
        parse_time(text, now, ZONES[1])
        assert clock.perf_counter() - began < 2.0, unit
