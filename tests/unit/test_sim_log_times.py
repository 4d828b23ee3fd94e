"""The kubelet stamps a line when the program writes it; the simulator reads that moment
from the line as the world's text states it, whatever the program's layout."""

from __future__ import annotations

from datetime import UTC, datetime

from evals.simulators.kubernetes._logs import timed_lines

STARTED = datetime(2027, 4, 18, 6, 44, tzinfo=UTC)


def test_each_layout_gives_the_moment_the_line_was_written() -> None:
    text = "\n".join(
        [
            '{"time":"2027-04-22T10:09:57.483Z","level":"WARN","msg":"redis ping failed"}',
            "1:M 22 Apr 2027 10:06:01.121 * Loading RDB produced by version 7.2.5",
            "2027-04-22T10:07:00.000Z ERROR boom",
            "Traceback (most recent call last):",
            '{"ts": 1, "msg": "a number is no time"}',
            "[2027-04-22 10:08:00,902: ERROR/ForkPoolWorker-3] Task render raised",
        ]
    )
    times = [line.at for line in timed_lines(text, STARTED)]
    assert times[0] == datetime(2027, 4, 22, 10, 9, 57, 483000, tzinfo=UTC)
    assert times[1] == datetime(2027, 4, 22, 10, 6, 1, tzinfo=UTC)
    assert times[2] == datetime(2027, 4, 22, 10, 7, tzinfo=UTC)
    # a continuation, and a line with no time it states, keep the time of the line before
    assert times[3] == times[2] and times[4] == times[2]
    assert times[5] == datetime(2027, 4, 22, 10, 8, 0, 902000, tzinfo=UTC)


def test_a_log_that_states_no_time_is_dated_from_the_container_start() -> None:
    assert [line.at for line in timed_lines("starting\nready", STARTED)] == [STARTED, STARTED]
