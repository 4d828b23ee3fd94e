"""The Mattermost websocket: authenticate, read events, reconnect with backoff.

Uses the `websockets` client that `mattermostdriver` itself uses, but not the driver's
`Websocket` loop: that one awaits the handler inline (a long investigation would stall
the socket), retries at a fixed delay and leaks the old connection. Here the handler must
return quickly (the listener spawns a task per post), the delay grows from `min_s` to
`max_s` with jitter, and a clean close or a server restart both lead to a reconnect.
`on_connect(reconnected)` lets the listener catch up on posts missed while it was away.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

log = structlog.get_logger(__name__)

EventHandler = Callable[[dict[str, Any]], Awaitable[None]]
ConnectHandler = Callable[[bool], Awaitable[None]]


@dataclass(frozen=True)
class Backoff:
    min_s: float = 0.5
    max_s: float = 30.0
    factor: float = 2.0
    jitter: float = 0.2

    def delay(self, attempt: int, rng: random.Random | None = None) -> float:
        base = min(self.max_s, self.min_s * self.factor ** max(attempt, 0))
        spread = base * self.jitter
        return max(0.0, base + (rng or random).uniform(-spread, spread))


class SocketAuthError(Exception):
    """The server refused the token on the websocket."""


class EventStream:
    def __init__(
        self,
        url: str,
        token: str,
        *,
        on_event: EventHandler,
        on_connect: ConnectHandler | None = None,
        backoff: Backoff | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        ping_interval_s: float = 20.0,
    ) -> None:
        self._url = url
        self._token = token
        self._on_event = on_event
        self._on_connect = on_connect
        self._backoff = backoff or Backoff()
        self._sleep = sleep
        self._ping = ping_interval_s
        self.connected = asyncio.Event()
        self.connections = 0
        self.last_error: str | None = None  # why it is not connected now (for /readyz)

    async def run(self) -> None:
        """Forever (until cancelled): connect, read, and on any failure wait and retry."""
        attempt = 0
        while True:
            try:
                async with connect(
                    self._url,
                    additional_headers={"Authorization": f"Bearer {self._token}"},
                    open_timeout=10,
                    ping_interval=self._ping,
                    ping_timeout=self._ping,
                    close_timeout=2,
                    max_size=8 * 1024 * 1024,
                ) as ws:
                    await self._authenticate(ws)
                    self.connections += 1
                    attempt = 0
                    self.connected.set()
                    self.last_error = None
                    log.info("mattermost.ws_connected", connections=self.connections)
                    if self._on_connect is not None:
                        await self._on_connect(self.connections > 1)
                    async for raw in ws:
                        event = _parse(raw)
                        if event is not None:
                            await self._dispatch(event)
                    log.warning("mattermost.ws_closed", code=ws.close_code)
                    self.last_error = f"websocket closed (code {ws.close_code})"
            except asyncio.CancelledError:
                raise
            except SocketAuthError as exc:
                log.error("mattermost.ws_auth_failed", error=str(exc))
                self.last_error = f"websocket authentication failed: {exc}"[:300]
            except (OSError, TimeoutError, WebSocketException) as exc:
                log.warning("mattermost.ws_failed", error=type(exc).__name__, detail=str(exc)[:200])
                self.last_error = f"websocket: {type(exc).__name__}: {exc}"[:300]
            self.connected.clear()
            delay = self._backoff.delay(attempt)
            attempt += 1
            log.info("mattermost.ws_retry", in_s=round(delay, 2), attempt=attempt)
            await self._sleep(delay)

    async def _dispatch(self, event: dict[str, Any]) -> None:
        """A handler error (a malformed event) is logged; it never drops the connection."""
        try:
            await self._on_event(event)
        except Exception as exc:
            log.error(
                "mattermost.event_failed", kind=str(event.get("event"))[:40], error=repr(exc)[:300]
            )

    async def _authenticate(self, ws: Any) -> None:
        await authenticate(ws, self._token, self._dispatch)


async def authenticate(ws: Any, token: str, on_event: EventHandler) -> None:
    """Send the token's challenge and wait for `hello`; events that come first go to
    `on_event`. Raises SocketAuthError when the token is refused."""
    challenge = {"seq": 1, "action": "authentication_challenge", "data": {"token": token}}
    await ws.send(json.dumps(challenge))
    # `hello` is sent once the connection is authenticated (by the header or by the
    # challenge); a FAIL reply to the challenge means the token was refused.
    async with asyncio.timeout(10):
        while True:
            event = _parse(await ws.recv())
            if event is None:
                continue
            if event.get("event") == "hello":
                return
            if event.get("seq_reply") == 1 and event.get("status") not in (None, "OK"):
                raise SocketAuthError(str(event.get("error") or event)[:200])
            if event.get("event"):
                await on_event(event)


async def handshake(url: str, token: str, timeout_s: float = 10.0) -> None:
    """Open the websocket, authenticate as the listener does and close: what `doctor`
    checks. Raises SocketAuthError when the token is refused, OSError, TimeoutError or
    WebSocketException when the socket cannot be opened."""

    async def ignore(_event: dict[str, Any]) -> None:
        return None

    async with (
        asyncio.timeout(timeout_s),
        connect(
            url,
            additional_headers={"Authorization": f"Bearer {token}"},
            open_timeout=timeout_s,
            close_timeout=2,
        ) as ws,
    ):
        await authenticate(ws, token, ignore)


def _parse(raw: str | bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        # RecursionError: a frame nested thousands deep, which no real event is
        log.warning("mattermost.ws_bad_frame", size=len(raw))
        return None
    return data if isinstance(data, dict) else None
