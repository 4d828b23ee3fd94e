"""Fast turns, as a user sees them: inventory read once for a thread of quick follow-ups
(and honestly dated), read again when old or after its source failed; kept-alive
connections; our servers answer without the Nagle delay; simulators stop at once."""

from __future__ import annotations

import asyncio
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from bot.sockets import bind
from connectors import victoriametrics
from evals.session import WorldSession
from evals.simulators.server import BackgroundServer
from evals.world import Fault
from planner.shapes.turn import Turn
from policy.scope import Scope
from policy.toolset import CallContext
from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world

QUESTION = "сколько запросов в секунду у catalog-api?"  # no env named: every env is listed


def _turn(question: str, minutes_later: float = 0, root: str = "r1") -> Turn:
    return Turn(
        question=question,
        user="alice",
        role="engineer",
        channel="c",
        root_id=root,
        now=NOW + timedelta(minutes=minutes_later),
    )


def _inventory_reads(session: WorldSession, since: int) -> list[str]:
    return [
        r.path
        for r in session.simulators.query_log.records()[since:]
        if r.source == "kubernetes" and r.path.endswith("/namespaces")
    ]


@pytest.fixture
def session() -> Iterator[WorldSession]:
    with WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW) as s:
        yield s


async def _answer(session: WorldSession, turn: Turn) -> Any:
    assert session.conversation is not None
    session.set_clock(turn.now)
    return await session.conversation.answer(turn)


async def test_a_quick_follow_up_reuses_the_inventory_and_says_when_it_was_read(
    session: WorldSession,
) -> None:
    assert session.conversation is not None
    first = await _answer(session, _turn(QUESTION))
    seen = len(session.simulators.query_log.records())
    second = await _answer(session, _turn("а в dc-b?", minutes_later=0.5))
    await session.conversation.aclose()

    assert _inventory_reads(session, 0)[:2], "the first turn lists each environment"
    assert _inventory_reads(session, seen) == [], "the follow-up lists nothing again"
    kept = [c for c in second.answer.tool_calls if c.purpose == "inventory"]
    assert kept and all(c.cached for c in kept)
    assert {c.observed_at for c in kept} == {NOW.isoformat()}
    # the follow-up still answers from its own live reads, for the environment it names
    assert second.answer.scope.env == "dc-b"
    assert second.answer.facts and all(f.scope.get("env") == "dc-b" for f in second.answer.facts)
    fresh = [c for c in first.answer.tool_calls if c.purpose == "inventory"]
    assert fresh and not any(c.cached for c in fresh)


async def test_a_question_that_names_its_env_lists_only_that_env(session: WorldSession) -> None:
    """The names of an environment the question does not ask about are not needed."""
    answer = await _answer(session, _turn("сколько запросов в секунду у catalog-api в dc-a?"))
    assert session.conversation is not None
    await session.conversation.aclose()
    listed = [c.arguments for c in answer.answer.tool_calls if c.purpose == "inventory"]
    assert listed == [{"env": "dc-a"}]
    assert len(_inventory_reads(session, 0)) == 1
    assert answer.answer.facts and all(f.scope.get("env") == "dc-a" for f in answer.answer.facts)


async def test_a_name_the_kept_inventory_lacks_is_listed_afresh(session: WorldSession) -> None:
    """Something deployed since the names were read must not be answered as unknown."""
    assert session.conversation is not None
    await _answer(session, _turn(QUESTION))
    seen = len(session.simulators.query_log.records())
    await _answer(session, _turn("а что с catalog-worker в dc-a?", 0.5, root="r2"))
    await session.conversation.aclose()
    assert len(_inventory_reads(session, seen)) == 1  # dc-a, the env it names


async def test_an_old_inventory_is_read_again(session: WorldSession) -> None:
    assert session.conversation is not None
    await _answer(session, _turn(QUESTION))
    seen = len(session.simulators.query_log.records())
    later = await _answer(session, _turn(QUESTION, minutes_later=5, root="r2"))
    await session.conversation.aclose()

    assert len(_inventory_reads(session, seen)) == 2  # dc-a and dc-b, listed afresh
    assert not any(c.cached for c in later.answer.tool_calls)


