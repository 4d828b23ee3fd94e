"""Which tool schemas a model call carries (planner/model/catalogue.py), on the real catalogue: the
tools the demo world's configuration builds, admitted for an engineer."""

from __future__ import annotations

import copy
import json
import random
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import jsonschema
import pytest
from pydantic import BaseModel, ConfigDict, Field

from bot.wiring import build_gate
from evals.simulators.host import EnvEndpoints, WorldEndpoints
from evals.world import World, load_world
from evals.worldconfig import config_for_world
from planner.model.catalogue import (
    Selection,
    lexical_rank,
    parse_rerank,
    relevant,
    rerank,
    rerank_prompt,
    schema_chars,
    select,
    trimmed_spec,
)
from planner.model.client import tool_spec, wire_name
from planner.plan.objectives import QuestionPlan, plan_for
from planner.question.context import InventoryItem, build_context
from policy.contracts import ToolContract
from policy.gate import admitted, schema_problems
from tests.unit.toolkit import agent

DEMO = Path(__file__).resolve().parents[2] / "evals" / "worlds" / "demo.yaml"
TZ = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 7, 20, 14, 40, tzinfo=TZ)
UNREACHABLE = "http://127.0.0.1:9"  # building the tools reads no source


@pytest.fixture(scope="module")
def world() -> World:
    return load_world(DEMO)


@pytest.fixture(scope="module")
def contracts(world: World) -> list[ToolContract]:
    endpoints = WorldEndpoints(
        envs={
            env: EnvEndpoints(
                kubernetes=f"{UNREACHABLE}/k8s/{env}",
                metrics=f"{UNREACHABLE}/vm/{env}",
                logs=f"{UNREACHABLE}/es/{env}" if "logs" in sources else None,
            )
            for env, sources in world.environments.items()
        },
        gitlab=f"{UNREACHABLE}/gitlab",
    )
    gate = build_gate(config_for_world(world, endpoints, timezone=str(TZ)), environ={})
    every = gate.contracts()
    return [c for c in every if admitted(c, "engineer")[0]]


@pytest.fixture(scope="module")
def names(world: World) -> dict[str, str]:
    """An env with every source, one of its workloads and one of its nodes: the world's own
    names, so that the questions below name what the demo world has."""
    env = next(e for e, sources in world.environments.items() if "logs" in sources)
    deployment = next(o for o in world.kubernetes[env] if o["kind"] == "Deployment")
    node = next(o for o in world.kubernetes[env] if o["kind"] == "Node")
    return {
        "env": env,
        "namespace": deployment["metadata"]["namespace"],
        "workload": deployment["metadata"]["name"],
        "node": node["metadata"]["name"],
    }


KINDS = ("Namespace", "Node", "Deployment", "StatefulSet", "DaemonSet")


def inventory(world: World) -> list[InventoryItem]:
    return [
        InventoryItem(
            env=env,
            namespace=o["metadata"].get("namespace"),
            name=o["metadata"]["name"],
            kind=o["kind"].lower(),
        )
        for env, objects in world.kubernetes.items()
        for o in objects
        if o["kind"] in KINDS
    ]


def plan_of(
    question: str, world: World, contracts: list[ToolContract]
) -> tuple[QuestionPlan, set[str]]:
    context = build_context(
        question, envs=list(world.environments), inventory=inventory(world), now=NOW, tz=TZ
    )
    served = {k: c.agent.facet_of(k) for c in contracts for k in c.agent.evidence}
    plan = plan_for(context, served=served)
    return plan, {o.id for o in plan.objectives}


QUESTIONS = [
    "{workload} в {env} всё время перезапускается, в чём дело?",
    "who rolled out {workload} to {env} this morning, and from which pipeline?",
    "are TCP retransmissions on node {node} in {env} higher than on its neighbours?",
    "сколько ответов 502 отдал {workload} в {env} за последние полчаса?",
    "why did {workload} in {env} return 502 errors in the last hour?",
    "is the resource quota of namespace {namespace} in {env} nearly used up?",
    "какая задержка у {workload} в {env} сейчас?",
    "что вообще происходит в {env} прямо сейчас?",
]


