"""Benchmark: the in-process cost of one investigation turn.

1. overhead: a turn whose tools answer instantly (scope, plan, routing, gate with schema
   validation, executor, guard, finalizer, redaction, rendering) — median over N turns;
2. parallelism: a turn with six tool calls that each sleep 200 ms — wall time vs the
   slowest call (goal: <= 1.25x).

    .venv/bin/python benchmarks/turn_overhead.py [--turns 200] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.render import render_markdown
from planner.question.context import InventoryItem, build_context
from planner.shapes.turn import Turn
from planner.turn.investigation import InvestigationSettings, investigate
from policy.gate import PolicyGate
from policy.toolset import ToolSet
from tests.unit.toolkit import ServiceArgs, agent, facts_result, make_tool, sleeping

TZ = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 7, 20, 14, 40, tzinfo=TZ)
EVIDENCE = [
    "k8s.workload_status",
    "k8s.events",
    "metrics.restarts",
    "metrics.resource_usage",
    "ci.release_timeline",
    "k8s.pod_logs",
]


def tools(delay: float) -> list:
    out = []
    for i, kind in enumerate(EVIDENCE[:5]):
        name = f"bench.tool{i}"
        behaviour = facts_result(
            name,
            "kubernetes",
            [
                (f"fact {j} from {name} about service-a", "k8s.pod", {"pod": f"p{j}"})
                for j in range(10)
            ],
        )
        out.append(
            make_tool(
                name,
                ServiceArgs,
                agent([kind], f"src{i}"),
                ["dc-a"],
                sleeping(delay, behaviour) if delay else behaviour,
            )
        )
    # the sixth call: quota objective keyed by namespace
    quota = facts_result("bench.tool5", "kubernetes", [("quota 50%", "k8s.quota", {})])
    out.append(
        make_tool(
            "bench.tool5",
            ServiceArgs,
            agent(["k8s.quota"], "src5"),
            ["dc-a"],
            sleeping(delay, quota) if delay else quota,
        )
    )
    return out


async def one_turn(gate: PolicyGate) -> tuple[float, int]:
    question = "почему service-a в dc-a не стартует?"
    inv = [InventoryItem(env="dc-a", namespace="payments", name="service-a", kind="deployment")]
    started = time.perf_counter()
    context = build_context(question, envs=["dc-a"], inventory=inv, now=NOW, tz=TZ)
    turn = Turn(question=question, user="bench", now=NOW)
    result = await investigate(turn, context, gate, InvestigationSettings(timezone=TZ))
    render_markdown(result.answer)
    return time.perf_counter() - started, len(result.records)


async def main(turns: int, as_json: bool) -> None:
    fast = PolicyGate(ToolSet(tools(0)))
    await one_turn(fast)  # warm-up (imports, regex compilation)
    overhead = [(await one_turn(fast))[0] for _ in range(turns)]
    slow = PolicyGate(ToolSet(tools(0.2)))
    walls = []
    calls = 0
    for _ in range(5):
        wall, calls = await one_turn(slow)
        walls.append(wall)
    med = statistics.median(overhead) * 1000
    p95 = sorted(overhead)[int(len(overhead) * 0.95) - 1] * 1000
    wall = statistics.median(walls)
    if as_json:
        print(
            json.dumps(
                {
                    "benchmark": "turn_overhead",
                    "overhead_median_ms": round(med, 2),
                    "overhead_p95_ms": round(p95, 2),
                    "six_calls_ratio": round(wall / 0.2, 2),
                }
            )
        )
        return
    print(
        f"turn overhead (instant tools, {turns} turns): median {med:.1f} ms, p95 {p95:.1f} ms"
        f" — goal < 20 ms"
    )
    print(
        f"six 200 ms calls ({calls} calls/turn, 5 turns): median wall {wall * 1000:.0f} ms = "
        f"{wall / 0.2:.2f}x the slowest call — goal <= 1.25x"
    )


if __name__ == "__main__":
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    asyncio.run(main(options.turns, options.json))
