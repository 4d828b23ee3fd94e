"""Questions asked one after another in one thread on the built-in demo world, through
the real conversation path (simulated sources over HTTP)."""

from __future__ import annotations

from evals.postcheck import ask_demo
from planner.shapes.answer import Answer


def ask_in_one_thread(*questions: str) -> list[Answer]:
    return [answer for _, answer in ask_demo([list(questions)])]
