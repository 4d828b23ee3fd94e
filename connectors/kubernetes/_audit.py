"""k8s.audit_trail: who changed an object (and the objects it owns) and when.

Audit events come from the operator's audit backend, exposed as the read-only API
`audit.infrabot.dev/v1` `auditevents` (items are audit.k8s.io/v1 Event objects). Which
events belong to the object and what each says is `connectors.kit.audit`, shared with the
Elasticsearch reading of the same events; this tool adds what only the API can tell: the
ConfigMaps and Secrets the workload's pods mount, read from the workload itself.
"""

from __future__ import annotations

from typing import Any, cast

from connectors.kit.audit import Mount, Selection, audit_fact, mounts, singular
from connectors.kubernetes._client import AUDIT_PLURAL, KubeReader
from connectors.kubernetes._common import Findings
from connectors.kubernetes._workloads import workload_object
from policy.errors import SourceError
from policy.results import ToolResult
from policy.toolset import CallContext
from policy.window import resolve_window


async def _mounts(reader: KubeReader, args: Any) -> tuple[str, set[Mount]]:
    """('Deployment x', what its pods mount) of the object asked about; nothing for an
    object that no longer exists or a read without a namespace (the audit still has it)."""
    if args.service is None or args.namespace is None:
        return "", set()
    kind, obj = await workload_object(reader, args.service, args.namespace)
    return (f"{kind} {args.service}", mounts(obj)) if obj is not None else ("", set())


async def audit_trail(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    start, end = resolve_window(args, ctx)
    items = found.took(await reader.list(AUDIT_PLURAL, args.namespace))
    try:
        owner, mounted = await _mounts(reader, args)
    except SourceError as exc:
        # the object's own changes are still read; what it mounts is a stated hole
        owner, mounted = "", set()
        found.gap(f"what {args.service}'s pods mount was not read ({exc.reason})")
    asked = Selection(
        start=start,
        end=end,
        namespace=args.namespace,
        service=args.service,
        include_reads=args.include_reads,
        mounted=frozenset(mounted),
    )
    # audit.k8s.io Events, not objects: kit.audit reads them as plain mappings
    selected = asked.select(cast(list[dict[str, Any]], items))
    if len(selected) > args.limit:
        found.truncated = True
        found.gap(f"{len(selected)} audit events matched; only the latest {args.limit} are shown")
        selected = selected[-args.limit :]
    for at, event in selected:
        ref = event.get("objectRef") or {}
        name, ns = str(ref.get("name") or "?"), ref.get("namespace")
        found.facts.append(
            audit_fact(
                event,
                at,
                found,
                source=reader.source,
                env=reader.env,
                link=reader.target.link(singular(str(ref.get("resource") or "object")), name, ns),
                mounted_by=asked.mounted_by(event, owner),
            )
        )
    return found.finish(
        "k8s.audit_trail",
        args,
        ctx,
        returned=len(selected),
        limit=args.limit,
        raw=[e for _, e in selected],
    )
