"""The turn follows the evidence to what is behind the object asked about: the Service a
failed call names, the workload whose pod address it names, the one workload running the
software it names; a host named without a path reads every Service it routes to."""

from __future__ import annotations

from datetime import UTC, datetime

from planner.plan.routing import Discovered, PlannedCall
from planner.question.context import build_context
from planner.question.objects import InventoryItem
from planner.read.executor import CallRecord
from planner.turn.discovery import learn
from policy.facts import AppLog, EntityKind, FactAttrs, K8sPlacement
from policy.results import Coverage, IngressRoute, ResultFact, ToolResult
from policy.scope import Scope

NOW = datetime(2026, 11, 3, 9, 30, tzinfo=UTC)
ENV = "prod-2"


def _item(name: str, kind: str, ns: str = "money", **kw: object) -> InventoryItem:
    kind_of = EntityKind(kind)
    return InventoryItem(env=ENV, namespace=ns, name=name, kind=kind_of, **kw)  # type: ignore[arg-type]


INVENTORY = [
    _item("ledger-web", "deployment"),
    _item("acct-store", "statefulset", images=("mirror.example/db/postgres:15.6",)),
    _item("acct-store-rw", "service"),
    _item("fx-rates", "deployment"),
    _item("hot-cache", "statefulset", images=("docker.io/bitnami/redis:7.2.4",)),
    _item("other-cache", "statefulset", ns="search", images=("docker.io/bitnami/redis:7.2.4",)),
    _item("public-in", "ingress", routes=(
        IngressRoute(host="ledger.corp.example", path="/", service="ledger-web"),
        IngressRoute(host="ledger.corp.example", path="/api/fx", service="fx-rates"),
    )),
]  # fmt: skip


def _record(*attrs: FactAttrs) -> CallRecord:
    facts = [
        ResultFact(text=str(getattr(a, "message", "")), source="t", observed_at=NOW, attrs=a)
        for a in attrs
    ]
    result = ToolResult(
        tool="logs.app_logs",
        scope=Scope(env=ENV),
        status="ok",
        observed_at=NOW,
        coverage=Coverage(source="elasticsearch/app-*", total=len(facts), returned=len(facts)),
        facts=facts,
    )
    call = PlannedCall("logs.app_logs", "{}", ENV, "elasticsearch", ("app.errors",))
    return CallRecord(call_id="c1", call=call, result=result, duration_ms=1, attempts=1)


def _followed(question: str, *attrs: FactAttrs) -> list[str]:
    context = build_context(question, envs=[ENV], inventory=INVENTORY, now=NOW, tz=UTC)
    discovered = Discovered()
    learn([_record(*attrs)], context, INVENTORY, discovered)
    return [name for name, _ in discovered.objects.get(ENV, [])]


def _log(message: str) -> AppLog:
    return AppLog(service="ledger-web", message=message)


def test_a_failed_call_is_followed_to_the_service_its_host_names() -> None:
    line = "pq: dial tcp: connect acct-store-rw.money.svc:5432: connection refused"
    assert _followed("why does ledger-web in prod-2 answer 500?", _log(line)) == ["acct-store-rw"]


def test_a_failed_call_to_a_pod_address_is_followed_to_that_pods_workload() -> None:
    line = "rpc error: code = Unavailable desc = dial tcp 10.244.3.17:50051: connect: refused"
    placed = K8sPlacement(pod="fx-rates-5c8d7b9f4-k2m4p", ip="10.244.3.17", namespace="money")
    followed = _followed("why does ledger-web in prod-2 answer 500?", _log(line), placed)
    assert followed == ["fx-rates"]


def test_the_software_a_line_names_is_followed_to_the_workload_running_it() -> None:
    line = "redis.exceptions.ResponseError: OOM command not allowed when used memory > 'maxmemory'."
    # two Redis run in the env: the one in the object's namespace is its dependency
    assert _followed("why does ledger-web in prod-2 answer 500?", _log(line)) == ["hot-cache"]
    pg = "(psycopg2.OperationalError) FATAL:  the database system is starting up"
    assert _followed("why does ledger-web in prod-2 answer 500?", _log(pg)) == ["acct-store"]


def test_a_line_that_is_no_failed_call_is_not_followed() -> None:
    line = "ValueError: invalid literal for int() with base 10: 'abc'"
    assert _followed("why does ledger-web in prod-2 answer 500?", _log(line)) == []


def test_a_host_named_without_a_path_reads_every_service_it_routes_to() -> None:
    context = build_context(
        "ledger.corp.example throws 503 since 10:00, why?",
        envs=[ENV],
        inventory=INVENTORY,
        now=NOW,
        tz=UTC,
    )
    assert [o.name for o in context.objects] == ["ledger-web", "fx-rates"]
    # a path names one route: only its Service is read
    pathed = build_context(
        "ledger.corp.example/api/fx throws 503", envs=[ENV], inventory=INVENTORY, now=NOW, tz=UTC
    )
    assert [o.name for o in pathed.objects] == ["fx-rates"]
