"""Lost evidence: per-source budgets and the addressable workspace."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from planner.evidence import build_packet
from planner.workspace import TurnWorkspace
from policy.results import Coverage, ResultFact, ToolResult
from policy.scope import Scope

T0 = datetime(2026, 7, 20, 11, 0, tzinfo=UTC)


def result(source: str, env: str, n: int, kind: str = "logs.hit") -> ToolResult:
    return ToolResult(
        tool=f"{source}.t",
        status="ok",
        scope=Scope(env=env),
        coverage=Coverage(source=source, complete_for_negative=True, returned=n),
        facts=[
            ResultFact(text=f"{source}/{env} fact {i}", kind=kind, source=source) for i in range(n)
        ],
    )


def test_a_large_source_cannot_push_out_a_small_one() -> None:
    results = [(f"c{i}", result("logs", "dc-a", 400)) for i in range(4)]
    results.append(("c5", result("metrics", "dc-b", 2)))
    packet = build_packet(results, per_source=12)
    texts = [e.fact.text for e in packet.entries]
    assert "metrics/dc-b fact 0" in texts and "metrics/dc-b fact 1" in texts
    assert sum(1 for t in texts if t.startswith("logs/dc-a")) == 12
    assert packet.dropped == {"logs/dc-a": 1588}


def test_each_environment_is_its_own_budget() -> None:
    packet = build_packet(
        [("a", result("logs", "dc-a", 50)), ("b", result("logs", "dc-b", 50))], per_source=5
    )
    envs = [e.env for e in packet.entries]
    assert envs.count("dc-a") == 5 and envs.count("dc-b") == 5


def test_priority_keeps_the_important_kinds_within_budget() -> None:
    noisy = result("logs", "dc-a", 30)
    noisy.facts.append(
        ResultFact(text="upstream sent too big header", kind="edge.error", source="logs")
    )
    packet = build_packet([("c1", noisy)], per_source=3, priority={"edge.error": 0})
    assert any("too big header" in e.fact.text for e in packet.entries)


def test_workspace_queries_raw_rows_by_field_regex_time_and_columns() -> None:
    ws = TurnWorkspace()
    rows = [
        {
            "@timestamp": f"2026-07-20T11:11:0{i}Z",
            "status": 502 if i % 2 else 200,
            "host": "pay.example.com",
            "request_id": f"r{i}",
            "kubernetes": {"node": f"w{i}"},
        }
        for i in range(10)
    ]
    res = result("logs", "dc-a", 0)
    res.raw = {"hits": rows}
    ws.put("c1", res)
    assert [r["request_id"] for r in ws.query("c1", where={"status": 502})] == [
        "r1",
        "r3",
        "r5",
        "r7",
        "r9",
    ]
    assert len(ws.query("c1", regex="r[0-2]'")) == 3
    sliced = ws.query(
        "c1",
        start=datetime(2026, 7, 20, 11, 11, 3, tzinfo=UTC),
        end=datetime(2026, 7, 20, 11, 11, 5, tzinfo=UTC),
        columns=["request_id", "kubernetes.node"],
    )
    assert sliced == [{"request_id": f"r{i}", "kubernetes.node": f"w{i}"} for i in (3, 4, 5)]
    with pytest.raises(KeyError, match="c9"):
        ws.query("c9")
