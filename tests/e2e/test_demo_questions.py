"""Ordinary questions a new user asks of the built-in demo world (`infrabot ask`), each
answered with the value asked for or the real cause, first."""

from __future__ import annotations

import pytest

from bot.cli import main
from planner.answer import Answer


def ask(question: str, capsys: pytest.CaptureFixture[str]) -> Answer:
    assert main(["ask", "--json", question]) == 0
    return Answer.model_validate_json(capsys.readouterr().out)


def test_a_latency_asked_for_is_the_first_line_of_the_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The p99 was read, then pushed out of the answer by the request rates and the usage
    read beside it, while its objective said "resolved"."""
    answer = ask("p99 latency of catalog-api in dc-a, last hour", capsys)
    assert answer.summary.startswith("catalog-api in dc-a: p99 latency ")
    latency = [f for f in answer.facts if f.kind == "http.latency"]
    assert latency and latency[0].source.startswith("victoriametrics")
    assert {o.id: o.status for o in answer.objectives}["http.latency"] == "resolved"


def test_what_is_wrong_in_an_environment_sweeps_it_and_names_the_failing_workload(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No object named: the whole environment is swept, and the crash-looping service is
    found with the log line that explains it (it was six gaps saying "no service named")."""
    answer = ask("что не так в dc-b прямо сейчас?", capsys)
    assert answer.summary.startswith("Pod service-d-")
    assert "CrashLoopBackOff" in answer.summary and "DATABASE_URL" in answer.summary
    sweep = next(f for f in answer.facts if f.kind == "k8s.sweep")
    assert sweep.text.startswith("Swept dc-b: ") and "2 pod(s) not healthy" in sweep.text
    assert {o.id: o.status for o in answer.objectives}["env.health"] == "resolved"


def test_which_pods_are_not_ready_lists_them_with_why(capsys: pytest.CaptureFixture[str]) -> None:
    answer = ask("which pods are not ready in stage?", capsys)
    pending = [f for f in answer.facts if f.kind == "k8s.pod" and "Pending" in f.text]
    assert pending and "notify-push-" in pending[0].text
    assert any("Insufficient cpu" in h.text for h in answer.hypotheses)
    assert any(f.kind == "k8s.node_condition" and "Cordoned" in f.text for f in answer.facts)


def test_what_changed_never_says_nothing_changed_from_one_source_of_changes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Changes are a union (releases and people's changes in the cluster): an empty audit
    read alone said "No changes in the environment", with GitLab never read."""
    answer = ask("what changed in dc-a in the last 3 hours?", capsys)
    assert not any(f.kind == "negative" and "changes" in f.text.lower() for f in answer.facts)
    changes = [g for g in answer.gaps if g.objective == "changes.env"]
    assert changes and "gitlab" in changes[0].reason
    reports = {o.id: o for o in answer.objectives}
    assert reports["changes.env"].status != "resolved"
    assert {"kubernetes", "gitlab"} <= set(reports["changes.env"].sources)
