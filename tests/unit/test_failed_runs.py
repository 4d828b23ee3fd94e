"""A Job the controller gave up on is said with what its own pods logged, and no other
run's lines."""

from __future__ import annotations

from planner.conclude.diagnosis import diagnose
from planner.conclude.rule import IndexedFact
from policy.facts import K8sEvent, K8sLog, LogTemplate
from policy.language import Language
from policy.results import ResultFact


def indexed(*attrs: K8sEvent | K8sLog | LogTemplate) -> list[IndexedFact]:
    return [
        IndexedFact(i, ResultFact(text=f"fact {i}", source="kubernetes/east", attrs=a), "east")
        for i, a in enumerate(attrs)
    ]


def backoff(job: str) -> K8sEvent:
    return K8sEvent(
        reason="BackoffLimitExceeded",
        type="Warning",
        object=f"Job jobs/{job}",
        object_kind="Job",
        name=job,
        message="Job has reached the specified backoff limit",
    )


def test_a_failed_job_is_said_with_the_most_severe_line_its_pods_logged() -> None:
    facts = indexed(
        backoff("nightly-dump-100"),
        K8sLog(pod="nightly-dump-100-abcde", level="INFO", message="starting dump"),
        K8sLog(pod="nightly-dump-100-abcde", level="FATAL", message="disk quota exceeded"),
        K8sLog(pod="other-job-7-zzzzz", level="FATAL", message="unrelated failure"),
    )
    [finding] = [f for f in diagnose(facts) if "nightly-dump-100" in f.summary]
    assert finding.summary.startswith("Job nightly-dump-100 failed (BackoffLimitExceeded: ")
    assert "disk quota exceeded" in finding.summary and "unrelated" not in finding.summary
    assert 0 in finding.supported_by and 2 in finding.supported_by
    assert finding.confidence == "high"


def test_error_templates_of_the_runs_pods_are_quoted_first_in_the_askers_language() -> None:
    facts = indexed(
        backoff("report-7"),
        LogTemplate(
            template="connect to <ip> failed",
            level="ERROR",
            example="connect to 10.0.0.1 failed",
            origins=["report-7-x1y2z/main"],
        ),
    )
    [finding] = [f for f in diagnose(facts, None, Language.RU) if "report-7" in f.summary]
    assert finding.summary.startswith("Job report-7 завершился неудачей")
    assert "connect to 10.0.0.1 failed" in finding.summary


def test_a_pods_own_event_or_a_job_event_that_is_no_failure_names_no_failed_run() -> None:
    started = K8sEvent(reason="SuccessfulCreate", object_kind="Job", name="report-7")
    assert not [f for f in diagnose(indexed(started)) if f.summary.startswith("Job report-7")]
