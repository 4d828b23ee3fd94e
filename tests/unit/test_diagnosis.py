"""Causality in code: a change after the symptom began is never offered as its cause."""

from __future__ import annotations

from datetime import UTC, datetime

from planner.diagnosis import IndexedFact, diagnose
from policy.facts import CiJob, K8sWaiting
from policy.results import ResultFact

NOW = datetime(2026, 9, 1, 10, 0, tzinfo=UTC)


def facts() -> list[IndexedFact]:
    waiting = ResultFact(
        text="pod tariff-calc-1 is waiting: CrashLoopBackOff",
        source="kubernetes",
        observed_at=NOW,
        attrs=K8sWaiting(pod="tariff-calc-1", container="app", reason="CrashLoopBackOff"),
    )
    deploy = ResultFact(
        text="job deploy:prod #9120457 started 09:56",
        source="gitlab",
        observed_at=datetime(2026, 9, 1, 9, 58, tzinfo=UTC),
        attrs=CiJob(job_id=9120457, job_name="deploy:prod", started_at="2026-09-01T09:56:00Z"),
    )
    return [IndexedFact(0, waiting, "prod"), IndexedFact(1, deploy, "prod")]


def _crash(findings: list) -> str:
    return next(f.summary for f in findings if "CrashLoopBackOff" in f.summary)


def test_a_release_after_the_onset_the_question_states_is_no_cause() -> None:
    # the evidence alone (the pod seen waiting at 10:00) would put the release before it
    assert "after release job deploy:prod #9120457" in _crash(diagnose(facts()))
    # "503 since 09:30": the deploy at 09:56 came after the failures began
    onset = datetime(2026, 9, 1, 9, 30, tzinfo=UTC)
    assert "release job" not in _crash(diagnose(facts(), onset))
