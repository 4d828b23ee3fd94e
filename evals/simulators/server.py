"""Run the simulators' ASGI app with uvicorn in a background thread on 127.0.0.1.

A thread (not the caller's event loop) because the official Kubernetes and GitLab clients
are synchronous: a connector calls them from a worker thread, and the simulator must keep
answering meanwhile.

Stopping is immediate. uvicorn looks at `should_exit` every 100 ms and then waits another
100 ms for connections to drain: 0.2 s for every stop, which an evaluation suite pays
once per scenario run. A simulator has nothing to drain, so `stop` wakes the server at
once and cancels whatever is still in flight (a stalled `timeout` fault, say).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Awaitable, Callable

import uvicorn
from starlette.types import ASGIApp

from bot.sockets import bind


class _PromptServer(uvicorn.Server):
    """uvicorn's server with a stop that wakes it at once and drops what is in flight."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.wake = asyncio.Event()

    async def main_loop(self) -> None:
        await self.on_tick(0)  # the Date header, as uvicorn sets it
        await self.wake.wait()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        for task in list(self.server_state.tasks):
            task.cancel()


class BackgroundServer:
    def __init__(
        self,
        app: ASGIApp,
        host: str = "127.0.0.1",
        *,
        on_stop: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._app = app
        self._host = host
        self._on_stop = on_stop  # runs on the server's own loop after it stops serving
        self._sock = bind(host, 0)
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        self._server = _PromptServer(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._serve, name="infrabot-sim", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}"

    def _serve(self) -> None:
        asyncio.run(self._run())

    async def _run(self) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            await self._server.serve(sockets=[self._sock])
        finally:
            if self._on_stop is not None:
                await self._on_stop()

    def start(self, timeout: float = 5.0) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("simulator server did not start")
            time.sleep(0.002)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._server.force_exit = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            # RuntimeError: the loop closed in between, so the server is gone already
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._server.wake.set)
        self._thread.join(timeout=5)
        self._sock.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
