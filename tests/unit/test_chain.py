"""The chain behind a symptom, told from typed facts: the object asked about, the calls
its log says failed, and the object behind them with its own state. A healthy peer's one
failed call is no chain."""

from __future__ import annotations

from datetime import UTC, datetime

from planner.conclude.chain import dependency_chain, workload_of
from planner.conclude.rule import IndexedFact
from policy.facts import (
    AppLog,
    FactAttrs,
    HttpRate,
    K8sDependency,
    K8sEvent,
    K8sLog,
    K8sNetworkPolicy,
    K8sPlacement,
    K8sPod,
    K8sWaiting,
    K8sWorkload,
    MetricsUsage,
    PolicyPeer,
)
from policy.language import Language
from policy.results import ResultFact

NOW = datetime(2026, 11, 3, 9, 30, tzinfo=UTC)


def _facts(*attrs: tuple[str, FactAttrs]) -> list[IndexedFact]:
    return [
        IndexedFact(i, ResultFact(text=text, source="test", observed_at=NOW, attrs=a), "prod")
        for i, (text, a) in enumerate(attrs)
    ]


SYMPTOM = (
    "ledger-web: 812 responses with status 500",
    HttpRate(what="errors", total=812, status="500", service="ledger-web"),
)
PG_DOWN = (
    'psycopg2.OperationalError: connection to server at "acct-store.money.svc" (10.96.1.9), '
    "port 5432 failed: Connection refused"
)
FULL = 'PANIC:  could not write to file "pg_wal/xlogtemp.31": No space left on device'
PG_IMAGE = "mirror.example/db/postgres:15.6"


def _app_errors(service: str, line: str, count: int) -> list[tuple[str, FactAttrs]]:
    return [(line, AppLog(service=service, pod=f"{service}-7d9f8c6b5-x{i}q2z", message=line))
            for i in range(count)]  # fmt: skip


def test_the_chain_goes_from_the_symptom_to_the_database_and_its_own_state() -> None:
    facts = _facts(
        SYMPTOM,
        *_app_errors("ledger-web", PG_DOWN, 3),
        ("acct-store-0 waiting", K8sWaiting(pod="acct-store-0", reason="CrashLoopBackOff")),
        ("acct-store-0 log", K8sLog(pod="acct-store-0", message=FULL)),
        ("pod", K8sPod(pod="acct-store-0", image=PG_IMAGE, phase="Running", ready=False)),
    )  # fmt: skip
    [finding] = dependency_chain(facts, frozenset({"ledger-web"}), Language.EN)
    text = finding.summary
    # symptom first, then the caller's failed calls, then the database's own state
    assert text.index("812 responses") < text.index("its calls") < text.index("acct-store:")
    assert "PostgreSQL" in text and "connection refused" in text
    assert "CrashLoopBackOff" in text and "No space left on device" in text
    assert finding.confidence == "high"
    assert 0 in finding.supported_by and 4 in finding.supported_by


def test_a_callee_named_only_by_its_pod_address_is_found_by_the_placement() -> None:
    line = (
        'rpc error: code = Unavailable desc = connection error: desc = "transport: Error while '
        'dialing: dial tcp 10.244.3.17:50051: connect: connection refused"'
    )
    facts = _facts(
        SYMPTOM,
        *_app_errors("ledger-web", line, 4),
        ("placement", K8sPlacement(pod="fx-rates-5c8d7b9f4-k2m4p", ip="10.244.3.17")),
        ("waiting", K8sWaiting(pod="fx-rates-5c8d7b9f4-k2m4p", reason="CrashLoopBackOff")),
    )  # fmt: skip
    [finding] = dependency_chain(facts, frozenset({"ledger-web"}), Language.RU)
    assert finding.summary.startswith("Цепочка:")
    assert "fx-rates: fx-rates-5c8d7b9f4-k2m4p CrashLoopBackOff" in finding.summary


def test_a_dependency_no_read_reached_is_still_named_from_the_callers_log() -> None:
    line = "redis.exceptions.ResponseError: OOM command not allowed when used memory > 'maxmemory'."
    facts = _facts(SYMPTOM, *_app_errors("ledger-web", line, 5))
    [finding] = dependency_chain(facts, frozenset({"ledger-web"}), Language.EN)
    assert "Redis" in finding.summary and "out of memory" in finding.summary
    assert finding.confidence == "medium"


