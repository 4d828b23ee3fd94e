"""What one tool call gathered, and the one place its result's status and coverage are
decided.

Every connector collects its facts, entities and relations here and says how completely
it read its scope (`complete`, `truncated`, a note per hole); `result()` then applies the
same rule for all of them ("nothing found" is not "no problem"):

    found, read complete      ok
    found, read incomplete    partial
    nothing found             empty; absence is proven only if the read was complete and
                              the source can prove absence at all (`proves_absence`)

A connector decides what "found" and "complete" mean for its source (a sub-read per
evidence kind, series cut by a cap, a paginated list); it never writes a status itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from policy.facts import EntityKind, RelationKind
from policy.results import (
    Coverage,
    Entity,
    EvidenceState,
    IngressRoute,
    Relation,
    ResultFact,
    ResultStatus,
    ToolResult,
)
from policy.scope import Scope

_NO_NAME = (None, "", "-", "None")


@dataclass
class Findings:
    """The facts, entities and relations of one call, without duplicates, and the holes
    in what it read. `env` is the env entities belong to unless one is given."""

    source: str
    env: str | None = None
    facts: list[ResultFact] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    complete: bool = True
    truncated: bool = False
    _seen: set[tuple[str, str, str | None]] = field(default_factory=set)
    _edges: set[tuple[str, str, str, datetime | None]] = field(default_factory=set)

    def gap(self, note: str) -> None:
        """A hole in the read: said in the coverage note and as a warning."""
        self.complete = False
        self.notes.append(note)
        self.warnings.append(note)

    def entity(
        self,
        kind: str,
        name: object,
        env: str | None = None,
        namespace: str | None = None,
        routes: list[IngressRoute] | None = None,
        images: list[str] | None = None,
        addresses: list[str] | None = None,
        **attrs: Any,
    ) -> None:
        """A node of the graph; an empty or placeholder name ("-") is not one."""
        if name in _NO_NAME:
            return
        key = (kind, str(name), namespace)
        if key in self._seen:
            return
        self._seen.add(key)
        self.entities.append(
            Entity(
                kind=EntityKind.of(kind),
                name=str(name),
                env=env or self.env,
                namespace=namespace,
                attrs=attrs,
                routes=routes or [],
                images=images or [],
                addresses=addresses or [],
            )
        )

    def relate(self, src: str, rel: str, dst: str, observed_at: datetime | None) -> None:
        """An edge `src rel dst` ("kind/name" each); one to an unnamed end is not one."""
        if src.partition("/")[2] in _NO_NAME or dst.partition("/")[2] in _NO_NAME:
            return
        key = (src, rel, dst, observed_at)
        if key in self._edges:  # a set: an inventory relates thousands of objects
            return
        self._edges.add(key)
        self.relations.append(
            Relation(
                src=src, rel=RelationKind(rel), dst=dst, source=self.source, observed_at=observed_at
            )
        )

    def result(
        self,
        tool: str,
        scope: Scope,
        *,
        returned: int,
        found: bool | None = None,
        proves_absence: bool = True,
        observed_at: datetime | None = None,
        limit: int | None = None,
        total: int | None = None,
        total_is_exact: bool = True,
        evidence: dict[str, EvidenceState] | None = None,
        raw: Any = None,
    ) -> ToolResult:
        """The call's result. `found` defaults to "some fact was made"; a tool whose facts
        can say an absence ("no quota in this namespace") passes it."""
        has_data = bool(self.facts) if found is None else found
        status: ResultStatus = "empty" if not has_data else "ok" if self.complete else "partial"
        observed = [f.observed_at for f in self.facts if f.observed_at is not None]
        return ToolResult(
            tool=tool,
            status=status,
            scope=scope,
            observed_at=observed_at or (max(observed) if observed else None),
            entities=self.entities,
            relations=self.relations,
            coverage=Coverage(
                source=self.source,
                complete_for_negative=self.complete and proves_absence,
                truncated=self.truncated,
                returned=returned,
                limit=limit,
                total=total,
                total_is_exact=total_is_exact,
                note="; ".join(self.notes) or None,
            ),
            facts=self.facts,
            warnings=self.warnings,
            evidence=evidence or {},
            raw=raw,
        )
