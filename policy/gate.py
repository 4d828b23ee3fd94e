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
from policy.toolset import CallContext, Toolset, failure_result, field_problems
from policy.wrappers import WrapperToolset

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


class PolicyGate(WrapperToolset):
    """Wraps a tool set; same interface, plus admission, validation and time rules."""

    def __init__(self, inner: Toolset) -> None:
        super().__init__(inner)
        # contracts are immutable: their compiled validators are built once per gate
        self._contracts = {c.name: c for c in inner.contracts()}
        self._validators = {name: _validator(c) for name, c in self._contracts.items()}

    def contracts(self, ctx: CallContext | None = None) -> list[ToolContract]:
        every = self._inner.contracts(ctx)
        return every if ctx is None else [c for c in every if admitted(c, ctx.role)[0]]

    def refused(self, ctx: CallContext) -> list[tuple[ToolContract, str]]:
        """Tools this user may not use, with why: so an answer can say "for admins only"
        instead of "no such source"."""
        out = list(self._inner.refused(ctx))
        for c in self._inner.contracts(ctx):
            ok, why = admitted(c, ctx.role)
            if not ok and c.agent.read_only is True:
                out.append((c, why))
        return out

    def contract(self, name: str, ctx: CallContext) -> ToolContract | None:
        return next((c for c in self.contracts(ctx) if c.name == name), None)

    async def call(self, name: str, arguments: dict[str, Any], ctx: CallContext) -> ToolResult:
        contract = self._contracts.get(name)
        if contract is None:
            return self._deny(name, ctx, f"unknown tool {name!r}", ErrorKind.UNKNOWN_TOOL)
        ok, why = admitted(contract, ctx.role)
        if not ok:
            return self._deny(name, ctx, why, ErrorKind.NOT_ADMITTED)
        problems = schema_problems(contract, arguments, self._validators.get(name))
        if problems:
            return self._deny(name, ctx, "; ".join(problems), ErrorKind.INVALID_ARGUMENTS)
        try:
            contract.args_model.model_validate(arguments)
        except ValidationError as exc:
            return self._deny(name, ctx, field_problems(exc), ErrorKind.INVALID_ARGUMENTS)
        if contract.agent.current_only and ctx.scope.time.mode == "historical":
            return self._deny(
                name,
                ctx,
                f"{name} shows only the current state and cannot answer a question about the past",
                ErrorKind.CURRENT_ONLY,
            )
        return await self._inner.call(name, arguments, ctx)

    @staticmethod
    def _deny(name: str, ctx: CallContext, reason: str, kind: ErrorKind) -> ToolResult:
        log.info("gate.denied", tool=name, reason_kind=kind, user=ctx.user)
        return failure_result(name, ctx.scope, "policy", "denied", reason, kind)
