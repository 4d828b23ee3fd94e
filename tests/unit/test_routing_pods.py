"""Which pods a log read is bound to: the failing ones, the last run of a crashed one."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from connectors.kubernetes import KubernetesTarget, build_tools
from planner.plan.objectives import Objective
from planner.plan.routing import Block, Discovered, PodState, bind_arguments, needs_missing
from planner.question.context import InventoryItem, build_context

NOW = datetime(2026, 9, 1, 10, 0, tzinfo=UTC)
FAILING = Objective(
    id="k8s.pod_logs", title="log of the failing pods", required=False,
    evidence=["k8s.pod_logs"], needs=["failing_pod"],
)  # fmt: skip


def _logs_contract():  # type: ignore[no-untyped-def]
    tools = build_tools([KubernetesTarget(env="dc-a", url="http://127.0.0.1:9")])
    return next(t.contract for t in tools if t.contract.name == "k8s.pod_logs")


def _context():  # type: ignore[no-untyped-def]
    inventory = [InventoryItem(env="dc-a", kind="deployment", name="api", namespace="shop")]
    return build_context(
        "why does api in dc-a return 503?", envs=["dc-a"], inventory=inventory, now=NOW,
        tz=ZoneInfo("UTC"),
    )  # fmt: skip


def test_healthy_pods_alone_leave_the_failing_pod_log_unasked() -> None:
    found = Discovered()
    found.add_pod("dc-a", "api-1", "shop")
    blocked = needs_missing(FAILING, "dc-a", _context(), found)
    assert blocked is not None and blocked.kind is Block.NOT_OBSERVED
    assert "no pod was seen failing" in blocked.notes[0].sentence()


def test_a_pod_seen_running_then_seen_crashing_is_read_for_its_last_run() -> None:
    found = Discovered()
    found.add_pod("dc-a", "api-1", "shop")
    found.add_pod("dc-a", "api-2", "shop", PodState.UNREADY)
    found.add_pod("dc-a", "api-2", None, PodState.CRASHED)  # a later read saw it crash
    assert needs_missing(FAILING, "dc-a", _context(), found) is None
    calls, why = bind_arguments(_logs_contract(), FAILING, "dc-a", _context(), NOW, found)
    assert why is None
    assert [(c["pod"], c.get("previous"), c["namespace"]) for c in calls] == [
        ("api-2", True, "shop")
    ]


def test_a_pod_running_but_not_ready_is_read_for_its_current_run() -> None:
    """It never restarted: there is no last run, and its current log holds why its
    readiness probe fails."""
    found = Discovered()
    found.add_pod("dc-a", "api-1", "shop", PodState.UNREADY)
    calls, _ = bind_arguments(_logs_contract(), FAILING, "dc-a", _context(), NOW, found)
    assert [(c["pod"], c.get("previous")) for c in calls] == [("api-1", None)]


def test_the_names_in_front_of_one_object_are_never_given_to_another() -> None:
    from connectors.victoriametrics import MetricsTarget
    from connectors.victoriametrics import build_tools as vm_tools

    inventory = [
        InventoryItem(env="dc-a", kind="deployment", name="search-api", namespace="shop",
                      fronted_by=("search-http",)),
        InventoryItem(env="dc-a", kind="deployment", name="auth-api", namespace="shop"),
    ]  # fmt: skip
    context = build_context(
        "request rate of search-api and auth-api in dc-a", envs=["dc-a"], inventory=inventory,
        now=NOW, tz=ZoneInfo("UTC"),
    )  # fmt: skip
    tools = vm_tools([MetricsTarget(env="dc-a", url="http://127.0.0.1:9")])
    contract = next(t.contract for t in tools if t.contract.name == "metrics.http_requests")
    rate = Objective(id="r", title="r", required=True, evidence=["http.request_rate"],
                     needs=["object"])  # fmt: skip
    calls, _ = bind_arguments(contract, rate, "dc-a", context, NOW, Discovered())
    by_service = {c["service"]: c.get("fronts") for c in calls}
    assert by_service == {"search-api": ["search-http"], "auth-api": None}
