"""Wrappers stack: the gate and redaction take a tool set and are one, in either order;
through a whole turn, a secret a source returned reaches neither the model, nor the
workspace's facts, nor the answer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import BaseModel, ConfigDict

from planner.model.client import ModelMessage, ModelTurn, ScriptedModel, ToolCallRequest
from planner.model.roles import ModelSet
from planner.read.inventory_cache import InventoryCache
from planner.shapes.turn import Turn
from planner.turn.conduct import TurnSettings, answer_turn
from planner.turn.investigation import InvestigationSettings
from policy.errors import ErrorKind
from policy.gate import PolicyGate
from policy.results import Entity
from policy.scope import Scope
from policy.toolset import CallContext, ToolSet, Toolset
from policy.wrappers import RedactingToolset
from tests.unit.toolkit import ServiceArgs, agent, facts_result, make_tool

NOW = datetime(2026, 7, 20, 11, 40, tzinfo=UTC)
ENVS = ["dc-a"]
SECRET = "hunter2"
LEAKY = f"db connect failed: postgres://app:{SECRET}@db:5432/orders password={SECRET}"


class EnvArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str


def tools() -> list:
    return [
        make_tool(
            "k8s.inventory",
            EnvArgs,
            agent(["inventory"], "kubernetes", freshness="live"),
            ENVS,
            facts_result(
                "k8s.inventory",
                "kubernetes",
                [],
                entities=[Entity(kind="deployment", name="service-a", env="dc-a")],
            ),
        ),
        make_tool(
            "logs.app_logs",
            ServiceArgs,
            agent(["app.log"], "logs"),
            ENVS,
            facts_result("logs.app_logs", "logs", [(LEAKY, "app.log", {"message": LEAKY})]),
        ),
        make_tool(
            "logs.search",
            ServiceArgs,
            agent(["logs.search"], "logs", admin_only=True),
            ENVS,
            facts_result("logs.search", "logs", [(LEAKY, "logs.hit", {})]),
        ),
    ]


def ctx(role: str = "engineer") -> CallContext:
    return CallContext(user="alice", role=role, scope=Scope(), now=NOW)  # type: ignore[arg-type]


STACKS = {
    "redaction outside the gate": lambda: RedactingToolset(PolicyGate(ToolSet(tools()))),
    "redaction inside the gate": lambda: PolicyGate(RedactingToolset(ToolSet(tools()))),
}


@pytest.mark.parametrize("order", sorted(STACKS))
async def test_the_gate_and_redaction_stack_in_either_order(order: str) -> None:
    stack: Toolset = STACKS[order]()
    args = {"env": "dc-a", "service": "service-a"}
    assert "logs.search" not in [c.name for c in stack.contracts(ctx())]
    assert [c.name for c, _ in stack.refused(ctx())] == ["logs.search"]
    refused = await stack.call("logs.search", args, ctx())
    assert refused.status == "denied" and refused.error_kind is ErrorKind.NOT_ADMITTED
    bad = await stack.call("logs.app_logs", {"env": "dc-a"}, ctx())
    assert bad.status == "denied" and "service" in (bad.error or "")
    read = await stack.call("logs.app_logs", args, ctx())
    assert read.status == "ok" and read.facts
    assert SECRET not in read.model_dump_json()
    assert "db connect failed" in read.facts[0].text  # what is not secret is kept


async def test_a_bare_tool_set_names_the_field_of_a_bad_argument() -> None:
    result = await ToolSet(tools()).call("logs.app_logs", {"env": "dc-a"}, ctx())
    assert result.status == "error" and result.error_kind is ErrorKind.INVALID_ARGUMENTS
    assert (result.error or "").startswith("service:")


async def test_a_secret_a_source_returned_reaches_no_model_workspace_or_answer() -> None:
    seen: list[ModelMessage] = []

    def script(messages: list[ModelMessage], _tools: object) -> ModelTurn:
        seen.extend(messages)
        if any(m.role == "tool" for m in messages):
            return ModelTurn(content="done")
        call = ToolCallRequest(
            id="1", name="logs.app_logs", arguments={"env": "dc-a", "service": "service-a"}
        )
        return ModelTurn(tool_calls=[call])

    settings = TurnSettings(
        investigation=InvestigationSettings(timezone=UTC),
        envs=ENVS,
        env_aliases={},
        timezone="UTC",
    )
    outcome = await answer_turn(
        Turn(question="что за странная штука с service-a в dc-a?", user="alice", now=NOW),
        previous=None,
        gate=PolicyGate(ToolSet(tools())),
        settings=settings,
        inventory_cache=InventoryCache(timedelta(0)),
        models=ModelSet(planner=ScriptedModel(script)),
    )
    assert any(m.role == "tool" for m in seen), "the model was asked with the tool's result"
    assert all(SECRET not in (m.content or "") for m in seen)
    assert outcome.investigation is not None
    for record in outcome.investigation.records:
        assert SECRET not in record.result.model_dump_json(exclude={"raw"})
        stored = outcome.investigation.workspace.get(record.call_id)
        assert stored is not None and SECRET not in stored.model_dump_json(exclude={"raw"})
    assert any("db connect failed" in f.text for f in outcome.answer.facts)
    assert SECRET not in outcome.answer.model_dump_json()


async def test_every_corpus_secret_and_instruction_in_any_tool_output_is_cleaned() -> None:
    """What any tool returns (a connector today, an MCP server's result tomorrow: all go
    through the same wrapper) comes back with no corpus secret, in its facts, attributes,
    warnings or error, and with instructions to the assistant described."""
    from policy.hostile import NOTICE
    from policy.results import Coverage, ResultFact, ToolResult
    from tests.hostile_corpus import PAYLOADS
    from tests.secrets_corpus import CORPUS
    from tests.unit.test_redaction_corpus import leaks

    texts = [t for _, t, _ in CORPUS] + [t for _, t, _ in PAYLOADS]

    async def run(args: BaseModel, context: CallContext) -> ToolResult:
        return ToolResult(
            tool="mcp.anything",
            status="error",
            scope=Scope(env="dc-a"),
            error=" | ".join(t for _, t, _ in CORPUS[:40]),
            warnings=[t for _, t, _ in CORPUS[40:]],
            coverage=Coverage(source="mcp"),
            facts=[
                ResultFact(text=t, kind="app.log", source="mcp", attrs={"message": t})
                for t in texts
            ],
        )

    tool = make_tool("mcp.anything", EnvArgs, agent(["app.log"], "logs"), ENVS, run)
    result = await RedactingToolset(ToolSet([tool])).call("mcp.anything", {"env": "dc-a"}, ctx())
    shown = result.model_dump_json()
    for _, text, secret in CORPUS:
        assert not leaks(secret, text, shown), secret
    for _, _, echo in PAYLOADS:
        assert echo.lower() not in shown.lower(), echo
    assert NOTICE in shown
