"""One edge 502 in the layouts real shippers write: the same cause, found the same way.

Flat nginx JSON, Filebeat's nginx module (ECS, access and error events in one index) and
ingress-nginx's JSON access log shipped by Fluent Bit (the controller's error lines in
`log`, in the same index) all go through the real client to the simulator, which maps
each as Elasticsearch's dynamic mapping would (strings as text with a keyword sub-field).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest

from connectors.elasticsearch import ElasticsearchTarget, build_tools
from connectors.elasticsearch._discovery import pattern_of
from connectors.elasticsearch._reader import LogReader, time_range
from evals.simulators.host import WorldSimulators
from evals.world import World, world_from_data
from policy.gate import PolicyGate
from policy.results import ToolResult
from policy.scope import Scope, TimeSpec
from policy.toolset import CallContext, ToolSet

AT = datetime(2026, 7, 20, 11, 11, tzinfo=UTC)
NOW = datetime(2026, 7, 20, 12, 0, tzinfo=UTC)
RID = "7c1f9e2a4b6d8f00a1b2c3d4e5f60718"
WHEN = "2026-07-20T11:11:04.387Z"
HOST = "pay.example.com"
LINE = (
    "upstream sent too big header while reading response header from upstream, client: "
    f'203.0.113.7, server: {HOST}, request: "POST /checkout/confirm HTTP/1.1", upstream: '
    f'"http://10.2.3.4:8080/checkout/confirm", host: "{HOST}"'
)


def _noise(at: str) -> dict[str, Any]:
    return {"@timestamp": at, "status": 200, "host": "www.example.com", "request_id": "0" * 32}


def flat() -> tuple[World, dict[str, Any]]:
    access = {"@timestamp": WHEN, "request_id": RID, "status": 502, "host": HOST,
              "method": "POST", "path": "/checkout/confirm", "upstream_addr": "10.2.3.4:8080",
              "upstream_status": "502", "connection": 884213, "edge_node": "edge-1",
              "request_time": 0.012}  # fmt: skip
    error = {"@timestamp": WHEN, "edge_node": "edge-1",
             "message": f"2026/07/20 11:11:04 [error] 31#31: *884213 {LINE}"}  # fmt: skip
    logs = {"edge-access-2026.07.20": [access, _noise("2026-07-20T11:10:00.000Z")],
            "edge-error-2026.07.20": [error]}  # fmt: skip
    return world_from_data({"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": logs}}), {}


def ecs() -> tuple[World, dict[str, Any]]:
    """As Filebeat's nginx module leaves it after its ingest pipelines (access and error
    filesets into one index; the error header parsed off `message`)."""
    access = {
        "@timestamp": WHEN,
        "event": {"dataset": "nginx.access", "module": "nginx"},
        "http": {"request": {"method": "POST", "id": RID}, "response": {"status_code": 502}},
        "url": {"domain": HOST, "path": "/checkout/confirm", "original": "/checkout/confirm"},
        "source": {"address": "203.0.113.7"},
        "host": {"name": "edge-1"},
        "ecs": {"version": "8.0.0"},
    }
    error = {
        "@timestamp": WHEN,
        "event": {"dataset": "nginx.error", "module": "nginx"},
        "log": {"level": "error"},
        "nginx": {"error": {"connection_id": 884213}},
        "process": {"pid": 31, "thread": {"id": 31}},
        "host": {"name": "edge-1"},
        "message": LINE,
    }
    other = {
        "@timestamp": "2026-07-20T11:10:00.000Z",
        "host": {"name": "edge-1"},
        "http": {"response": {"status_code": 200}},
        "url": {"domain": "www.example.com"},
    }
    logs = {"filebeat-8.14.3-2026.07.20": [access, error, other]}
    world = world_from_data({"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": logs}})
    return world, {"edge_access_index": "filebeat-*", "edge_error_index": "filebeat-*"}


def ingress_nginx() -> tuple[World, dict[str, Any]]:
    """ingress-nginx's JSON log-format-upstream (values as strings), shipped by Fluent Bit
    with Merge_Log; the controller's error line is plain text in `log`."""
    pod = {"pod_name": "ingress-nginx-controller-7c9f5-x8r2d", "namespace_name": "ingress-nginx",
           "container_name": "controller"}  # fmt: skip
    access = {
        "@timestamp": WHEN,
        "stream": "stdout",
        "request_id": RID,
        "status": "502",
        "vhost": HOST,
        "path": "/checkout/confirm",
        "method": "POST",
        "upstream_addr": "10.2.3.4:8080",
        "upstream_status": "502",
        "proxy_upstream_name": "payments-service-a-8080",
        "request_time": "0.012",
        "kubernetes": pod,
    }
    error = {
        "@timestamp": WHEN,
        "stream": "stderr",
        "log": f"2026/07/20 11:11:04 [error] 31#31: *884213 {LINE}",
        "kubernetes": pod,
    }
    other = {**access, "@timestamp": "2026-07-20T11:10:00.000Z", "status": "200",
             "vhost": "www.example.com", "request_id": "0" * 32,
             "proxy_upstream_name": "web-frontend-80"}  # fmt: skip
    logs = {"logstash-2026.07.20": [access, error, other]}
    world = world_from_data({"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": logs}})
    return world, {"edge_access_index": "logstash-*", "edge_error_index": "logstash-*"}


