"""The Elasticsearch log tools through the policy gate, against the simulator over HTTP."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from connectors.elasticsearch import ElasticsearchTarget, build_tools
from connectors.elasticsearch._errorlog import classify, parse_line
from evals.simulators.host import WorldSimulators
from evals.world import World, load_world, world_from_data
from policy import CallContext, PolicyGate, Scope, TimeSpec, ToolResult, ToolSet
from policy.vocabulary import EDGE_ERROR_CLASSES, EVIDENCE_KINDS

EXAMPLE = (
    Path(__file__).resolve().parents[2] / "evals" / "scenarios" / "edge-502-too-big-header.yaml"
)
RID = "7f9e2c21a4b84d0c9e51b0d3f6a27c85"
NOW = datetime.fromisoformat("2026-07-20T14:40:00+03:00")
AT = datetime.fromisoformat("2026-07-20T14:11:00+03:00")


def ctx(env: str = "dc-a", role: str = "engineer") -> CallContext:
    scope = Scope(env=env, time=TimeSpec(at=AT, mode="historical"))
    return CallContext(user="alice", role=role, scope=scope, now=NOW)  # type: ignore[arg-type]


def example_world(faults: list[dict[str, Any]] | None = None) -> World:
    world = load_world(EXAMPLE)
    return world.model_copy(
        update={
            "environments": {"dc-a": ["logs"]},
            "faults": world_from_data(
                {"environments": {"dc-a": ["logs"]}, "faults": faults or []}
            ).faults,
        }
    )


@contextmanager
def gate_for(world: World, **target: Any) -> Iterator[tuple[PolicyGate, WorldSimulators]]:
    with WorldSimulators(world, stall_seconds=2) as sims:
        settings = {"timeout_s": 0.5, **target}
        tgt = ElasticsearchTarget(env="dc-a", url=sims.endpoints.envs["dc-a"].logs, **settings)
        yield PolicyGate(ToolSet(build_tools([tgt]))), sims


def facts_of(result: ToolResult, kind: str) -> list[Any]:
    return [f for f in result.facts if f.kind == kind]


async def trace(gate: PolicyGate, request_id: str = RID, **extra: Any) -> ToolResult:
    args = {"env": "dc-a", "request_id": request_id, **extra}
    return await gate.call("logs.request_trace", args, ctx())


# --- the public example -------------------------------------------------------------


async def test_request_trace_on_the_public_example():
    with gate_for(example_world()) as (gate, sims):
        result = await trace(gate)
    assert result.status == "ok", result.error
    assert result.evidence == {
        "edge.access_log": "found",
        "edge.error_log": "found",
        "app.log": "found",
    }
    assert result.coverage.complete_for_negative and not result.coverage.truncated

    (access,) = facts_of(result, "edge.access")
    assert access.attrs.status == 502 and access.attrs.connection == 884213
    assert access.attrs.upstream_addr == "10.42.3.17:8080"
    assert "502" in access.text and RID in access.text and access.link

    (error,) = facts_of(result, "edge.error")  # the 413 and the timeout are not attached
    assert error.attrs.error_class == "too_big_header"
    assert error.attrs.connection == 884213
    assert "upstream sent too big header while reading response header from upstream" in (
        error.text
    )
    assert error.observed_at == datetime.fromisoformat("2026-07-20T11:11:04+00:00")
    assert not any("too large body" in f.text or "timed out" in f.text for f in result.facts)

    (response,) = facts_of(result, "app.response")
    assert response.attrs.status == 302
    assert response.attrs.pod == "service-a-5d8f7c9b4-x2k9p"
    assert response.attrs.node == "worker-04"
    assert "Location header 1191 bytes" in response.text
    assert any("Location header 1191 bytes" in f.text for f in facts_of(result, "app.log"))
    assert ("pod/service-a-5d8f7c9b4-x2k9p", "runs_on", "node/worker-04") in {
        (r.src, r.rel, r.dst) for r in result.relations
    }
    reads = sims.query_log.matches(source="logs", env="dc-a")
    # no index configured: found by their fields (app-payments-2026.07.20 is app-payments-*)
    searched = {"/edge-access-*", "/edge-error-*", "/app-payments-*"}
    # each index pattern's fields are known before a query relies on them
    assert {r.path for r in reads} == {"/*/_field_caps"} | {
        f"{i}/{e}" for i in searched for e in ("_search", "_field_caps")
    }


async def test_request_id_prefix_and_unknown_request_id():
    with gate_for(example_world()) as (gate, _):
        short = await trace(gate, RID[:8])
        missing = await trace(gate, "deadbeefdeadbeefdeadbeefdeadbeef")
    assert facts_of(short, "edge.access")[0].attrs.request_id == RID
    assert missing.status == "empty" and missing.coverage.complete_for_negative
    assert missing.evidence == {
        "edge.access_log": "none_complete",
        "edge.error_log": "none_partial",
        "app.log": "none_complete",
    }
    assert any("cannot be tied" in w for w in missing.warnings)


# --- every edge error class, with a decoy on the same host --------------------------

CLASS_MESSAGES = [
    ("too_big_header", "upstream sent too big header while reading response header from upstream"),
    (
        "timeout",
        "upstream timed out (110: Connection timed out) while reading response header "
        "from upstream",
    ),
    (
        "connect_timeout",
        "upstream timed out (110: Connection timed out) while connecting to upstream",
    ),
    (
        "connection_refused",
        "connect() failed (111: Connection refused) while connecting to upstream",
    ),
    (
        "connection_reset",
        "recv() failed (104: Connection reset by peer) while reading response header from upstream",
    ),
    (
        "premature_close",
        "upstream prematurely closed connection while reading response header from upstream",
    ),
    ("invalid_header", "upstream sent invalid header while reading response header from upstream"),
    (
        "upstream_tls",
        "SSL_do_handshake() failed (SSL: error:0A000086:SSL routines::certificate "
        "verify failed) while SSL handshaking to upstream",
    ),
    (
        "upstream_tls",
        "upstream SSL certificate verify error: (10:certificate has expired) while "
        "SSL handshaking to upstream",
    ),
    ("no_live_upstreams", "no live upstreams while connecting to upstream"),
    ("client_body_too_large", "client intended to send too large body: 10485761 bytes"),
    ("other", "upstream server temporarily disabled while reading response header from upstream"),
]


def _line(conn: int, text: str, request: str, *, at: str = "11:11:04") -> str:
    return (
        f"2026/07/20 {at} [error] 2817#2817: *{conn} {text}, client: 198.51.100.23, "
        f'server: pay.example.com, request: "{request}", upstream: '
        f'"http://10.42.3.17:8080/checkout/confirm", host: "pay.example.com"'
    )


def edge_world(
    text: str | None, *, parsed_fields: bool = True, faults: list[dict[str, Any]] | None = None
) -> World:
    access = {
        "@timestamp": "2026-07-20T11:11:04.387Z",
        "request_id": RID,
        "edge_node": "edge-02",
        "connection": 5001,
        "host": "pay.example.com",
        "method": "POST",
        "path": "/checkout/confirm",
        "status": 502,
        "upstream_status": "502",
        "upstream_addr": "10.42.3.17:8080",
        "request_time": 0.046,
    }
    decoy_text = (
        "upstream timed out (110: Connection timed out) while reading response header"
        if text and "too large body" in text
        else "client intended to send too large body: 10485761 bytes"
    )
    errors = [
        {
            "@timestamp": "2026-07-20T11:11:05.000Z",
            "edge_node": "edge-02",
            "connection": 5002,
            "host": "pay.example.com",
            "request": "POST /upload HTTP/1.1",
            "message": _line(5002, decoy_text, "POST /upload HTTP/1.1", at="11:11:05"),
        }
    ]
    if text is not None:
        doc: dict[str, Any] = {
            "@timestamp": "2026-07-20T11:11:04.000Z",
            "message": _line(5001, text, "POST /checkout/confirm HTTP/1.1"),
        }
        if parsed_fields:
            doc.update(
                {
                    "edge_node": "edge-02",
                    "connection": 5001,
                    "host": "pay.example.com",
                    "request": "POST /checkout/confirm HTTP/1.1",
                }
            )
        errors.append(doc)
    return world_from_data(
        {
            "environments": {"dc-a": ["logs"]},
            "logs": {
                "dc-a": {
                    "edge-access-2026.07.20": [access],
                    "edge-error-2026.07.20": errors,
                    "app-payments-2026.07.20": [],
                }
            },
            "faults": faults or [],
        }
    )


@pytest.mark.parametrize(("error_class", "text"), CLASS_MESSAGES)
async def test_every_edge_error_class_is_classified_and_decoys_stay_out(error_class, text):
    with gate_for(edge_world(text)) as (gate, _):
        result = await trace(gate)
    (error,) = facts_of(result, "edge.error")
    assert error.attrs.error_class == error_class
    assert text in error.text and error.attrs.connection == 5001
    assert not any("5002" in f.text or "/upload" in f.text for f in result.facts)
    assert result.evidence["edge.error_log"] == "found"
    assert any("1 other line in" in w for w in result.warnings)


def test_classifier_covers_the_vocabulary_and_parses_nginx_lines():
    assert {c for c, _ in CLASS_MESSAGES} == set(EDGE_ERROR_CLASSES)
    tls_reset = (
        "peer closed connection in SSL handshake (104: Connection reset by peer) while "
        "SSL handshaking to upstream"
    )
    assert classify(tls_reset) == "upstream_tls"
    parsed = parse_line(_line(884213, CLASS_MESSAGES[0][1], "POST /checkout/confirm HTTP/1.1"))
    assert parsed["connection"] == 884213 and parsed["host"] == "pay.example.com"
    assert parsed["request"] == "POST /checkout/confirm HTTP/1.1"
    assert parsed["text"] == CLASS_MESSAGES[0][1]


async def test_error_line_without_parsed_fields_is_tied_by_its_message():
    with gate_for(edge_world(CLASS_MESSAGES[1][1], parsed_fields=False)) as (gate, _):
        result = await trace(gate)
    (error,) = facts_of(result, "edge.error")
    assert error.attrs.error_class == "timeout" and error.attrs.connection == 5001


async def test_no_correlated_line_is_said_and_no_cause_is_guessed():
    with gate_for(edge_world(None)) as (gate, _):
        result = await trace(gate)
    assert facts_of(result, "edge.error") == []
    assert result.evidence["edge.error_log"] == "none_complete"
    assert any("does not establish the cause of its 502" in w for w in result.warnings)


async def test_unreadable_error_log_is_a_failed_sub_read_not_an_empty_one():
    fault = {"source": "logs", "env": "dc-a", "kind": "unsupported", "index": "edge-error-*"}
    with gate_for(example_world([fault])) as (gate, _):
        result = await trace(gate)
    assert result.status == "partial" and not result.coverage.complete_for_negative
    assert result.evidence == {
        "edge.access_log": "found",
        "edge.error_log": "failed",
        "app.log": "found",
    }
    assert any("index pattern edge-error-* is not served in dc-a" in w for w in result.warnings)
    assert any("does not establish the cause of its 502" in w for w in result.warnings)
    assert facts_of(result, "edge.error") == []


# --- faults through the tools ---------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        ({"kind": "timeout"}, "timeout"),
        ({"kind": "http_error", "status": 503}, "unavailable"),
        ({"kind": "malformed"}, "malformed"),
        ({"kind": "forbidden"}, "forbidden"),
        ({"kind": "unsupported"}, "unsupported"),
    ],
)
async def test_whole_source_faults_become_errors(fault: dict[str, Any], kind: str):
    with gate_for(example_world([{"source": "logs", "env": "dc-a", **fault}])) as (gate, sims):
        started = time.monotonic()
        result = await trace(gate)
        app = await gate.call("logs.app_logs", {"env": "dc-a"}, ctx())
        elapsed = time.monotonic() - started
    for res in (result, app):
        assert res.status == "error" and res.error_kind == kind, res.error
        assert not res.coverage.complete_for_negative and "dc-a" in (res.error or "")
    assert elapsed < 3.0  # request_timeout is passed: no waiting out the stall
    assert sims.query_log.matches(source="logs", env="dc-a")


async def test_forbidden_app_index_leaves_the_edge_evidence():
    fault = {"source": "logs", "env": "dc-a", "kind": "forbidden", "index": "app-*"}
    with gate_for(example_world([fault])) as (gate, _):
        result = await trace(gate)
    assert result.status == "partial"
    assert result.evidence["app.log"] == "failed"
    assert result.evidence["edge.error_log"] == "found"
    assert any("access denied (403 security_exception" in w for w in result.warnings)


async def test_truncated_app_log_is_partial_and_says_read_n_of_at_least_m():
    fault = {"source": "logs", "env": "dc-a", "kind": "truncate", "index": "app-*", "max_hits": 1}
    with gate_for(example_world([fault])) as (gate, _):
        result = await gate.call("logs.app_logs", {"env": "dc-a", "namespace": "payments"}, ctx())
    assert result.status == "partial"
    assert not result.coverage.complete_for_negative and result.coverage.truncated
    assert not result.coverage.total_is_exact
    assert "read 1 of >= 1" in (result.coverage.note or "")
    assert result.evidence["app.log"] == "found"


# --- paging, limits, the other tools -------------------------------------------------


async def test_app_logs_pages_with_search_after():
    with gate_for(example_world(), page_size=2) as (gate, sims):
        result = await gate.call("logs.app_logs", {"env": "dc-a", "service": "service-a"}, ctx())
    assert result.status == "ok" and result.coverage.complete_for_negative
    assert len(facts_of(result, "app.log")) == 4
    searches = [r for r in sims.query_log.matches("logs", "dc-a") if r.path.endswith("_search")]
    bodies = [r.body for r in searches]
    assert len(bodies) == 2 and "search_after" not in bodies[0]
    second = datetime.fromisoformat("2026-07-20T11:11:04.318+00:00")
    assert bodies[1]["search_after"][0] == int(second.timestamp() * 1000)


async def test_app_logs_limit_is_honest_about_what_was_left():
    with gate_for(example_world()) as (gate, _):
        result = await gate.call("logs.app_logs", {"env": "dc-a", "limit": 2}, ctx())
        errors = await gate.call("logs.app_logs", {"env": "dc-a", "level": "error"}, ctx())
    assert result.status == "partial" and "read 2 of 4" in (result.coverage.note or "")
    assert errors.status == "empty" and errors.coverage.complete_for_negative


async def test_app_logs_service_absence_is_proven_only_when_every_line_names_a_service():
    unnamed = [
        {
            "@timestamp": "2026-07-20T11:11:00Z",
            "message": "boom",
            "level": "ERROR",
            "kubernetes": {"pod": "worker-7c9f-abcde", "namespace": "payments"},
        }
    ]
    world = world_from_data(
        {"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": {"app-1": unnamed}}}
    )
    with gate_for(example_world()) as (gate, _):
        named = await gate.call("logs.app_logs", {"env": "dc-a", "service": "service-z"}, ctx())
    with gate_for(world) as (gate, _):
        unknown = await gate.call("logs.app_logs", {"env": "dc-a", "service": "service-z"}, ctx())
        by_pod = await gate.call("logs.app_logs", {"env": "dc-a", "service": "worker"}, ctx())
    assert named.status == "empty" and named.coverage.complete_for_negative
    assert unknown.status == "empty" and not unknown.coverage.complete_for_negative
    assert unknown.evidence == {"app.log": "none_partial"}
    assert any("absence is not proven" in w for w in unknown.warnings)
    assert [f.attrs.pod for f in by_pod.facts] == ["worker-7c9f-abcde"]


async def test_edge_errors_counts_and_classifies_the_window():
    with gate_for(example_world()) as (gate, _):
        result = await gate.call("logs.edge_errors", {"env": "dc-a"}, ctx())
        pay = await gate.call("logs.edge_errors", {"env": "dc-a", "host": "pay.example.com"}, ctx())
        by_service = await gate.call(
            "logs.edge_errors", {"env": "dc-a", "service": "service-a", "status": 502}, ctx()
        )
        timeouts = await gate.call("logs.edge_errors", {"env": "dc-a", "status": 504}, ctx())
    statuses = {
        f.attrs.status: f.attrs.count
        for f in facts_of(result, "edge.access")
        if f.attrs.status is not None and f.attrs.count is not None
    }
    assert statuses == {502: 1, 504: 1}
    classes = {f.attrs.error_class: f.attrs.count for f in facts_of(result, "edge.error")}
    assert classes == {"too_big_header": 1, "timeout": 1, "client_body_too_large": 1}
    assert result.coverage.complete_for_negative
    # with a filter, only the error lines tied to the matching requests count: the 413's
    # line on the same host, and the other host's lines, stay out
    pay_classes = {f.attrs.error_class for f in facts_of(pay, "edge.error")}
    assert pay_classes == {"too_big_header"}
    assert pay.coverage.complete_for_negative
    assert {f.attrs.error_class for f in facts_of(timeouts, "edge.error")} == {"timeout"}
    # the edge log names no service: nothing found there is not a negative
    assert by_service.status == "empty" and not by_service.coverage.complete_for_negative
    assert any("filter by host instead" in w for w in by_service.warnings)
    assert facts_of(by_service, "edge.error") == []
    assert by_service.evidence == {
        "edge.access_log": "none_partial",
        "edge.error_log": "none_partial",
    }


async def test_edge_errors_spike_across_two_hosts():
    access = [
        {
            "@timestamp": f"2026-07-20T11:11:{s:02d}Z",
            "host": host,
            "status": 502,
            "upstream_addr": addr,
            "edge_node": "edge-01",
            "connection": 100 + s,
        }
        for s, host, addr in [
            (1, "a.example.com", "10.0.0.1:80"),
            (2, "b.example.com", "10.0.0.2:80"),
            (3, "a.example.com", "10.0.0.1:80"),
        ]
    ]
    world = world_from_data(
        {
            "environments": {"dc-a": ["logs"]},
            "logs": {"dc-a": {"edge-access-1": access, "edge-error-1": [], "app-1": []}},
        }
    )
    with gate_for(world) as (gate, _):
        result = await gate.call("logs.edge_errors", {"env": "dc-a", "limit": 1}, ctx())
    hosts = {
        f.attrs.host: f.attrs.count
        for f in facts_of(result, "edge.access")
        if f.attrs.count is not None and f.attrs.host is not None
    }
    assert hosts == {"a.example.com": 2, "b.example.com": 1}
    timeline = next(f for f in result.facts if f.attrs.timeline is not None)
    assert timeline.attrs.timeline == [{"at": "2026-07-20T11:11:00.000Z", "count": 3}]
    assert timeline.observed_at == datetime.fromisoformat("2026-07-20T11:11:03+00:00")
    assert result.evidence == {"edge.access_log": "found", "edge.error_log": "none_complete"}
    assert result.coverage.complete_for_negative  # counts are exact; examples are not all


async def test_log_search_is_bounded_to_configured_patterns():
    with gate_for(example_world()) as (gate, _):
        hit = await gate.call(
            "logs.search",
            {"env": "dc-a", "index": "edge-error-*", "query": 'message:"too big header"'},
            ctx(role="admin"),
        )
        denied = await gate.call(
            "logs.search", {"env": "dc-a", "index": ".security-*", "query": "*"}, ctx(role="admin")
        )
        too_many = await gate.call(
            "logs.search",
            {"env": "dc-a", "index": "app-*", "query": "*", "limit": 500},
            ctx(role="admin"),
        )
        broken = await gate.call(
            "logs.search",
            {"env": "dc-a", "index": "app-*", "query": "message:("},
            ctx(role="admin"),
        )
        engineer = await gate.call(
            "logs.search", {"env": "dc-a", "index": "app-*", "query": "*"}, ctx()
        )
    assert engineer.status == "denied" and "admins only" in (engineer.error or "")
    (fact,) = hit.facts
    assert fact.kind == "logs.hit" and "upstream sent too big header" in fact.text
    assert denied.status == "denied" and "index" in (denied.error or "")
    assert too_many.status == "denied"
    assert broken.status == "error" and broken.error_kind == "unsupported"


async def test_missing_index_pattern_and_missing_env_are_unsupported():
    world = world_from_data(
        {"environments": {"dc-a": ["logs"], "dc-b": []}, "logs": {"dc-a": {"edge-access-1": []}}}
    )
    with gate_for(world) as (gate, sims):
        app = await gate.call("logs.app_logs", {"env": "dc-a"}, ctx())
        base = sims.endpoints.envs["dc-a"].logs.rsplit("/logs/", 1)[0]
        other = ElasticsearchTarget(env="dc-b", url=base + "/logs/dc-b", timeout_s=0.5)
        gate_b = PolicyGate(ToolSet(build_tools([other])))
        b = await gate_b.call("logs.app_logs", {"env": "dc-b"}, ctx("dc-b"))
    assert app.error_kind == "unsupported"
    assert app.error and "index pattern app-* is not served in dc-a" in app.error
    assert b.status == "error" and b.error_kind == "unsupported"


async def test_contracts_are_valid_and_truthful():
    target = ElasticsearchTarget(env="dc-a", url="http://127.0.0.1:9")
    gate = PolicyGate(ToolSet(build_tools([target])))
    assert {c.name for c in gate.contracts(ctx())} == {
        "logs.request_trace",
        "logs.edge_errors",
        "logs.app_logs",
        "logs.app_errors",
        "logs.inventory",
    }  # logs.search is admin-only: hidden from an engineer
    contracts = gate.contracts(ctx(role="admin"))
    assert {c.name for c in contracts} == {
        "logs.request_trace",
        "logs.edge_errors",
        "logs.app_logs",
        "logs.app_errors",
        "logs.inventory",
        "logs.search",
    }
    for contract in contracts:
        schema = contract.input_schema()
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
        assert schema["properties"]["env"]["enum"] == ["dc-a"]
        assert set(contract.agent.evidence) <= set(EVIDENCE_KINDS)
        assert contract.agent.read_only is True
    extra = await gate.call("logs.request_trace", {"env": "dc-a", "request_id": RID, "x": 1}, ctx())
    assert extra.status == "denied"
    backwards = await gate.call(
        "logs.app_logs",
        {"env": "dc-a", "start": "2026-07-20T12:00:00Z", "end": "2026-07-20T11:00:00Z"},
        ctx(),
    )
    assert backwards.status == "denied"
    with pytest.raises(ValueError):
        ElasticsearchTarget(env="x", url="http://h", discover_url_template="{nope}")


def _unknown_layout_world() -> World:
    """The same 502 under names no preset knows (a house layout nobody configured)."""
    doc = {
        "@timestamp": "2026-07-20T11:11:04.387Z",
        "resp": {"code": 502},
        "req": {"uid": RID},
        "vh": "pay.example.com",
        "line": "upstream sent too big header while reading response header from upstream",
    }
    app = {"@timestamp": "2026-07-20T11:11:04.300Z", "message": "POST /checkout/confirm 302",
           "k8s": {"pod": {"name": "service-a-5d8f7c9b4-x2k9p"}}}  # fmt: skip
    return world_from_data(
        {
            "environments": {"dc-a": ["logs"]},
            "logs": {
                "dc-a": {
                    "edge-access-2026.07.20": [doc],
                    "edge-error-2026.07.20": [doc],
                    "app-payments-2026.07.20": [app],
                }
            },
        }
    )


@pytest.mark.parametrize(
    ("tool", "args", "lacked"),
    [
        ("logs.request_trace", {"request_id": RID}, "request_id"),
        ("logs.edge_errors", {"status": 502}, "status"),
        ("logs.app_logs", {"service": "service-a"}, "service"),
        ("logs.app_errors", {"service": "service-a"}, "service"),
        ("logs.app_logs", {"request_id": RID}, "request_id"),
    ],
)
async def test_a_layout_without_the_field_a_tool_filters_on_is_a_named_gap(
    tool: str, args: dict[str, Any], lacked: str
) -> None:
    """Never "complete read, nothing found" over fields the index does not have: the read
    is incomplete and names the field and the index."""
    with gate_for(_unknown_layout_world()) as (gate, _):
        result = await gate.call(tool, {"env": "dc-a", **args}, ctx())
    assert not result.coverage.complete_for_negative, result.coverage
    note = result.coverage.note or ""
    assert "has no field" in note and lacked in note, note
    assert not any(f.kind == "negative" for f in result.facts)


def _flask_world() -> World:
    """A Flask app's log shipped by Fluent Bit (kubernetes.pod_name, a traceback joined into
    one document), among normal lines of the same pods."""

    def doc(at: str, message: str, pod: str = "cashback-api-7d5c9b8f6-6jjk9") -> dict[str, Any]:
        return {"@timestamp": at, "stream": "stderr", "message": message,
                "kubernetes": {"namespace_name": "rewards", "pod_name": pod}}  # fmt: skip

    trace = (
        "[2026-07-20 11:05:13,292] ERROR in app: Exception on /api/v1/summary [GET]\n"
        "Traceback (most recent call last):\n"
        '  File "/app/summary.py", line 41, in summary\n'
        "    cur.execute(SQL)\n"
        "psycopg2.errors.UndefinedColumn: column a.tier_multiplier does not exist"
    )
    docs = [doc(f"2026-07-20T11:0{i}:00.000Z", f"[x] INFO in app: stored {i}") for i in range(6)]
    docs += [doc(f"2026-07-20T11:0{i}:13.292Z", trace) for i in (5, 6)]
    docs.append(doc("2026-07-20T11:07:00.000Z", trace, pod="cashback-api-7d5c9b8f6-4ksh9"))
    return world_from_data(
        {"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": {"app-rewards-2026.07.20": docs}}}
    )


async def test_app_errors_groups_a_shipped_traceback_by_its_exception_across_pods() -> None:
    args = {"env": "dc-a", "namespace": "rewards", "service": "cashback-api"}
    with gate_for(_flask_world()) as (gate, _):
        result = await gate.call("logs.app_errors", args, ctx())
    assert result.status == "ok", result.error
    (only,) = facts_of(result, "log.template")
    assert only.attrs.count == 3 and only.attrs.level == "ERROR"
    assert only.attrs.example.endswith(
        "psycopg2.errors.UndefinedColumn: column a.tier_multiplier does not exist"
    )
    assert set(only.attrs.origins or []) == {
        "cashback-api-7d5c9b8f6-6jjk9",
        "cashback-api-7d5c9b8f6-4ksh9",
    }
    assert result.coverage.complete_for_negative


async def test_an_old_index_with_the_field_does_not_vouch_for_the_window() -> None:
    """Last week's index still has top-level `status`; the window's index has a layout
    nobody configured. The field check is of the window's indices, so it is still a gap."""
    data = _unknown_layout_world().model_dump(mode="json")
    data["logs"]["dc-a"]["edge-access-2026.07.10"] = [
        {"@timestamp": "2026-07-10T10:00:00.000Z", "status": 200, "host": "pay.example.com"}
    ]
    with gate_for(World.model_validate(data)) as (gate, _):
        result = await gate.call("logs.edge_errors", {"env": "dc-a", "status": 502}, ctx())
    assert not result.coverage.complete_for_negative
    assert "has no field" in (result.coverage.note or "")


