"""Questions asked one after another in one thread on the built-in demo world, through
the real conversation path (simulated sources over HTTP)."""

from __future__ import annotations

import asyncio

from evals.session import WorldSession
from evals.worldfile import read_world_file
from planner.shapes.answer import Answer
from planner.shapes.turn import Turn


def ask_in_one_thread(*questions: str) -> list[Answer]:
    wf = read_world_file(None)
    with WorldSession(wf.world, now=wf.now, timezone=wf.timezone) as session:
        conversation = session.conversation
        assert conversation is not None

        async def ask() -> list[Answer]:
            out = []
            try:
                for question in questions:
                    turn = Turn(question=question, user="alice", now=session.clock())
                    out.append((await conversation.answer(turn)).answer)
            finally:
                await conversation.aclose()
            return out

        return asyncio.run(ask())
