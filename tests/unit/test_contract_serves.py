"""`ToolContract.serves`: the one answer to "does this tool serve this objective?" that
routing, the guard and the model planner share."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from policy.contracts import AgentMeta, ToolContract


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str


def _contract(evidence: list[str], envs: list[str] | None) -> ToolContract:
    meta = AgentMeta(
        evidence=evidence,
        sources=["kubernetes"],
        output_kind="objects",
        freshness="live",
        negative_semantics="complete_read",
        supports_history=False,
        current_only=True,
        read_only=True,
    )
    enums = {} if envs is None else {"env": envs}
    return ToolContract(
        name="k8s.pods", description="pods", args_model=_Args, agent=meta, enums=enums
    )


def test_a_tool_serves_an_objective_that_accepts_one_of_its_kinds() -> None:
    c = _contract(["k8s.pod", "k8s.events"], ["dc-a"])
    assert c.serves(["metrics.restarts", "k8s.events"])
    assert not c.serves(["metrics.restarts"])
    assert c.evidence_for(["k8s.events", "k8s.pod"]) == ["k8s.pod", "k8s.events"]


def test_a_tool_with_a_closed_set_of_envs_serves_only_those() -> None:
    c = _contract(["k8s.pod"], ["dc-a"])
    assert c.serves(["k8s.pod"], "dc-a")
    assert not c.serves(["k8s.pod"], "dc-b")
    assert c.serves(["k8s.pod"])  # no env asked: the kinds decide


def test_a_tool_without_an_env_argument_serves_every_env() -> None:
    c = _contract(["ci.job"], None)
    assert c.serves_env("dc-b") and c.serves(["ci.job"], "stage")
