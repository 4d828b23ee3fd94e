"""Model mode through real HTTP: the real `openai` client against the scripted
OpenAI-compatible server, inside a real investigation. Every failure kind a server shows
(429, 500, a non-JSON body, no choice, a slow model, tool calls as text, invalid JSON
arguments, unknown tools) is a case here; none crashes a turn, and each that costs the
model its say becomes a gap naming the model."""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from evals.simulators.model_server import ModelReply, ModelServer, WireCall
from planner.model.catalogue import trimmed_spec
from planner.model.client import OpenAICompatibleModel, ProviderSettings
from planner.model.roles import ModelRole, ModelSet, RoleLimits
from planner.question.context import InventoryItem, build_context
from planner.shapes.language import Language, Phrase, say
from planner.shapes.turn import Turn
from planner.turn.investigation import InvestigationSettings, Planning, investigate
from policy.gate import PolicyGate
from policy.toolset import ToolSet
from tests.unit.toolkit import ServiceArgs, agent, facts_result, make_tool, status_and_logs

TZ = ZoneInfo("UTC")
NOW = datetime(2026, 7, 20, 11, 40, tzinfo=TZ)
ENVS = ["east", "west"]
INV = [
    InventoryItem(env="east", namespace="shop", name="cart", kind="deployment"),
    InventoryItem(env="west", namespace="shop", name="cart", kind="deployment"),
]
QUESTION = "что за странная штука с cart в east?"  # no route of its own: the model plans
LOG_FACT = "cart: redis connection reset by peer"


def tools(extra: int = 0) -> list:
    out = status_and_logs(ENVS, "2 of 2 pods of cart ready", LOG_FACT)
    for n in range(extra):
        out.append(
            make_tool(
                f"misc.reader_{n:02d}",
                ServiceArgs,
                agent([f"misc.kind_{n:02d}"], "misc"),
                ENVS,
                facts_result(f"misc.reader_{n:02d}", "misc", []),
            )
        )
    return out


def models(url: str, *, fallback: bool = False, timeout_s: float = 5.0) -> ModelSet:
    def client(name: str) -> OpenAICompatibleModel:
        return OpenAICompatibleModel(ProviderSettings(base_url=url, model=name), spec=trimmed_spec)

    limits = {role: RoleLimits(timeout_s=timeout_s, max_tokens=256) for role in ModelRole}
    return ModelSet(
        planner=client("small"),
        finalizer=client("large") if fallback else None,
        limits=limits,
        rerank=False,
        synthesis_reserve_s=2.0,
    )


async def investigate_with(
    ms: ModelSet,
    *,
    extra_tools: int = 0,
    deadline_s: float = 30.0,
    question: str = QUESTION,
    planning: Planning = Planning.AUTO,
):
    context = build_context(question, envs=ENVS, inventory=INV, now=NOW, tz=TZ)
    turn = Turn(question=question, user="alice", now=NOW)
    try:
        return await investigate(
            turn,
            context,
            PolicyGate(ToolSet(tools(extra_tools))),
            InvestigationSettings(timezone=TZ, turn_deadline_s=deadline_s, planning=planning),
            models=ms,
        )
    finally:
        await ms.aclose()


def planner_step(body: dict[str, Any]) -> int | None:
    """Which planning step a request is (None: not a planning request)."""
    if not body.get("tools"):
        return None
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


def read_logs(step: int) -> ModelReply:
    if step == 0:
        return ModelReply(
            tool_calls=(WireCall("logs__app_logs", json.dumps({"env": "east", "service": "cart"})),)
        )
    return ModelReply(content="The logs show a reset.")


def prose(body: dict[str, Any]) -> ModelReply:
    """The finalizer: the log line's fact (else the first fact) restated with its
    citation, and one sentence that cites it for something it does not say."""
    facts = [line for line in body["messages"][-1]["content"].splitlines() if line.startswith("[F")]
    line = next((f for f in facts if LOG_FACT in f), facts[0])
    key, text = line[1:].split("] ", 1)
    text = text.split(" (source ")[0]
    return ModelReply(content=f"{text} [{key}]. Redis in west failed [{key}].")


def script_of(plan):
    def script(body: dict[str, Any]) -> ModelReply:
        step = planner_step(body)
        return prose(body) if step is None else plan(step, body)

    return script


