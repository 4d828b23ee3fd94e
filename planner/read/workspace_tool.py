"""`workspace.read`: the turn workspace as a tool the planner model can call.

Old observations are compacted to a placeholder in the model's context (they pollute it
and cost tokens); the raw result stays whole in the turn workspace, and this tool reads
it back by call id: its facts, entities or relations, filtered by a string (a request
id, a pod name) and a time slice. It reads only what this turn already read (redacted
and described on the way in), so it needs no gate: it reaches no source.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planner.read.workspace import TurnWorkspace
from policy.contracts import AgentMeta, ToolContract
from policy.results import ToolResult

NAME = "workspace.read"
MAX_ROWS = 50


class WorkspaceReadArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    call_id: str = Field(description="the call_id of an earlier result")
    table: Literal["facts", "entities", "relations"] = "facts"
    contains: str | None = Field(
        default=None, max_length=200, description="keep rows containing this text"
    )
    since: datetime | None = Field(default=None, description="keep rows observed at or after")
    until: datetime | None = Field(default=None, description="keep rows observed at or before")
    limit: int = Field(default=20, ge=1, le=MAX_ROWS)


CONTRACT = ToolContract(
    name=NAME,
    description=(
        "Read again a result of this turn that was shortened in the conversation: its "
        "facts, entities or relations, by call_id, optionally filtered by text and time."
    ),
    args_model=WorkspaceReadArgs,
    agent=AgentMeta(
        evidence=[],
        sources=["workspace"],
        output_kind="table",
        freshness="snapshot",
        negative_semantics="none",
        supports_history=True,
        current_only=False,
        read_only=True,
    ),
)


def _in_slice(at: datetime | None, args: WorkspaceReadArgs) -> bool:
    if at is None:
        return args.since is None and args.until is None
    try:
        return (args.since is None or at >= args.since) and (args.until is None or at <= args.until)
    except TypeError:  # a naive bound against an aware time: the bound says nothing
        return True


def _matches(row: dict[str, object], needle: str | None) -> bool:
    return needle is None or needle in json.dumps(row, ensure_ascii=False).casefold()


def _rows(result: ToolResult, args: WorkspaceReadArgs) -> list[object]:
    """Every row of the table asked for that the filters keep."""
    needle = args.contains.casefold() if args.contains else None
    rows: list[object] = []
    if args.table == "facts":
        for f in result.facts:
            if _in_slice(f.observed_at, args) and (needle is None or needle in f.text.casefold()):
                rows.append(
                    {"text": f.text, "at": f.observed_at.isoformat() if f.observed_at else None}
                )
    elif args.table == "entities":
        for e in result.entities:
            row = e.model_dump(mode="json", exclude_none=True, exclude={"attrs"})
            if _matches(row, needle):
                rows.append(row)
    else:
        for r in result.relations:
            if _in_slice(r.observed_at, args):
                row = r.model_dump(mode="json", exclude_none=True)
                if _matches(row, needle):
                    rows.append(row)
    return rows


def read_workspace(workspace: TurnWorkspace, arguments: dict[str, object]) -> str:
    """The rows asked for, as JSON text for a tool message; an error names the field."""
    try:
        args = WorkspaceReadArgs.model_validate(arguments)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "arguments"
        return json.dumps({"error": f"{field}: {first['msg']}"})
    result = workspace.get(args.call_id)
    if result is None:
        known = [cid for cid, _ in workspace.results()]
        return json.dumps(
            {
                "error": f"call_id {args.call_id!r} is not a result of this turn",
                "call_ids": known[-20:],
            }
        )
    rows = _rows(result, args)
    return json.dumps(
        {
            "call_id": args.call_id,
            "table": args.table,
            "rows": rows[: args.limit],
            "matched": len(rows),
        },
        ensure_ascii=False,
        default=str,
    )