def test_one_failed_call_of_a_healthy_peer_is_no_chain() -> None:
    line = "pq: canceling statement due to user request"
    peer = [(line, AppLog(service="stock-api", pod="stock-api-5d7c8b6f9c-gtjjg", message=line))]
    asked = frozenset({"ledger-web", "stock-api"})
    assert dependency_chain(_facts(SYMPTOM, *peer), asked, Language.EN) == []
    # nor is a failing object the question is not about
    many = _app_errors("stock-api", PG_DOWN, 6)
    assert dependency_chain(_facts(SYMPTOM, *many), frozenset({"ledger-web"}), Language.EN) == []


def test_a_pods_workload_is_read_from_its_name() -> None:
    assert workload_of("ledger-web-7d9f8c6b5-x0q2z") == "ledger-web"
    assert workload_of("acct-store-0") == "acct-store"
    assert workload_of("node-agent-k2m4p") == "node-agent"
    assert workload_of("standalone") == "standalone"


def test_a_timeout_naming_no_host_is_followed_to_the_callee_its_configuration_names() -> None:
    line = "rpc error: code = DeadlineExceeded desc = context deadline exceeded"
    facts = _facts(
        SYMPTOM,
        *_app_errors("ledger-web", line, 4),
        ("setting", K8sDependency(workload="ledger-web", host="fx-rates.money.svc", port=9090,
                                  setting="configmap ledger-web key app.yaml")),
        ("setting", K8sDependency(workload="ledger-web", host="audit-sink.money.svc", port=9090,
                                  setting="configmap ledger-web key app.yaml")),
        ("usage", MetricsUsage(pod="fx-rates-5c8d7b9f4-k2m4p", resource="cpu", usage=0.5,
                               limit=0.5, throttled=0.86)),
        ("pod", K8sPod(pod="audit-sink-6f7d8c9b5-q2w3e", phase="Running", ready=True)),
    )  # fmt: skip
    [finding] = dependency_chain(facts, frozenset({"ledger-web"}), Language.EN)
    # of the two configured on that port, the one seen failing: held back by its CPU limit
    assert "← fx-rates: fx-rates-5c8d7b9f4-k2m4p throttled by its CPU limit" in finding.summary
    assert "86%" in finding.summary and "audit-sink" not in finding.summary
    assert 5 in finding.supported_by  # the setting that links them is cited


def test_a_kubelet_event_about_the_pod_is_its_state_not_a_call() -> None:
    probe = K8sEvent(
        object_kind="Pod", name="ledger-web-7d9f8c6b5-x0q2z", type="Warning", reason="Unhealthy",
        message='Liveness probe failed: Get "http://10.1.2.3:8081/live": context deadline exceeded',
    )  # fmt: skip
    facts = _facts(SYMPTOM, ("event", probe))
    assert dependency_chain(facts, frozenset({"ledger-web"}), Language.EN) == []


def test_a_network_policy_that_admits_none_of_the_callers_pods_is_the_callees_state() -> None:
    line = (
        'connection to server at "acct-store.money.svc" (10.96.1.9), port 5432 failed: '
        "timeout expired"
    )
    admits_bi = [[PolicyPeer(namespace_labels={"team": "bi"})]]
    facts = _facts(
        SYMPTOM,
        *_app_errors("ledger-web", "psycopg2.OperationalError: " + line, 3),
        ("web", K8sWorkload(name="ledger-web", namespace="money", pod_labels={"app": "ledger-web"},
                            namespace_labels={"team": "money"})),
        ("db", K8sWorkload(name="acct-store", namespace="money", pod_labels={"app": "pg"})),
        ("policy", K8sNetworkPolicy(name="pg-ingress", namespace="money", workload="acct-store",
                                    created="2026-11-03T08:58:14Z", ingress=admits_bi)),
    )  # fmt: skip
    [finding] = dependency_chain(facts, frozenset({"ledger-web"}), Language.EN)
    assert "NetworkPolicy money/pg-ingress" in finding.summary
    assert "lets no pod of ledger-web reach acct-store" in finding.summary
    # a rule that admits the caller's namespace is no block
    facts[-1] = IndexedFact(
        len(facts) - 1,
        ResultFact(text="p", source="t", observed_at=NOW, attrs=K8sNetworkPolicy(
            name="pg-ingress", namespace="money", workload="acct-store",
            ingress=[[PolicyPeer(namespace_labels={"team": "money"})]])),
        "prod",
    )  # fmt: skip
    found = dependency_chain(facts, frozenset({"ledger-web"}), Language.EN)
    assert all("NetworkPolicy" not in f.summary for f in found)
