"""One client for every role: limits, one retry, the fallback model, text calls, usage."""

from __future__ import annotations

import asyncio

import pytest

from planner.model.client import (
    CompletionSettings,
    ModelError,
    ModelFailure,
    ModelTurn,
    ScriptedModel,
    TokenUsage,
)
from planner.model.roles import ModelRole, ModelSet, RoleLimits
from tests.unit.toolkit import ServiceArgs, agent, make_tool


def failing(kind: ModelFailure, name: str) -> ScriptedModel:
    def script(messages, tools):
        raise ModelError(f"model {name}: {kind.value}", kind)

    return ScriptedModel(script, name=name)


def answering(name: str, content: str = "ok") -> ScriptedModel:
    return ScriptedModel(
        lambda m, t: ModelTurn(
            content=content, usage=TokenUsage(prompt_tokens=10, completion_tokens=2)
        ),
        name=name,
    )


async def test_a_failing_planner_is_retried_once_then_the_finalizer_model_plans() -> None:
    planner, finalizer = failing(ModelFailure.UNDECODABLE, "small"), answering("large")
    desk = ModelSet(planner=planner, finalizer=finalizer).desk()
    turn, used = await desk.complete(ModelRole.PLANNER, [])
    assert (turn.content, used) == ("ok", "large")
    assert (planner.calls, finalizer.calls) == (2, 1)
    assert [c.failure for c in desk.ledger.calls] == [
        ModelFailure.UNDECODABLE,
        ModelFailure.UNDECODABLE,
        None,
    ]
    assert desk.ledger.prompt_tokens == 10 and desk.ledger.completion_tokens == 2


async def test_the_finalizer_role_asks_the_finalizer_model_first() -> None:
    planner, finalizer = answering("small"), answering("large")
    desk = ModelSet(planner=planner, finalizer=finalizer).desk()
    _, used = await desk.complete(ModelRole.FINALIZER, [])
    assert used == "large" and planner.calls == 0


async def test_when_every_model_fails_the_error_names_each_and_why() -> None:
    desk = ModelSet(
        planner=failing(ModelFailure.TIMEOUT, "small"),
        finalizer=failing(ModelFailure.EMPTY, "large"),
    ).desk()
    with pytest.raises(ModelError) as err:
        await desk.complete(ModelRole.PLANNER, [])
    assert "small: timeout" in str(err.value) and "large: empty" in str(err.value)
    assert desk.ledger.failures == [str(err.value)]
    assert len(desk.ledger.calls) == 4


async def test_a_client_bug_costs_the_call_not_the_turn() -> None:
    def buggy(messages, tools):
        raise KeyError("choices")

    desk = ModelSet(planner=ScriptedModel(buggy, name="m"), finalizer=answering("b")).desk()
    _, used = await desk.complete(ModelRole.PLANNER, [])
    assert used == "b"


async def test_each_attempt_gets_the_roles_limits_and_never_more_than_the_budget() -> None:
    seen: list[CompletionSettings] = []

    class Recording:
        name = "rec"

        async def complete(self, messages, tools, settings):
            seen.append(settings)
            return ModelTurn(content="ok")

    models = ModelSet(
        planner=Recording(),
        limits={ModelRole.FINALIZER: RoleLimits(timeout_s=20, max_tokens=300)},
    )
    await models.desk().complete(ModelRole.FINALIZER, [], budget_s=3)
    assert seen[0].max_tokens == 300 and 2.5 < seen[0].timeout_s <= 3


async def test_a_slow_model_is_cut_at_its_timeout_and_counted_as_one() -> None:
    class Slow:
        name = "slow"

        async def complete(self, messages, tools, settings):
            await asyncio.sleep(30)
            return ModelTurn(content="late")

    desk = ModelSet(planner=Slow(), limits={ModelRole.PLANNER: RoleLimits(timeout_s=0.1)}).desk()
    with pytest.raises(ModelError, match="slow: timeout"):
        await desk.complete(ModelRole.PLANNER, [])
    assert [c.failure for c in desk.ledger.calls] == [ModelFailure.TIMEOUT] * 2


async def test_no_time_left_starts_no_attempt() -> None:
    model = answering("m")
    desk = ModelSet(planner=model).desk()
    with pytest.raises(ModelError, match="no time left"):
        await desk.complete(ModelRole.FINALIZER, [], budget_s=0.0)
    assert model.calls == 0


async def test_a_tool_call_written_as_text_is_recovered_and_counted() -> None:
    tool = make_tool(
        "k8s.workload_status",
        ServiceArgs,
        agent(["k8s.workload_status"], "kubernetes"),
        ["east"],
        None,
    )
    text = (
        '<tool_call>\n{"name": "k8s__workload_status", "arguments": {"env": "east"}}\n</tool_call>'
    )
    desk = ModelSet(planner=answering("m", text)).desk()
    turn, _ = await desk.complete(ModelRole.PLANNER, [], [tool.contract])
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [
        ("k8s.workload_status", {"env": "east"})
    ]
    assert desk.ledger.format_errors == 1
    assert desk.ledger.format_errors_by_model() == {"m": 1}


async def test_a_model_whose_retry_failed_is_not_asked_again_in_the_turn() -> None:
    planner, finalizer = failing(ModelFailure.API_ERROR, "small"), answering("large")
    desk = ModelSet(planner=planner, finalizer=finalizer).desk()
    await desk.complete(ModelRole.PLANNER, [])
    await desk.complete(ModelRole.PLANNER, [])
    assert (planner.calls, finalizer.calls) == (2, 2)
    # a new turn asks it again
    await ModelSet(planner=planner, finalizer=finalizer).desk().complete(ModelRole.PLANNER, [])
    assert planner.calls == 4
