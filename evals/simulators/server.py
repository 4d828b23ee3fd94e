"""Run the simulators' ASGI app with uvicorn in a background thread on 127.0.0.1.

A thread (not the caller's event loop) because the official Kubernetes and GitLab clients
are synchronous: a connector calls them from a worker thread, and the simulator must keep
answering meanwhile.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable

import uvicorn
from starlette.types import ASGIApp

from bot.web import bind


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
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=1
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name="infrabot-sim", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}"

    def _serve(self) -> None:
        asyncio.run(self._run())

    async def _run(self) -> None:
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
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._server.force_exit = True
        self._thread.join(timeout=5)
        self._sock.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
