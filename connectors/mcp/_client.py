"""One MCP server through the official SDK, over streamable HTTP or stdio: its catalogue and
health.

Every read opens a session (initialize, one request, close): a skill server is called a
few times a turn at most, and a session that outlives a restart of the server would fail
the next call for nothing. Over stdio that means a process per read: the server program is
started, asked, and ended, so one that crashed is simply started again next time; what it
writes on stderr is kept for the reason of a failure, never shown as evidence. The
catalogue last listed without error is kept while the server is down, marked stale with
the time it was loaded and why the refresh failed; a stale catalogue is shown, never
called.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

import anyio
import httpx
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from connectors.mcp._admission import Decision, decide
from connectors.mcp._stderr import StderrTail
from policy.errors import SourceError, SourceMalformed, SourceTimeout, SourceUnavailable

T = TypeVar("T")
Health = Literal["up", "down", "unknown"]
MAX_TOOLS = 200  # tools taken from one server's listing
MAX_PAGES = 10
# the SDK's own closing of a connection: a stdio server is given 2 s to exit on end of
# input, then its process group is ended
_CLOSE_S = 5.0


class McpTarget(BaseModel):
    """A configured MCP server: a `url` (streamable HTTP, the token from the variable the
    config names) or a `command` started over stdio (with the SDK's safe default
    environment plus `env`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=40)
    url: str | None = None
    token: SecretStr | None = None
    command: tuple[str, ...] | None = Field(default=None, min_length=1)
    env: dict[str, SecretStr] = Field(default_factory=dict)
    timeout_s: float = Field(default=10.0, gt=0, le=120)

    @model_validator(mode="after")
    def _one_transport(self) -> McpTarget:
        if (self.url is None) == (self.command is None):
            raise ValueError("give exactly one of url (streamable HTTP) and command (stdio)")
        if self.command is not None and self.token is not None:
            raise ValueError("a token is sent over HTTP: a stdio server takes env instead")
        return self

    @property
    def where(self) -> str:
        """The server's address as shown to people: its URL, or its program."""
        return self.url if self.url is not None else f"stdio: {(self.command or ('',))[0]}"


@dataclass
class Catalogue:
    """The tools one listing returned, each with its admission decision."""

    decisions: list[Decision]
    loaded_at: datetime
    truncated: bool = False


def _plain(env: dict[str, SecretStr]) -> dict[str, str]:
    return {k: v.get_secret_value() for k, v in env.items()}