def test_an_object_path_answers_only_exists() -> None:
    """Filebeat's `host` is an object ({name: edge-1}): a term on it matches nothing."""
    from connectors.elasticsearch._needs import unmet

    fields = {"host": frozenset({"object"}), "host.name": frozenset({"text"})}
    assert unmet({"term": {"host": "x"}}, fields) == [["host"]]
    assert unmet({"exists": {"field": "host"}}, fields) == []
    assert unmet({"term": {"host.name.keyword": "edge-1"}}, fields) == []


async def test_app_errors_reads_a_stated_level_whatever_the_message_and_says_what_it_skipped() -> (
    None
):
    def doc(at: str, **kw: Any) -> dict[str, Any]:
        return {"@timestamp": at, "kubernetes": {"namespace_name": "rewards",
                "pod_name": "cashback-api-7d5c9b8f6-6jjk9"}, **kw}  # fmt: skip

    docs = [
        doc("2026-07-20T11:05:00.000Z", level="error", message="errorCode=PAYMENT_DECLINED"),
        doc("2026-07-20T11:06:00.000Z", level=50, message="payment provider call"),
        doc("2026-07-20T11:07:00.000Z", level="info", message="0 failed jobs"),
    ]
    world = world_from_data(
        {"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": {"app-rewards-2026.07.20": docs}}}
    )
    args = {"env": "dc-a", "namespace": "rewards", "service": "cashback-api"}
    with gate_for(world) as (gate, _):
        result = await gate.call("logs.app_errors", args, ctx())
    templates = facts_of(result, "log.template")
    # the word level (whatever the message holds) and pino's 50; the INFO line is none
    assert sorted(str(f.attrs.level) for f in templates) == ["ERROR", "ERROR"]


async def test_a_phrase_logged_in_the_exception_beside_the_line_is_found_and_counted():
    """ECS puts an exception's text in `error.message`, not `message`: a count of a phrase
    said 0 times, complete, where every error line held it."""
    lines = [
        {
            "@timestamp": f"2026-07-20T11:1{i}:00Z",
            "log.level": "ERROR",
            "service.name": "checkout",
            "message": "Request processing failed: Failed to obtain JDBC Connection",
            "error.type": "java.sql.SQLTransientConnectionException",
            "error.message": "HikariPool-1 - Connection is not available, request timed out",
        }
        for i in range(3)
    ]
    world = world_from_data(
        {"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": {"app-1": lines}}}
    )
    args = {"env": "dc-a", "service": "checkout", "text": "Connection is not available"}
    with gate_for(world) as (gate, _):
        result = await gate.call("logs.app_logs", args, ctx())
        absent = await gate.call("logs.app_logs", {**args, "text": "deadlock detected"}, ctx())
    assert len(facts_of(result, "app.log")) == 3 and result.coverage.complete_for_negative
    assert absent.status == "empty" and absent.coverage.complete_for_negative
