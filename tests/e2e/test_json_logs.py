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
        from planner.shapes.turn import Turn
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


def test_tracebacks_are_fields_and_secrets_are_cut_in_json_lines() -> None:
    script = textwrap.dedent(
        """
        import logging, structlog
        from bot.cli import _configure_logging

        _configure_logging(False, "json")
        try:
            raise RuntimeError("boom token=glpat-abcdefghijklmnopqrst")
        except RuntimeError:
            structlog.get_logger("ours").exception("tool.internal_error", tool="x")
            sdk = logging.getLogger("somesdk")
            sdk.error("retry of %s failed", "https://u:hunter2@es:9200", exc_info=True)
        logging.getLogger("somesdk").warning({"Authorization": "Bearer abcdefghijklmnopqrstuvwx"})
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    ours, sdk, as_dict = (json.loads(line) for line in done.stderr.splitlines() if line.strip())
    for line in (ours, sdk):
        assert "RuntimeError" in line["exception"] and "Traceback" in line["exception"]
    assert ours["event"] == "tool.internal_error" and ours["tool"] == "x"
    assert "retry of" in sdk["event"]
    assert "glpat-abcdefghijklmnopqrst" not in done.stderr and "hunter2" not in done.stderr
    assert "abcdefghijklmnopqrstuvwx" not in done.stderr and as_dict["level"] == "warning"
