"""MCP skill servers as tools: a skill added on a server is used without a core release.

Each configured server is listed once when the tools are built (`tools/list` over
streamable HTTP, connectors/mcp/_client.py). Every listed tool gets an admission decision
from the `x-agent` block of its input schema (connectors/mcp/_admission.py): admitted
tools become contracts whose schema the policy gate enforces before any call; refused
tools are contracts with no `read_only: true`, so the gate denies them, and they never
reach the server from here either. `catalogue_report` says, per tool, which server,
its health and the decision with its reason (`infrabot tools`).

A tool's result is untrusted text: each non-empty line a `skill.output` fact, redacted
and described by the wrappers like every other result. An empty result proves absence
only when the contract's `negative_semantics` can and the server said, in the result's
`_meta["x-agent"]`, that its read was complete (`{"complete": true}`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from mcp import types
from pydantic import BaseModel, ConfigDict

from connectors.mcp._admission import Decision, contract_name, decide
from connectors.mcp._client import Catalogue, McpServer, McpTarget, list_all
from policy.contracts import AgentMeta, ToolContract
from policy.errors import SourceError, SourceUnavailable, SourceUnsupported
from policy.facts import SkillOutput
from policy.findings import Findings
from policy.hostile import describe
from policy.probe import Probe
from policy.redaction import redact
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext, Tool, scope_of

__all__ = [
    "Catalogue",
    "Decision",
    "McpContract",
    "McpServer",
    "McpTarget",
    "McpTool",
    "build_tools",
    "catalogue_report",
    "contract_name",
    "decide",
    "probe",
]

MAX_FACTS = 100  # lines of one result kept as facts
MAX_LINE = 2000  # characters of one line
MAX_TEXT_CHARS = 200_000  # of one text block read at all
COVERAGE_META = "x-agent"  # the key of the result's _meta the server states coverage in


class McpArguments(BaseModel):
    """The arguments of an MCP tool: the gate checks them against the server's schema
    (closed to undeclared properties) before this model sees them."""

    model_config = ConfigDict(extra="allow")


class McpContract(ToolContract):
    """A contract whose schema is the server's JSON Schema, not one generated from a
    pydantic model: the gate validates arguments against `json_schema` all the same."""

    json_schema: dict[str, Any]
    server: str
    remote_name: str

    def input_schema(self) -> dict[str, Any]:
        return self.json_schema


_REFUSED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}


def _refused_agent(d: Decision, source: str) -> AgentMeta:
    """What the gate sees of a refused tool: never `read_only: true`."""
    if d.agent is not None:
        return d.agent.model_copy(update={"read_only": d.agent.read_only and None})
    return AgentMeta(
        evidence=[],
        sources=[source],
        output_kind="table",
        freshness="live",
        negative_semantics="none",
        supports_history=False,
        current_only=True,
        read_only=None,
    )


def _contract(d: Decision, server: McpServer) -> McpContract:
    assert d.name is not None
    if d.admitted and d.agent is not None and d.schema is not None:
        agent, schema = d.agent, d.schema
    else:
        agent, schema = _refused_agent(d, server.source), _REFUSED_SCHEMA
    text = describe(redact(d.description))
    return McpContract(
        name=d.name,
        description=f"{text}\n(MCP skill {d.tool!r} of server {server.name})",
        args_model=McpArguments,
        agent=agent,
        json_schema=schema,
        server=server.name,
        remote_name=d.tool,
    )


def _coverage(result: types.CallToolResult) -> dict[str, Any]:
    meta = result.meta or {}
    block = meta.get(COVERAGE_META)
    return block if isinstance(block, dict) else {}


def _error_text(result: types.CallToolResult) -> str:
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    said = " ".join(" ".join(texts).split())[:300]
    return f"the tool answered an error: {said}" if said else "the tool answered an error"


RELIST_AFTER_S = 30.0


def _age_s(at: datetime) -> float:
    return (datetime.now(UTC) - at).total_seconds()


@dataclass
class McpTool:
    """One listed tool of a server, admitted or not."""

    contract: ToolContract  # an McpContract
    server: McpServer
    decision: Decision
    resources: tuple[()] = ()

    async def _current(self) -> Decision:
        """The decision now, from a catalogue that is not stale: a server that was down
        is listed again first, and a tool whose contract changed since the tools were
        built is not called (its schema and x-agent are what the gate enforced)."""
        s = self.server
        if s.stale or s.catalogue is None or _age_s(s.catalogue.loaded_at) > RELIST_AFTER_S:
            # a server may change a tool while it stays up (read_only flipped, say): what
            # is called was listed moments ago
            await s.refresh()
        if s.stale or s.catalogue is None:
            cat = s.catalogue
            kept = (
                f" (its catalogue of {cat.loaded_at:%Y-%m-%d %H:%M:%S} UTC is stale)" if cat else ""
            )
            raise SourceUnavailable(s.source, f"the MCP server is down: {s.error}{kept}")
        now = s.decision(self.decision.tool)
        if now is None:
            raise SourceUnsupported(s.source, f"the server no longer lists {self.decision.tool}")
        if not now.admitted:
            raise SourceUnsupported(s.source, f"not admitted: {now.reason}")
        if now.agent != self.decision.agent or now.schema != self.decision.schema:
            raise SourceUnsupported(
                s.source,
                f"the contract of {self.decision.tool} changed since it was loaded; "
                "it is not called until the tools are built again",
            )
        return now

    async def run(self, args: BaseModel, ctx: CallContext) -> ToolResult:
        d = self.decision
        if not d.admitted or d.agent is None:
            # the gate refuses these first; this keeps a refused tool off the server even
            # in a tool set without a gate
            raise SourceUnsupported(self.server.source, f"not admitted: {d.reason}")
        await self._current()
        arguments = args.model_dump()
        result = await self.server.call(d.tool, arguments)
        return normalise(self.contract, d.agent, self.server, result, args, ctx)


def normalise(
    contract: ToolContract,
    agent: AgentMeta,
    server: McpServer,
    result: types.CallToolResult,
    args: BaseModel,
    ctx: CallContext,
) -> ToolResult:
    """A tool's answer as a ToolResult: each non-empty text line a fact; every hole (a
    cut, a block that is not text, a read the server calls incomplete) a gap."""
    source = server.source
    if result.isError:
        raise SourceError(source, _error_text(result))
    scope = scope_of(args, ctx)
    found = Findings(source=source, env=scope.env)
    lines: list[str] = []
    for block in result.content:
        if not isinstance(block, types.TextContent):
            continue
        for line in block.text[:MAX_TEXT_CHARS].splitlines():
            if line.strip():
                lines.append(line.strip())
        if len(block.text) > MAX_TEXT_CHARS:
            found.truncated = True
            found.gap(f"the answer's text beyond {MAX_TEXT_CHARS} characters was not read")
    others = sum(not isinstance(block, types.TextContent) for block in result.content)
    if result.structuredContent:
        # an answer carried as structured data was not read: it may hold what the text
        # does not, so an empty text proves nothing
        found.gap("the answer's structured content was not read")
    if any(len(line) > MAX_LINE for line in lines[:MAX_FACTS]):
        found.gap(f"lines over {MAX_LINE} characters were cut")
    observed: datetime | None = ctx.now if agent.freshness == "live" else None
    for line in lines[:MAX_FACTS]:
        found.facts.append(
            ResultFact(
                text=line[:MAX_LINE],
                source=source,
                observed_at=observed,
                attrs=SkillOutput(
                    server=server.name,
                    tool=contract.remote_name if isinstance(contract, McpContract) else "",
                    evidence=list(agent.evidence),
                ),
            )
        )
    if len(lines) > MAX_FACTS:
        found.truncated = True
        found.gap(f"{len(lines) - MAX_FACTS} lines of the answer beyond {MAX_FACTS} not read")
    if others:
        found.gap(f"{others} content blocks that are not text were not read")
    cov = _coverage(result)
    if cov.get("complete") is False:
        found.gap("the server says its read was incomplete")
    if cov.get("truncated") is True:
        found.truncated = True
        found.gap("the server says its answer was cut")
    total = cov.get("total")
    total = total if isinstance(total, int) and not isinstance(total, bool) else None
    proves = (
        agent.negative_semantics != "none"
        and cov.get("complete") is True
        and not result.structuredContent
        and not others
    )
    if agent.negative_semantics == "exact_count":
        proves = proves and total is not None and cov.get("total_is_exact", True) is True
    return found.result(
        contract.name,
        scope,
        returned=min(len(lines), MAX_FACTS),
        proves_absence=proves,
        observed_at=observed,
        total=total,
        total_is_exact=cov.get("total_is_exact", True) is True,
        raw={"content": [line[:MAX_LINE] for line in lines[:MAX_FACTS]]},
    )


def build_tools(servers: Sequence[McpServer]) -> list[Tool]:
    """A tool per listed tool of every server (a server never listed has none). A server
    not listed yet is listed now; one that does not answer contributes no tools."""
    list_all(servers)
    tools: list[Tool] = []
    for server in servers:
        if server.catalogue is None:
            continue
        for d in server.catalogue.decisions:
            if d.name is not None:
                tools.append(McpTool(_contract(d, server), server, d))
    return tools


def catalogue_report(servers: Sequence[McpServer]) -> list[dict[str, Any]]:
    """Per server: its health, whether the catalogue shown is stale, and each listed
    tool with its admission decision and, when refused, why."""
    out = []
    for s in servers:
        cat = s.catalogue
        out.append(
            {
                "server": s.name,
                "url": s.target.where,
                "health": s.health,
                "error": s.error,
                "stale": s.stale,
                "loaded_at": cat.loaded_at.isoformat() if cat else None,
                "truncated": cat.truncated if cat else False,
                "tools": [
                    {
                        "tool": d.tool,
                        "name": d.name,
                        "admitted": d.admitted,
                        "reason": d.reason,
                        "evidence": list(d.agent.evidence) if d.agent else [],
                        "admin_only": bool(d.agent and d.agent.admin_only),
                    }
                    for d in (cat.decisions if cat else [])
                ],
            }
        )
    return out


async def probe(server: McpServer) -> Probe:
    """Does the server answer, and which of its tools are admitted."""
    cat = await server.refresh()
    if server.health != "up" or cat is None:
        return Probe(source=server.source, answered=False, detail=server.error or "no answer")
    refused = sum(not d.admitted for d in cat.decisions)
    return Probe(
        source=server.source,
        answered=True,
        detail=f"{len(cat.decisions)} tools listed, {refused} refused",
        found=[d.name or d.tool for d in cat.decisions if d.admitted],
    )
