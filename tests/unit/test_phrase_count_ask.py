"""A count of a phrase in a log is read as one, and said from what the source counted:
the total, "at least" for a cut read, 0 only for a complete empty read, nothing for a
failed one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from planner.conclude.counted import count_sentence
from planner.plan.routing import PlannedCall
from planner.question.phrase import phrase_count_asked
from planner.read.executor import CallRecord
from planner.shapes.language import Language
from policy.results import Coverage, ResultStatus, ToolResult
from policy.scope import Scope


@pytest.mark.parametrize(
    ("question", "text"),
    [
        (
            "how many times did service-d log 'missing required env DATABASE_URL'?",
            "missing required env DATABASE_URL",
        ),
        (
            "сколько раз ledger-writer написал в лог «deadlock detected» за час?",
            "deadlock detected",
        ),
        (
            'how often does checkout-web log "Connection is not available"?',
            "Connection is not available",
        ),
    ],
)
def test_a_count_of_a_quoted_phrase_is_read(question: str, text: str) -> None:
    assert phrase_count_asked(question) == text


@pytest.mark.parametrize(
    "question",
    ["how many pods run in stage?", "сколько рестартов у пода x?", "show 'x' in the log"],
)
def test_no_phrase_count_without_a_count_and_a_quoted_phrase(question: str) -> None:
    assert phrase_count_asked(question) is None


def _record(
    status: ResultStatus,
    total: int | None,
    exact: bool = True,
    returned: int = 0,
    complete: bool = True,
) -> CallRecord:
    result = ToolResult(
        tool="logs.app_logs",
        scope=Scope(env="dc-b"),
        status=status,
        observed_at=datetime(2026, 7, 20, 11, 40, tzinfo=UTC),
        coverage=Coverage(
            source="elasticsearch/app-*",
            total=total,
            total_is_exact=exact,
            returned=returned,
            complete_for_negative=complete,
        ),
    )
    call = PlannedCall("logs.app_logs", "{}", "dc-b", "elasticsearch", ("logs.count",))
    return CallRecord(call_id="c1", call=call, result=result, duration_ms=1, attempts=1)


def test_the_count_is_the_total_the_source_counted_not_the_lines_shown() -> None:
    said = count_sentence(
        "x y", "svc", {"logs.count"}, [_record("ok", 28, returned=5)], Language.EN
    )
    assert said == "svc logged “x y” 28 times in dc-b (elasticsearch/app-*)"


def test_a_cut_read_says_at_least_an_empty_complete_read_zero_and_a_failed_read_nothing() -> None:
    cut = count_sentence(
        "x", "svc", {"logs.count"}, [_record("partial", None, returned=200)], Language.EN
    )
    assert cut is not None and "at least 200 times" in cut
    empty = count_sentence("x", "svc", {"logs.count"}, [_record("empty", None)], Language.RU)
    assert empty is not None and "«x» 0 раз в" in empty
    assert count_sentence("x", "svc", {"logs.count"}, [_record("error", None)], Language.EN) is None
