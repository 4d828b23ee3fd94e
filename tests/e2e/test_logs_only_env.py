"""An environment only a log index covers, asked through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from bot.cli import main


def _world(tmp_path: Path, world: dict) -> str:
    path = tmp_path / "world.yaml"
    path.write_text(yaml.safe_dump({"now": "2026-07-20T12:00:00Z", "world": world}))
    return str(path)


def test_an_env_with_only_logs_knows_its_workloads_from_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """No Kubernetes API lists dc-a: the names the application log's metadata carries
    make "notifier" the question's object, and its errors are read."""
    pod = {"pod_name": "notifier-5f7c8d9b6-kq2wz", "namespace_name": "comms",
           "labels": {"app": "notifier"}}  # fmt: skip
    docs = [{"@timestamp": f"2026-07-20T11:5{i}:00.000Z", "kubernetes": pod,
             "log": "level=error msg=\"render template\" err=\"nil pointer: TrackingURL\""}
            for i in range(3)]  # fmt: skip
    world = {"environments": {"dc-a": ["logs"]},
             "logs": {"dc-a": {"kube-2026.07.20": docs}}}  # fmt: skip
    code = main(["ask", "--json", "--world", _world(tmp_path, world),
                 "What errors did notifier in dc-a log in the last 30 minutes?"])  # fmt: skip
    answer = json.loads(capsys.readouterr().out)
    assert code == 0
    assert answer["scope"]["object"] == "notifier"
    calls = {c["tool"]: c["arguments"] for c in answer["tool_calls"]}
    assert calls["logs.inventory"] == {"env": "dc-a"}
    # the error lines of the window, read by level from the lines themselves (no level field)
    assert calls["logs.app_logs"]["service"] == "notifier"
    assert calls["logs.app_logs"]["level"] == "error"
    assert answer["summary"].startswith("3 error lines in the log of notifier-5f7c8d9b6-kq2wz")
    assert any("TrackingURL" in f["text"] for f in answer["facts"])


def test_a_message_past_the_cap_is_answered_at_once_saying_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    question = "why does service-a fail? " + "1." * 6000
    assert main(["ask", "--json", question]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert "at most 8000 are read" in answer["summary"]
    assert answer["tool_calls"] == []
