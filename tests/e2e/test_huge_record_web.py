"""A 10 MB record read while the web chat serves: the turn ends within its deadline, the
process keeps answering its health check all the while (the work stays off the event
loop), and the reply the browser gets stays under its size limit."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
import yaml

from bot.cli import demo_app
from bot.sockets import bind, url_of
from bot.web import MAX_REPLY_CHARS, _within_limit
from evals.session import WorldSession
from evals.worldfile import read_world_file

BIG = "ERROR payment failed: " + "x" * 10_000_000
WORLD = {
    "environments": {"dc-a": ["kubernetes", "logs"]},
    "kubernetes": {"dc-a": [{
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "pay-api", "namespace": "pay"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "pay-api"}},
                 "template": {"metadata": {"labels": {"app": "pay-api"}},
                              "spec": {"containers": [{"name": "app", "image": "r/p:1"}]}}},
        "status": {"replicas": 1, "readyReplicas": 1},
    }]},
    "logs": {"dc-a": {"app-pay-2026.07.20": [{
        "@timestamp": "2026-07-20T11:30:00Z", "service": "pay-api", "level": "error",
        "kubernetes": {"namespace": "pay", "pod": {"name": "pay-api-6d8b9c7f5-x2k9p"}},
        "message": BIG,
    }]}},
}  # fmt: skip


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[tuple[str, float]]:
    path = tmp_path / "world.yaml"
    path.write_text(
        yaml.safe_dump({"world": WORLD, "now": "2026-07-20T14:40:00+03:00"}, width=10**9)
    )
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
    waits: list[float] = []
    done = threading.Event()

    def poll() -> None:
        with httpx.Client(timeout=30) as client:
            while not done.is_set():
                start = time.perf_counter()
                assert client.get(base + "healthz").status_code == 200
                waits.append(time.perf_counter() - start)
                time.sleep(0.02)

    poller = threading.Thread(target=poll)
    poller.start()
    started = time.perf_counter()
    try:
        reply = httpx.post(
            base + "api/ask",
            json={"thread_id": "big1", "question": "ошибки pay-api в dc-a за последний час"},
            timeout=deadline + 60,
        )
    finally:
        done.set()
        poller.join()
    took = time.perf_counter() - started
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