LAYOUTS = [flat, ecs, ingress_nginx]


def ctx() -> CallContext:
    scope = Scope(env="dc-a", time=TimeSpec(at=AT, mode="historical"))
    return CallContext(user="alice", role="engineer", scope=scope, now=NOW)  # type: ignore[arg-type]


@contextmanager
def gate_for(world: World, **target: Any) -> Iterator[PolicyGate]:
    with WorldSimulators(world, stall_seconds=2) as sims:
        settings = {"timeout_s": 1.0, **target}
        tgt = ElasticsearchTarget(env="dc-a", url=sims.endpoints.envs["dc-a"].logs, **settings)
        yield PolicyGate(ToolSet(build_tools([tgt])))


def of(result: ToolResult, kind: str) -> list[Any]:
    return [f.attrs for f in result.facts if f.kind == kind]


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda f: f.__name__)
async def test_a_request_is_traced_to_its_error_line_in_every_layout(layout: Any) -> None:
    world, target = layout()
    with gate_for(world, **target) as gate:
        result = await gate.call("logs.request_trace", {"env": "dc-a", "request_id": RID}, ctx())
    assert result.status in ("ok", "partial"), result.error  # some worlds have no app log
    (access,) = of(result, "edge.access")
    assert int(access.status) == 502 and access.host == HOST
    assert access.path == "/checkout/confirm" and access.method == "POST"
    (error,) = of(result, "edge.error")
    assert error.error_class == "too_big_header" and error.request_id == RID
    assert error.host == HOST


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda f: f.__name__)
async def test_a_host_s_5xx_counts_and_their_cause_are_the_same_in_every_layout(
    layout: Any,
) -> None:
    world, target = layout()
    with gate_for(world, **target) as gate:
        result = await gate.call("logs.edge_errors", {"env": "dc-a", "host": HOST}, ctx())
    assert result.status == "ok", result.error
    counted = {(a.status, a.count) for a in of(result, "edge.access") if a.count is not None}
    assert (502, 1) in counted, counted
    classes = {(e.error_class, e.count) for e in of(result, "edge.error")}
    assert classes == {("too_big_header", 1)}, classes
    assert result.coverage.complete_for_negative, result.coverage.note


async def test_the_healthy_host_has_no_5xx_and_it_is_a_complete_read_in_the_ecs_layout() -> None:
    """A negative is proven only where the fields were there to look at."""
    world, target = ecs()
    with gate_for(world, **target) as gate:
        result = await gate.call(
            "logs.edge_errors", {"env": "dc-a", "host": "www.example.com"}, ctx()
        )
    assert not of(result, "edge.error")
    assert not [a for a in of(result, "edge.access") if a.count]
    assert result.coverage.complete_for_negative, result.coverage.note


def _house_layout() -> World:
    access = {"@timestamp": WHEN, "resp": {"code": 502}, "vh": HOST, "req": {"uid": RID}}
    error = {"@timestamp": WHEN, "message": f"2026/07/20 11:11:04 [error] 31#31: *884213 {LINE}"}
    logs = {"edge-access-2026.07.20": [access], "edge-error-2026.07.20": [error]}
    return world_from_data({"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": logs}})


