"""The n8n-like skill server of evals/simulators/mcp_server.py over stdio, as a program:

    python -m evals.simulators.mcp_stdio ROSTER.json [CALLS.jsonl]

ROSTER.json maps a service to the lines `oncall_lookup` answers for it; each call it gets
is appended to CALLS.jsonl as {"tool": ..., "arguments": ...}. Variables that make it
misbehave as real servers do:

    MCP_SIM_REQUIRE=VAR    exit at once, saying so on stderr, unless VAR was given
                           (a server missing its credentials)
    MCP_SIM_FAIL_WITH=VAR  write MCP_SIM_FLOOD_MB (default 1) of noise on stderr, then a
                           line quoting VAR's value, and exit (a crash that logs its token)
    MCP_SIM_DELAY=S        wait S seconds before serving (a slow start)
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.server.stdio import stdio_server

from evals.simulators.mcp_server import SkillBook


class _Recording(SkillBook):
    def __init__(self, roster: dict[str, list[str]], calls: Path | None) -> None:
        super().__init__(roster)
        self._log = calls

    async def _call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        if self._log is not None:
            with self._log.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"tool": name, "arguments": arguments}) + "\n")
        return await super()._call(name, arguments)


async def _serve(book: SkillBook) -> None:
    server = book.server()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main(argv: list[str]) -> int:
    required = os.environ.get("MCP_SIM_REQUIRE")
    if required and required not in os.environ:
        print(f"missing credentials: {required} is not set", file=sys.stderr)
        return 2
    if secret_var := os.environ.get("MCP_SIM_FAIL_WITH"):
        noise = "x" * 1023 + "\n"
        for _ in range(int(float(os.environ.get("MCP_SIM_FLOOD_MB", "1")) * 1024)):
            sys.stderr.write(noise)
        print(f"auth failed with token {os.environ.get(secret_var, '')}", file=sys.stderr)
        return 3
    time.sleep(float(os.environ.get("MCP_SIM_DELAY", "0")))
    roster = json.loads(Path(argv[0]).read_text(encoding="utf-8")) if argv else {}
    calls = Path(argv[1]) if len(argv) > 1 else None
    anyio.run(_serve, _Recording(roster, calls))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