async def test_a_source_that_failed_is_listed_afresh_next_turn() -> None:
    # Kubernetes in dc-a answers the inventory, then fails every pod read of the turn
    fault = Fault(source="kubernetes", env="dc-a", kind="http_error", status=503, resource="pods")
    world = catalog_world().model_copy(update={"faults": [fault]})
    with WorldSession(world, timezone=TIMEZONE, now=NOW) as s:
        assert s.conversation is not None
        first = await _answer(s, _turn("почему падает catalog-api в dc-a?"))
        failed = [c for c in first.answer.tool_calls if c.status == "error"]
        seen = len(s.simulators.query_log.records())
        await _answer(s, _turn("почему падает catalog-api в dc-a?", 0.5, root="r2"))
        await s.conversation.aclose()
    assert failed, "the scenario needs a failed Kubernetes read in dc-a"
    reads = [r for r in s.simulators.query_log.records()[seen:] if r.source == "kubernetes"]
    assert any(r.env == "dc-a" and r.path.endswith("/namespaces") for r in reads)


def _port_recording_app(ports: list[int]) -> Starlette:
    """A Prometheus query API that records the client port of every request: one port
    per TCP connection the client opened."""

    async def query(request: Request) -> JSONResponse:
        assert request.client is not None
        ports.append(request.client.port)
        return JSONResponse({"status": "success", "data": {"resultType": "vector", "result": []}})

    return Starlette(
        routes=[
            Route("/api/v1/query", query, methods=["GET", "POST"]),
            Route("/api/v1/query_range", query, methods=["GET", "POST"]),
            Route("/api/v1/series", query, methods=["GET", "POST"]),
        ]
    )


def test_clients_of_a_closed_event_loop_are_let_go() -> None:
    ports: list[int] = []
    with BackgroundServer(_port_recording_app(ports)) as server:
        target = victoriametrics.MetricsTarget(env="dc-a", url=server.base_url, timeout_s=2)
        tool = next(
            t for t in victoriametrics.build_tools([target]) if "http_errors" in t.contract.name
        )
        pool = tool.resources[0]
        ctx = CallContext(user="u", role="engineer", scope=Scope(), now=NOW)
        args = tool.contract.args_model.model_validate({"env": "dc-a", "service": "catalog-api"})
        for _ in range(3):  # three processes' worth of loops, none closing the pool
            asyncio.run(tool.run(args, ctx))
        assert len(pool._by_loop) == 1  # only the last loop's, dropped on its next use


async def test_metrics_reads_share_one_kept_alive_connection() -> None:
    ports: list[int] = []
    with BackgroundServer(_port_recording_app(ports)) as server:
        target = victoriametrics.MetricsTarget(env="dc-a", url=server.base_url, timeout_s=2)
        tools = {t.contract.name: t for t in victoriametrics.build_tools([target])}
        tool = tools["metrics.http_errors"]
        ctx = CallContext(user="u", role="engineer", scope=Scope(), now=NOW)
        args = tool.contract.args_model.model_validate({"env": "dc-a", "service": "catalog-api"})
        for _ in range(3):  # three tool calls, one after the other
            await tool.run(args, ctx)
        for resource in {r for t in tools.values() for r in getattr(t, "resources", ())}:
            await resource.aclose()
    assert len(ports) >= 3
    assert len(set(ports)) == 1, f"one connection for every read, saw {len(set(ports))}"


def _median_request_ms(url: str, count: int = 15) -> float:
    with httpx.Client(timeout=5, verify=False) as client:
        client.get(url)  # connect first: only the keep-alive round trips are timed
        times = []
        for _ in range(count):
            began = time.perf_counter()
            client.get(url)
            times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def test_our_listening_sockets_disable_nagle() -> None:
    sock = bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP  # what asyncio reads to set TCP_NODELAY
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    finally:
        sock.close()