async def test_a_house_layout_is_a_gap_naming_what_was_looked_for_until_it_is_configured() -> None:
    with gate_for(_house_layout()) as gate:
        unknown = await gate.call("logs.edge_errors", {"env": "dc-a", "status": 502}, ctx())
    note = unknown.coverage.note or ""
    assert not unknown.coverage.complete_for_negative
    assert "http.response.status_code" in note and "status" in note, note
    override = {"edge-access-*": {"fields": {"status": ["resp.code"], "host": ["vh"],
                                             "request_id": ["req.uid"]}}}  # fmt: skip
    with gate_for(_house_layout(), layouts=override) as gate:
        known = await gate.call("logs.edge_errors", {"env": "dc-a", "status": 502}, ctx())
    counted = {(a.status, a.count) for a in of(known, "edge.access") if a.count is not None}
    assert (502, 1) in counted, counted
    assert {a.host for a in of(known, "edge.access") if a.host} == {HOST}


def test_a_layout_override_with_an_unknown_preset_or_field_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"fields\.stat"):
        ElasticsearchTarget(env="dc-a", url="http://h", layouts={"x-*": {"fields": {"stat": []}}})
    with pytest.raises(ValueError, match="preset"):
        ElasticsearchTarget(
            env="dc-a", url="http://h", layouts={"app-*": {"preset": "no-such-layout"}}
        )


# --- discovery: no index configured ---------------------------------------------------


def test_daily_rollover_and_data_stream_indices_are_read_through_their_patterns() -> None:
    assert pattern_of("filebeat-8.14.3-2026.07.20") == "filebeat-8.14.3-*"
    assert pattern_of("logstash-2026.07.20") == "logstash-*"
    assert pattern_of("app-payments-2026-07-20") == "app-payments-*"
    assert pattern_of(".ds-logs-nginx.access-default-2026.07.20-000001") == (
        "logs-nginx.access-default"
    )
    assert pattern_of("edge-logs-000003") == "edge-logs-*"
    assert pattern_of("service-a") == "service-a"


def _shipped_world() -> World:
    """What a cluster's shippers leave: Filebeat's nginx module, a Fluent Bit index of
    every container's log, Kubernetes audit events, and Kibana's own index."""
    (ecs_world, _), (fb_world, _) = ecs(), ingress_nginx()
    logs = {
        **ecs_world.logs["dc-a"],
        **fb_world.logs["dc-a"],
        "k8s-audit-2026.07.20": [
            {
                "@timestamp": WHEN,
                "auditID": "5d0c",
                "verb": "patch",
                "stage": "ResponseComplete",
                "user": {"username": "alice"},
                "objectRef": {
                    "resource": "deployments",
                    "name": "service-a",
                    "namespace": "payments",
                },
            }
        ],
        ".kibana_8.14.3_001": [{"@timestamp": WHEN, "type": "config", "message": "x"}],
    }
    return world_from_data({"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": logs}})


async def test_unconfigured_indices_are_found_by_their_fields_and_read() -> None:
    with WorldSimulators(_shipped_world(), stall_seconds=2) as sims:
        target = ElasticsearchTarget(env="dc-a", url=sims.endpoints.envs["dc-a"].logs)
        reader = LogReader(target)
        try:
            found = await reader.resolved()
        finally:
            await reader.aclose()
        assert set(found.edge_access_index.split(",")) == {"filebeat-8.14.3-*", "logstash-*"}
        # Filebeat's nginx errors are in its own index, the controller's in Fluent Bit's
        assert set(found.edge_error_index.split(",")) == {"filebeat-8.14.3-*", "logstash-*"}
        assert found.app_index == "logstash-*"  # Kubernetes pod metadata with a message
        assert found.audit_index == "k8s-audit-*"
        assert found.discovered == {
            "edge_access_index", "edge_error_index", "app_index", "audit_index"
        }  # fmt: skip
        gate = PolicyGate(ToolSet(build_tools([target])))
        result = await gate.call("logs.request_trace", {"env": "dc-a", "request_id": RID}, ctx())
    assert {(int(a.status), a.host) for a in of(result, "edge.access")} == {(502, HOST)}
    assert {e.error_class for e in of(result, "edge.error")} == {"too_big_header"}
    assert "logstash-*" in (result.coverage.note or "")


