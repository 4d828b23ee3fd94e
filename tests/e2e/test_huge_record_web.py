"""A 10 MB record read while the web chat serves: the turn ends within its deadline, the
process keeps answering its health check all the while (the work stays off the event
loop), and the reply the browser gets stays under its size limit."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
import yaml

from bot.cli import demo_app
from bot.sockets import bind, url_of
from bot.web import MAX_REPLY_CHARS, _within_limit
from evals.session import WorldSession
from evals.worldfile import read_world_file
from tests.huge_world import NOW, WORLD, ask_while_polling


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[tuple[str, float]]:
    path = tmp_path / "world.yaml"
    path.write_text(yaml.safe_dump({"world": WORLD, "now": NOW}, width=10**9))
    wf = read_world_file(path)
    with WorldSession(wf.world, now=wf.now) as session:
        assert session.config is not None
        server = uvicorn.Server(
            uvicorn.Config(demo_app(session, wf), log_level="warning", lifespan="off")
        )
        sock = bind("127.0.0.1", 0)
        thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])))
        thread.start()
        try:
            while not server.started:
                time.sleep(0.02)
            yield url_of(sock), session.config.limits.turn_deadline_s
        finally:
            server.should_exit = True
            thread.join(10)
            sock.close()


def test_a_ten_megabyte_line_leaves_the_chat_responsive_and_the_reply_small(
    chat: tuple[str, float],
) -> None:
    base, deadline = chat
    reply, took, waits = ask_while_polling(base, "big1", deadline + 60)
    assert reply.status_code == 200 and took < deadline
    assert len(reply.text) < MAX_REPLY_CHARS
    body = reply.json()
    assert "payment failed" in body["markdown"] and "characters cut" in body["markdown"]
    # answered all along: a blocked loop showed as waits of seconds (1.4 s before)
    assert len(waits) >= 3 and max(waits) < 0.5, waits


def test_a_reply_over_the_limit_sheds_its_copies_before_its_words() -> None:
    fact = {"text": "y" * 5_000}
    payload = {
        "thread_id": "t",
        "kind": "answer",
        "answer": {"facts": [fact] * 150},
        "presentation": {"evidence": [fact] * 150},
        "report": {"evidence": [fact] * 150},
        "markdown": "**conclusion** " + "z" * 100_000,
    }
    fitted = _within_limit(payload)
    assert len(str(fitted)) < MAX_REPLY_CHARS
    assert fitted["markdown"].startswith("**conclusion**") and "presentation" in fitted
    assert fitted["trimmed"] == ["report", "answer"]