def serves(contract: ToolContract, kinds: list[str]) -> bool:
    return bool(set(kinds) & set(contract.agent.evidence))


@pytest.mark.parametrize("template", QUESTIONS)
def test_a_few_tools_are_chosen_and_each_open_required_objective_has_one(
    template: str, world: World, contracts: list[ToolContract], names: dict[str, str]
) -> None:
    question = template.format(**names)
    plan, open_ids = plan_of(question, world, contracts)
    selection = select(contracts, question=question, plan=plan, open_ids=open_ids)
    assert 1 <= len(selection.chosen) <= 8
    assert len(selection.prefiltered) <= 30
    chosen = [c.name for c in selection.chosen]
    assert chosen == sorted(chosen)
    assert set(chosen) <= {c.name for c in selection.prefiltered}
    assert len(chosen) == min(8, len(selection.prefiltered))
    kinds = [k for o in plan.objectives for k in o.evidence]
    assert all(serves(c, kinds) for c in selection.chosen)  # each can close an objective
    required = [o for o in plan.objectives if o.required]
    assert required, plan
    for o in required:
        if any(serves(c, o.evidence) for c in contracts):
            assert any(serves(c, o.evidence) for c in selection.chosen), (o.id, chosen)


def test_the_tool_for_the_one_open_objective_is_chosen(
    world: World, contracts: list[ToolContract], names: dict[str, str]
) -> None:
    question = QUESTIONS[0].format(**names)
    plan, _ = plan_of(question, world, contracts)
    servable = [o for o in plan.objectives if any(serves(c, o.evidence) for c in contracts)]
    assert len(servable) >= 3
    for objective in servable:
        selection = select(contracts, question=question, plan=plan, open_ids={objective.id})
        assert selection.chosen
        # the others are resolved: only a tool that can close this one is offered
        assert all(serves(c, objective.evidence) for c in selection.prefiltered)
        every = {c.name for c in contracts if serves(c, objective.evidence)}
        assert {c.name for c in selection.chosen} <= every
        assert len(selection.chosen) == min(len(every), 8)


def test_relevance_keeps_the_tools_serving_open_evidence(contracts: list[ToolContract]) -> None:
    kinds = {contracts[0].agent.evidence[0], contracts[-1].agent.evidence[0]}
    kept = relevant(contracts, kinds)
    assert kept
    assert all(kinds & set(c.agent.evidence) for c in kept)
    assert {c.name for c in kept} == {c.name for c in contracts if kinds & set(c.agent.evidence)}
    assert len(kept) < len(contracts)
    # a general question (nothing open), or kinds no tool serves: every tool
    assert relevant(contracts, set()) == contracts
    assert relevant(contracts, {"no.such_kind"}) == contracts


def test_lexical_rank_finds_a_tool_by_the_identifiers_a_russian_question_cites(
    contracts: list[ToolContract],
) -> None:
    for c in contracts:
        ranked = lexical_rank(contracts, f"покажи, что говорит {c.name} за последний час")
        assert ranked[0].name == c.name
    kind = "k8s.ready_endpoints"
    ranked = lexical_rank(contracts, f"сколько готовых адресов: {kind}")
    assert kind in ranked[0].agent.evidence


def test_lexical_rank_with_nothing_in_common_is_by_name(contracts: list[ToolContract]) -> None:
    ranked = lexical_rank(reversed(contracts), "ничего общего")
    assert [c.name for c in ranked] == sorted(c.name for c in contracts)
    assert lexical_rank([], "anything") == []


