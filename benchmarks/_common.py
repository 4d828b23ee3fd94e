"""What the benchmarks share: the repository root, the demo question, statistics, and how
to run `infrabot` from another checkout (`--tree`, for before/after ratios)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
QUESTION = "почему service-a в dc-a отдавал 502 в 14:11?"


def infrabot(tree: Path | None = None) -> tuple[list[str], dict[str, str], Path]:
    """The command line, environment and working folder that run `infrabot` from `tree`
    (another checkout, e.g. a `git worktree` of an older commit) with this virtualenv."""
    env = dict(os.environ)
    if tree is None:
        return [PYTHON, "-m", "bot.cli"], env, ROOT
    env["PYTHONPATH"] = str(tree)  # ahead of the editable install of this checkout
    return [PYTHON, "-m", "bot.cli"], env, tree


def parser(doc: str, *, tree: bool = False) -> argparse.ArgumentParser:
    """The options every benchmark has: `--json`, and `--tree` where it runs `infrabot`."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--json", action="store_true", help="print one JSON line")
    if tree:
        p.add_argument("--tree", type=Path, help="run the infrabot of another checkout")
    return p


def report(result: dict[str, Any], text: str, as_json: bool) -> None:
    """The result as one JSON line (for benchmarks/run.py) or as a sentence."""
    print(json.dumps(result) if as_json else text)


def quiet_logs() -> None:
    """Only warnings: the bot's info events would drown the numbers."""
    import structlog

    logging.basicConfig(level=logging.WARNING)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


async def timed_turns(
    session: Any, count: int, question: str = QUESTION
) -> list[tuple[float, Any]]:
    """Ask `question` `count` times on a running WorldSession, each on a new thread root
    (no working memory carried over); (wall seconds, TurnOutcome) each. Closes the
    session's keep-alive clients on this loop at the end."""
    from planner.shapes.turn import Turn

    out: list[tuple[float, Any]] = []
    try:
        for i in range(count):
            turn = Turn(
                question=question,
                user="bench",
                role="engineer",
                now=session.clock(),
                root_id=f"bench-{i}",
            )
            began = time.perf_counter()
            outcome = await session.conversation.answer(turn)
            out.append((time.perf_counter() - began, outcome))
    finally:
        await session.conversation.aclose()
    return out


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p95(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
