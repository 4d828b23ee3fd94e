"""The time parser is total: any text, any clock, any zone gives None or a window that is
ordered, of a sane length, inside the calendar bounds every source can be asked for, and
that means what its mode says (a historical time is in the past)."""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo

from hypothesis import event, example, given
from hypothesis import strategies as st

from planner.question.timeparse import MAX_SPAN, parse_time
from policy.scope import EARLIEST, LATEST
from tests.property._questions import ZONES, clocks, questions
from tests.property._tier import TIER

NOW = datetime.fromisoformat("2026-07-20T11:40:00+00:00")


@TIER
@given(text=questions(), now=clocks(), tz=st.sampled_from(ZONES))
@example(text="9999-12-31 23:59", now=NOW, tz=ZONES[2])
@example(text="before 0001-01-01 00:10", now=NOW, tz=ZONES[1])
@example(text="31.12.9999 23:59 -12:00", now=NOW, tz=ZONES[0])
@example(text="last 99999999 days", now=NOW, tz=ZONES[0])
# an onset at the longest window's edge, with the margin read before it
@example(text="99999999999 days ago errors started 20 minutes ago ", now=NOW, tz=ZONES[0])
@example(text="at 14:11 +99:99", now=NOW, tz=ZONES[0])
# a letter whose lower case is longer ("İ") before a date at the calendar's start
@example(text="since 12:30 \u01300001-01-01 ", now=NOW, tz=ZONES[0])
def test_a_time_is_none_or_an_ordered_bounded_window(text: str, now: datetime, tz: tzinfo) -> None:
    found = parse_time(text, now, tz)
    event("no time" if found is None else found.spec.mode)
    if found is None:
        return
    spec = found.spec
    assert found.explicit and found.text
    assert timedelta(0) < spec.window <= MAX_SPAN, spec
    start, end = spec.bounds(now)
    assert start <= end, (start, end)
    assert start >= EARLIEST and end <= LATEST, (start, end)
    if spec.at is None:
        assert spec.mode == "now" and end == now, spec  # "last 2 hours": up to the clock
    if spec.mode == "historical":
        assert spec.at is not None and spec.at < now, spec
    if found.onset is not None:
        # a clock time or an amount ago puts the symptom's start: never years away
        assert now - MAX_SPAN - timedelta(days=1) <= found.onset <= now + timedelta(days=2)