def test_order_does_not_depend_on_the_order_contracts_come_in(
    world: World, contracts: list[ToolContract], names: dict[str, str]
) -> None:
    question = QUESTIONS[1].format(**names)
    plan, open_ids = plan_of(question, world, contracts)
    base = select(contracts, question=question, plan=plan, open_ids=open_ids)
    shuffled = list(contracts)
    for seed in range(5):
        random.Random(seed).shuffle(shuffled)
        again = select(shuffled, question=question, plan=plan, open_ids=open_ids)
        assert [c.name for c in again.prefiltered] == [c.name for c in base.prefiltered]
        assert [c.name for c in again.chosen] == [c.name for c in base.chosen]
        specs = [trimmed_spec(c) for c in again.chosen]
        assert json.dumps(specs) == json.dumps([trimmed_spec(c) for c in base.chosen])


def _selection(world: World, contracts: list[ToolContract], names: dict[str, str]) -> Selection:
    question = QUESTIONS[-1].format(**names)
    plan, _ = plan_of(question, world, contracts)
    # a general question about the whole catalogue: nothing is open, every tool may serve
    selection = select(contracts, question=question, plan=plan, open_ids=set())
    assert len(selection.prefiltered) == min(30, len(contracts)) > 8
    return selection


def test_rerank_takes_the_model_order_and_ignores_names_it_does_not_know(
    world: World, contracts: list[ToolContract], names: dict[str, str]
) -> None:
    selection = _selection(world, contracts, names)
    prefiltered = [c.name for c in selection.prefiltered]
    last, second_last = prefiltered[-1], prefiltered[-2]
    outside = [c.name for c in contracts if c.name not in prefiltered]
    answer = [last, "no.such_tool", last, wire_name(second_last), *outside]
    got = rerank(selection, answer, limit=3)
    # the two known names the model gave, then the best of the lexical choice
    assert [c.name for c in got] == sorted([last, second_last, prefiltered[0]])
    # more names than the limit: the first ones the model gave
    many = list(reversed(prefiltered))
    assert {c.name for c in rerank(selection, many, limit=4)} == set(many[:4])


def test_rerank_without_a_usable_answer_is_the_lexical_choice(
    world: World, contracts: list[ToolContract], names: dict[str, str]
) -> None:
    selection = _selection(world, contracts, names)
    lexical = [c.name for c in selection.prefiltered]
    assert [c.name for c in selection.chosen] == sorted(lexical[:8])
    for failed in (None, [], ["no.such_tool"]):
        assert [c.name for c in rerank(selection, failed)] == sorted(lexical[:8])
        assert [c.name for c in rerank(selection, failed, limit=3)] == sorted(lexical[:3])


def test_rerank_prompt_lists_the_prefiltered_tools_by_their_first_line(
    world: World, contracts: list[ToolContract], names: dict[str, str]
) -> None:
    selection = _selection(world, contracts, names)
    question = "что с сетью?"
    prompt = rerank_prompt(selection, question)
    assert question in prompt
    assert "JSON array" in prompt
    for n, c in enumerate(selection.prefiltered, 1):
        first = c.description.strip().splitlines()[0]
        line = next(x for x in prompt.splitlines() if x.startswith(f"{n}. {c.name}: "))
        assert first.startswith(line.split(": ", 1)[1].rstrip("…"))
    assert len(prompt) < sum(len(c.description) for c in selection.prefiltered) + 1000


def test_parse_rerank() -> None:
    fenced = 'Here:\n```json\n["k8s.events", "metrics.restarts"]\n```\nthat is all'
    assert parse_rerank(fenced) == ["k8s.events", "metrics.restarts"]
    assert parse_rerank('I would take ["logs.app_logs"] first.') == ["logs.app_logs"]
    assert parse_rerank('{"tools": ["a.b", "c.d"]}') == ["a.b", "c.d"]
    assert parse_rerank('[1, 2] then ["x.y"]') == ["x.y"]
    assert parse_rerank("[]") == []
    for garbage in (None, "", "no idea", "[unclosed", "[1, 2]", '{"a": 1}', "]]][[[", "\x00["):
        assert parse_rerank(garbage) is None


