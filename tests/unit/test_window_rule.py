"""policy.window.resolve_window: the one rule every connector fills a call's window by,
with each source's difference as an explicit WindowRule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from policy.scope import Scope, TimeSpec
from policy.toolset import CallContext
from policy.window import WindowArgs, WindowRule, resolve_window

NOW = datetime(2026, 7, 20, 12, 0, tzinfo=UTC)
AT = datetime(2026, 7, 20, 11, 0, tzinfo=UTC)  # question window 10:52:30 .. 11:07:30
Q_START, Q_END = AT - timedelta(minutes=7.5), AT + timedelta(minutes=7.5)
LOGS = WindowRule(inverted="collapse")
METRICS = WindowRule(one_bound="question_length", clamp_to_now=True)


def _ctx() -> CallContext:
    time = TimeSpec(at=AT, window=timedelta(minutes=15), mode="historical")
    return CallContext(user="u", role="engineer", scope=Scope(time=time), now=NOW)


def _args(start: datetime | None = None, end: datetime | None = None) -> WindowArgs:
    return WindowArgs(env="dc-a", start=start, end=end)


def test_no_bounds_is_the_question_window_for_every_rule() -> None:
    for rule in (WindowRule(), LOGS, METRICS):
        assert resolve_window(_args(), _ctx(), rule) == (Q_START, Q_END)


def test_plain_rule_fills_each_missing_bound_from_the_question() -> None:
    start = datetime(2026, 7, 20, 10, 0, tzinfo=UTC)
    assert resolve_window(_args(start=start), _ctx()) == (start, Q_END)
    late = datetime(2026, 7, 20, 11, 30, tzinfo=UTC)
    assert resolve_window(_args(start=late), _ctx()) == (late, Q_END)  # inverted, kept


def test_logs_collapse_an_inverted_window_to_the_given_instant() -> None:
    late = datetime(2026, 7, 20, 11, 30, tzinfo=UTC)
    assert resolve_window(_args(start=late), _ctx(), LOGS) == (late, late)
    early = datetime(2026, 7, 20, 10, 0, tzinfo=UTC)
    assert resolve_window(_args(end=early), _ctx(), LOGS) == (early, early)


def test_metrics_keep_the_question_length_and_end_at_the_clock() -> None:
    start = datetime(2026, 7, 20, 10, 0, tzinfo=UTC)
    assert resolve_window(_args(start=start), _ctx(), METRICS) == (
        start,
        start + timedelta(minutes=15),
    )
    end = datetime(2026, 7, 20, 13, 0, tzinfo=UTC)  # past the clock
    assert resolve_window(_args(end=end), _ctx(), METRICS) == (
        end - timedelta(minutes=15),
        NOW,
    )
