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
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from policy.bounded_text import bounded
from policy.errors import ErrorKind
from policy.facts import EntityKind, FactAttrs, FactKind, RelationKind
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

    def what_was_read(self) -> str:
        """The one sentence for how much of a cut read came back: the source's own note,
        else "read N of M" ("of >= M" for an estimate, "of more" with no total)."""
        if self.note:
            return self.note
        of = ">= " if not self.total_is_exact else ""
        return f"read {self.returned} of {of}{self.total if self.total is not None else 'more'}"


class IngressRoute(BaseModel):
    """One rule of an Ingress: requests for `host` (any host when empty) whose path starts
    with `path` go to `service`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str
    path: str
    service: str


class Entity(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: EntityKind
    name: str
    env: str | None = None
    namespace: str | None = None
    attrs: dict[str, Any] = Field(
        default_factory=dict,
        description="what the source said of it (replicas, images, selector), for reading; "
        "the planner follows relations, never these",
    )
    routes: list[IngressRoute] = Field(
        default_factory=list, description="an Ingress's rules: host + path -> Service"
    )
    images: list[str] = Field(
        default_factory=list,
        description="the images a workload's pods run: which software it is (a database, "
        "a cache) when an error names the software and not the workload",
    )
    addresses: list[str] = Field(
        default_factory=list,
        description="a Service's cluster IPs: a client's error names the Service by address",
    )


class Relation(BaseModel):
    """An observed edge of the infrastructure graph (service -> endpoints -> pod -> node)."""

    model_config = ConfigDict(extra="forbid")

    src: str  # "kind/name"
    rel: RelationKind
    dst: str
    source: str
    observed_at: datetime | None = None


class ResultFact(BaseModel):
    """One observation a tool can vouch for: its text, time, source and a link.

    `attrs` is the typed model of its kind (policy/facts.py); `kind` is read from it. A
    fact may also be written `ResultFact(kind=..., attrs={...})`: the mapping is then
    validated into that kind's model, and an unknown attribute is an error."""

    model_config = ConfigDict(extra="forbid")

    # bounded before anything reads it (policy/bounded_text.py)
    text: Annotated[str, AfterValidator(bounded)]
    source: str
    observed_at: datetime | None = None
    link: str | None = None
    historical: bool = True
    attrs: FactAttrs

    @model_validator(mode="before")
    @classmethod
    def _kind_into_attrs(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "kind" not in data:
            return data
        data = dict(data)
        kind = FactKind(data.pop("kind"))
        attrs = data.get("attrs")
        if attrs is None or isinstance(attrs, dict):
            data["attrs"] = {**(attrs or {}), "kind": kind}
        elif getattr(attrs, "kind", None) != kind:
            raise ValueError(f"kind {kind} does not match attrs of kind {attrs.kind}")
        return data

    @property
    def kind(self) -> FactKind:
        return self.attrs.kind


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
    error_kind: ErrorKind | None = None
    raw: Any = Field(default=None, description="full raw data, kept in the turn workspace")

    @property
    def failed(self) -> bool:
        """The read brought nothing back: the source failed, or the gate refused it."""
        return self.status in ("error", "denied")

    @property
    def proves_absence(self) -> bool:
        """An empty result proves absence only with complete coverage."""
        return self.status == "empty" and self.coverage.complete_for_negative
