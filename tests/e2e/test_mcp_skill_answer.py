"""A skill a team publishes on an MCP server is used in an answer, by a plain engineer,
through its evidence kind: no planner change, no tool name in the core. The refused ones
(mutating, no x-agent, admin-only for an engineer) are never called."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from evals.session import WorldSession
from evals.simulators.mcp_server import McpSkillServer
from evals.worldfile import read_world_file
from planner.shapes.turn import Turn

ROSTER = {"service-b": ["on call: alice.oncall", "runbook: https://wiki.example.com/rb/service-b"]}


def test_an_mcp_skill_closes_its_evidence_kind_in_a_plain_engineers_answer() -> None:
    wf = read_world_file(None)
    with McpSkillServer(ROSTER) as skills:
        extra = {"mcp_servers": [{"name": "skills", "url": skills.url}]}
        with WorldSession(wf.world, now=wf.now, config_extra=extra) as session:
            conversation = session.conversation
            assert conversation is not None

            async def ask() -> object:
                try:
                    turn = Turn(
                        question="why does service-b in dc-a keep restarting?",
                        user="alice",
                        role="engineer",
                        now=session.clock(),
                    )
                    return await conversation.answer(turn)
                finally:
                    await conversation.aclose()

            outcome = asyncio.run(ask())
        called = [name for name, _ in skills.calls]
    answer = outcome.answer  # type: ignore[attr-defined]
    assert "mcp.skills.oncall_lookup" in [c.tool for c in answer.tool_calls]
    assert called == ["oncall_lookup"]  # the refused tools never reached the server
    skill_facts = [f.text for f in answer.facts if f.kind == "skill.output"]
    assert "on call: alice.oncall" in skill_facts


def test_doctor_lists_an_mcp_servers_health_and_admitted_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from bot.cli import main

    with McpSkillServer(ROSTER) as skills:
        config = tmp_path / "infrabot.yaml"
        config.write_text(
            "environments:\n  east: {}\n"
            f"mcp_servers:\n  - {{name: skills, url: '{skills.url}'}}\n",
            encoding="utf-8",
        )
        assert main(["doctor", "--json", "--config", str(config)]) == 0
        probe = {p["source"]: p for p in json.loads(capsys.readouterr().out)}["mcp:skills"]
        # admitted: the read-only skills (one of them admin-only); never the mutating one,
        # the one without x-agent or the one whose schema carries a regex
        assert probe["status"] == "ok"
        assert sorted(probe["found"]) == ["mcp.skills.admin_audit", "mcp.skills.oncall_lookup"]
    assert main(["doctor", "--json", "--config", str(config)]) == 1  # the server is gone
    probe = {p["source"]: p for p in json.loads(capsys.readouterr().out)}["mcp:skills"]
    assert probe["status"] == "failed"
