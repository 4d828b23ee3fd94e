"""The policy gate: a wrapper around a tool set that decides, in code, what may run.

Order of checks for one call (each refusal is a typed `denied` result with a reason that
reaches the answer as a gap):
    1. the tool exists and is admitted: `read_only` explicitly true (fail closed), not
       `admin_only` for a non-admin (hidden from their catalogue too);
    2. the arguments satisfy the generated JSON Schema (required, enum, formats,
       additionalProperties=false), then the pydantic model;
    3. time semantics: a `current_only` tool cannot answer a historical question.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import structlog
from pydantic import ValidationError

from policy.contracts import ToolContract
from policy.errors import ErrorKind
from policy.results import ToolResult
from policy.toolset import CallContext, ToolSet, failure_result

log = structlog.get_logger(__name__)


def admitted(contract: ToolContract, role: str) -> tuple[bool, str]:
    """Admission is declarative and fails closed."""
    if contract.agent.read_only is not True:
        return False, f"tool {contract.name} does not declare read_only: true"
    if contract.agent.admin_only and role != "admin":
        return False, f"tool {contract.name} is for admins only"
    return True, ""


def _validator(contract: ToolContract) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(
        contract.input_schema(), format_checker=jsonschema.FormatChecker()
    )


def schema_problems(
    contract: ToolContract,
    arguments: object,
    validator: jsonschema.Draft202012Validator | None = None,
) -> list[str]:
    """Every way the arguments break the contract's schema, each naming the field."""
    validator = validator or _validator(contract)
    problems = []
    for err in sorted(validator.iter_errors(arguments), key=lambda e: list(e.path)):
        where = ".".join(str(p) for p in err.path) or "(arguments)"
        problems.append(f"{where}: {err.message}")
    return problems


class PolicyGate:
    """Wraps a `ToolSet`; same interface, plus admission, validation and time rules."""

    def __init__(self, inner: ToolSet) -> None:
        self._inner = inner
        # contracts are immutable: their compiled validators are built once per gate
        self._validators = {c.name: _validator(c) for c in inner.contracts()}

    def contracts(self, ctx: CallContext) -> list[ToolContract]:
        return [c for c in self._inner.contracts(ctx) if admitted(c, ctx.role)[0]]

    def refused(self, ctx: CallContext) -> list[tuple[ToolContract, str]]:
        """Tools this user may not use, with why: so an answer can say "for admins only"
        instead of "no such source"."""
        out = []
        for c in self._inner.contracts(ctx):
            ok, why = admitted(c, ctx.role)
            if not ok and c.agent.read_only is True:
                out.append((c, why))
        return out

    async def aclose(self) -> None:
        await self._inner.aclose()

    def contract(self, name: str, ctx: CallContext) -> ToolContract | None:
        return next((c for c in self.contracts(ctx) if c.name == name), None)

    async def call(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult:
        tool = self._inner.get(name)
        if tool is None:
            return self._deny(name, ctx, f"unknown tool {name!r}", ErrorKind.UNKNOWN_TOOL)
        contract = tool.contract
        ok, why = admitted(contract, ctx.role)
        if not ok:
            return self._deny(name, ctx, why, ErrorKind.NOT_ADMITTED)
        problems = schema_problems(contract, arguments, self._validators.get(name))
        if problems:
            return self._deny(name, ctx, "; ".join(problems), ErrorKind.INVALID_ARGUMENTS)
        try:
            args = contract.args_model.model_validate(arguments)
        except ValidationError as exc:
            problems = [
                f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}"
                for e in exc.errors()
            ]
            return self._deny(name, ctx, "; ".join(problems), ErrorKind.INVALID_ARGUMENTS)
        if contract.agent.current_only and ctx.scope.time.mode == "historical":
            return self._deny(
                name,
                ctx,
                f"{name} shows only the current state and cannot answer a question about the past",
                ErrorKind.CURRENT_ONLY,
            )
        return await self._inner.call_validated(name, args, ctx)

    @staticmethod
    def _deny(name: str, ctx: CallContext, reason: str, kind: ErrorKind) -> ToolResult:
        log.info("gate.denied", tool=name, reason_kind=kind, user=ctx.user)
        return failure_result(name, ctx.scope, "policy", "denied", reason, kind)
