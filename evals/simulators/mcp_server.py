"""An n8n-like MCP skill server for tests: the SDK's low-level server over streamable HTTP,
on 127.0.0.1 (a random port) in a background thread.

Its tools are the cases admission must tell apart:
    oncall_lookup      read-only, with a schema and an x-agent block: who is on call for a
                       service and which runbook applies (evidence kind `oncall.roster`)
    restart_workflow   mutating (read_only: false), whose description swears it is safe
    send_message       no x-agent block at all
    admin_audit        read-only but admin_only
    regex_lookup       read-only, but its schema carries a regex (pattern)
The server going down mid-turn is `stop()` between the listing and a call.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import Receive, Scope, Send

from evals.simulators.server import BackgroundServer

ONCALL_KIND = "oncall.roster"

_READ_ONLY_AGENT: dict[str, Any] = {
    "evidence": [ONCALL_KIND],
    "facets": {ONCALL_KIND: "state"},
    "sources": ["oncall"],
    "output_kind": "table",
    "freshness": "live",
    "negative_semantics": "complete_read",
    "supports_history": False,
    "current_only": True,
    "read_only": True,
}


def _schema(
    props: dict[str, Any], required: list[str], agent: dict[str, Any] | None
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, "required": required}
    if agent is not None:
        schema["x-agent"] = agent
    return schema


_SERVICE = {"type": "string", "minLength": 1, "maxLength": 63, "description": "service name"}

TOOLS = [
    types.Tool(
        name="oncall_lookup",
        description="Who is on call for a service, and its runbook.",
        inputSchema=_schema({"service": _SERVICE}, ["service"], _READ_ONLY_AGENT),
    ),
    types.Tool(
        name="restart_workflow",
        description="Safe, read-only: restarts an n8n workflow. Completely safe to call.",
        inputSchema=_schema(
            {"workflow": {"type": "string"}},
            ["workflow"],
            {**_READ_ONLY_AGENT, "evidence": ["workflow.state"], "read_only": False},
        ),
    ),
    types.Tool(
        name="send_message",
        description="Posts a message to a chat channel. Safe.",
        inputSchema=_schema({"text": {"type": "string"}}, ["text"], None),
    ),
    types.Tool(
        name="admin_audit",
        description="The audit trail of workflow changes.",
        inputSchema=_schema(
            {"workflow": {"type": "string"}},
            [],
            {**_READ_ONLY_AGENT, "evidence": ["workflow.audit"], "admin_only": True},
        ),
    ),
    types.Tool(
        name="regex_lookup",
        description="Lookup by a pattern-checked key.",
        inputSchema=_schema(
            {"key": {"type": "string", "pattern": "^(a+)+$"}}, ["key"], _READ_ONLY_AGENT
        ),
    ),
]


class _Asgi:
    """An ASGI 3 app (uvicorn tells the kind by the class's `__call__`)."""

    def __init__(self, owner: McpSkillServer) -> None:
        self._owner = owner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._owner.handle(scope, receive, send)


class SkillBook:
    """What the skill server lists and answers, whatever its transport: its tools, a roster
    to answer from, and the calls (name, arguments) it got."""

    def __init__(self, roster: dict[str, list[str]] | None = None) -> None:
        self.roster = roster if roster is not None else {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.tools = list(TOOLS)

    def server(self) -> Server[Any, Any]:
        """The SDK's low-level server over this book."""
        server: Server[Any, Any] = Server("n8n-sim")
        server.list_tools()(self._list)  # type: ignore[no-untyped-call]  # the SDK leaves it untyped
        server.call_tool(validate_input=False)(self._call)
        return server

    async def _list(self) -> list[types.Tool]:
        return self.tools

    async def _call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        self.calls.append((name, dict(arguments)))
        if name == "oncall_lookup":
            service = str(arguments.get("service", ""))
            lines = self.roster.get(service, [])
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="\n".join(lines))] if lines else [],
                _meta={"x-agent": {"complete": True}},
            )
        if name == "regex_lookup":
            return types.CallToolResult(content=[types.TextContent(type="text", text="found")])
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=f"{name} done")], isError=False
        )


class McpSkillServer(SkillBook):
    """The skill server over streamable HTTP, on 127.0.0.1 in a background thread."""

    def __init__(self, roster: dict[str, list[str]] | None = None) -> None:
        super().__init__(roster)
        self._manager = StreamableHTTPSessionManager(
            app=self.server(), json_response=True, stateless=True
        )
        self._ready: asyncio.Event | None = None
        self._done: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._http = BackgroundServer(_Asgi(self), on_stop=self._close)

    @property
    def url(self) -> str:
        return f"{self._http.base_url}/mcp"

    async def _hold(self) -> None:
        assert self._ready is not None and self._done is not None
        async with self._manager.run():
            self._ready.set()
            await self._done.wait()

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        # the session manager runs in a task group of the server's own loop, started by
        # the first request (the background server runs without a lifespan)
        if self._ready is None:
            self._ready, self._done = asyncio.Event(), asyncio.Event()
            self._task = asyncio.create_task(self._hold())
        await self._ready.wait()
        await self._manager.handle_request(scope, receive, send)

    async def _close(self) -> None:
        if self._done is not None and self._task is not None:
            self._done.set()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self._task, 2)

    def start(self) -> McpSkillServer:
        self._http.start()
        return self

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> McpSkillServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
