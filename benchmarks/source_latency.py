"""Benchmark: a turn when every source is 200 ms away, as a ratio of the slowest call.

The demo world's simulators answer every HTTP request 200 ms late (Kubernetes, metrics
and logs of every environment, and GitLab). The first turn lists every environment;
the follow-ups (new threads, same process) reuse those lists, as a running bot does. The
ratio is the turn's wall time over its slowest tool call: 1.0 would mean everything ran
in the shadow of that one call. A question whose later reads need what earlier reads
found (the pods behind the failing upstream addresses, then their nodes) cannot go below
the sum of those dependent steps.

    .venv/bin/python benchmarks/source_latency.py [--latency-ms 200] [--turns 5] [--json]
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from _common import ROOT, median, parser, quiet_logs, report, timed_turns

sys.path.insert(0, str(ROOT))

from evals.parsecache import ParseCache, default_cache_dir
from evals.session import WorldSession
from evals.worldfile import read_world_file


async def _turns(session: WorldSession, count: int) -> list[dict[str, Any]]:
    out = []
    for wall, outcome in await timed_turns(session, count):
        calls = outcome.answer.tool_calls
        out.append(
            {
                "wall_ms": wall * 1000,
                "slowest_ms": max(c.duration_ms for c in calls),
                "calls": len(calls),
                "facts": len(outcome.answer.facts),
            }
        )
    return out


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--latency-ms", type=float, default=200.0)
    p.add_argument("--turns", type=int, default=5)
    args = p.parse_args()
    quiet_logs()
    wf = read_world_file(None, cache=ParseCache(default_cache_dir()))
    latency = args.latency_ms / 1000
    with WorldSession(wf.world, timezone=wf.timezone, now=wf.now, latency_s=latency) as session:
        turns = asyncio.run(_turns(session, args.turns))
    first, rest = turns[0], turns[1:] or turns
    result = {
        "benchmark": "source_latency",
        "latency_ms": args.latency_ms,
        "first_turn_ms": round(first["wall_ms"]),
        "first_ratio": round(first["wall_ms"] / max(first["slowest_ms"], 1), 2),
        "turn_ms": round(median([t["wall_ms"] for t in rest])),
        "slowest_call_ms": round(median([t["slowest_ms"] for t in rest])),
        "ratio": round(median([t["wall_ms"] / max(t["slowest_ms"], 1) for t in rest]), 2),
        "calls": first["calls"],
        "facts": first["facts"],
    }
    report(
        result,
        (
            f"{args.latency_ms:.0f} ms per request on every source: first turn "
            f"{result['first_turn_ms']} ms ({result['first_ratio']}x its slowest call); "
            f"then median {result['turn_ms']} ms = {result['ratio']}x the slowest call "
            f"({result['slowest_call_ms']} ms); {result['calls']} tool calls"
        ),
        args.json,
    )


if __name__ == "__main__":
    main()
