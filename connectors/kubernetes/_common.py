"""Small pure helpers shared by the Kubernetes tools: times, selectors, list reads."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from connectors.kubernetes._bodies import KubeObject, ObjectMeta
from connectors.kubernetes._client import ListRead
from policy.findings import Findings as BaseFindings
from policy.results import ToolResult
from policy.toolset import CallContext, scope_of


def iso(moment: datetime | None) -> str:
    if moment is None:
        return "unknown time"
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def meta(obj: KubeObject) -> ObjectMeta:
    return obj.get("metadata") or {}


def name_of(obj: KubeObject) -> str:
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


def owned_by(obj: KubeObject, kind: str, name: str, uid: str | None) -> bool:
    for ref in meta(obj).get("ownerReferences") or []:
        if ref.get("kind") == kind and (ref.get("uid") == uid if uid else ref.get("name") == name):
            return True
    return False


def belongs_to(name: str, service: str) -> bool:
    """Objects of a workload carry its name plus generated suffixes (service-c-6c9d7f8b5-x)."""
    return name == service or name.startswith(service + "-")


class Findings(BaseFindings):
    """One Kubernetes call's findings; a list read cut short makes the call incomplete."""

    def took(self, read: ListRead) -> list[KubeObject]:
        """Items of a list read; an incomplete list makes the whole call incomplete."""
        if not read.complete:
            self.complete = False
            self.truncated = True
            if read.note:
                self.notes.append(read.note)
                self.warnings.append(read.note)
        return read.items

    def finish(
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
        total: int | None = None,
    ) -> ToolResult:
        """`data_in_entities`: the call's answer is the objects it lists (an inventory);
        `total`: how many there were in all, exactly, when more were read than returned."""
        exact = total is not None or self.complete
        return self.result(
            tool,
            scope_of(args, ctx),
            returned=returned,
            found=bool(self.facts) or (data_in_entities and bool(self.entities)),
            proves_absence=proves_absence,
            observed_at=observed_at or ctx.now,
            limit=limit,
            total=total if total is not None else returned if self.complete else None,
            total_is_exact=exact,
            raw=raw,
        )
