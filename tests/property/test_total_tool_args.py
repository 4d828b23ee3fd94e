"""Tool arguments are total: for every registered tool (the real catalogue `bot.wiring`
builds from a configuration with every source), any JSON arguments a model may send are
either accepted (and then valid for both the schema and the argument model) or refused
by the policy gate with an error naming the field; no exception escapes the gate.

The real contracts are wrapped around a recording function instead of their connectors,
so nothing is read over the network and an accepted call shows what the tool received.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import jsonschema
import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from structlog.testing import capture_logs

from bot.settings import parse_config
from bot.wiring import build_tools
from policy.contracts import ToolContract
from policy.errors import ErrorKind
from policy.gate import PolicyGate
from policy.results import Coverage, ToolResult
from policy.scope import Scope, TimeSpec
from policy.toolset import CallContext, FunctionTool, ToolSet, scope_of
from tests.property._tier import TIER

NOW = datetime(2026, 7, 20, 11, 40, tzinfo=UTC)
CONFIG = {
    "environments": {
        env: {
            "kubernetes": {"url": f"https://k8s.{env}.example:6443"},
            "metrics": {"url": f"http://vm.{env}.example:8428"},
            "logs": {"url": f"https://es.{env}.example:9200", "audit_index": "k8s-audit-*"},
        }
        for env in ("dc-a", "dc-b")
    },
    "gitlab": {"url": "https://gitlab.example.com"},
}


class Recorder:
    """Stands in for every connector: keeps what an admitted call was given."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, BaseModel]] = []

    def tool(self, contract: ToolContract) -> FunctionTool:
        async def run(args: BaseModel, ctx: CallContext) -> ToolResult:
            self.calls.append((contract.name, args))
            return ToolResult(
                tool=contract.name,
                status="empty",
                scope=scope_of(args, ctx),
                coverage=Coverage(source=contract.agent.sources[0], complete_for_negative=True),
            )

        return FunctionTool(contract, run)


@functools.cache
def contracts() -> tuple[ToolContract, ...]:
    return tuple(t.contract for t in build_tools(parse_config(CONFIG), environ={}))


@functools.cache
def gate() -> tuple[PolicyGate, Recorder]:
    """One gate for every example (it compiles 33 validators); the recorder is emptied."""
    recorder = Recorder()
    return PolicyGate(ToolSet([recorder.tool(c) for c in contracts()])), recorder


def test_the_catalogue_has_every_source() -> None:
    prefixes = {c.name.split(".")[0] for c in contracts()}
    assert prefixes == {"k8s", "metrics", "logs", "gitlab", "net"}


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)  # json.loads reads NaN and Infinity
    | st.text(st.characters(exclude_categories=()), max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=4,
)


def _timestamps() -> st.SearchStrategy[str]:
    moments = st.datetimes(
        min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC)
    )
    return st.one_of(
        moments.map(lambda d: d.isoformat()),
        moments.map(lambda d: d.replace(tzinfo=None).isoformat()),  # no offset
        st.sampled_from(["2026-07-20T11:11:00Z", "2026-13-45T99:99:99Z", "now", "", "1e309"]),
    )


NAMES = ["service-a", "payments", "worker-17", "search-api-7d9f", "10.20.4.31", "10.0.0.1:8080",
         "gitlab.example.com", "a", "x" * 63, "pay.example.com", "::1", "[::1]", "app"]  # fmt: skip


def _string(schema: dict[str, Any]) -> tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]]:
    if schema.get("format") == "date-time":
        fits = st.datetimes(
            min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
        ).map(lambda d: d.isoformat())
        return fits, _timestamps()
    low, high = schema.get("minLength", 0), schema.get("maxLength", 40)
    if "pattern" in schema:
        # names as they are written, drawn cheaply, and now and then any the pattern allows
        known = [n for n in NAMES if re.fullmatch(schema["pattern"], n) and low <= len(n) <= high]
        fits = st.one_of(
            st.sampled_from(known or ["a"]),
            st.from_regex(schema["pattern"], fullmatch=True).filter(
                lambda s: low <= len(s) <= high
            ),
        )
    else:
        fits = st.text(min_size=low, max_size=min(high, 40))
    near = st.one_of(
        st.from_regex(schema["pattern"], fullmatch=True) if "pattern" in schema else fits,
        st.text(st.characters(exclude_categories=()), max_size=20),
        st.just("x" * (high + 1)),
        st.sampled_from(["", "Service-A", "dc-a", "a.b", "[unclosed", "(?P<", "10.0.0.1", "::1"]),
    )
    return fits, near


