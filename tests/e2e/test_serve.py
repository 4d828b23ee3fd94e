"""`infrabot serve` from configuration: the web chat and the Mattermost listener together."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from bot.config_errors import ConfigFileError
from bot.serve import serve
from bot.settings import MattermostSettings, MemorySettings, Secrets, WebSettings
from evals.session import WorldSession
from evals.simulators.server import BackgroundServer
from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world
from tests.e2e.mattermost_sim import MattermostSim
from tests.e2e.test_mattermost import RPS_A, answers, eventually


@pytest.fixture
def session() -> Iterator[WorldSession]:
    with WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW) as s:
        yield s


def _serving(
    session: WorldSession, mattermost_url: str, tmp_path: Path, channels: list[str] | None = None
) -> asyncio.Task[None]:
    """`infrabot serve` on the session's world, against the Mattermost at the URL, with
    the web chat on a free port."""
    assert session.config is not None
    config = session.config.model_copy(
        update={
            "mattermost": MattermostSettings(
                url=mattermost_url, team="ops", channels=channels or []
            ),
            "web": WebSettings(host="127.0.0.1", port=0),
            "memory": MemorySettings(knowledge_path=tmp_path / "kb.jsonl"),
        }
    )
    return asyncio.create_task(
        serve(config, Secrets(mm_token=SecretStr("token-infrabot")), clock=session.clock)
    )


async def test_serve_runs_the_web_chat_and_answers_in_mattermost(
    session: WorldSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim = MattermostSim(team_name="ops")
    sim.add_user("infrabot", is_bot=True)
    sim.add_user("alice")
    incidents = sim.add_channel("incidents", ["infrabot", "alice"])
    assert session.config is not None
    with BackgroundServer(sim.app) as server:
        task = _serving(session, server.base_url, tmp_path, channels=["incidents"])
        try:
            url = await eventually(lambda: re.search(r"web chat on (\S+)", capsys.readouterr().out))
            async with httpx.AsyncClient() as http:
                health = await http.get(url.group(1) + "healthz")
            assert health.json() == {"status": "ok"}
            await eventually(lambda: sim.open_sockets() == 1)
            question = sim.user_post("alice", incidents, RPS_A)
            [answer] = await eventually(lambda: answers(sim, question["id"]))
            assert "412" in answer["message"]
            async with httpx.AsyncClient() as http:
                ready = await http.get(url.group(1) + "readyz")
                metrics = await http.get(url.group(1) + "metrics")
            # ready: connected to Mattermost, each source's last read reported
            assert ready.status_code == 200 and ready.json()["mattermost"] == "connected"
            sources = {(s["source"], s["env"]): s["ok"] for s in ready.json()["sources"]}
            assert sources[("victoriametrics", "dc-a")] is True
            text = metrics.text
            assert metrics.headers["content-type"].startswith("text/plain")
            assert _sample(text, "infrabot_questions_total") == 1
            assert _sample(text, 'infrabot_answers_total{final="true"}') == 1
            assert _sample(text, 'infrabot_tool_calls_total{source="victoriametrics",status="ok"}')
            assert _sample(text, 'infrabot_tool_call_seconds_count{source="victoriametrics"}')
            assert _sample(text, "infrabot_turn_seconds_count") == 1
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _sample(exposition: str, name: str) -> float:
    """The value of one sample in Prometheus text format (0 when it is not there)."""
    for line in exposition.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def test_readyz_says_not_ready_while_mattermost_refuses_the_bot(
    session: WorldSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The process is up (healthz), but it cannot answer anyone: not ready, and why."""
    sim = MattermostSim(team_name="ops")
    sim.add_user("infrabot", is_bot=True)
    sim.refuse_sockets = True
    assert session.config is not None
    with BackgroundServer(sim.app) as server:
        task = _serving(session, server.base_url, tmp_path)
        try:
            url = await eventually(lambda: re.search(r"web chat on (\S+)", capsys.readouterr().out))
            async with httpx.AsyncClient() as http:
                health = await http.get(url.group(1) + "healthz")
                ready = await http.get(url.group(1) + "readyz")
            assert health.status_code == 200
            assert ready.status_code == 503 and ready.json()["ready"] is False
            assert ready.json()["mattermost"].startswith("connecting")
            # once the websocket has been refused, it says so
            async with httpx.AsyncClient() as http:

                async def why() -> str:
                    body = (await http.get(url.group(1) + "readyz")).json()
                    return str(body["mattermost"])

                for _ in range(100):
                    if "websocket" in (reason := await why()):
                        break
                    await asyncio.sleep(0.05)
            assert "websocket" in reason and "403" in reason, reason
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def test_mattermost_without_a_token_stops_with_the_reason(session: WorldSession) -> None:
    assert session.config is not None
    config = session.config.model_copy(
        update={
            "mattermost": MattermostSettings(url="http://127.0.0.1:9", team="ops"),
        }
    )
    with pytest.raises(ConfigFileError, match="INFRABOT_MM_TOKEN"):
        await serve(config, Secrets(mm_token=None))


async def test_metrics_on_a_port_of_their_own_and_a_chat_that_names_nobody_answers_nothing(
    session: WorldSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`web.metrics_port`: the scraper's port serves /metrics, the chat's does not (so the
    chat's port can be left open to the proxy alone). Without `web.identity` the chat
    answers no question, whatever name the body claims."""
    assert session.config is not None
    config = session.config.model_copy(
        update={
            "web": WebSettings(host="127.0.0.1", port=0, metrics_port=0),
            "memory": MemorySettings(knowledge_path=tmp_path / "kb.jsonl"),
        }
    )
    task = asyncio.create_task(serve(config, Secrets(), clock=session.clock))
    try:
        out = ""

        def started() -> re.Match[str] | None:
            nonlocal out
            out += capsys.readouterr().out
            return re.search(r"web chat on (\S+)\n.*/metrics on (\S+)", out, re.S)

        found = await eventually(started)
        chat, scrape = found.group(1), found.group(2)
        async with httpx.AsyncClient() as http:
            scraped = await http.get(scrape)
            on_chat = await http.get(chat + "metrics")
            health = await http.get(chat + "healthz")
            asked = await http.post(
                chat + "api/ask",
                json={"thread_id": "s1", "question": "what is the RPS?", "user": "admin"},
            )
        assert scraped.status_code == 200 and "infrabot_questions_total" in scraped.text
        assert on_chat.status_code == 404 and health.status_code == 200
        assert asked.status_code == 401 and "web.identity" in asked.json()["error"]
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
