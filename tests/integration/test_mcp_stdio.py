"""MCP skill servers over stdio: the same n8n-like server started as a program
(evals/simulators/mcp_stdio.py), through the SDK's stdio transport. Listing, a call that
comes back as facts, the variables the config passes, a server that dies at start (its
stderr line in the reason), and concurrent listing of several servers at start-up."""

from __future__ import annotations

import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.config_errors import ConfigFileError
from bot.settings import InfrabotConfig, load_config
from bot.wiring import build_mcp_servers, build_tools
from connectors.mcp import McpServer, McpTarget, catalogue_report
from connectors.mcp import build_tools as mcp_tools
from policy.facts import FactKind
from policy.gate import PolicyGate
from policy.scope import Scope
from policy.toolset import CallContext, ToolSet

LOOKUP = "mcp.skills.oncall_lookup"


def ctx() -> CallContext:
    return CallContext(user="u", role="engineer", scope=Scope(), now=datetime.now(UTC))


def _command(tmp_path: Path) -> tuple[list[str], Path]:
    roster = tmp_path / "roster.json"
    roster.write_text(json.dumps({"payments": ["on call: duty engineer of team billing"]}))
    calls = tmp_path / "calls.jsonl"
    return [sys.executable, "-m", "evals.simulators.mcp_stdio", str(roster), str(calls)], calls


def _server(command: list[str], env: dict[str, str] | None = None) -> McpServer:
    return McpServer(
        McpTarget(name="skills", command=tuple(command), env=env or {}, timeout_s=30)  # type: ignore[arg-type]
    )


async def test_a_stdio_skill_is_listed_admitted_and_answers(tmp_path: Path) -> None:
    command, calls = _command(tmp_path)
    server = _server(command)
    gate = PolicyGate(ToolSet(mcp_tools([server])))
    assert [c.name for c in gate.contracts(ctx())] == [LOOKUP]
    (report,) = catalogue_report([server])
    assert report["health"] == "up" and report["url"] == f"stdio: {sys.executable}"
    result = await gate.call(LOOKUP, {"service": "payments"}, ctx())
    assert result.status == "ok", result.error
    assert [f.kind for f in result.facts] == [FactKind.SKILL_OUTPUT]
    assert result.facts[0].text == "on call: duty engineer of team billing"
    assert result.coverage.source == "mcp:skills"
    logged = [json.loads(line) for line in calls.read_text().splitlines()]
    assert logged == [{"tool": "oncall_lookup", "arguments": {"service": "payments"}}]
    # a refused tool is never started for
    denied = await gate.call("mcp.skills.restart_workflow", {"workflow": "x"}, ctx())
    assert denied.status == "denied" and len(calls.read_text().splitlines()) == 1


def test_a_server_that_dies_at_start_is_down_with_what_it_said(tmp_path: Path) -> None:
    command, _ = _command(tmp_path)
    server = _server(command, {"MCP_SIM_REQUIRE": "SKILLS_TOKEN"})
    assert mcp_tools([server]) == []
    assert server.health == "down" and server.catalogue is None
    # what it said, with the values of the variables it was given cut out
    assert "missing credentials: [redacted] is not set" in (server.error or "")
    # given the variable it needs, the same server lists its tools
    ok = _server(command, {"MCP_SIM_REQUIRE": "SKILLS_TOKEN", "SKILLS_TOKEN": "t"})
    assert LOOKUP in {t.contract.name for t in mcp_tools([ok])}


def test_config_starts_stdio_servers_with_the_variables_it_names(tmp_path: Path) -> None:
    command, _ = _command(tmp_path)
    config = InfrabotConfig.model_validate(
        {
            "environments": {"lab": {}},
            "mcp_servers": [
                {"name": "skills", "command": command, "pass_env": ["MCP_SIM_REQUIRE", "TOK"]},
                {"name": "missing", "command": command, "pass_env": ["MCP_SIM_REQUIRE"]},
            ],
        }
    )
    servers = build_mcp_servers(config, environ={"MCP_SIM_REQUIRE": "TOK", "TOK": "secret"})
    assert "TOK" not in (servers[1].target.env)  # only the variables that server names
    names = {t.contract.name for t in build_tools(config, {}, servers)}
    assert LOOKUP in names and not any(n.startswith("mcp.missing.") for n in names)
    assert servers[0].health == "up" and servers[1].health == "down"
    assert "TOK is not set" in (servers[1].error or "")


def test_servers_are_listed_at_once_at_start_up(tmp_path: Path) -> None:
    command, _ = _command(tmp_path)
    delay = 3.0
    slow = [_server(command, {"MCP_SIM_DELAY": str(delay)}) for _ in range(3)]
    start = time.monotonic()
    listed = mcp_tools(slow)
    elapsed = time.monotonic() - start
    assert len(listed) == 3 * len(mcp_tools([_server(command)]))
    # one after another would take three slow starts at least
    assert elapsed < 3 * delay, elapsed


def test_a_server_flooding_stderr_and_logging_its_secret_is_down_without_it(
    tmp_path: Path,
) -> None:
    command, _ = _command(tmp_path)
    token = "9f8e7d6c5b4a39281706abcdef"
    env = {"MCP_SIM_FAIL_WITH": "SKILLS_TOKEN", "SKILLS_TOKEN": token, "MCP_SIM_FLOOD_MB": "20"}
    server = _server(command, env)
    assert mcp_tools([server]) == []
    assert server.health == "down"
    assert "auth failed with token [redacted]" in (server.error or "")
    assert token not in (server.error or "") and len(server.error or "") < 400


@pytest.mark.parametrize(
    ("server", "key", "says"),
    [
        ({"name": "s"}, "mcp_servers[0]:", "exactly one of url"),
        ({"name": "s", "url": "http://h/mcp", "command": ["x"]}, "mcp_servers[0]:", "exactly"),
        ({"name": "s", "command": ["x"], "token_env": "T"}, "[0].token_env:", "pass_env"),
        ({"name": "s", "url": "http://h/mcp", "pass_env": ["T"]}, "[0].pass_env:", "stdio"),
        ({"name": "s", "command": []}, "[0].command:", "at least 1"),
        ({"name": "s", "command": [" "]}, "[0].command[0]:", "empty"),
    ],
)
def test_a_broken_mcp_server_entry_names_its_key(
    tmp_path: Path, server: dict[str, object], key: str, says: str
) -> None:
    cfg = tmp_path / "infrabot.yaml"
    cfg.write_text(json.dumps({"environments": {"lab": {}}, "mcp_servers": [server]}))
    with pytest.raises(ConfigFileError) as err:
        load_config(cfg)
    assert key in str(err.value) and says in str(err.value)
