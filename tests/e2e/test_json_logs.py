"""`infrabot serve` logs one JSON object a line, and every line of a turn carries the
same `request_id` (an operator greps one turn out of many concurrent ones)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap


def test_each_turn_logs_json_lines_with_one_request_id() -> None:
    script = textwrap.dedent(
        """
        import asyncio
        from bot.cli import _configure_logging
        from evals.session import WorldSession
        from planner.turn import Turn
        from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world

        _configure_logging(False, "json")
        with WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW) as s:
            async def go():
                for q in ("what is the RPS of catalog-api in dc-a?", "and in dc-b?"):
                    await s.conversation.answer(Turn(question=q, user="alice", now=s.clock()))
                await s.conversation.aclose()
            asyncio.run(go())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.strip()]
    turns = [line for line in lines if line.get("event") in ("turn.start", "turn.done")]
    assert [t["event"] for t in turns] == ["turn.start", "turn.done"] * 2
    first, second = turns[0]["request_id"], turns[2]["request_id"]
    assert first != second and turns[1]["request_id"] == first
    # the reads of a turn carry its id too
    reads = [line for line in lines if line.get("event") == "tool.call"]
    assert reads and {r["request_id"] for r in reads} == {first, second}
    assert all("level" in line and "timestamp" in line for line in lines)
