"""Causality in code: a change after the symptom began is never offered as its cause."""

from __future__ import annotations

from datetime import UTC, datetime

from planner.conclude.diagnosis import IndexedFact, diagnose
from policy.facts import CiJob, K8sAudit, K8sAutoscaler, K8sEvent, K8sTermination, K8sWaiting
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


def _audit(actor: str, name: str, at: datetime, code: int = 200, **kw: object) -> ResultFact:
    attrs = K8sAudit(actor=actor, verb="patch", code=code, resource="configmaps", name=name,
                     namespace="pricing", **kw)  # type: ignore[arg-type]  # fmt: skip
    return ResultFact(text=f"{actor} patched {name}", source="kubernetes", observed_at=at,
                      attrs=attrs)  # fmt: skip


def test_a_persons_change_to_what_the_pods_mount_before_the_symptom_is_named() -> None:
    """The ConfigMap edit at 09:31:40 comes before the crash seen from 09:32; the release at
    09:56 came after it; the question's "since 09:30" is a rounded clock time."""
    edit = _audit(
        "oidc:k.m", "tariff-calc-config", datetime(2026, 9, 1, 9, 31, 40, tzinfo=UTC),
        mounted_by="Deployment tariff-calc",
    )  # fmt: skip
    first_crash = ResultFact(
        text="Warning BackOff",
        source="kubernetes",
        observed_at=datetime(2026, 9, 1, 9, 59, tzinfo=UTC),
        attrs=K8sEvent(reason="BackOff", name="tariff-calc-1", first_seen="2026-09-01T09:32:18Z"),
    )
    found = [*facts(), IndexedFact(2, edit, "prod"), IndexedFact(3, first_crash, "prod")]
    crash = _crash(diagnose(found, datetime(2026, 9, 1, 9, 30, tzinfo=UTC)))
    assert "after oidc:k.m did patch on configmaps pricing/tariff-calc-config at " in crash
    assert "which the pods of Deployment tariff-calc mount" in crash
    assert "release job" not in crash


def test_a_controllers_write_or_a_refused_change_is_no_change() -> None:
    at = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
    noise = [
        _audit("system:serviceaccount:kube-system:replicaset-controller", "x", at),
        _audit("oidc:k.m", "tariff-calc-config", at, code=403),
    ]
    found = [facts()[0]] + [IndexedFact(i + 1, f, "prod") for i, f in enumerate(noise)]
    assert "started failing after" not in _crash(diagnose(found))


def test_a_deploy_job_nobody_played_is_no_change() -> None:
    waiting, deploy = facts()
    played_never = deploy.fact.model_copy(
        update={"attrs": CiJob(job_id=1, job_name="deploy:prod", status="manual", ran=False)}
    )
    found = [waiting, IndexedFact(1, played_never, "prod")]
    assert "started failing after" not in _crash(diagnose(found))


def test_a_shell_in_a_pod_or_a_pod_deleted_is_no_change() -> None:
    at = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
    shell = _audit("oidc:k.m", "tariff-calc-1", at)
    shell.attrs = shell.attrs.model_copy(update={"resource": "pods", "subresource": "exec"})
    found = [facts()[0], IndexedFact(1, shell, "prod")]
    assert "started failing after" not in _crash(diagnose(found))


def test_an_autoscaler_held_at_its_minimum_or_pinned_is_no_finding() -> None:
    quiet = ResultFact(
        text="hpa",
        source="kubernetes",
        attrs=K8sAutoscaler(name="api", target="Deployment api", current=2, min_replicas=2,
                            max_replicas=10, at_max=False, limited=False, over_target=False),
    )  # fmt: skip
    pinned = quiet.model_copy(
        update={"attrs": quiet.attrs.model_copy(update={"max_replicas": 2, "at_max": True})}
    )
    for fact in (quiet, pinned):
        assert not any(
            "cannot scale out" in f.summary for f in diagnose([IndexedFact(0, fact, "p")])
        )
    busy = pinned.model_copy(
        update={"attrs": pinned.attrs.model_copy(update={"over_target": True})}
    )
    assert any("cannot scale out" in f.summary for f in diagnose([IndexedFact(0, busy, "p")]))


def _liveness_facts(with_kill: bool) -> list[IndexedFact]:
    probe = ResultFact(
        text="Warning Unhealthy",
        source="kubernetes",
        observed_at=NOW,
        attrs=K8sEvent(
            reason="Unhealthy",
            name="geo-5c9f-x1",
            object="Pod geo/geo-5c9f-x1",
            message='Liveness probe failed: Get "http://10.1.2.3:8080/healthz": context '
            "deadline exceeded",
            first_seen="2026-09-01T09:20:00Z",
        ),
    )
    kill = ResultFact(
        text="Normal Killing",
        source="kubernetes",
        observed_at=NOW,
        attrs=K8sEvent(
            reason="Killing",
            name="geo-5c9f-x1",
            message="Container tiler failed liveness probe, will be restarted",
        ),
    )
    ended = ResultFact(
        text="terminated",
        source="kubernetes",
        observed_at=NOW,
        attrs=K8sTermination(pod="geo-5c9f-x1", container="tiler", reason="Error", exit_code=143),
    )
    edit = ResultFact(
        text="oidc:m.l patched geo",
        source="kubernetes",
        observed_at=datetime(2026, 9, 1, 9, 5, tzinfo=UTC),
        attrs=K8sAudit(
            actor="oidc:m.l", verb="patch", code=200, resource="deployments", name="geo",
            namespace="geo",
        ),
    )  # fmt: skip
    found = [probe, kill, ended] if with_kill else [probe]
    return [IndexedFact(i, f, "prod") for i, f in enumerate([*found, edit])]


def test_a_container_killed_by_its_liveness_probe_has_the_probe_as_the_cause() -> None:
    """Class "restarts whose exit code is the kubelet's SIGTERM": the probe's failure, what
    it got, and the person's change before the first failure are the cause, said first."""
    finding = next(f for f in diagnose(_liveness_facts(True)) if "liveness" in f.summary)
    assert finding.summary.startswith("The kubelet restarts tiler of geo-5c9f-x1")
    assert "context deadline exceeded" in finding.summary and "exit code 143" in finding.summary
    assert "oidc:m.l" in finding.summary and finding.confidence == "high"
    # a failed probe with no kill seen yet is offered, less sure
    alone = next(f for f in diagnose(_liveness_facts(False)) if "liveness" in f.summary)
    assert alone.confidence == "medium"
