"""One MCP server through the official SDK (streamable HTTP): its catalogue and health.

Every read opens a session (initialize, one request, close): a skill server is called a
few times a turn at most, and a session that outlives a restart of the server would fail
the next call for nothing. The catalogue last listed without error is kept while the
server is down, marked stale with the time it was loaded and why the refresh failed; a
stale catalogue is shown, never called.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

import anyio
import httpx
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from pydantic import BaseModel, ConfigDict, Field, SecretStr

from connectors.mcp._admission import Decision, decide
from policy.errors import SourceError, SourceMalformed, SourceTimeout, SourceUnavailable

T = TypeVar("T")
Health = Literal["up", "down", "unknown"]
MAX_TOOLS = 200  # tools taken from one server's listing
MAX_PAGES = 10


class McpTarget(BaseModel):
    """A configured MCP server; the token comes from the variable the config names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=40)
    url: str
    token: SecretStr | None = None
    timeout_s: float = Field(default=10.0, gt=0, le=120)


@dataclass
class Catalogue:
    """The tools one listing returned, each with its admission decision."""

    decisions: list[Decision]
    loaded_at: datetime
    truncated: bool = False


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
    return f"{type(exc).__name__}: {exc}"[:200]


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

    async def _session(self, work: Callable[[ClientSession], Awaitable[T]]) -> T:
        """`work` in a fresh session; every failure a SourceError with its reason."""
        t = self.target
        headers = {"Authorization": f"Bearer {t.token.get_secret_value()}"} if t.token else None
        try:
            with anyio.fail_after(t.timeout_s):
                async with (
                    httpx.AsyncClient(
                        headers=headers, timeout=httpx.Timeout(t.timeout_s), follow_redirects=False
                    ) as http,
                    streamable_http_client(t.url, http_client=http) as (read, write, _),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    out = await work(session)
        except TimeoutError:
            self._mark("down", f"no answer in {t.timeout_s:g} s")
            raise SourceTimeout(self.source, f"no answer in {t.timeout_s:g} s") from None
        except SourceError:
            raise
        except Exception as exc:  # the SDK and its transport raise many kinds, in groups
            why = _reason(exc)
            self._mark("down", why)
            raise SourceUnavailable(self.source, why) from None
        self._mark("up", None)
        return out

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

    def refresh_blocking(self) -> Catalogue | None:
        """`refresh` from synchronous code, on a loop of its own in a thread (the caller
        may be inside a running loop)."""
        box: list[Catalogue | None] = [None]

        def run() -> None:
            box[0] = asyncio.run(self.refresh())

        worker = threading.Thread(target=run, name=f"mcp-list-{self.name}", daemon=True)
        worker.start()
        worker.join(self.target.timeout_s + 5)
        return box[0] if not worker.is_alive() else self.catalogue

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
