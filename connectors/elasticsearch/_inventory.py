"""logs.inventory: the workloads an environment's application logs name, where nothing
else lists them.

Class "an environment without a Kubernetes API still has workloads": where only logs are
shipped (or the API is out of reach), the services and namespaces the application log's
Kubernetes metadata names over the last day are the names a question can be about. The
planner reads it only for environments no other inventory covers.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from connectors.elasticsearch._bodies import sub_agg
from connectors.elasticsearch._common import reader_for
from connectors.elasticsearch._facts import NAMESPACE_FIELDS, POD_FIELDS, SERVICE_FIELDS
from connectors.elasticsearch._reader import SOURCE, LogReader, time_range
from policy.contracts import AgentMeta, ToolContract
from policy.errors import SourceUnsupported
from policy.facts import EntityKind
from policy.results import (
    Coverage,
    Entity,
    ToolResult,
)
from policy.toolset import CallContext, scope_of
from policy.window import EnvArgs

NAME = "logs.inventory"
LOOKBACK = timedelta(days=1)
MAX_NAMES = 500
# a Deployment's pod: <name>-<pod-template-hash>-<5 characters>
_DEPLOYMENT_POD = re.compile(
    r"^(?P<name>[a-z0-9]([-a-z0-9]*[a-z0-9])?)-[a-z0-9]{6,10}-[a-z0-9]{5}$"
)


def contract(envs: list[str]) -> ToolContract:
    return ToolContract(
        name=NAME,
        description=(
            "The services and namespaces the application logs name (Kubernetes metadata of "
            "the shipped lines, last 24 hours): the inventory of an environment with no "
            "Kubernetes API."
        ),
        args_model=EnvArgs,
        agent=AgentMeta(
            evidence=["inventory"],
            sources=["elasticsearch"],
            output_kind="objects",
            freshness="event_time",
            negative_semantics="none",
            supports_history=False,
            current_only=True,
            read_only=True,
        ),
        enums={"env": envs},
    )


async def inventory(readers: dict[str, LogReader], args: EnvArgs, ctx: CallContext) -> ToolResult:
    reader = reader_for(readers, args.env)
    t = await reader.resolved()
    start, end = ctx.now - LOOKBACK, ctx.now
    layout = await reader.layout(t.app_index, start, end)
    ns_field = next((f for n in NAMESPACE_FIELDS if (f := layout.held_exact(n))), None)
    by: dict[str, dict[str, Any]] = {}
    for i, name in enumerate([*SERVICE_FIELDS, *POD_FIELDS]):
        field = layout.held_exact(name)
        if field is None:
            continue
        agg: dict[str, Any] = {"terms": {"field": field, "size": MAX_NAMES}}
        if ns_field:
            agg["aggs"] = {"ns": {"terms": {"field": ns_field, "size": 5}}}
        by[f"n{i}__{'pod' if name in POD_FIELDS else 'svc'}"] = agg
    try:
        read = await reader.search(
            t.app_index, {"bool": {"filter": [time_range(start, end)]}}, limit=0, aggs=by
        )
    except SourceUnsupported as err:  # no application index: no names, nothing wrong
        return _listed(args, ctx, [], f"no names: {err.reason}")
    seen: dict[tuple[str, str | None], Entity] = {}
    for label, result in read.aggs.items():
        for bucket in (result or {}).get("buckets") or []:
            value = str(bucket.get("key") or "")
            if label.endswith("__pod"):
                pod = _DEPLOYMENT_POD.match(value)
                if pod is None:
                    continue
                value = pod["name"]
            namespaces: list[str | None] = [
                str(b.get("key")) for b in sub_agg(bucket, "ns").get("buckets") or []
            ]
            for ns in namespaces or [None]:
                if value and (value, ns) not in seen:
                    seen[(value, ns)] = Entity(
                        kind=EntityKind.SERVICE, name=value, env=args.env, namespace=ns
                    )
    return _listed(args, ctx, list(seen.values()), f"names in {t.app_index} over the last day")


def _listed(args: EnvArgs, ctx: CallContext, entities: list[Entity], note: str) -> ToolResult:
    return ToolResult(
        tool=NAME,
        status="ok" if entities else "empty",
        scope=scope_of(args, ctx),
        observed_at=ctx.now,
        entities=entities,
        coverage=Coverage(
            source=f"{SOURCE}/{args.env}",
            complete_for_negative=False,  # names in the logs are never all the names
            returned=len(entities),
            note=note,
        ),
    )
