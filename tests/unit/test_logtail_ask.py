"""Log lines asked for are read as a tail: how many, which run, which pod; a count of a
phrase or a cause is no tail."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from planner.conclude.tailed import tail_sentence
from planner.question.logtail import DEFAULT_LINES, LogTail, log_tail_asked, pods_named
from planner.shapes.language import Language
from policy.facts import K8sLog
from policy.results import ResultFact
from tests.unit.toolkit import read_of


@pytest.mark.parametrize(
    ("question", "tail"),
    [
        ("show the last 3 log lines of service-a-5d8f7c9b4-x2k9p in dc-a", LogTail(3)),
        ("покажи последние 10 строк лога service-d-7b6c9f5d84-t8mzq в dc-b", LogTail(10)),
        (
            "show me the log of the previous (killed) container of service-b in dc-a",
            LogTail(DEFAULT_LINES, previous=True),
        ),
        ("покажи логи упавших подов ledger-backup", LogTail(DEFAULT_LINES, previous=True)),
        ("tail 50 lines of the checkout-web log", LogTail(50)),
    ],
)
def test_a_tail_asked_is_read_with_its_length_and_run(question: str, tail: LogTail) -> None:
    assert log_tail_asked(question) == tail


@pytest.mark.parametrize(
    "question",
    [
        "why does service-b keep restarting?",
        "сколько раз ledger-writer написал в лог 'deadlock detected' за час?",
    ],
)
def test_no_tail_is_read_where_no_lines_are_asked(question: str) -> None:
    assert log_tail_asked(question) is None


@pytest.mark.parametrize(
    "question",
    [
        "were there errors in service-a's logs in the last 30 minutes?",
        "покажи ошибки в логах service-b за 30 минут",
        "any exceptions in the checkout-web log today?",
    ],
)
def test_errors_in_the_logs_are_the_error_lines_of_the_window(question: str) -> None:
    tail = log_tail_asked(question)
    assert tail is not None and tail.errors


def test_a_pod_is_the_object_name_with_a_pod_suffix_and_nothing_longer() -> None:
    message = "logs of service-a-5d8f7c9b4-x2k9p, kafka-0 and service-a-canary-5d8f7c9b4-x2k9p"
    assert pods_named(message, "service-a") == ["service-a-5d8f7c9b4-x2k9p"]
    assert pods_named(message, "kafka") == ["kafka-0"]
    assert pods_named(message, None) == []


def _line(n: int, at_s: int, level: str, text: str, previous: bool = False) -> Any:
    at = datetime(2026, 7, 20, 11, 33, at_s, tzinfo=UTC)
    attrs = K8sLog(
        pod="p-1", container="app", level=level, line=text, message=text, previous=previous
    )
    return read_of("dc-b", [ResultFact(text=text, attrs=attrs, source="k", observed_at=at)])


def test_the_tail_says_whose_lines_the_latest_by_time_and_the_error_before_it() -> None:
    # ranked, not in time order: the latest line is the one observed last
    facts = [
        _line(0, 2, "FATAL", "exiting with code 1", previous=True),
        _line(1, 0, "INFO", "starting", previous=True),
        _line(2, 1, "ERROR", "missing required env DATABASE_URL", previous=True),
    ]
    said = tail_sentence(LogTail(3, previous=True), facts, Language.EN)
    assert said == (
        "The last 3 log lines of p-1 (app) in dc-b, previous run are below, oldest first; "
        "the latest: exiting with code 1; the error before it: missing required env DATABASE_URL"
    )


def test_the_run_said_is_the_one_read_not_the_one_asked() -> None:
    """A Job's pod never restarts: its failed run is its current log, and the answer said
    "previous run" of it because the crashed run was asked."""
    facts = [_line(0, 2, "FATAL", "password authentication failed")]
    said = tail_sentence(LogTail(3, previous=True), facts, Language.EN)
    assert said is not None and "previous run" not in said


WINDOW = (datetime(2026, 7, 20, 11, 10, tzinfo=UTC), datetime(2026, 7, 20, 11, 40, tzinfo=UTC))


def test_the_error_lines_asked_leave_the_warnings_and_read_levels_in_the_text() -> None:
    facts = [
        _line(0, 1, "", 'level=warn msg="retrying" err="dial tcp: refused"'),
        _line(1, 2, "", 'level=error msg="publish failed" err="no brokers"'),
        _line(2, 3, "INFO", "served 200"),
    ]
    said = tail_sentence(LogTail(20, errors=True), facts, Language.EN, "svc", WINDOW)
    assert said is not None
    assert said.startswith("1 error line in the log of p-1 (app) in dc-b between ")
    assert said.endswith('the latest: level=error msg="publish failed" err="no brokers"')


def test_no_error_line_is_said_with_the_read_and_the_warnings_and_a_cut_read_is_no_no() -> None:
    warn = _line(0, 1, "WARN", "slow upstream")
    said = tail_sentence(LogTail(20, errors=True), [warn], Language.EN, "svc", WINDOW)
    assert said == (
        "No error lines in the log of svc in dc-b between 2026-07-20T11:10:00Z and "
        "2026-07-20T11:40:00Z (s, read in full); 1 warning line, the latest: slow upstream"
    )
    cut = read_of("dc-b", [], complete=False)
    said = tail_sentence(LogTail(20, errors=True), [cut], Language.EN, "svc", WINDOW)
    assert said is not None
    assert said.startswith("No error lines in what was read of the log of svc in dc-b")
    assert "but not all of it was read" in said