def _number(schema: dict[str, Any], integer: bool) -> tuple[st.SearchStrategy[Any], ...]:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if integer:
        fits: st.SearchStrategy[Any] = st.integers(
            None if low is None else int(low) + ("exclusiveMinimum" in schema),
            None if high is None else int(high) - ("exclusiveMaximum" in schema),
        )
    else:
        fits = st.floats(
            low,
            high,
            allow_nan=False,
            exclude_min="exclusiveMinimum" in schema,
            exclude_max="exclusiveMaximum" in schema,
        )
    edges = [v + d for v in (low, high) if v is not None for d in (-1, 0, 1)]
    base = st.integers() if integer else st.floats(allow_nan=True, allow_infinity=True)
    return fits, st.one_of(base, st.sampled_from(edges or [0]), st.integers(-(2**64), 2**64))


def from_schema(schema: dict[str, Any]) -> tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]]:
    """(a value the schema allows, a value near it: often just past a bound, or junk)."""
    if "enum" in schema:
        fits = st.sampled_from(schema["enum"])
        return fits, fits | st.sampled_from(["dc-c", "DC-A", "дц-а", ""])
    if "anyOf" in schema:
        pairs = [from_schema(s) for s in schema["anyOf"]]
        return st.one_of(*(f for f, _ in pairs)), st.one_of(*(n for _, n in pairs))
    kind = schema.get("type")
    if kind == "string":
        return _string(schema)
    if kind in ("integer", "number"):
        return _number(schema, kind == "integer")
    if kind == "boolean":
        return st.booleans(), st.booleans()
    if kind == "null":
        return st.none(), st.none()
    if kind == "array":
        fits_item, near_item = from_schema(schema.get("items", {}))
        low = schema.get("minItems", schema.get("minLength", 0))
        high = schema.get("maxItems", schema.get("maxLength", 4))
        return st.lists(fits_item, min_size=low, max_size=min(high, 4)), st.lists(
            near_item, max_size=high + 1
        )
    return JSON, JSON


@functools.cache
def _fields(
    name: str,
) -> tuple[tuple[str, bool, st.SearchStrategy[Any], st.SearchStrategy[Any]], ...]:
    """Each field of a tool: required or not, and the strategies of its values (built once:
    a strategy from a regular expression is costly to build, cheap to draw from)."""
    schema = next(c for c in contracts() if c.name == name).input_schema()
    required = set(schema.get("required", []))
    props: dict[str, Any] = schema.get("properties", {})
    return tuple((f, f in required, *from_schema(s)) for f, s in props.items())


@functools.cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    contract = next(c for c in contracts() if c.name == name)
    return jsonschema.Draft202012Validator(
        contract.input_schema(), format_checker=jsonschema.FormatChecker()
    )


@st.composite
def arguments(draw: st.DrawFn, contract: ToolContract) -> dict[str, Any]:
    """Arguments for one tool. Clean ones (what a careful model sends: required fields, values
    the schema allows) or loose ones: each field left out, near its schema or any JSON at
    all, and now and then a field the schema does not have."""
    clean = draw(st.booleans())
    out: dict[str, Any] = {}
    for name, required, fits, near in _fields(contract.name):
        how = draw(st.integers(0, 9))
        if how < 3 and not (clean and required):
            continue
        out[name] = draw(fits if clean else near if how < 9 else JSON)
    if not clean and draw(st.integers(0, 3)) == 0:
        out[draw(st.text(min_size=1, max_size=8))] = draw(JSON)
    return out


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, dict[str, Any], str, str]:
    """(tool name, arguments, role, time mode): mostly real tools, sometimes a made-up name."""
    if draw(st.integers(0, 19)) == 0:
        name = draw(st.text(max_size=20) | st.sampled_from(["k8s.scale", "k8s.inventory "]))
        args = draw(st.dictionaries(st.text(max_size=6), JSON, max_size=3))
    else:
        contract = draw(st.sampled_from(contracts()))
        name, args = contract.name, draw(arguments(contract))
    return (
        name,
        args,
        draw(st.sampled_from(["engineer", "admin"])),
        draw(st.sampled_from(["now", "historical"])),
    )


