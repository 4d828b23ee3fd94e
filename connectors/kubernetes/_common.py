"""Small pure helpers shared by the Kubernetes tools: times, selectors, result assembly."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from connectors.kubernetes._client import ListRead
from policy.facts import EntityKind
from policy.results import Coverage, Entity, Relation, ResultFact, ToolResult
from policy.toolset import CallContext, scope_of


def parse_time(value: Any) -> datetime | None:
    """RFC 3339 with any fraction length (kubelet and audit use nanoseconds)."""
    if not value or not isinstance(value, str):
        return None
    text = value.strip().replace(" ", "T", 1)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    frac = re.search(r"\.(\d+)", text)
    if frac and len(frac[1]) > 6:
        text = text.replace(frac[0], "." + frac[1][:6], 1)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def iso(moment: datetime | None) -> str:
    if moment is None:
        return "unknown time"
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def window(args: BaseModel, ctx: CallContext) -> tuple[datetime, datetime]:
    """The arguments' start/end, each defaulting to the question window."""
    default_start, default_end = ctx.scope.time.bounds(ctx.now)
    start = getattr(args, "start", None) or default_start
    end = getattr(args, "end", None) or default_end
    return start, end


def meta(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


def name_of(obj: dict[str, Any]) -> str:
    return str(meta(obj).get("name", ""))


def selector_string(selector: dict[str, Any] | None) -> str | None:
    """A LabelSelector object (matchLabels + matchExpressions) as a selector string."""
    if not selector:
        return None
    parts = [f"{k}={v}" for k, v in (selector.get("matchLabels") or {}).items()]
    for expr in selector.get("matchExpressions") or []:
        key, op = expr.get("key"), str(expr.get("operator", ""))
        values = ",".join(str(v) for v in expr.get("values") or [])
        if op == "In":
            parts.append(f"{key} in ({values})")
        elif op == "NotIn":
            parts.append(f"{key} notin ({values})")
        elif op == "Exists":
            parts.append(str(key))
        elif op == "DoesNotExist":
            parts.append(f"!{key}")
    return ",".join(parts) or None


def owned_by(obj: dict[str, Any], kind: str, name: str, uid: str | None) -> bool:
    for ref in meta(obj).get("ownerReferences") or []:
        if ref.get("kind") == kind and (ref.get("uid") == uid if uid else ref.get("name") == name):
            return True
    return False


def belongs_to(name: str, service: str) -> bool:
    """Objects of a workload carry its name plus generated suffixes (service-c-6c9d7f8b5-x)."""
    return name == service or name.startswith(service + "-")


@dataclass
class Findings:
    """What one tool call gathered, and how completely it read its scope."""

    source: str
    facts: list[ResultFact] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    complete: bool = True
    truncated: bool = False
    notes: list[str] = field(default_factory=list)
    _seen: set[tuple[str, str, str | None]] = field(default_factory=set)

    def took(self, read: ListRead) -> list[dict[str, Any]]:
        """Items of a list read; an incomplete list makes the whole call incomplete."""
        if not read.complete:
            self.complete = False
            self.truncated = True
            if read.note:
                self.notes.append(read.note)
                self.warnings.append(read.note)
        return read.items

    def gap(self, note: str) -> None:
        self.complete = False
        self.notes.append(note)
        self.warnings.append(note)

    def entity(self, kind: str, name: str, env: str, namespace: str | None, **attrs: Any) -> None:
        key = (kind, name, namespace)
        if name and key not in self._seen:
            self._seen.add(key)
            self.entities.append(
                Entity(
                    kind=EntityKind.of(kind), name=name, env=env, namespace=namespace, attrs=attrs
                )
            )

    def relate(self, src: str, rel: str, dst: str, observed_at: datetime | None) -> None:
        edge = Relation(src=src, rel=rel, dst=dst, source=self.source, observed_at=observed_at)
        if edge not in self.relations:
            self.relations.append(edge)

    def result(
        self,
        tool: str,
        args: BaseModel,
        ctx: CallContext,
        *,
        returned: int,
        proves_absence: bool = True,
        data_in_entities: bool = False,
        limit: int | None = None,
        raw: Any = None,
        observed_at: datetime | None = None,
    ) -> ToolResult:
        has_data = bool(self.facts) or (data_in_entities and bool(self.entities))
        if not has_data:
            status = "empty"
        elif not self.complete:
            status = "partial"
        else:
            status = "ok"
        return ToolResult(
            tool=tool,
            status=status,
            scope=scope_of(args, ctx),
            observed_at=observed_at or ctx.now,
            entities=self.entities,
            relations=self.relations,
            coverage=Coverage(
                source=self.source,
                complete_for_negative=self.complete and proves_absence,
                truncated=self.truncated,
                returned=returned,
                limit=limit,
                total=returned if self.complete else None,
                total_is_exact=self.complete,
                note="; ".join(self.notes) or None,
            ),
            facts=self.facts,
            warnings=self.warnings,
            raw=raw,
        )