def _reason(exc: BaseException) -> str:
    """A short reason for a failed exchange (an exception group: its first leaf)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, McpError):
        return f"the server answered an error: {exc.error.message}"
    if isinstance(exc, httpx.HTTPStatusError):
        return f"HTTP {exc.response.status_code}"
    if isinstance(exc, httpx.TransportError | OSError):
        return f"cannot connect ({type(exc).__name__})"
    said = str(exc)
    if not said:  # a stream closed under us: the server program ended or hung up
        return f"{type(exc).__name__} (the server closed the connection)"
    return f"{type(exc).__name__}: {said}"[:200]


@dataclass
class McpServer:
    """A server's catalogue and health, shared by its tools and `infrabot tools`."""

    target: McpTarget
    catalogue: Catalogue | None = None
    health: Health = "unknown"
    error: str | None = None  # why the last exchange failed
    checked_at: datetime | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def name(self) -> str:
        return self.target.name

    @property
    def source(self) -> str:
        return f"mcp:{self.target.name}"

    @property
    def stale(self) -> bool:
        """The catalogue kept is from before the server went down."""
        return self.catalogue is not None and self.health != "up"

    def _mark(self, health: Health, error: str | None) -> None:
        with self._lock:
            self.health = health
            self.error = error
            self.checked_at = datetime.now(UTC)

    @contextlib.asynccontextmanager
    async def _streams(self, stderr: StderrTail | None) -> AsyncIterator[tuple[Any, Any]]:
        """The read and write streams of a new connection to the server."""
        t = self.target
        if t.command is not None:
            params = StdioServerParameters(
                command=t.command[0],
                args=list(t.command[1:]),
                env={**get_default_environment(), **_plain(t.env)},
            )
            assert stderr is not None
            async with stdio_client(params, errlog=stderr.writer) as (read, write):
                yield read, write
            return
        assert t.url is not None  # one of the two, by McpTarget's check
        headers = {"Authorization": f"Bearer {t.token.get_secret_value()}"} if t.token else None
        async with (
            httpx.AsyncClient(
                headers=headers, timeout=httpx.Timeout(t.timeout_s), follow_redirects=False
            ) as http,
            streamable_http_client(t.url, http_client=http) as (read, write, _),
        ):
            yield read, write

    async def _session(self, work: Callable[[ClientSession], Awaitable[T]]) -> T:
        """`work` in a fresh session; every failure a SourceError with its reason.

        The timeout bounds the exchange, not the closing of the connection: the SDK's own
        clean-up (a stdio server's whole process group ended) runs uncancelled, bounded on
        its own by `_CLOSE_S`."""
        t = self.target
        stderr = StderrTail() if t.command is not None else None
        try:
            with anyio.fail_after(t.timeout_s + _CLOSE_S):
                async with self._streams(stderr) as (read, write):
                    with anyio.fail_after(t.timeout_s):
                        async with ClientSession(read, write) as session:
                            await session.initialize()
                            out = await work(session)
        except TimeoutError:
            why = f"no answer in {t.timeout_s:g} s{self._said(stderr)}"
            self._mark("down", why)
            raise SourceTimeout(self.source, why) from None
        except SourceError:
            raise
        except Exception as exc:  # the SDK and its transport raise many kinds, in groups
            why = f"{_reason(exc)}{self._said(stderr)}"
            self._mark("down", why)
            raise SourceUnavailable(self.source, why) from None
        finally:
            if stderr is not None:
                stderr.close()
        self._mark("up", None)
        return out

    def _said(self, stderr: StderrTail | None) -> str:
        """The last line a stdio server wrote on stderr, as a clause of a reason, with
        the values of the variables it was given cut out."""
        if stderr is None:
            return ""
        stderr.close()
        t = self.target
        secrets = [v.get_secret_value() for v in t.env.values()]
        secrets += [t.token.get_secret_value()] if t.token else []
        line = stderr.last_line(secrets)
        return f"; it said: {line}" if line else ""

    async def refresh(self) -> Catalogue | None:
        """List the tools again. On failure the last catalogue is kept (and is stale)."""

        async def listing(session: ClientSession) -> tuple[list[types.Tool], bool]:
            tools: list[types.Tool] = []
            cursor: str | None = None
            for _ in range(MAX_PAGES):
                page = await session.list_tools(
                    params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
                )
                tools += page.tools
                cursor = page.nextCursor
                if not cursor or len(tools) >= MAX_TOOLS:
                    break
            return tools[:MAX_TOOLS], bool(cursor) or len(tools) > MAX_TOOLS

        try:
            tools, truncated = await self._session(listing)
        except SourceError:
            return self.catalogue
        decisions = [decide(self.name, t.name, t.description, t.inputSchema) for t in tools]
        seen: dict[str, int] = {}
        for d in decisions:
            if d.name:
                seen[d.name] = seen.get(d.name, 0) + 1
        decisions = [
            d
            if not d.name or seen[d.name] == 1
            else Decision(
                d.server,
                d.tool,
                None,
                d.description,
                False,
                f"its name is the same as another tool's of this server once made a tool "
                f"name ({d.name})",
                d.agent,
                None,
            )
            for d in decisions
        ]
        with self._lock:
            self.catalogue = Catalogue(decisions, datetime.now(UTC), truncated)
        return self.catalogue

    def decision(self, tool: str) -> Decision | None:
        """The current decision for a tool the server lists (by its server name)."""
        cat = self.catalogue
        return next((d for d in cat.decisions if d.tool == tool), None) if cat else None

    async def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        async def one(session: ClientSession) -> types.CallToolResult:
            return await session.call_tool(tool, arguments)

        result = await self._session(one)
        if not isinstance(result, types.CallToolResult):
            raise SourceMalformed(self.source, "the server's answer is not a tool result")
        return result


def list_all(servers: Sequence[McpServer]) -> None:
    """List every server not listed yet, all at once, from synchronous code: on a loop of
    its own in a thread (the caller may be inside a running loop). Start-up waits for the
    slowest server's timeout at most, not for their sum; one that does not answer is left
    unlisted (and down)."""
    waiting = [s for s in servers if s.catalogue is None]
    if not waiting:
        return

    async def every() -> None:
        done = await asyncio.gather(*(s.refresh() for s in waiting), return_exceptions=True)
        for server, result in zip(waiting, done, strict=True):
            if isinstance(result, BaseException):  # not a failed exchange: a bug of ours
                server._mark("down", f"the listing failed: {_reason(result)}")

    worker = threading.Thread(target=lambda: asyncio.run(every()), name="mcp-list", daemon=True)
    worker.start()
    longest = max(s.target.timeout_s for s in waiting)
    worker.join(longest + _CLOSE_S + 1)
    for server in waiting:
        if server.health == "unknown":  # still being listed: it is not waited for
            server._mark("down", f"not listed within {longest + _CLOSE_S:g} s at start-up")