def _context(role: str, mode: str) -> CallContext:
    at = NOW - timedelta(hours=2) if mode == "historical" else None
    time = TimeSpec(at=at, mode=mode)  # type: ignore[arg-type]
    return CallContext(user="alice", role=role, scope=Scope(time=time), now=NOW)  # type: ignore[arg-type]


def _model_accepts(contract: ToolContract, args: dict[str, Any]) -> bool:
    try:
        contract.args_model.model_validate(args)
    except ValidationError:
        return False
    return True


_FIELD = re.compile(r"(?:^|; )(?P<where>[^:;]+?): ")


def assert_names_a_field(error: str, contract: ToolContract, args: dict[str, Any]) -> None:
    schema = contract.input_schema()
    props = set(schema.get("properties", {}))
    for extra in set(args) - props:
        assert repr(extra) in error or extra in error, f"extra {extra!r} not named: {error[:400]}"
    for missing in set(schema.get("required", [])) - set(args):
        assert repr(missing) in error, f"missing {missing!r} not named: {error[:400]}"
    first = _FIELD.match(error)
    assert first is not None, f"no field before the reason: {error[:400]}"
    head = first["where"].split(".")[0]
    if head == "(arguments)":
        # a rule over several fields ("give node or nodes"): the reason names one of them
        named = (
            repr(p) in error or re.search(rf"(?<!\w){re.escape(p)}(?!\w)", error)
            for p in props | set(args)
        )
        assert any(named), f"no field named: {error[:400]}"
    else:
        assert head in props | set(args), f"{head!r} is not a field: {error[:400]}"


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """One event loop for every example: a loop per example costs more than the call."""
    runner = asyncio.new_event_loop()
    yield runner
    runner.close()


@TIER
@given(call=calls())
@example(
    call=(
        "k8s.pod_logs",
        {"env": "dc-a", "namespace": "x", "pod": "p", "grep": "("},
        "engineer",
        "now",
    )
)
@example(call=("metrics.node_network", {"env": "dc-a", "nodes": ["a"] * 9}, "engineer", "now"))
@example(call=("net.tcp_check", {"host": "10.0.0.1", "port": 65536}, "engineer", "now"))
@example(call=("k8s.events", {"env": "dc-a", "namespace": "x", "start": "2026-07-20T11:00:00",
                              "end": "2026-07-20T10:00:00Z"}, "engineer", "now"))  # fmt: skip
def test_the_gate_accepts_or_refuses_naming_the_field(
    loop: asyncio.AbstractEventLoop, call: tuple[str, dict[str, Any], str, str]
) -> None:
    name, args, role, mode = call
    sent = json.loads(json.dumps(args))  # what a model's JSON decodes to (NaN included)
    policy, recorder = gate()
    recorder.calls.clear()
    with capture_logs() as logs:
        result = loop.run_until_complete(policy.call(name, sent, _context(role, mode)))
    if result.status == "denied":
        # each refusal is logged with its tool and kind, and without the arguments
        (entry,) = [e for e in logs if e["event"] == "gate.denied"]
        assert entry["tool"] == name and entry["reason_kind"] == result.error_kind
        assert set(entry) == {"event", "log_level", "tool", "reason_kind", "user"}, entry
    event(f"{result.status} {result.error_kind or ''}")
    contract = next((c for c in contracts() if c.name == name), None)
    if contract is None:
        assert result.status == "denied" and result.error_kind is ErrorKind.UNKNOWN_TOOL
        assert repr(name) in (result.error or "")
        return
    schema_ok = validator(name).is_valid(sent)
    valid = schema_ok and _model_accepts(contract, sent)
    if result.status == "denied" and result.error_kind is ErrorKind.NOT_ADMITTED:
        assert contract.agent.admin_only and role != "admin"
        assert "admins only" in (result.error or "")
    elif result.status == "denied" and result.error_kind is ErrorKind.CURRENT_ONLY:
        assert valid and contract.agent.current_only and mode == "historical"
        assert name in (result.error or "")
    elif result.status == "denied":
        assert result.error_kind is ErrorKind.INVALID_ARGUMENTS, result
        assert not valid, f"valid arguments refused: {sent!r}: {result.error}"
        assert_names_a_field(result.error or "", contract, sent)
        assert recorder.calls == []
    else:
        assert valid, f"invalid arguments reached the tool: {sent!r}"
        ((called, model),) = recorder.calls
        assert called == name and isinstance(model, contract.args_model)
        assert result.scope.env in (None, *contract.enums.get("env", []))
