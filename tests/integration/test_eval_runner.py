"""`infrabot eval` end to end: real runner, real simulators, real conversation path.

A tiny Kubernetes-only world (a Deployment whose pod was OOMKilled) and two scenarios
written into a temporary folder: a required one with one deliberately failing check and
an optional one that passes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import build_parser
from evals import runner

WORLD = """\
world:
  environments:
    dc-a: [kubernetes]
  kubernetes:
    dc-a:
      - apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: service-x
          namespace: shop
          uid: 0b6f3c1e-6a51-4c1f-9d7e-2f0a8e5b7c11
          creationTimestamp: "2026-06-01T08:00:00Z"
          labels: {app.kubernetes.io/name: service-x}
        spec:
          replicas: 1
          selector: {matchLabels: {app.kubernetes.io/name: service-x}}
          template:
            metadata: {labels: {app.kubernetes.io/name: service-x}}
            spec:
              containers:
                - name: app
                  image: registry.example.com/shop/service-x:2.4.1
                  resources: {limits: {memory: 256Mi}, requests: {memory: 256Mi}}
        status: {observedGeneration: 3, replicas: 1, updatedReplicas: 1, readyReplicas: 0,
                 availableReplicas: 0, unavailableReplicas: 1}
      - apiVersion: v1
        kind: Pod
        metadata:
          name: service-x-6c9d8b7f5-q2w8e
          namespace: shop
          uid: 5e2d9a41-3b7c-4f08-8a6e-1c9b0d4f2a73
          creationTimestamp: "2026-07-20T09:12:04Z"
          labels: {app.kubernetes.io/name: service-x, pod-template-hash: 6c9d8b7f5}
          ownerReferences:
            - {apiVersion: apps/v1, kind: ReplicaSet, name: service-x-6c9d8b7f5,
               uid: 7a1c2e3d-4b5f-4a6e-9c8d-0e1f2a3b4c5d, controller: true}
        spec:
          nodeName: worker-03
          containers:
            - name: app
              image: registry.example.com/shop/service-x:2.4.1
              resources: {limits: {memory: 256Mi}, requests: {memory: 256Mi}}
        status:
          phase: Running
          conditions:
            - {type: Ready, status: "False", lastTransitionTime: "2026-07-20T11:31:40Z"}
          containerStatuses:
            - name: app
              image: registry.example.com/shop/service-x:2.4.1
              ready: false
              restartCount: 7
              started: false
              state:
                waiting: {reason: CrashLoopBackOff,
                          message: "back-off 5m0s restarting failed container=app"}
              lastState:
                terminated: {exitCode: 137, reason: OOMKilled,
                             startedAt: "2026-07-20T11:29:58Z", finishedAt: "2026-07-20T11:31:39Z"}
      - apiVersion: v1
        kind: Event
        metadata: {name: service-x-6c9d8b7f5-q2w8e.17e3a, namespace: shop}
        involvedObject: {kind: Pod, name: service-x-6c9d8b7f5-q2w8e, namespace: shop}
        reason: BackOff
        type: Warning
        message: Back-off restarting failed container app in pod service-x-6c9d8b7f5-q2w8e
        count: 31
        firstTimestamp: "2026-07-20T09:40:11Z"
        lastTimestamp: "2026-07-20T11:33:02Z"
"""

REQUIRED = (
    """\
id: oom-restart-required
title: service-x restarts (OOMKilled) <with markup>
required: true
runs: 2
tags: [kubernetes]
now: "2026-07-20T14:40:00+03:00"
user: {name: alice, role: engineer}
"""
    + WORLD
    + """\
turns:
  - user: "why does service-x restart in dc-a?"
    expect:
      answer_contains: ["dc-a", "zebra-unicorn-42"]
      queried: [{source: kubernetes, env: dc-a}]
  - user: "and what about it now?"
    as: {name: bob, role: admin}
    at: "2026-07-20T14:45:00+03:00"
"""
)

OPTIONAL = (
    """\
id: oom-restart-optional
title: service-x restarts, reads Kubernetes in dc-a
required: false
tags: [smoke]
now: "2026-07-20T14:40:00+03:00"
"""
    + WORLD
    + """\
turns:
  - user: "why does service-x restart in dc-a?"
    expect:
      queried: [{source: kubernetes, env: dc-a}]
