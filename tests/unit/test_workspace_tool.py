"""`workspace.read`: a compacted result read back by call id, text and time slice."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from planner.read.workspace import TurnWorkspace
from planner.read.workspace_tool import CONTRACT, read_workspace
from policy.results import Coverage, ResultFact, ToolResult
from policy.scope import Scope

T0 = datetime(2026, 7, 20, 11, 0, tzinfo=UTC)


def workspace() -> TurnWorkspace:
    ws = TurnWorkspace()
    facts = [
        ResultFact(
            text=f"GET /checkout 502 request_id=r{n:03d}",
            kind="edge.access",
            source="logs",
            observed_at=T0 + timedelta(minutes=n),
            attrs={},
        )
        for n in range(30)
    ]
    ws.put(
        "c1-logs.edge_access",
        ToolResult(
            tool="logs.edge_access",
            status="ok",
            scope=Scope(),
            coverage=Coverage(source="logs", complete_for_negative=True, returned=30),
            facts=facts,
        ),
    )
    return ws


def test_rows_are_found_by_text_and_time_slice() -> None:
    out = json.loads(
        read_workspace(workspace(), {"call_id": "c1-logs.edge_access", "contains": "R017"})
    )
    assert [r["text"] for r in out["rows"]] == ["GET /checkout 502 request_id=r017"]
    out = json.loads(
        read_workspace(
            workspace(),
            {
                "call_id": "c1-logs.edge_access",
                "since": (T0 + timedelta(minutes=10)).isoformat(),
                "until": (T0 + timedelta(minutes=12)).isoformat(),
            },
        )
    )
    assert out["matched"] == 3 and out["rows"][0]["text"].endswith("r010")


def test_the_limit_bounds_rows_and_the_match_count_says_how_many_there_were() -> None:
    out = json.loads(read_workspace(workspace(), {"call_id": "c1-logs.edge_access", "limit": 5}))
    assert len(out["rows"]) == 5 and out["matched"] == 30


def test_an_unknown_call_id_and_a_bad_field_are_named() -> None:
    out = json.loads(read_workspace(workspace(), {"call_id": "c9-x"}))
    assert "c9-x" in out["error"] and out["call_ids"] == ["c1-logs.edge_access"]
    out = json.loads(read_workspace(workspace(), {"call_id": "c1-logs.edge_access", "limit": 500}))
    assert out["error"].startswith("limit:")
    out = json.loads(read_workspace(workspace(), {"call_id": "c1-logs.edge_access", "rm": True}))
    assert out["error"].startswith("rm:")


def test_the_tool_reads_nothing_but_the_turn() -> None:
    assert CONTRACT.agent.read_only and CONTRACT.agent.sources == ["workspace"]
    assert CONTRACT.agent.evidence == []  # it closes no objective: it re-reads evidence


def test_the_raw_result_is_never_read_back() -> None:
    ws = workspace()
    result = ws.get("c1-logs.edge_access")
    assert result is not None
    ws.put("c2-raw", result.model_copy(update={"raw": {"token": "raw-only-value"}}))
    for table in ("facts", "entities", "relations"):
        out = read_workspace(ws, {"call_id": "c2-raw", "table": table, "limit": 50})
        assert "raw-only-value" not in out