async def test_a_configured_pattern_is_never_second_guessed() -> None:
    with WorldSimulators(_shipped_world(), stall_seconds=2) as sims:
        target = ElasticsearchTarget(
            env="dc-a", url=sims.endpoints.envs["dc-a"].logs, edge_access_index="logstash-*"
        )
        reader = LogReader(target)
        try:
            found = await reader.resolved()
        finally:
            await reader.aclose()
    assert found.edge_access_index == "logstash-*"
    assert "edge_access_index" not in found.discovered
    assert "filebeat-8.14.3-*" in found.edge_error_index


async def test_a_record_holding_the_host_under_two_names_is_counted_once() -> None:
    world, target = ecs()
    data = world.model_dump(mode="json")
    for doc in data["logs"]["dc-a"]["filebeat-8.14.3-2026.07.20"]:
        if "url" in doc:
            doc["destination"] = {"domain": doc["url"]["domain"]}
    with gate_for(World.model_validate(data), **target) as gate:
        result = await gate.call("logs.edge_errors", {"env": "dc-a", "host": HOST}, ctx())
    by_host = [a for a in of(result, "edge.access") if a.count is not None and a.host]
    assert [(a.host, a.count) for a in by_host] == [(HOST, 1)]


def _app_world() -> World:
    """Fluent Bit with Merge_Log_Key (the parsed JSON under log_processed) and Filebeat ECS
    with the exception in error.* fields beside a message that does not name it."""
    pod = {"pod_name": "payout-api-6f9b7c8d4-zr5wq", "namespace_name": "payouts"}
    wrapped = {"@timestamp": WHEN, "log": "{...}", "kubernetes": pod, "log_processed": {
        "message": "Ledger unavailable, rejecting payout", "level": "WARN", "requestId": RID,
        "stack_trace": "io.github.resilience4j.circuitbreaker.CallNotPermittedException: "
                       "CircuitBreaker 'ledger' is OPEN\n\tat x.y(Z.java:1)"}}  # fmt: skip
    other = {**wrapped, "log_processed": {"message": "ok", "level": "INFO", "requestId": "1"}}
    ecs_doc = {"@timestamp": WHEN, "message": "Failed to publish item batch",
               "log": {"level": "ERROR"}, "kubernetes": {"pod": {"name": "sync-1"},
               "namespace": "merch"}, "error": {"type": "org.apache.kafka.common.errors."
               "RecordTooLargeException", "message": "The message is 1350000 bytes"}}  # fmt: skip
    logs = {"k8s-2026.07.20": [wrapped, other], "ecs-apps-2026.07.20": [ecs_doc]}
    return world_from_data({"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": logs}})


async def test_a_wrapped_request_id_is_found_and_the_logged_exception_is_read() -> None:
    with gate_for(_app_world(), app_index="k8s-*") as gate:
        result = await gate.call("logs.app_logs", {"env": "dc-a", "request_id": RID}, ctx())
    (line,) = of(result, "app.log")
    assert line.request_id == RID and line.level == "WARN"
    assert "CircuitBreaker 'ledger' is OPEN" in line.message


async def test_an_ecs_error_type_makes_the_template_of_an_error_line() -> None:
    with gate_for(_app_world(), app_index="ecs-apps-*") as gate:
        result = await gate.call("logs.app_errors", {"env": "dc-a", "namespace": "merch"}, ctx())
    (template,) = of(result, "log.template")
    assert "RecordTooLargeException" in template.example, template.example


async def test_an_ingress_upstream_name_places_records_only_with_the_namespace_known() -> None:
    """`payments-service-a-8080` is service-a of namespace payments; without the namespace
    it could be another service's, so it proves nothing either way."""
    world, target = ingress_nginx()
    args = {"env": "dc-a", "service": "service-a", "status": 502}
    with gate_for(world, **target) as gate:
        unscoped = await gate.call("logs.edge_errors", args, ctx())
        scoped = await gate.call("logs.edge_errors", {**args, "namespace": "payments"}, ctx())
    assert not [a for a in of(unscoped, "edge.access") if a.count]
    assert not unscoped.coverage.complete_for_negative  # records name no service field
    counted = {(a.status, a.count) for a in of(scoped, "edge.access") if a.count is not None}
    assert (502, 1) in counted, counted


