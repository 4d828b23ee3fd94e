"""What makes turns fast must not change what they answer: schemas built once stay per
contract, resources close once, kept inventory ages on the turn's clock, and the log
SDK is loaded only when a log is read."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, ConfigDict

from planner.read.inventory_cache import InventoryCache
from policy.contracts import ToolContract
from policy.results import Coverage, ToolResult
from policy.scope import Scope
from policy.toolset import CallContext, FunctionTool, ToolSet
from tests.unit.toolkit import agent

NOW = datetime(2026, 7, 20, 11, 0, tzinfo=UTC)


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")
    env: str


def _contract(name: str, envs: list[str]) -> ToolContract:
    meta = agent(["inventory"], "kubernetes", output_kind="objects", freshness="live")
    return ToolContract(
        name=name, description="d", args_model=_Args, agent=meta, enums={"env": envs}
    )


def _result(status: str = "ok", source: str = "kubernetes/dc-a") -> ToolResult:
    return ToolResult(
        tool="k8s.inventory",
        status=status,  # type: ignore[arg-type]
        scope=Scope(env="dc-a"),
        coverage=Coverage(source=source, complete_for_negative=True),
    )


def test_contracts_of_one_argument_model_keep_their_own_environments() -> None:
    a, b = _contract("t.one", ["dc-a"]), _contract("t.two", ["dc-b", "stage"])
    assert a.input_schema()["properties"]["env"]["enum"] == ["dc-a"]
    assert b.input_schema()["properties"]["env"]["enum"] == ["dc-b", "stage"]
    assert a.input_schema() is a.input_schema()  # built once per contract
    assert a.input_schema()["additionalProperties"] is False


async def test_a_shared_resource_is_closed_once() -> None:
    closed: list[str] = []

    class Pool:
        async def aclose(self) -> None:
            closed.append("pool")

    async def run(args: BaseModel, ctx: object) -> ToolResult:
        return _result()

    pool = Pool()
    tools = ToolSet(
        [
            FunctionTool(_contract("t.one", ["dc-a"]), run, resources=(pool,)),
            FunctionTool(_contract("t.two", ["dc-a"]), run, resources=(pool,)),
        ]
    )
    await tools.aclose()
    assert closed == ["pool"]


def test_kept_inventory_ages_on_the_turn_clock() -> None:
    cache = InventoryCache(timedelta(seconds=60))
    cache.put("k8s.inventory", "dc-a", _result(), NOW)
    kept = cache.get("k8s.inventory", "dc-a", NOW + timedelta(seconds=59))
    assert kept is not None and kept.observed_at == NOW
    assert cache.get("k8s.inventory", "dc-b", NOW) is None
    # a turn about an earlier moment than the read cannot use it, nor a turn too late
    assert cache.get("k8s.inventory", "dc-a", NOW - timedelta(seconds=1)) is None
    cache.put("k8s.inventory", "dc-a", _result(), NOW)
    assert cache.get("k8s.inventory", "dc-a", NOW + timedelta(seconds=61)) is None


def test_failed_reads_are_never_kept_and_a_failure_drops_what_was() -> None:
    cache = InventoryCache(timedelta(seconds=60))
    cache.put("k8s.inventory", "dc-a", _result("error"), NOW)
    assert cache.get("k8s.inventory", "dc-a", NOW) is None
    cache.put("k8s.inventory", "dc-a", _result(), NOW)
    cache.put("k8s.inventory", "dc-b", _result(source="kubernetes/dc-b"), NOW)
    cache.invalidate([("kubernetes", "dc-a")])
    assert cache.get("k8s.inventory", "dc-a", NOW) is None
    assert cache.get("k8s.inventory", "dc-b", NOW) is not None


def test_a_zero_ttl_keeps_nothing() -> None:
    cache = InventoryCache(timedelta(0))
    cache.put("k8s.inventory", "dc-a", _result(), NOW)
    assert cache.get("k8s.inventory", "dc-a", NOW) is None


def test_the_log_and_gitlab_sdks_load_only_when_used() -> None:
    code = (
        "import sys, bot.wiring, connectors.elasticsearch, connectors.gitlab;"
        "print(sorted(m for m in ('elasticsearch', 'gitlab', 'aiohttp') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_a_partial_inventory_is_not_kept() -> None:
    cache = InventoryCache(timedelta(seconds=60))
    partial = _result("partial")
    cut = _result().model_copy(
        update={"coverage": Coverage(source="kubernetes/dc-a", truncated=True)}
    )
    cache.put("k8s.inventory", "dc-a", partial, NOW)
    cache.put("k8s.inventory", "dc-b", cut, NOW)
    assert cache.get("k8s.inventory", "dc-a", NOW) is None
    assert cache.get("k8s.inventory", "dc-b", NOW) is None


def test_a_name_the_kept_lists_lack_is_noticed() -> None:
    from planner.question.context import InventoryItem, names_not_listed

    listed = [InventoryItem(env="dc-a", namespace="shop", name="catalog-api", kind="deployment")]
    envs = ["dc-a", "dc-b"]
    assert names_not_listed("а что с catalog-worker в dc-a?", inventory=listed, envs=envs) == [
        "catalog-worker"
    ]
    assert names_not_listed("почему catalog-api в dc-a?", inventory=listed, envs=envs) == []
    pod = "логи catalog-api-7d9f-x2 в dc-b"
    assert names_not_listed(pod, inventory=listed, envs=envs) == []


def test_every_missing_input_or_observation_is_the_same_kind_of_gap() -> None:
    """A question without a job id leaves its objective open exactly as one without a
    request_id does: the kind decides, not the sentence."""
    from zoneinfo import ZoneInfo

    from planner.plan.objectives import Objective
    from planner.plan.routing import Block, Discovered, needs_missing
    from planner.question.context import build_context
    from policy.gaps import GapReason

    context = build_context(
        "что случилось?", envs=["dc-a"], inventory=[], now=NOW, tz=ZoneInfo("UTC")
    )
    kinds = {}
    for need in (
        "request_id", "object", "namespace", "promql", "log_query", "job_id", "host",
        "node", "pod", "address",
    ):  # fmt: skip
        objective = Objective(
            id=f"o.{need}", title=need, required=True, evidence=["x"], needs=[need]
        )
        blocked = needs_missing(objective, "dc-a", context, Discovered())
        assert blocked is not None, need
        kinds[need] = blocked.kind
        assert blocked.leaves_unresolved, need
        assert [n.reason for n in blocked.notes] == [GapReason(blocked.kind.value)]
    assert {kinds[n] for n in ("node", "pod", "address")} == {Block.NOT_OBSERVED}
    assert {k for n, k in kinds.items() if n not in ("node", "pod", "address")} == {
        Block.MISSING_INPUT
    }
    for reason in (GapReason.NO_SOURCE, GapReason.NOT_BOUND, GapReason.SOURCE_DOWN):
        assert not reason.leaves_unresolved  # unavailable: no source could read it


async def test_every_connector_refuses_a_window_that_ends_before_it_starts() -> None:
    from connectors import elasticsearch, kubernetes, victoriametrics
    from policy.gate import PolicyGate

    tools = [
        *victoriametrics.build_tools([victoriametrics.MetricsTarget(env="dc-a", url="http://x")]),
        *kubernetes.build_tools([kubernetes.KubernetesTarget(env="dc-a", url="http://x")]),
        *elasticsearch.build_tools([elasticsearch.ElasticsearchTarget(env="dc-a", url="http://x")]),
    ]
    gate = PolicyGate(ToolSet(tools))
    ctx = CallContext(user="u", role="engineer", scope=Scope(), now=NOW)
    bad = {"start": "2026-07-20T12:00:00Z", "end": "2026-07-20T11:00:00Z"}
    for name, args in (
        ("metrics.http_errors", {"env": "dc-a", "service": "a"}),
        ("k8s.events", {"env": "dc-a", "namespace": "n"}),
        ("logs.edge_errors", {"env": "dc-a"}),
    ):
        result = await gate.call(name, args | bad, ctx)
        assert result.status == "denied" and result.error_kind == "invalid_arguments", name
        assert "start must not be after end" in (result.error or ""), name
    await ToolSet(tools).aclose()