"""
)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "required.yaml").write_text(REQUIRED, encoding="utf-8")
    (folder / "optional.yaml").write_text(OPTIONAL, encoding="utf-8")
    return folder


def run_eval(*argv: str) -> int:
    return runner.main(build_parser().parse_args(["eval", *argv]))


def test_failing_required_scenario_is_reported_and_exits_1(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert run_eval(str(suite), "--report", str(out)) == 1

    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    summary = report["summary"]
    for key in (
        "scenarios",
        "completed",
        "passed",
        "required",
        "required_passed",
        "runs",
        "mode",
        "model",
        "wall_seconds",
        "median_seconds",
        "p95_seconds",
    ):
        assert key in summary, key
    assert summary["scenarios"] == 2 and summary["completed"] == 2
    assert summary["passed"] == 1 and summary["required"] == 1
    assert summary["required_passed"] == 0
    assert summary["mode"] == "deterministic" and summary["model"] is None

    by_id = {s["id"]: s for s in report["scenarios"]}
    required = by_id["oom-restart-required"]
    assert required["required"] is True and required["passed"] is False
    assert len(required["runs"]) == 2
    for run in required["runs"]:
        assert {"passed", "seconds", "tool_calls", "failures"} <= run.keys()
        assert run["passed"] is False and run["tool_calls"] >= 1
        # only the deliberately failing check fails: "dc-a" and the Kubernetes read pass
        [failure] = run["failures"]
        assert failure["turn"] == 1 and failure["check"] == "answer_contains"
        assert failure["expected"] == "zebra-unicorn-42"
        first = run["turns"][0]
        assert failure["seen"] and failure["seen"][:40] in " ".join(first["rendered"].split())
        # each run starts from fresh simulators: its own reads, per turn
        assert {(q["source"], q["env"]) for q in first["queries"]} == {("kubernetes", "dc-a")}
        assert first["answer"]["question"] == "why does service-x restart in dc-a?"
        assert (
            first["tool_calls"] and {"tool", "arguments", "status"} <= first["tool_calls"][0].keys()
        )
        second = run["turns"][1]
        assert second["user"] == "bob" and second["role"] == "admin"
        assert second["at"] == "2026-07-20T14:45:00+03:00" and second["passed"] is True
    assert by_id["oom-restart-optional"]["passed"] is True

    html = (out / "report.html").read_text(encoding="utf-8")
    assert "oom-restart-required" in html and "oom-restart-optional" in html
    assert "zebra-unicorn-42" in html and "&lt;with markup&gt;" in html
    assert "<with markup>" not in html and "<script" not in html and "<details" in html

    err = capsys.readouterr().err
    assert "FAIL oom-restart-required run 1/2" in err
    assert "PASS oom-restart-optional (optional) run 1/1" in err


def test_passing_selection_exits_0(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_eval(str(suite), "--tag", "smoke") == 0
    err = capsys.readouterr().err
    assert "PASS oom-restart-optional" in err and "oom-restart-required" not in err


def test_scenario_file_error_exits_2_naming_file_and_path(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = suite / "bad.yaml"
    bad.write_text(
        OPTIONAL.replace("id: oom-restart-optional", "id: bad").replace(
            "{source: kubernetes, env: dc-a}", "{source: k8s, env: dc-a}"
        ),
        encoding="utf-8",
    )
    assert run_eval(str(suite)) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "turns[0].expect.queried[0].source:" in err


def test_model_mode_runs_through_a_model_server_and_reports_its_use(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evals.simulators.model_policy import INVENTED_MARKERS, evidence_echo
    from evals.simulators.model_server import ModelServer

    out = tmp_path / "report"
    with ModelServer(evidence_echo(), model="echo") as server:
        code = run_eval(
            str(suite / "optional.yaml"),
            "--model-url",
            server.url,
            "--model",
            "echo",
            "--runs",
            "1",
            "--report",
            str(out),
        )
        bodies = server.requests
    assert code == 0
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    summary = report["summary"]
    assert summary["mode"] == "model" and summary["model"] == "echo"
    assert summary["passed"] == 1
    run = report["scenarios"][0]["runs"][0]
    use = run["model"]
    assert use["calls"] == len(bodies) > 0
    assert use["prompt_tokens"] > 0 and use["completion_tokens"] > 0
    assert summary["model_use"]["calls"] == use["calls"]
    # per model: the one model did every call
    assert summary["model_use"]["by_model"]["echo"]["calls"] == use["calls"]
    assert use["by_model"]["echo"]["format_errors"] == use["format_errors"] == 0
    # the policy's invented sentence never reaches the answer: the guard dropped it
    rendered = run["turns"][0]["rendered"]
    assert not [m for m in INVENTED_MARKERS if m in rendered]
    assert "model calls" in (out / "report.html").read_text(encoding="utf-8")
    assert "model echo:" in capsys.readouterr().err


def test_model_mode_needs_a_url_and_a_name(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_eval(str(suite), "--model", "qwen") == 2
    assert "--model-url URL and --model NAME" in capsys.readouterr().err
