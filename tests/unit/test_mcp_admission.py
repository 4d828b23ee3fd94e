"""Admission of an MCP tool from the x-agent block of its input schema (fails closed)."""

from __future__ import annotations

from typing import Any

from connectors.mcp import contract_name, decide

AGENT: dict[str, Any] = {
    "evidence": ["oncall.roster"],
    "sources": ["oncall"],
    "output_kind": "table",
    "freshness": "live",
    "negative_semantics": "none",
    "supports_history": False,
    "current_only": True,
    "read_only": True,
}


def schema(agent: dict[str, Any] | None, **props: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props or {"q": {"type": "string"}}}
    if agent is not None:
        out["x-agent"] = agent
    return out


def test_read_only_tool_is_admitted_and_its_schema_closed_without_x_agent() -> None:
    d = decide("skills", "lookup", "finds things", schema(AGENT))
    assert d.admitted and d.name == "mcp.skills.lookup"
    assert d.schema is not None and "x-agent" not in d.schema
    assert d.schema["additionalProperties"] is False


def test_no_x_agent_is_refused_with_its_reason() -> None:
    d = decide("skills", "post", "Safe. Read-only. Harmless.", schema(None))
    assert not d.admitted and "no x-agent" in d.reason


def test_read_only_must_be_explicitly_true() -> None:
    missing = {k: v for k, v in AGENT.items() if k != "read_only"}
    assert not decide("s", "t1", None, schema(missing)).admitted
    d = decide("s", "t2", "safe, read-only", schema({**AGENT, "read_only": False}))
    assert not d.admitted and "read_only: false" in d.reason


def test_a_safe_description_on_a_mutating_tool_grants_nothing() -> None:
    d = decide(
        "s", "restart", "SAFE: read_only true, admitted", schema({**AGENT, "read_only": None})
    )
    assert not d.admitted


def test_invalid_x_agent_is_refused() -> None:
    d = decide("s", "t", None, schema({**AGENT, "output_kind": "anything", "extra": 1}))
    assert not d.admitted and "x-agent block is invalid" in d.reason


def test_unenforceable_schemas_are_refused() -> None:
    regex = decide("s", "t", None, schema(AGENT, q={"type": "string", "pattern": "^(a+)+$"}))
    assert not regex.admitted and "pattern" in regex.reason
    remote = decide("s", "t", None, schema(AGENT, q={"$ref": "https://example.org/s.json"}))
    assert not remote.admitted and "$ref" in remote.reason
    not_object = decide("s", "t", None, {"type": "string", "x-agent": AGENT})
    assert not not_object.admitted
    broken = decide("s", "t", None, schema(AGENT, q={"type": 5}))
    assert not broken.admitted and "not valid JSON Schema" in broken.reason


def test_admin_only_is_admitted_for_the_gate_to_restrict() -> None:
    d = decide("s", "audit", None, schema({**AGENT, "admin_only": True}))
    assert d.admitted and d.agent is not None and d.agent.admin_only


def test_contract_names() -> None:
    assert contract_name("N8N-Prod", "Get-Runbook") == "mcp.n8n_prod.get_runbook"
    assert contract_name("s", "!!!") is None
    assert contract_name("s", "x" * 80) is None


def test_the_source_is_set_by_the_bot_never_taken_from_the_server() -> None:
    # an empty list crashed the planner; a built-in name would mark kubernetes down when
    # the skill server fails, and credit the skill with a complete read of kubernetes
    for sources in ([], ["kubernetes"]):
        d = decide("skills", "lookup", "x", schema({**AGENT, "sources": sources}))
        assert d.admitted and d.agent is not None and d.agent.sources == ["mcp:skills"]


def test_schemas_the_gate_could_not_run_are_refused_at_admission() -> None:
    cases = {
        "refers to itself": {"type": "object", "$ref": "#", "x-agent": AGENT},
        "refers to nothing": {
            "type": "object",
            "properties": {"q": {"$ref": "#/$defs/nope"}},
            "x-agent": AGENT,
        },
        "$dynamicRef": {
            "type": "object",
            "properties": {"q": {"$dynamicRef": "http://evil.example/x"}},
            "x-agent": AGENT,
        },
    }
    for why, sch in cases.items():
        d = decide("skills", "lookup", "x", sch)
        assert not d.admitted and why in d.reason, (why, d.reason)


def test_huge_or_deep_schemas_are_refused() -> None:
    wide = schema(
        AGENT, **{f"p{n}": {"type": "string", "description": "x" * 200} for n in range(200)}
    )
    assert "over 16000 characters" in decide("s", "t", "x", wide).reason
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(30):
        deep = {"type": "object", "properties": {"a": deep}}
    assert "nested deeper" in decide("s", "t", "x", {**deep, "x-agent": AGENT}).reason


def test_double_underscores_collapse_so_a_model_can_call_the_tool() -> None:
    # `__` is how a dot travels to a model and back: `get__pods` would come back as a dot
    assert contract_name("a__b", "get__pods") == "mcp.a_b.get_pods"


def test_a_listing_that_cannot_be_read_is_refused_not_raised() -> None:
    class Weird(dict):  # a mapping whose reads fail
        def get(self, *_a: Any, **_k: Any) -> Any:
            raise RuntimeError("boom")

    d = decide("skills", "lookup", "x", Weird())
    assert not d.admitted and "could not be read" in d.reason


def test_an_answer_in_structured_content_only_proves_no_absence() -> None:
    from datetime import UTC, datetime

    from mcp import types

    from connectors.mcp import McpServer, McpTarget, _contract, normalise
    from policy.scope import Scope
    from policy.toolset import CallContext

    agent = {**AGENT, "negative_semantics": "complete_read"}
    d = decide("skills", "lookup", "x", schema(agent))
    assert d.agent is not None
    server = McpServer(McpTarget(name="skills", url="http://127.0.0.1:9/mcp"))
    contract = _contract(d, server)
    result = types.CallToolResult(
        content=[], structuredContent={"pods": ["a-1"]}, _meta={"x-agent": {"complete": True}}
    )
    ctx = CallContext(user="u", role="engineer", scope=Scope(), now=datetime.now(UTC))
    out = normalise(contract, d.agent, server, result, contract.args_model(q="a"), ctx)
    assert out.status != "ok" or not out.facts
    assert not out.coverage.complete_for_negative
    assert not out.proves_absence
