"""Each expectation kind, passing and failing, on a hand-built Answer (no world needed)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from bot.render import render_plain
from evals.checks import Failure, check_turn
from evals.scenario import Expect
from evals.simulators.querylog import QueryRecord
from planner.shapes.answer import (
    Answer,
    AnswerFact,
    Gap,
    Hypothesis,
    ObjectiveReport,
    ToolCallRecord,
)
from policy.results import ResultStatus
from policy.scope import Scope

NOW = datetime(2026, 7, 20, 11, 40, tzinfo=UTC)


def call(tool: str, source: str, status: ResultStatus) -> ToolCallRecord:
    return ToolCallRecord(
        tool=tool,
        arguments={"env": "dc-a"},
        source=source,
        env="dc-a",
        status=status,
        duration_ms=3,
    )


def answer() -> Answer:
    return Answer(
        question="why does service-x restart in dc-a?",
        scope=Scope(env="dc-a", namespace="shop", object="service-x"),
        summary="service-x restarts because its container is OOMKilled (exit code 137).",
        facts=[
            AnswerFact(
                text="Pod service-x-7d9f-abcde container app was OOMKilled 4 times",
                source="kubernetes",
                observed_at=NOW,
                scope={"env": "dc-a"},
                kind="restart",
            ),
            AnswerFact(
                text="Container app memory limit is 512Mi",
                source="kubernetes",
                observed_at=NOW,
                scope={"env": "dc-a"},
            ),
        ],
        hypotheses=[Hypothesis(text="The memory limit is too low", supported_by=[0, 1])],
        gaps=[Gap(objective="logs.app_errors", reason="Elasticsearch in dc-a timed out")],
        recommendations=["Raise the memory limit of service-x"],
        objectives=[
            ObjectiveReport(id="k8s.restarts", required=True, status="resolved"),
            ObjectiveReport(id="logs.app_errors", required=False, status="unavailable"),
        ],
        tool_calls=[
            call("k8s_list_workloads", "kubernetes", "ok"),
            call("k8s_pod_status", "kubernetes", "ok"),
            call("logs_app_errors", "elasticsearch", "error"),
        ],
    )


RECORDS = [
    QueryRecord("kubernetes", "dc-a", "GET", "/api/v1/namespaces/shop/pods"),
    QueryRecord("logs", "dc-a", "POST", "/app-*/_search", status=504),
    QueryRecord("gitlab", None, "GET", "/api/v4/projects"),
]


def run(**expect: Any) -> list[Failure]:
    a = answer()
    return check_turn(2, Expect.model_validate(expect), a, render_plain(a), RECORDS)


def only(failures: list[Failure], check: str) -> Failure:
    assert len(failures) == 1, failures
    assert failures[0].check == check and failures[0].turn == 2
    return failures[0]


def test_no_expectations_means_nothing_to_fail() -> None:
    a = answer()
    assert check_turn(1, None, a, render_plain(a), []) == []
    assert run() == []


def test_answer_contains() -> None:
    # case-insensitive; the rendered answer includes the summary, facts, gaps, next steps
    assert run(answer_contains=["oomkilled", "137", "512Mi", "timed out", "raise the memory"]) == []
    failure = only(run(answer_contains=["OOMKilled", "connection refused"]), "answer_contains")
    assert failure.expected == "connection refused"
    assert failure.seen.startswith("service-x restarts because")
    assert len(failure.seen) <= 300


def test_answer_not_contains() -> None:
    assert run(answer_not_contains=["no problems", "healthy"]) == []
    failure = only(run(answer_not_contains=["Exit Code 137"]), "answer_not_contains")
    assert failure.expected == "Exit Code 137"
    assert "exit code 137" in failure.seen  # the place where it was said


def test_facts_contain() -> None:
    assert run(facts_contain=["oomkilled 4 times", "512mi"]) == []
    failure = only(run(facts_contain=["evicted"]), "facts_contain")
    assert failure.expected == "evicted"
    assert "OOMKilled 4 times" in failure.seen and "512Mi" in failure.seen


def test_facts_contain_is_not_satisfied_by_the_summary_alone() -> None:
    # "exit code 137" is in the summary, not in any fact
    failure = only(run(facts_contain=["exit code 137"]), "facts_contain")
    assert failure.expected == "exit code 137"


def test_hypotheses_contain() -> None:
    assert run(hypotheses_contain=["memory limit is too low"]) == []
    failure = only(run(hypotheses_contain=["node pressure"]), "hypotheses_contain")
    assert failure.seen == "The memory limit is too low"


def test_gaps_contain_reads_objective_and_reason() -> None:
    assert run(gaps_contain=["logs.app_errors", "timed out", "elasticsearch in dc-a"]) == []
    failure = only(run(gaps_contain=["dc-b"]), "gaps_contain")
    assert failure.seen == "logs.app_errors: Elasticsearch in dc-a timed out"


def test_gaps_contain_with_no_gaps_says_so() -> None:
    a = answer().model_copy(update={"gaps": []})
    failures = check_turn(1, Expect(gaps_contain=["dc-b"]), a, render_plain(a), [])
    assert failures == [Failure(1, "gaps_contain", "dc-b", "no gaps")]


def test_no_fact_contains() -> None:
    assert run(no_fact_contains=["healthy", "connection refused"]) == []
    failure = only(run(no_fact_contains=["memory LIMIT"]), "no_fact_contains")
    assert failure.seen == "Container app memory limit is 512Mi"


def test_queried_by_source_and_env() -> None:
    assert (
        run(
            queried=[
                {"source": "kubernetes", "env": "dc-a"},
                {"source": "logs"},
                {"source": "gitlab"},
            ]
        )
        == []
    )
    failure = only(run(queried=[{"source": "kubernetes", "env": "dc-b"}]), "queried")
    assert failure.expected == "kubernetes/dc-b"
    assert failure.seen == "kubernetes/dc-a | logs/dc-a | gitlab"


def test_queried_with_no_reads_at_all() -> None:
    a = answer()
    expect = Expect.model_validate({"queried": [{"source": "metrics"}]})
    assert check_turn(1, expect, a, render_plain(a), []) == [
        Failure(1, "queried", "metrics/*", "no reads")
    ]


def test_not_queried() -> None:
    assert run(not_queried=[{"source": "metrics"}, {"source": "logs", "env": "dc-b"}]) == []
    failure = only(run(not_queried=[{"source": "logs", "env": "dc-a"}]), "not_queried")
    assert failure.expected == "logs/dc-a"
    assert failure.seen == "logs/dc-a POST /app-*/_search"


def test_objectives_status() -> None:
    assert run(objectives_status={"k8s.restarts": "resolved"}) == []
    failure = only(run(objectives_status={"logs.app_errors": "resolved"}), "objectives_status")
    assert failure.expected == "logs.app_errors: resolved" and failure.seen == "unavailable"
    failure = only(run(objectives_status={"edge.error_log": "resolved"}), "objectives_status")
    assert failure.seen == "not among the answer's objectives: k8s.restarts, logs.app_errors"


@pytest.mark.parametrize("limit", [3, 10])
def test_max_tool_calls_passes_at_or_under_the_limit(limit: int) -> None:
    assert run(max_tool_calls=limit) == []


def test_max_tool_calls_fails_over_the_limit() -> None:
    failure = only(run(max_tool_calls=2), "max_tool_calls")
    assert failure.expected == "at most 2"
    assert failure.seen.startswith("3 calls: k8s_list_workloads, k8s_pod_status")


def test_every_failure_of_a_turn_is_listed() -> None:
    failures = run(
        answer_contains=["zebra"],
        facts_contain=["zebra"],
        queried=[{"source": "metrics"}],
        max_tool_calls=0,
    )
    assert [f.check for f in failures] == [
        "answer_contains",
        "facts_contain",
        "max_tool_calls",
        "queried",
    ]
    assert all(f.as_dict().keys() == {"turn", "check", "expected", "seen"} for f in failures)


def test_summary_contains_reads_the_headline_not_the_facts() -> None:
    """The asked thing must be in the summary: a value that only a fact holds fails."""
    assert run(summary_contains=["OOMKilled", "137"]) == []
    failure = only(run(summary_contains=["512Mi"]), "summary_contains")
    assert failure.expected == "512Mi"
    assert failure.seen.startswith("service-x restarts because")
