"""What model mode costs a turn, with and without catalogue selection.

Runs scenarios in model mode against the scripted OpenAI-compatible server (the
`evidence_echo` policy plays every role) twice: as built (at most 8 trimmed schemas per
request, planner.model.catalogue) and as it was before selection (every admitted tool's full
schema on every request). Prints, for each: the median prompt tokens per turn, the median
model calls per turn, and the median prompt tokens and tool-schema tokens of a planning
request's first step. Token counts are the server's estimate (about four characters a
token, evals.simulators.model_server.estimate_tokens), the same for both sides, so the
ratio is what to read.

    .venv/bin/python benchmarks/model_prompt.py [SCENARIO ...]   # default: the built-in suite
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evals.runner import run_suite  # noqa: E402
from evals.scenario import builtin_suite, load_suite  # noqa: E402
from evals.simulators.model_policy import evidence_echo  # noqa: E402
from evals.simulators.model_server import ModelServer, estimate_tokens  # noqa: E402


@contextlib.contextmanager
def before_selection() -> Iterator[None]:
    """Every admitted contract, untrimmed, on every request: the catalogue as it was."""
    from planner.model import catalogue
    from planner.model import client as model

    def everything(contracts: Any, **_kw: Any) -> catalogue.Selection:
        ordered = tuple(contracts)
        return catalogue.Selection(prefiltered=ordered, chosen=ordered)

    async def no_rerank(*_args: Any) -> None:
        return None  # there was no rerank stage either

    with (
        mock.patch.object(catalogue, "select", everything),
        mock.patch("planner.model.freeplan._rerank", no_rerank),
        mock.patch.object(catalogue, "rerank", lambda sel, _names, _limit=8: sel.chosen),
        mock.patch("bot.wiring.trimmed_spec", model.tool_spec),
    ):
        yield


def measure(paths: list[Path], label: str) -> dict[str, Any]:
    scenarios = load_suite(paths).scenarios
    with ModelServer(evidence_echo(), model="echo") as server:
        extra = {
            "models": {"planner": {"base_url": server.url, "model": "echo", "api_key_env": None}}
        }
        results = asyncio.run(run_suite(scenarios, 1, None, extra))
        bodies = server.requests
    uses = [r["model"] for s in results for r in s["runs"]]
    per_turn = [n for u in uses for n in u["prompt_tokens_per_turn"]]
    calls = [n for u in uses for n in u["calls_per_turn"]]
    # a turn that planned with the model: more than the one prose call
    pairs = [
        (n, c)
        for u in uses
        for n, c in zip(u["prompt_tokens_per_turn"], u["calls_per_turn"], strict=True)
        if c > 1
    ]
    planning = [n for n, _ in pairs]
    planning_calls = [c for _, c in pairs]
    first = [
        b for b in bodies if b.get("tools") and not any(m["role"] == "tool" for m in b["messages"])
    ]
    first_prompt = [
        estimate_tokens(json.dumps(b["messages"]) + json.dumps(b["tools"])) for b in first
    ]
    first_tools = [estimate_tokens(json.dumps(b["tools"])) for b in first]
    return {
        "label": label,
        "scenarios": len(results),
        "passed": sum(1 for s in results if s["passed"]),
        "turns": len(per_turn),
        "median_prompt_tokens_per_turn": statistics.median(per_turn) if per_turn else 0,
        "median_calls_per_turn": statistics.median(calls) if calls else 0,
        "planning_turns": len(planning),
        "median_prompt_tokens_per_planning_turn": statistics.median(planning) if planning else 0,
        "median_calls_per_planning_turn": statistics.median(planning_calls) if pairs else 0,
        "planning_requests": len(first),
        "median_first_step_prompt_tokens": statistics.median(first_prompt) if first else 0,
        "median_first_step_schema_tokens": statistics.median(first_tools) if first else 0,
        "max_schemas_in_a_request": max(
            (len(b["tools"]) for b in bodies if b.get("tools")), default=0
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    args = parser.parse_args()
    from bot.cli import _configure_logging

    _configure_logging(verbose=False)
    paths = args.paths or [builtin_suite()]
    after = measure(paths, "after: catalogue selection")
    with before_selection():
        before = measure(paths, "before: every schema")
    for row in (before, after):
        print(json.dumps(row))
    if after["median_first_step_prompt_tokens"]:
        ratio = before["median_first_step_prompt_tokens"] / after["median_first_step_prompt_tokens"]
        print(f"first planning step: {ratio:.1f}x fewer prompt tokens with selection")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
