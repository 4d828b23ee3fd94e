"""Policy gate: admission fails closed, arguments are checked against the schema in code,
current-only tools cannot answer history (failure class "loose arguments", "time semantics")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from policy.gate import PolicyGate
from policy.scope import Scope, TimeSpec
from policy.toolset import CallContext, ToolSet
from tests.unit.toolkit import ServiceArgs, agent, facts_result, make_tool

NOW = datetime(2026, 7, 20, 11, 40, tzinfo=UTC)


def ctx(role: str = "engineer", mode: str = "now") -> CallContext:
    at = datetime(2026, 7, 20, 11, 11, tzinfo=UTC) if mode == "historical" else None
    return CallContext(
        user="alice",
        role=role,
        scope=Scope(time=TimeSpec(at=at, mode=mode)),  # type: ignore[arg-type]
        now=NOW,
    )


def tool(name: str, **meta: object):
    return make_tool(
        name,
        ServiceArgs,
        agent(["k8s.workload_status"], "kubernetes", **meta),
        ["dc-a", "dc-b"],
        facts_result(name, "kubernetes", [("pod x is Running", "k8s.pod", {})]),
    )


GOOD = {"env": "dc-a", "service": "service-a"}


async def test_tool_without_explicit_read_only_is_not_admitted_nor_callable() -> None:
    gate = PolicyGate(ToolSet([tool("k8s.unsure", read_only=None), tool("k8s.fine")]))
    assert [c.name for c in gate.contracts(ctx())] == ["k8s.fine"]
    result = await gate.call("k8s.unsure", GOOD, ctx())
    assert result.status == "denied"
    assert "read_only" in (result.error or "")


async def test_mutating_tool_never_appears_even_for_admins() -> None:
    gate = PolicyGate(ToolSet([tool("k8s.scale", read_only=False)]))
    assert gate.contracts(ctx("admin")) == []
    assert (await gate.call("k8s.scale", GOOD, ctx("admin"))).status == "denied"


async def test_admin_only_tool_hidden_from_engineer_and_allowed_for_admin() -> None:
    gate = PolicyGate(ToolSet([tool("k8s.secrets_meta", admin_only=True)]))
    assert gate.contracts(ctx("engineer")) == []
    denied = await gate.call("k8s.secrets_meta", GOOD, ctx("engineer"))
    assert denied.status == "denied" and "admins only" in (denied.error or "")
    assert (await gate.call("k8s.secrets_meta", GOOD, ctx("admin"))).status == "ok"


async def test_unknown_tool_name_is_a_typed_denial() -> None:
    gate = PolicyGate(ToolSet([tool("k8s.fine")]))
    result = await gate.call("k8s.hallucinated", GOOD, ctx())
    assert result.status == "denied" and result.error_kind == "unknown_tool"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"env": "dc-a"}, "service"),  # required missing
        ({"env": "dc-z", "service": "a"}, "env"),  # not a configured env (enum)
        ({"env": "dc-a", "service": "a", "verb": "delete"}, "verb"),  # additionalProperties
        ({"env": "dc-a", "service": 5}, "service"),  # wrong type
        ({"env": "dc-a", "service": "a", "start": "yesterday"}, "start"),  # format
    ],
)
async def test_bad_arguments_are_refused_before_the_call_naming_the_field(
    arguments: dict, field: str
) -> None:
    calls: list[int] = []

    async def never(args, c):
        calls.append(1)
        raise AssertionError("must not be called")

    gate = PolicyGate(
        ToolSet([make_tool("k8s.t", ServiceArgs, agent(["x"], "kubernetes"), ["dc-a"], never)])
    )
    result = await gate.call("k8s.t", arguments, ctx())
    assert result.status == "denied"
    assert result.error_kind == "invalid_arguments"
    assert field in (result.error or "") or "additional" in (result.error or "").lower()
    assert calls == []


async def test_current_only_tool_refused_for_historical_question_and_allowed_now() -> None:
    gate = PolicyGate(ToolSet([tool("k8s.live", current_only=True)]))
    past = await gate.call("k8s.live", GOOD, ctx(mode="historical"))
    assert past.status == "denied"
    assert "cannot answer a question about the past" in (past.error or "")
    assert (await gate.call("k8s.live", GOOD, ctx(mode="now"))).status == "ok"


def test_generated_schema_closes_every_object_and_carries_env_enum() -> None:
    contract = tool("k8s.fine").contract
    schema = contract.input_schema()
    assert schema["additionalProperties"] is False
    assert schema["properties"]["env"]["enum"] == ["dc-a", "dc-b"]
    assert set(schema["required"]) == {"env", "service"}
    described = contract.describe()
    assert described["x-agent"]["read_only"] is True
