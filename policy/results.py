"""The normalised result of every tool call.

Status keeps apart what a user must never confuse:
    ok        data was returned
    empty     the read succeeded and returned nothing (coverage says if that proves absence)
    partial   some data, but the read was cut (truncation, a failed sub-read)
    error     the source failed (timeout, 5xx, malformed) -> a gap
    denied    the policy gate refused the call -> a gap
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from policy.scope import Scope

ResultStatus = Literal["ok", "empty", "partial", "error", "denied"]
EvidenceState = Literal["found", "none_complete", "none_partial", "failed"]
"""Per evidence kind, what one call established: data found; nothing, and the read was
complete (absence proven); nothing, but the read was partial (absence NOT proven); or the
sub-read failed."""


class Coverage(BaseModel):
    """What was actually read. Capability says a tool *can* search; this says it *did*."""

    model_config = ConfigDict(extra="forbid")

    source: str
    complete_for_negative: bool = False
    truncated: bool = False
    returned: int = 0
    limit: int | None = None
    total: int | None = None
    total_is_exact: bool = True
    note: str | None = None


class Entity(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str  # pod, node, service, deployment, ingress, pipeline, job, commit, user, host
    name: str
    env: str | None = None
    namespace: str | None = None
    attrs: dict[str, Any] = Field(default_factory=dict)


class Relation(BaseModel):
    """An observed edge of the infrastructure graph (service -> endpoints -> pod -> node)."""

    model_config = ConfigDict(extra="forbid")

    src: str  # "kind/name"
    rel: str  # selects, routes_to, runs_on, owned_by, deployed_by, ...
    dst: str
    source: str
    observed_at: datetime | None = None


class ResultFact(BaseModel):
    """One observation a tool can vouch for: its text, time, source and a link."""

    model_config = ConfigDict(extra="forbid")

    text: str
    kind: str = Field(description="machine tag, e.g. 'edge.error_class', 'k8s.oom_killed'")
    source: str
    observed_at: datetime | None = None
    link: str | None = None
    historical: bool = True
    attrs: dict[str, Any] = Field(default_factory=dict)


class ToolResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tool: str
    status: ResultStatus
    scope: Scope
    observed_at: datetime | None = None
    entities: list[Entity] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    coverage: Coverage
    facts: list[ResultFact] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    evidence: dict[str, EvidenceState] = Field(
        default_factory=dict,
        description="per evidence kind, for tools that close several kinds with sub-reads; "
        "empty means: derive from status for every kind the contract declares",
    )
    error: str | None = Field(default=None, description="why the call failed or was denied")
    error_kind: str | None = None
    raw: Any = Field(default=None, description="full raw data, kept in the turn workspace")

    @property
    def proves_absence(self) -> bool:
        """An empty result proves absence only with complete coverage."""
        return self.status == "empty" and self.coverage.complete_for_negative