def test_a_trivial_request_is_answered_without_the_delayed_ack_wait() -> None:
    """Nagle plus the client's delayed ACK hold each keep-alive response ~40 ms."""

    async def ok(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok" * 600)  # headers and body go out as two writes

    app = Starlette(routes=[Route("/", ok)])
    with BackgroundServer(app) as server:
        assert _median_request_ms(server.base_url + "/") < 20


def test_the_web_chat_health_check_is_answered_without_the_delayed_ack_wait(
    session: WorldSession,
) -> None:
    import uvicorn

    from bot.web import build_web_app
    from bot.web_identity import LocalName

    assert session.conversation is not None and session.config is not None
    app = build_web_app(
        conversation=session.conversation,
        identity=LocalName(),
        clock=session.clock,
        desk=None,
        environments=list(session.config.environments),
    )
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])))
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        port = sock.getsockname()[1]
        assert _median_request_ms(f"http://127.0.0.1:{port}/healthz") < 20
    finally:
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()


def test_a_simulator_with_a_stalled_request_stops_at_once() -> None:
    stall = Fault(source="kubernetes", kind="timeout", seconds=30)
    world = catalog_world().model_copy(update={"faults": [stall]})
    with WorldSession(world, timezone=TIMEZONE, now=NOW) as s:
        url = f"{s.simulators.endpoints.envs['dc-a'].kubernetes}/api/v1/namespaces"
        errors: list[BaseException] = []

        def stalled() -> None:
            try:
                httpx.get(url, timeout=10)
            except httpx.HTTPError as exc:
                errors.append(exc)

        caller = threading.Thread(target=stalled)
        caller.start()
        time.sleep(0.2)  # the request is in the simulator, stalling
        began = time.perf_counter()
        s.stop()
        stopped_in = time.perf_counter() - began
        caller.join(timeout=5)
    assert stopped_in < 1.0
    assert not caller.is_alive()


def test_runs_sharing_one_victoriametrics_each_see_only_their_own_series() -> None:
    from evals.runner import SharedMetrics
    from evals.simulators.host import WorldSimulators

    first = catalog_world()
    second = first.model_copy(deep=True)
    for series in second.metrics["dc-a"]:
        series.values = [v * 10 if v is not None else None for v in series.values]
    metric = first.metrics["dc-a"][0].labels["__name__"]
    at = first.metrics["dc-a"][0].samples()[-1][0]
    shared = SharedMetrics()
    try:
        values = []
        for world in (first, second):
            vm, prefix = shared.for_run(world)
            assert vm is not None and prefix
            with WorldSimulators(world, shared_vm=vm, vm_prefix=prefix) as sims:
                url = sims.endpoints.envs["dc-a"].metrics
                body = httpx.get(
                    f"{url}/api/v1/query",
                    params={"query": f"sum({metric})", "time": at.timestamp()},
                ).json()
                values.append(float(body["data"]["result"][0]["value"][1]))
        assert values[1] == pytest.approx(values[0] * 10)
    finally:
        shared.stop()


@pytest.mark.parametrize(
    ("question", "early_exit"),
    [
        ("почему catalog-api в dc-z отдаёт 502? password=hunter2", "scope.env"),
        ("что будет с catalog-api в dc-a сегодня в 23:50? password=hunter2", "scope.time"),
        ("password=hunter2 что происходит?", "scope"),  # no scope at all: asked back
        ("почему catalog-api в dc-a отдаёт 502? password=hunter2", None),  # investigated
    ],
)
async def test_a_secret_in_the_question_leaves_no_trace_in_the_answer(
    session: WorldSession, question: str, early_exit: str | None
) -> None:
    from bot.render import render_markdown, render_plain

    outcome = await _answer(session, _turn(question))
    assert session.conversation is not None
    await session.conversation.aclose()
    answer = outcome.answer
    assert (outcome.investigation is None) == (early_exit is not None)
    if early_exit is not None:
        assert [g.objective for g in answer.gaps] == [early_exit]
    for shown in (answer.model_dump_json(), render_plain(answer), render_markdown(answer)):
        assert "hunter2" not in shown
    assert "password=[REDACTED]" in answer.question
