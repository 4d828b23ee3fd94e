"""`infrabot doctor` through the command line, against world simulators."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.cli import main

NOW = "2026-07-20T12:00:00Z"


def _world(tmp_path: Path, world: dict[str, Any]) -> str:
    path = tmp_path / "world.yaml"
    path.write_text(yaml.safe_dump({"now": NOW, "world": world}), encoding="utf-8")
    return str(path)


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]]]:
    code = main(["doctor", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_the_demo_world_answers_and_says_what_it_holds(capsys: pytest.CaptureFixture[str]):
    code, probes = doctor(capsys)
    assert code == 0
    logs = next(p for p in probes if p["source"] == "logs" and p["env"] == "dc-a")
    assert logs["answered"] and logs["detail"].startswith("Elasticsearch")
    assert any(f.startswith("edge access log: edge-access-* (found by its fields; layout nginx")
               for f in logs["found"])  # fmt: skip
    metrics = next(p for p in probes if p["source"] == "metrics" and p["env"] == "dc-a")
    assert any("ingress-nginx" in f for f in metrics["found"])
    assert {p["source"] for p in probes} == {"kubernetes", "metrics", "logs", "gitlab"}


def test_a_layout_nobody_configured_is_detected_and_a_missing_field_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    access = {"@timestamp": "2026-07-20T11:00:00.000Z", "url": {"domain": "shop.example.com"},
              "http": {"response": {"status_code": 502}, "request": {"method": "GET"}},
              "ecs": {"version": "8.0.0"}}  # fmt: skip
    world = {
        "environments": {"dc-a": ["metrics", "logs"]},
        "logs": {"dc-a": {"filebeat-8.14.3-2026.07.20": [access]}},
        "metrics": {"dc-a": [{"labels": {"__name__": "traefik_service_requests_total",
                    "code": "200", "service": "shop-80@kubernetes"},
                    "start": "2026-07-20T11:00:00Z", "step": "60s", "values": [1, 2, 3]}]},
    }  # fmt: skip
    code, probes = doctor(capsys, "--world", _world(tmp_path, world))
    assert code == 0  # every source answers; what is missing is said, not failed
    logs = next(p for p in probes if p["source"] == "logs")
    assert "edge access log: filebeat-8.14.3-* (found by its fields; layout ecs)" in logs["found"]
    assert logs["status"] == "incomplete"
    lacked = " ".join(logs["missing"])
    assert "no field for upstream (looked for upstream_addr" in lacked
    metrics = next(p for p in probes if p["source"] == "metrics")
    assert "HTTP request counters: Traefik (traefik_service_requests_total)" in metrics["found"]


def test_a_source_that_does_not_answer_fails_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    world = {
        "environments": {"dc-a": ["logs"]},
        "logs": {"dc-a": {"app-2026.07.20": [{"@timestamp": "2026-07-20T11:00:00Z",
                                              "message": "x"}]}},
        "faults": [{"source": "logs", "env": "dc-a", "kind": "http_error", "status": 503}],
    }  # fmt: skip
    code, probes = doctor(capsys, "--world", _world(tmp_path, world))
    assert code == 1
    (logs,) = probes
    assert logs["status"] == "failed" and "503" in logs["detail"]
