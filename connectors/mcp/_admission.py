"""Admission of an MCP server's tool, decided from its `x-agent` block and its schema.

A listed tool is data from a server we do not control. It is admitted only when the
top-level `x-agent` object of its input schema is a valid `AgentMeta` with an explicit
`read_only: true`, its name makes a contract name, and its schema (without `x-agent`) is
one the gate can enforce in code. Anything else is refused, fail closed, and keeps the
reason. A description is never read for admission: "safe" grants nothing.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

import jsonschema
from pydantic import ValidationError
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from policy.contracts import AgentMeta, name_part

X_AGENT = "x-agent"
MAX_DESCRIPTION = 600
MAX_SCHEMA_CHARS = 16_000  # a schema is sent to a model on every planning step
MAX_SCHEMA_DEPTH = 20
# keywords that reach outside the schema or resolve at validation time: refused
_DYNAMIC = ("$dynamicRef", "$recursiveRef", "$dynamicAnchor", "$recursiveAnchor", "$anchor")


def source_of(server: str) -> str:
    """The source an MCP server's tools read, set here and never taken from the server:
    a skill's failure must not mark a built-in source (kubernetes, logs) unavailable,
    nor borrow its timeout or its name for a complete read."""
    return f"mcp:{server}"


def contract_name(server: str, tool: str) -> str | None:
    """`mcp.<server>.<tool>` in the contract alphabet, or None when nothing is left. Runs
    of underscores become one: `__` is how a dot travels to a model and back."""
    s, t = name_part(server), name_part(tool)
    if not s or not t:
        return None
    name = f"mcp.{s}.{t}"
    return name if len(name) <= 64 else None


@dataclass(frozen=True)
class Decision:
    """What admission made of one listed tool."""

    server: str
    tool: str  # the name the server lists
    name: str | None  # the contract name, when one can be made
    description: str
    admitted: bool
    reason: str  # why it was refused; for an admitted tool, what limits it ("admins only")
    agent: AgentMeta | None
    schema: dict[str, Any] | None  # the input schema the gate enforces, x-agent removed


def _walk(node: Any) -> list[dict[str, Any]]:
    out = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            out.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def _resolver(schema: dict[str, Any]) -> Any:
    uri = "urn:infrabot:mcp-schema"
    return Registry().with_resource(uri, DRAFT202012.create_resource(schema)).resolver(uri)


def _depth(node: Any) -> int:
    deepest, stack = 0, [(node, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, dict | list) and level <= MAX_SCHEMA_DEPTH:
            stack.extend((child, level + 1) for child in children)
    return deepest


def _schema_problem(schema: dict[str, Any]) -> str | None:
    if schema.get("type", "object") != "object":
        return f"its input schema is of type {schema.get('type')!r}, not an object"
    if len(json.dumps(schema, default=str)) > MAX_SCHEMA_CHARS:
        return f"its input schema is over {MAX_SCHEMA_CHARS} characters"
    if _depth(schema) > MAX_SCHEMA_DEPTH:
        return f"its input schema is nested deeper than {MAX_SCHEMA_DEPTH} levels"
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return f"its input schema is not valid JSON Schema: {exc.message}"
    for node in _walk(schema):
        for keyword in _DYNAMIC:
            if keyword in node:
                return f"its input schema uses {keyword}, which is not admitted"
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            # only references that resolve inside the schema, and never to itself
            if ref in ("#", "#/"):
                return "its input schema refers to itself ($ref '#')"
            try:
                _resolver(schema).lookup(ref)
            except Exception:
                return f"its input schema refers to nothing ($ref {ref!r})"
        # the gate would run a server's regex with Python's backtracking `re` over the
        # arguments: one could take exponential time, so such a schema is refused
        if "pattern" in node and isinstance(node["pattern"], str):
            return "its input schema uses a regular expression (pattern), which is not admitted"
        if isinstance(node.get("patternProperties"), dict):
            return "its input schema uses patternProperties, which is not admitted"
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            return f"its input schema refers outside itself ($ref {ref!r})"
    try:
        # a dry run, as the gate will validate: a schema it cannot run is refused here
        # (a reference cycle, say), not found out on the first call
        list(jsonschema.Draft202012Validator(schema).iter_errors({}))
    except Exception as exc:
        return f"its input schema cannot be checked ({type(exc).__name__})"
    return None


def _closed(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every object closed: an argument the server did not declare is
    refused by the gate, whatever the server says of extra properties."""
    for node in _walk(schema):
        if node.get("type") == "object" or isinstance(node.get("properties"), dict):
            node["additionalProperties"] = False
    return schema


def decide(server: str, tool: str, description: str | None, input_schema: Any) -> Decision:
    """The admission decision for one tool as the server listed it; never raises (what
    cannot be decided is refused)."""
    try:
        return _decide(server, tool, description, input_schema)
    except Exception as exc:  # a listing must not stop the others, nor start-up
        text = (description or "").strip()[:MAX_DESCRIPTION] or tool
        why = f"its listing could not be read ({type(exc).__name__})"
        return Decision(server, tool, contract_name(server, tool), text, False, why, None, None)


def _decide(server: str, tool: str, description: str | None, input_schema: Any) -> Decision:
    # the description is shown to a model: untrusted, so cut short (and, like every text
    # from a source, redacted and described by the caller); it is never read here
    text = (description or "").strip()[:MAX_DESCRIPTION] or f"{tool} (an MCP tool of {server})"
    name = contract_name(server, tool)

    def refuse(reason: str, agent: AgentMeta | None = None) -> Decision:
        return Decision(server, tool, name, text, False, reason, agent, None)

    if name is None:
        return refuse(f"its name {tool!r} cannot be a tool name")
    if not isinstance(input_schema, dict):
        return refuse("it has no input schema")
    block = input_schema.get(X_AGENT)
    if block is None:
        return refuse("its input schema has no x-agent block (read_only: true is required)")
    if not isinstance(block, dict):
        return refuse("its x-agent block is not an object")
    try:
        # the source is ours to set: see source_of
        agent = AgentMeta.model_validate({**block, "sources": [source_of(server)]})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "x-agent"
        return refuse(f"its x-agent block is invalid: {where}: {first['msg']}")
    if agent.read_only is not True:
        said = "false" if agent.read_only is False else "nothing"
        return refuse(f"its x-agent block says read_only: {said} (true is required)", agent)
    schema = copy.deepcopy({k: v for k, v in input_schema.items() if k != X_AGENT})
    problem = _schema_problem(schema)
    if problem is not None:
        return refuse(problem, agent)
    limit = "admins only" if agent.admin_only else ""
    return Decision(server, tool, name, text, True, limit, agent, _closed(schema))