async def test_a_planned_turn_reads_through_the_gate_and_answers_in_guarded_prose() -> None:
    with ModelServer(script_of(lambda step, _b: read_logs(step))) as server:
        inv = await investigate_with(models(server.url))
        bodies = server.requests
    answer = inv.answer
    assert [c.tool for c in answer.tool_calls] == ["k8s.workload_status", "logs.app_logs"]
    assert any(f.text == LOG_FACT for f in answer.facts)
    # the invented sentence (no fact says anything of west) is dropped
    n = next(i for i, f in enumerate(answer.facts) if f.text == LOG_FACT) + 1
    # the prose is the conclusion; what was not checked is still said by the code
    assert answer.summary == (  # asked in Russian: the code's frame is Russian
        f"{LOG_FACT} [{n}]." + say(Phrase.NOT_CHECKED, Language.RU, count=len(answer.gaps))
    )
    t = answer.timings
    assert t.model_calls == len(bodies) == 3  # two planning steps and the prose
    assert t.prompt_tokens > 0 and t.completion_tokens > 0 and t.model_ms > 0
    assert not any(g.objective == "model" for g in answer.gaps)
    # the planner's closing prose reaches the finalizer as notes, never as evidence
    final_prompt = bodies[-1]["messages"][-1]["content"]
    assert "closing notes" in final_prompt and "The logs show a reset." in final_prompt
    assert "The logs show a reset" not in answer.summary


async def test_a_question_no_plan_covers_reaches_the_model_with_tools() -> None:
    """No object and no kind of question the code reads: the environment check stands in,
    said as such, and the model is offered tools to plan the rest (it was offered none)."""
    question = "что там с рассылкой уведомлений в east?"
    with ModelServer(script_of(lambda step, _b: read_logs(step))) as server:
        inv = await investigate_with(models(server.url), question=question)
        bodies = server.requests
    assert inv.context.uncovered
    assert any(planner_step(b) == 0 for b in bodies)  # a planning request, with tools
    assert "logs.app_logs" in [c.tool for c in inv.answer.tool_calls]
    assert inv.answer.summary.startswith("Проверка здоровья east")


async def test_a_kind_of_component_no_workload_runs_is_said_absent_and_left_to_the_model() -> None:
    """ "the queue" where no workload runs Kafka or RabbitMQ: said first as not found, and
    the model, offered tools, may still find one outside the cluster."""
    question = "что там с очередью уведомлений в east?"
    with ModelServer(script_of(lambda step, _b: read_logs(step))) as server:
        inv = await investigate_with(models(server.url), question=question)
        bodies = server.requests
    assert inv.context.component == "Kafka / RabbitMQ"
    assert any(planner_step(b) == 0 for b in bodies)
    assert inv.answer.summary.startswith("Kafka / RabbitMQ не найдено в east")


async def test_free_planning_has_the_model_plan_every_objective() -> None:
    """`--planning free`: no deterministic read before the model's; the plan is its todo
    list (the workload's status, read first in auto mode, is left to it)."""
    with ModelServer(script_of(lambda step, _b: read_logs(step))) as server:
        inv = await investigate_with(models(server.url), planning=Planning.FREE)
        bodies = server.requests
    assert [c.tool for c in inv.answer.tool_calls] == ["logs.app_logs"]
    todo = bodies[0]["messages"][-1]["content"]
    assert "k8s.workload_status" in todo or "state of the workload" in todo


async def test_at_most_eight_schemas_go_in_a_request_in_a_stable_order() -> None:
    with ModelServer(script_of(lambda step, _b: read_logs(step))) as server:
        await investigate_with(models(server.url), extra_tools=20)
        bodies = [b for b in server.requests if b.get("tools")]
    names = [[t["function"]["name"] for t in b["tools"]] for b in bodies]
    assert len(names) == 2 and all(len(n) <= 8 for n in names)
    assert names[1] == names[0]  # the prefix a server caches stays put
    assert "logs__app_logs" in names[0]
    assert all("title" not in json.dumps(t) for b in bodies for t in b["tools"])


async def test_a_tool_call_written_as_text_is_run_and_counted_as_a_format_error() -> None:
    def plan(step: int, _body: dict[str, Any]) -> ModelReply:
        if step == 0:
            call = {"name": "logs.app_logs", "arguments": {"env": "east", "service": "cart"}}
            return ModelReply(content=f"<tool_call>\n{json.dumps(call)}\n</tool_call>")
        return ModelReply(content="done")

    with ModelServer(script_of(plan)) as server:
        inv = await investigate_with(models(server.url))
    assert "logs.app_logs" in [c.tool for c in inv.answer.tool_calls]
    assert inv.answer.timings.model_format_errors == 1
    assert inv.answer.timings.by_model["small"].format_errors == 1  # counted per model


