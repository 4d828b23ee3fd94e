"""k8s.quotas: ResourceQuota hard limits against what is already reserved."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from kubernetes.utils import parse_quantity

from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._common import Findings, meta, name_of
from policy.facts import K8sQuota
from policy.numbers import percent_said
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext

NEAR_LIMIT = 0.85


def _quantity(value: Any) -> Decimal | None:
    try:
        return Decimal(parse_quantity(value))  # type: ignore[no-untyped-call]  # untyped SDK
    except (ValueError, TypeError, InvalidOperation):
        return None


async def quotas(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    items = found.took(await reader.list("resourcequotas", args.namespace))
    for quota in items:
        ns, name = meta(quota).get("namespace"), name_of(quota)
        status = quota.get("status") or {}
        hard = status.get("hard") or (quota.get("spec") or {}).get("hard") or {}
        used = status.get("used") or {}
        found.entity("resourcequota", name, reader.env, ns)
        for resource, limit in sorted(hard.items()):
            spent = used.get(resource)
            limit_q, used_q = _quantity(limit), _quantity(spent) if spent is not None else None
            ratio = float(used_q / limit_q) if used_q is not None and limit_q else None
            near = ratio is not None and ratio >= NEAR_LIMIT
            if spent is None:
                text = f"ResourceQuota {ns}/{name}: {resource} hard {limit}, used not reported"
            else:
                share = f" ({percent_said(ratio)})" if ratio is not None else ""
                text = f"ResourceQuota {ns}/{name}: {resource} used {spent} of {limit}{share}"
            if near:
                text += f" - at or above {NEAR_LIMIT:.0%} of the quota"
            found.facts.append(
                ResultFact(
                    text=text,
                    source=reader.source,
                    observed_at=ctx.now,
                    link=reader.target.link("ResourceQuota", name, ns),
                    historical=False,
                    attrs=K8sQuota(
                        quota=name,
                        namespace=ns,
                        resource=resource,
                        used=spent,
                        hard=limit,
                        ratio=round(ratio, 4) if ratio is not None else None,
                        near_limit=near,
                    ),
                )
            )
    found.facts.sort(key=lambda f: -((isinstance(f.attrs, K8sQuota) and f.attrs.ratio) or 0))
    if not items:
        where = f"namespace {args.namespace}" if args.namespace else "any namespace"
        found.warnings.append(f"no ResourceQuota objects in {where} of {reader.env}")
    return found.finish("k8s.quotas", args, ctx, returned=len(items), raw=items)
