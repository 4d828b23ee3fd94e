"""The investigation path end to end with failure-injecting tools: wrong negative, lost
evidence, free re-planning, degradation (a failed source is a gap, facts survive)."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from planner.question.context import build_context
from planner.shapes.turn import Turn
from planner.turn.investigation import InvestigationSettings, investigate
from policy.errors import SourceTimeout, SourceUnavailable
from policy.gaps import GapNote, GapReason
from policy.gate import PolicyGate
from policy.results import Entity
from policy.toolset import ToolSet
from tests.unit.toolkit import (
    NodeArgs,
    RequestArgs,
    ServiceArgs,
    agent,
    empty_result,
    facts_result,
    make_tool,
    raising,
    sleeping,
)

TZ = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 7, 20, 14, 40, tzinfo=TZ)
ENVS = ["dc-a", "dc-b"]
SETTINGS = InvestigationSettings(timezone=TZ, default_timeout=2.0, turn_deadline_s=5.0)


async def ask(question: str, tools, settings=SETTINGS, previous=None, role="engineer"):
    from planner.question.context import InventoryItem

    inv = [
        InventoryItem(env=e, namespace="payments", name="service-a", kind="deployment")
        for e in ENVS
    ]
    context = build_context(question, envs=ENVS, inventory=inv, now=NOW, tz=TZ, previous=previous)
    turn = Turn(question=question, user="alice", role=role, now=NOW)
    return await investigate(turn, context, PolicyGate(ToolSet(tools)), settings)


def workload_tool(behaviour, name="k8s.workload_status", **meta):
    return make_tool(
        name, ServiceArgs, agent(["k8s.workload_status"], "kubernetes", **meta), ENVS, behaviour
    )


def events_tool(behaviour):
    return make_tool(
        "k8s.events", ServiceArgs, agent(["k8s.events"], "kubernetes"), ENVS, behaviour
    )


OOM = facts_result(
    "k8s.workload_status",
    "kubernetes",
    [
        (
            "container app of service-a-1 was OOMKilled (exit code 137)",
            "k8s.termination",
            {"pod": "service-a-1", "container": "app", "reason": "OOMKilled", "exit_code": 137},
        ),
    ],
)


async def test_empty_partial_read_is_a_gap_never_no_problem() -> None:
    tools = [
        workload_tool(OOM),
        events_tool(empty_result("k8s.events", "kubernetes", complete=False)),
    ]
    inv = await ask("почему service-a в dc-a рестартует?", tools)
    answer = inv.answer
    status = {o.id: o.status for o in answer.objectives}
    assert status["k8s.events"] == "unresolved"
    gap = next(g for g in answer.gaps if g.objective == "k8s.events")
    assert gap.kind is GapReason.PARTIAL_READ
    # asked in Russian, said in Russian: "absence is not proven"
    assert gap.reason.startswith("dc-a: ") and "отсутствие не доказано" in gap.reason
    assert not any("no " in f.text.lower() and "event" in f.text.lower() for f in answer.facts)
    assert answer.final is False  # a required objective is not settled


async def test_empty_complete_read_proves_absence_as_a_fact() -> None:
    tools = [
        workload_tool(OOM),
        events_tool(empty_result("k8s.events", "kubernetes", complete=True)),
    ]
    answer = (await ask("почему service-a в dc-a рестартует?", tools)).answer
    status = {o.id: o.status for o in answer.objectives}
    assert status["k8s.events"] == "resolved"
    assert any(
        f.text.startswith("В dc-a не найдено: события workload") and "прочитано полностью" in f.text
        for f in answer.facts
    )
    assert answer.final is True
    assert any("OOMKilled" in h.text for h in answer.hypotheses)


async def test_failed_source_becomes_a_gap_and_other_facts_survive() -> None:
    calls: list[int] = []
    tools = [
        workload_tool(OOM),
        events_tool(raising(SourceUnavailable("kubernetes", "HTTP 503 from API"), calls)),
    ]
    answer = (await ask("почему service-a в dc-a рестартует?", tools)).answer
    assert any("OOMKilled" in f.text for f in answer.facts)
    gap = next(g for g in answer.gaps if g.objective == "k8s.events")
    assert "503" in gap.reason and "dc-a" in gap.reason
    assert gap.kind is GapReason.SOURCE_FAILED
    assert {o.id: o.status for o in answer.objectives}["k8s.events"] == "unavailable"
    assert len(calls) == 2  # one retry for a transient error, then marked unavailable


async def test_the_same_gap_in_two_envs_is_said_for_each_env() -> None:
    """A gap in dc-b is never folded into the same kind of gap in dc-a: each env shows
    what it could not check."""
    tools = [workload_tool(OOM)]  # no events tool anywhere
    answer = (await ask("почему service-a в dc-a и dc-b рестартует?", tools)).answer
    gaps = [g for g in answer.gaps if g.objective == "k8s.events"]
    assert [g.kind for g in gaps] == [GapReason.NO_SOURCE, GapReason.NO_SOURCE]
    assert sorted(g.reason.split(":")[0] for g in gaps) == ["dc-a", "dc-b"]


def test_every_gap_reason_reads_as_a_sentence_naming_its_env() -> None:
    for reason in GapReason:
        note = GapNote(reason, "dc-b", subject="k8s.events", detail="HTTP 503")
        text = note.sentence()
        assert text.startswith("dc-b: ") and len(text) > len("dc-b: "), reason
        assert "{" not in text, reason
        assert GapNote(reason, None, "k8s.events", "HTTP 503").sentence() == text[len("dc-b: ") :]


async def test_alternative_source_is_used_after_a_failure() -> None:
    live = workload_tool(
        raising(SourceTimeout("kubernetes", "timed out")), name="k8s.live", freshness="live"
    )
    backup = make_tool(
        "metrics.state",
        ServiceArgs,
        agent(["k8s.workload_status"], "metrics"),
        ENVS,
        facts_result("metrics.state", "metrics", [("2 of 2 pods ready", "k8s.workload", {})]),
    )
    answer = (await ask("что с service-a в dc-a сейчас?", [live, backup])).answer
    status = {o.id: o.status for o in answer.objectives}
    assert status["k8s.workload_status"] == "resolved"
    assert [c.tool for c in answer.tool_calls] == ["k8s.live", "metrics.state"]


async def test_timeout_keeps_collected_facts() -> None:
    slow = events_tool(sleeping(10, empty_result("k8s.events", "kubernetes", complete=True)))
    settings = InvestigationSettings(
        timezone=TZ, source_timeouts={"kubernetes": 0.2}, turn_deadline_s=5.0
    )
    answer = (
        await ask("почему service-a в dc-a рестартует?", [workload_tool(OOM), slow], settings)
    ).answer
    assert any("OOMKilled" in f.text for f in answer.facts)
    gap = next(g for g in answer.gaps if g.objective == "k8s.events")
    assert "no answer within 0.2 s" in gap.reason


async def test_turn_deadline_keeps_what_already_came_back() -> None:
    slow = events_tool(sleeping(10, empty_result("k8s.events", "kubernetes", complete=True)))
    settings = InvestigationSettings(timezone=TZ, turn_deadline_s=0.3)
    inv = await ask("почему service-a в dc-a рестартует?", [workload_tool(OOM), slow], settings)
    assert inv.timed_out
    assert any("OOMKilled" in f.text for f in inv.answer.facts)
    assert inv.answer.final is False
    assert inv.answer.summary.startswith("Неполный ответ")  # asked in Russian


async def test_same_question_takes_the_same_route_every_time() -> None:
    tools = [
        workload_tool(OOM),
        events_tool(empty_result("k8s.events", "kubernetes", complete=True)),
    ]
    routes = []
    for _ in range(3):
        answer = (await ask("почему service-a в dc-a рестартует?", tools)).answer
        routes.append([(c.tool, c.arguments) for c in answer.tool_calls])
    assert routes[0] == routes[1] == routes[2]
    assert all(c[1]["env"] == "dc-a" for c in routes[0])


async def test_identical_calls_are_made_once_even_for_several_objectives() -> None:
    trace_calls: list[int] = []

    async def trace(args, ctx):
        trace_calls.append(1)
        return await facts_result(
            "logs.request_trace",
            "logs",
            [
                ("edge returned 502", "edge.access", {"status": 502}),
                ("upstream sent too big header", "edge.error", {"error_class": "too_big_header"}),
                ("app answered 302", "app.response", {"status": 302}),
            ],
        )(args, ctx)

    tool = make_tool(
        "logs.request_trace",
        RequestArgs,
        agent(["edge.access_log", "edge.error_log", "app.log"], "logs"),
        ENVS,
        trace,
    )
    answer = (
        await ask("502 в dc-a request_id 7f9e2c21a4b84d0c9e51b0d3f6a27c85 в 14:11", [tool])
    ).answer
    assert len(trace_calls) == 1
    status = {o.id: o.status for o in answer.objectives}
    assert status["edge.access_log"] == status["edge.error_log"] == "resolved"
    assert status["app.response"] == "resolved"
    assert "302" in answer.summary and "502" in answer.summary


async def test_nodes_observed_in_round_one_feed_round_two() -> None:
    pods = facts_result(
        "k8s.endpoints",
        "kubernetes",
        [("2 ready endpoints", "k8s.endpoints", {})],
        entities=[Entity(kind="node", name="worker-17", env="dc-a")],
    )
    seen_nodes: list[str] = []

    async def net(args, ctx):
        seen_nodes.append(args.node)
        return await facts_result(
            "metrics.node_network",
            "metrics",
            [
                (
                    "worker-17 softnet squeezes 40/s vs peers 0/s",
                    "node.network",
                    {
                        "node": args.node,
                        "metric": "softnet_squeezes",
                        "value": 40.0,
                        "peer_median": 0.0,
                    },
                ),
            ],
        )(args, ctx)

    tools = [
        make_tool(
            "k8s.endpoints", ServiceArgs, agent(["k8s.ready_endpoints"], "kubernetes"), ENVS, pods
        ),
        make_tool("metrics.node_network", NodeArgs, agent(["node.network"], "metrics"), ENVS, net),
        make_tool(
            "metrics.http_errors",
            ServiceArgs,
            agent(["http.error_rate"], "metrics"),
            ENVS,
            facts_result("metrics.http_errors", "metrics", [("502 spike", "http.rate", {})]),
        ),
    ]
    answer = (await ask("почему service-a в dc-a отдаёт 502?", tools)).answer
    assert seen_nodes == ["worker-17"]
    assert any("worker-17" in h.text for h in answer.hypotheses)


async def test_history_cannot_confirm_the_present() -> None:
    old = facts_result(
        "k8s.rollouts",
        "kubernetes",
        [("canary rollout succeeded", "k8s.workload", {})],
        observed_at=NOW - timedelta(days=2),
    )
    answer = (
        await ask(
            "canary service-a в dc-a работает сейчас?", [workload_tool(old, name="k8s.rollouts")]
        )
    ).answer
    status = {o.id: o.status for o in answer.objectives}
    assert status["k8s.workload_status"] == "unresolved"
    said = "по истории нельзя подтвердить текущее состояние"  # history cannot confirm now
    assert any(said in g.reason for g in answer.gaps)


async def test_a_round_two_read_starts_once_what_it_needs_is_in_not_after_the_slowest_read() -> (
    None
):
    """Pods placed on worker-17 come back at once; the 502 counts take 0.6 s. The node's
    network is read while the counts are still coming, and only once."""
    pods = facts_result(
        "k8s.endpoints",
        "kubernetes",
        [("2 ready endpoints", "k8s.endpoints", {})],
        entities=[Entity(kind="node", name="worker-17", env="dc-a")],
    )
    began = time.perf_counter()
    started: list[float] = []
    counted: list[float] = []

    async def net(args, ctx):
        started.append(time.perf_counter() - began)
        return await facts_result(
            "metrics.node_network", "metrics", [("worker-17 clean", "node.network", {})]
        )(args, ctx)

    async def errors(args, ctx):
        await asyncio.sleep(0.6)
        counted.append(time.perf_counter() - began)
        return await facts_result(
            "metrics.http_errors", "metrics", [("502 spike", "http.rate", {})]
        )(args, ctx)

    tools = [
        make_tool(
            "k8s.endpoints", ServiceArgs, agent(["k8s.ready_endpoints"], "kubernetes"), ENVS, pods
        ),
        make_tool("metrics.node_network", NodeArgs, agent(["node.network"], "metrics"), ENVS, net),
        make_tool(
            "metrics.http_errors", ServiceArgs, agent(["http.error_rate"], "metrics"), ENVS, errors
        ),
    ]
    answer = (await ask("почему service-a в dc-a отдаёт 502?", tools)).answer
    assert len(started) == 1 and started[0] < counted[0]
    made = [c for c in answer.tool_calls if c.tool == "metrics.node_network"]
    assert len(made) == 1 and made[0].arguments["node"] == "worker-17"


async def test_a_read_ahead_that_no_round_plans_is_never_evidence() -> None:
    from planner.plan.routing import PlannedCall
    from planner.read.executor import Executor
    from planner.read.workspace import TurnWorkspace
    from policy.scope import Scope
    from policy.toolset import CallContext

    calls: list[str] = []

    async def net(args, ctx):
        calls.append(args.node)
        return await facts_result("metrics.node_network", "metrics", [("n", "node.network", {})])(
            args, ctx
        )

    tool = make_tool(
        "metrics.node_network", NodeArgs, agent(["node.network"], "metrics"), ENVS, net
    )
    ctx = CallContext(user="u", role="engineer", scope=Scope(env="dc-a"), now=NOW)
    executor = Executor(gate=PolicyGate(ToolSet([tool])), ctx=ctx, workspace=TurnWorkspace())
    ahead = PlannedCall("metrics.node_network", '{"env":"dc-a","node":"n1"}', "dc-a", "metrics", ())
    wanted = PlannedCall(
        "metrics.node_network", '{"env":"dc-a","node":"n2"}', "dc-a", "metrics", ()
    )
    executor.prefetch(ahead)
    executor.prefetch(wanted)
    records = await executor.run([wanted])
    await executor.drop_prefetched()
    assert [r.call.key for r in executor.records] == [wanted.key]
    assert [r.result.status for r in records] == ["ok"]
    assert calls.count("n2") == 1  # read ahead, then used: not read twice


async def test_a_failed_read_ahead_does_not_skip_the_other_calls_of_its_round() -> None:
    from planner.plan.routing import PlannedCall
    from planner.read.executor import Executor
    from planner.read.workspace import TurnWorkspace
    from policy.scope import Scope
    from policy.toolset import CallContext

    async def net(args, ctx):
        if args.node == "n1":
            raise SourceUnavailable("metrics", "a blip")
        return await facts_result("metrics.node_network", "metrics", [("n", "node.network", {})])(
            args, ctx
        )

    meta = agent(["node.network"], "metrics")
    tool = make_tool("metrics.node_network", NodeArgs, meta, ENVS, net)
    ctx = CallContext(user="u", role="engineer", scope=Scope(env="dc-a"), now=NOW)
    executor = Executor(gate=PolicyGate(ToolSet([tool])), ctx=ctx, workspace=TurnWorkspace())

    def node_call(node: str) -> PlannedCall:
        return PlannedCall(
            "metrics.node_network", f'{{"env":"dc-a","node":"{node}"}}', "dc-a", "metrics", ()
        )

    executor.prefetch(node_call("n1"))
    await asyncio.sleep(0.05)  # the read ahead has failed before its round starts
    records = await executor.run([node_call("n1"), node_call("n2")])
    await executor.drop_prefetched()
    assert [r.result.status for r in records] == ["error", "ok"]


async def test_a_workload_its_logs_connect_to_is_read_next() -> None:
    """Scope from evidence: the readiness failures of geo-resolver name geo-cache; the
    next round reads geo-cache's state too (bounded: two such workloads at most)."""
    from planner.question.context import InventoryItem

    seen: list[str] = []

    async def status(args, ctx):
        seen.append(args.service)
        facts = (
            [
                (
                    "pod geo-resolver-1 log: ERR connecting to geo-cache:6379: connection refused",
                    "k8s.log",
                    {"pod": "geo-resolver-1", "level": "ERROR"},
                )
            ]
            if args.service == "geo-resolver"
            else [
                (
                    "pod geo-cache-0 was OOMKilled",
                    "k8s.termination",
                    {"pod": "geo-cache-0", "reason": "OOMKilled", "exit_code": 137},
                )
            ]
        )
        return await facts_result("k8s.workload_status", "kubernetes", facts)(args, ctx)

    inv = [
        InventoryItem(env=e, namespace="geo", name=n, kind="deployment")
        for e in ENVS
        for n in ("geo-resolver", "geo-cache", "osm-tiles")
    ]
    question = "почему geo-resolver в dc-a не работает?"
    context = build_context(question, envs=ENVS, inventory=inv, now=NOW, tz=TZ)
    turn = Turn(question=question, user="alice", role="engineer", now=NOW)
    answer = (
        await investigate(
            turn, context, PolicyGate(ToolSet([workload_tool(status)])), SETTINGS, inventory=inv
        )
    ).answer
    assert seen == ["geo-resolver", "geo-cache"]  # osm-tiles is named by nothing
    assert any("geo-cache-0" in h.text and "OOMKilled" in h.text for h in answer.hypotheses)