async def test_invalid_json_arguments_are_never_sent_back() -> None:
    def plan(step: int, body: dict[str, Any]) -> ModelReply:
        if step == 0:
            return ModelReply(tool_calls=(WireCall("logs__app_logs", '{"env": "east", service'),))
        return read_logs(0) if step == 1 else ModelReply(content="done")

    with ModelServer(script_of(plan)) as server:
        inv = await investigate_with(models(server.url))
        second = next(b for b in server.requests if planner_step(b) == 1)
    text = json.dumps(second)
    assert '{\\"env\\": \\"east\\", service' not in text
    sent = [c for m in second["messages"] if m["role"] == "assistant" for c in m["tool_calls"]]
    assert sent[0]["function"]["arguments"] == "{}"
    tool_msgs = [m["content"] for m in second["messages"] if m["role"] == "tool"]
    assert "not a JSON object" in tool_msgs[0]
    assert any(f.text == LOG_FACT for f in inv.answer.facts)  # the model fixed its call
    assert inv.answer.timings.model_denied_calls == 1


async def test_an_unknown_tool_is_refused_counted_and_kept_for_the_audit() -> None:
    def plan(step: int, _body: dict[str, Any]) -> ModelReply:
        if step == 0:
            args = json.dumps({"env": "east", "service": "cart"})
            return ModelReply(tool_calls=(WireCall("k8s__delete_deployment", args),))
        return ModelReply(content="done")

    with ModelServer(script_of(plan)) as server:
        inv = await investigate_with(models(server.url))
    refused = [c for c in inv.answer.tool_calls if c.tool == "k8s.delete_deployment"]
    assert refused and refused[0].status == "denied"
    assert inv.answer.timings.model_denied_calls == 1


async def test_429_then_500_is_retried_then_the_fallback_model_plans() -> None:
    def script(body: dict[str, Any]) -> ModelReply:
        step = planner_step(body)
        if body["model"] == "small":
            return ModelReply(status=429 if step == 0 else 500, content="busy")
        return prose(body) if step is None else read_logs(step)

    with ModelServer(script) as server:
        inv = await investigate_with(models(server.url, fallback=True))
        asked = [b["model"] for b in server.requests]
    assert asked[:3] == ["small", "small", "large"]
    by_model = inv.answer.timings.by_model
    assert by_model["small"].failed_calls == 2 and by_model["large"].failed_calls == 0
    assert any(f.text == LOG_FACT for f in inv.answer.facts)
    assert not any(g.objective == "model" for g in inv.answer.gaps)


async def test_a_non_json_body_and_empty_choices_leave_the_facts_and_a_gap_naming_the_model() -> (
    None
):
    def script(body: dict[str, Any]) -> ModelReply:
        if body["model"] == "small":
            return ModelReply(raw_body="<html>502 Bad Gateway</html>")
        return ModelReply(empty_choices=True)

    with ModelServer(script) as server:
        inv = await investigate_with(models(server.url, fallback=True))
    answer = inv.answer
    assert any("2 of 2 pods" in f.text for f in answer.facts)
    reasons = [g.reason for g in answer.gaps if g.objective == "model"]
    assert any("small: undecodable" in r and "large: empty" in r for r in reasons)
    assert answer.timings.model_failed_calls == answer.timings.model_calls
    assert answer.summary and "[" not in answer.summary  # the code's own summary
    # two attempts each for planning; the prose asks neither again in this turn
    assert answer.timings.model_calls == 4


async def test_a_slow_model_is_cut_by_the_turns_budget_and_the_facts_stay() -> None:
    def script(body: dict[str, Any]) -> ModelReply:
        return ModelReply(delay_s=30, content="late")

    began = time.perf_counter()
    with ModelServer(script) as server:
        inv = await investigate_with(models(server.url, timeout_s=30), deadline_s=4.0)
    took = time.perf_counter() - began
    answer = inv.answer
    assert took < 5  # the deadline is 4 s; the server's stop is the rest
    assert any("2 of 2 pods" in f.text for f in answer.facts)
    reasons = " ".join(g.reason for g in answer.gaps if g.objective == "model")
    assert "small" in reasons and "cut" in reasons
    # the planning call cut by the deadline is counted with its time, then the prose's
    assert answer.timings.model_calls == 2 and answer.timings.model_ms >= 2500


async def test_prose_after_a_cut_still_says_the_answer_is_partial() -> None:
    def script(body: dict[str, Any]) -> ModelReply:
        if planner_step(body) is not None:
            return ModelReply(delay_s=30, content="late")
        return prose(body)

    with ModelServer(script) as server:
        inv = await investigate_with(models(server.url, fallback=True), deadline_s=4.0)
    answer = inv.answer
    assert not answer.final
    assert answer.summary.startswith(say(Phrase.PARTIAL, Language.RU))
    assert "[" in answer.summary  # the finalizer model's guarded prose
    assert "см. пробелы." in answer.summary