def _value(prop: dict[str, Any], env: str) -> Any:
    """A value the property's schema accepts (the shapes the demo catalogue's arguments
    have: enums, integers, date-times, names, lists of those)."""
    if "enum" in prop:
        return env if env in prop["enum"] else prop["enum"][0]
    if prop.get("type") == "integer":
        return max(int(prop.get("minimum", 1)), 1)
    if prop.get("type") == "array":
        return [_value(prop.get("items", {}), env)] * max(int(prop.get("minItems", 1)), 1)
    if prop.get("format") == "date-time":
        return NOW.isoformat()
    # a name, an id and a hex address alike
    return "a" + "1" * (max(int(prop.get("minLength", 1)), 3) - 1)


def _valid_arguments(schema: dict[str, Any], env: str) -> dict[str, Any]:
    """The required arguments, and a window start where the tool takes one."""
    props = schema.get("properties", {})
    out = {name: _value(props[name], env) for name in schema.get("required", [])}
    if "start" in props:
        out["start"] = NOW.isoformat()
    return out


def test_trimmed_spec_is_a_json_schema_that_still_checks_the_arguments(
    contracts: list[ToolContract], names: dict[str, str]
) -> None:
    for c in contracts:
        full = c.input_schema()
        before = copy.deepcopy(full)
        spec = trimmed_spec(c)
        assert spec is trimmed_spec(c)  # built once per contract
        assert c.input_schema() == before  # the shared schema is not touched
        assert spec["function"]["name"] == tool_spec(c)["function"]["name"]
        params = spec["function"]["parameters"]
        jsonschema.Draft202012Validator.check_schema(params)
        assert params["additionalProperties"] is False
        assert params.get("required", []) == full.get("required", [])
        assert set(params["properties"]) == set(full["properties"])
        for name, prop in full["properties"].items():
            if "enum" in prop:
                assert params["properties"][name]["enum"] == prop["enum"]
        text = json.dumps(params)
        assert '"title"' not in text and '{"type": "null"}' not in text
        assert '"default": null' not in text
        args = _valid_arguments(full, names["env"])
        assert schema_problems(c, args) == []  # valid for the gate, so for the trim too
        validator = jsonschema.Draft202012Validator(params)
        assert list(validator.iter_errors(args)) == [], c.name
        assert list(validator.iter_errors({**args, "unexpected": 1})), c.name
        if "start" in args:
            assert list(validator.iter_errors({**args, "start": 5})), c.name


def test_trimmed_specs_are_markedly_smaller(contracts: list[ToolContract]) -> None:
    full = schema_chars(tool_spec(c) for c in contracts)
    trimmed = schema_chars(trimmed_spec(c) for c in contracts)
    assert trimmed < 0.8 * full
    for c in contracts:
        assert schema_chars([trimmed_spec(c)]) < schema_chars([tool_spec(c)])
    specs = [trimmed_spec(c) for c in contracts[:2]]
    assert schema_chars(specs) == len(json.dumps(specs, ensure_ascii=False, separators=(",", ":")))


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str = Field(description="where")
    title: str | None = Field(default=None, description="a property named like a keyword")
    mode: str = Field(default="fast", description="x " * 200)
    count: int | None = None


def test_trimming_keeps_a_property_named_title_and_cuts_long_texts() -> None:
    first = "word " * 100
    contract = ToolContract(
        name="test.trimming",
        description=f"{first}\n\nSecond paragraph the model need not read.",
        args_model=_Args,
        agent=agent(["test.kind"], "test", freshness="live", current_only=True),
        enums={"env": ["one", "two"]},
    )
    spec = trimmed_spec(contract)["function"]
    assert len(spec["description"]) <= 300 and "Second" not in spec["description"]
    props = spec["parameters"]["properties"]
    assert set(props) == {"env", "title", "mode", "count"}
    assert props["title"] == {"description": "a property named like a keyword", "type": "string"}
    assert props["count"] == {"type": "integer"}
    assert props["mode"]["default"] == "fast" and len(props["mode"]["description"]) <= 120
    assert props["env"]["enum"] == ["one", "two"]
    assert contract.input_schema()["properties"]["title"]["anyOf"][1] == {"type": "null"}