async def test_a_named_port_with_dashes_still_places_the_record() -> None:
    world, target = ingress_nginx()
    data = world.model_dump(mode="json")
    for doc in data["logs"]["dc-a"]["logstash-2026.07.20"]:
        if doc.get("proxy_upstream_name") == "payments-service-a-8080":
            doc["proxy_upstream_name"] = "payments-service-a-http-web"
    args = {"env": "dc-a", "service": "service-a", "namespace": "payments", "status": 502}
    with gate_for(World.model_validate(data), **target) as gate:
        result = await gate.call("logs.edge_errors", args, ctx())
    counted = {(a.status, a.count) for a in of(result, "edge.access") if a.count is not None}
    assert (502, 1) in counted, counted


def filebeat_ingress() -> tuple[World, dict[str, Any]]:
    """Filebeat's nginx ingress_controller fileset: no host and no connection id on the
    access record, so the error line is tied by controller pod, path and upstream."""
    pod = {"pod": {"name": "ingress-nginx-controller-6b9f7d5c4-7hmzr"}, "namespace": "ingress"}
    dataset = {"dataset": "nginx.ingress_controller"}
    access = {"@timestamp": WHEN, "kubernetes": pod, "event": dataset,
              "http": {"request": {"method": "POST"}, "response": {"status_code": 502}},
              "url": {"original": "/checkout/confirm"},
              "nginx": {"ingress_controller": {"http": {"request": {"id": RID, "time": 0.012}},
                        "upstream": {"name": "payments-service-a-8080", "ip": "10.2.3.4",
                                     "port": 8080, "response": {"status_code": 502}},
                        "upstream_address_list": ["10.2.3.4:8080"]}}}  # fmt: skip
    error = {"@timestamp": WHEN, "kubernetes": pod, "stream": "stderr",
             "message": f"2026/07/20 11:11:04 [error] 31#31: *884213 {LINE}"}  # fmt: skip
    decoy = {**error, "message": error["message"].replace("10.2.3.4:8080", "10.2.3.9:8080")}
    logs = {"filebeat-8.14.3-2026.07.20": [access, error, decoy]}
    world = world_from_data({"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": logs}})
    return world, {"edge_access_index": "filebeat-*", "edge_error_index": "filebeat-*"}


async def test_a_layout_without_host_or_connection_ties_by_pod_path_and_upstream() -> None:
    world, target = filebeat_ingress()
    with gate_for(world, **target) as gate:
        result = await gate.call("logs.request_trace", {"env": "dc-a", "request_id": RID}, ctx())
    (access,) = of(result, "edge.access")
    assert access.upstream_addr == "10.2.3.4:8080" and access.upstream_name
    (error,) = of(result, "edge.error")  # the line for another upstream is not this request's
    assert error.error_class == "too_big_header"
    assert "upstream" in (error.correlated_by or [])


async def test_application_lines_in_a_shared_index_are_neither_access_records_nor_edge_errors():
    """Fluent Bit writes every container's log into one index: an application's own
    `status 502` line and its `Connection reset by peer` are not the edge's."""
    world, target = ingress_nginx()
    data = world.model_dump(mode="json")
    app_pod = {"pod_name": "service-a-5d8f7c9b4-x2k9p", "namespace_name": "payments"}
    data["logs"]["dc-a"]["logstash-2026.07.20"] += [
        {"@timestamp": WHEN, "kubernetes": app_pod, "status": 502, "method": "POST",
         "path": "/v1/pay", "log": "POST /v1/pay 502"},
        {"@timestamp": WHEN, "kubernetes": app_pod, "log":
         "java.net.SocketException: Connection reset by peer"},
    ]  # fmt: skip
    with gate_for(World.model_validate(data), **target, app_index="logstash-*") as gate:
        result = await gate.call("logs.edge_errors", {"env": "dc-a"}, ctx())
    counted = {(a.status, a.count) for a in of(result, "edge.access") if a.status is not None
               and a.count is not None}  # fmt: skip
    assert counted == {(502, 1)}, counted
    assert {e.error_class for e in of(result, "edge.error")} == {"too_big_header"}


async def test_documents_dated_by_another_field_are_never_a_complete_empty_read() -> None:
    """Vector's Elasticsearch sink writes `timestamp`, not `@timestamp`: an @timestamp
    range matches nothing there, which proves nothing. (The world format requires
    @timestamp, so the index's field capabilities are injected.)"""

    class VectorIndex(LogReader):
        def _fields(self, index: str, window: Any) -> Any:
            if window is None:  # the index has fields, none of them @timestamp
                return ({"timestamp": frozenset({"date"}), "message": frozenset({"text"})}, {})
            return ({}, {})  # and the window's range keeps no index

    reader = VectorIndex(ElasticsearchTarget(env="dc-a", url="http://127.0.0.1:9"))
    start, end = datetime(2026, 7, 20, 11, tzinfo=UTC), datetime(2026, 7, 20, 12, tzinfo=UTC)
    try:
        query = {"bool": {"filter": [time_range(start, end)]}}
        read = await reader.search("vector-*", query, limit=10)
    finally:
        await reader.aclose()
    assert not read.complete and read.missing == [["@timestamp"]]
    assert "@timestamp" in read.describe()


async def test_a_status_mapped_as_a_number_one_day_and_a_string_the_next_is_all_read() -> None:
    """The hits are all found; the per-status count cannot be whole, and says so."""
    one = {"@timestamp": "2026-07-20T11:10:00.000Z", "status": 502, "host": HOST,
           "upstream_addr": "10.2.3.4:8080"}  # fmt: skip
    two = {**one, "@timestamp": "2026-07-20T11:12:00.000Z", "status": "503"}
    logs = {"edge-access-2026.07.19": [one], "edge-access-2026.07.20": [two]}
    world = world_from_data({"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": logs}})
    with gate_for(world) as gate:
        result = await gate.call("logs.edge_errors", {"env": "dc-a", "host": HOST}, ctx())
    assert len(result.raw["access"]["hits"]) == 2
    by_status = [a for a in of(result, "edge.access") if a.status is not None and a.count]
    assert by_status and not any(a.count_is_exact for a in by_status)


async def test_numeric_levels_are_read_as_pino_writes_them() -> None:
    pod = {"pod_name": "cart-7d9f-x1", "namespace_name": "shop"}
    docs = [
        {"@timestamp": "2026-07-20T11:10:00.000Z", "level": 30, "msg": "cart saved",
         "kubernetes": pod},
        {"@timestamp": "2026-07-20T11:11:00.000Z", "level": 50, "msg": "redis ECONNREFUSED",
         "err": {"stack": "Error: connect ECONNREFUSED 10.0.0.5:6379"}, "kubernetes": pod},
    ]  # fmt: skip
    world = world_from_data(
        {"environments": {"dc-a": ["logs"]}, "logs": {"dc-a": {"app-shop-2026.07.20": docs}}}
    )
    with gate_for(world, app_index="app-*") as gate:
        errors = await gate.call("logs.app_logs", {"env": "dc-a", "level": "error"}, ctx())
        templates = await gate.call("logs.app_errors", {"env": "dc-a"}, ctx())
    assert [a.message.split(" | ")[0] for a in of(errors, "app.log")] == ["redis ECONNREFUSED"]
    assert any("ECONNREFUSED" in t.example for t in of(templates, "log.template"))


@pytest.mark.parametrize(
    ("upstreams", "found"),
    [
        (["10.2.3.4"], True),
        (["10.2.3.4:8080"], True),
        (["10.2.3.4:80"], False),  # another port is another upstream
        (["10.2.3.40"], False),  # not a prefix of another address
        (["10.9.9.9:81"], True),  # the retried one, later in the list
    ],
)
async def test_an_upstream_address_matches_whole(upstreams: list[str], found: bool) -> None:
    world, _ = flat()
    data = world.model_dump(mode="json")
    for doc in data["logs"]["dc-a"]["edge-access-2026.07.20"]:
        if doc.get("upstream_addr"):
            doc["upstream_addr"] = "10.2.3.4:8080, 10.9.9.9:81"
    args = {"env": "dc-a", "service": "service-a", "upstreams": upstreams}
    with gate_for(World.model_validate(data)) as gate:
        result = await gate.call("logs.edge_errors", args, ctx())
    counted = [a for a in of(result, "edge.access") if a.count]
    assert bool(counted) is found, counted
