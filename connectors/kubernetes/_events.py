"""k8s.events: Kubernetes events of an object (or a namespace) in a window."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from connectors.kit.audit import parse_time
from connectors.kubernetes._bodies import EventBody, as_events
from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._common import Findings, belongs_to, iso, meta
from policy.facts import K8sEvent
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext
from policy.window import resolve_window

EVENT_TTL_NOTE = (
    "Kubernetes keeps events for about an hour (kube-apiserver --event-ttl, 1h by default): "
    "no event does not prove that nothing happened"
)


def event_times(event: EventBody) -> tuple[datetime | None, datetime | None]:
    """(first, last) seen; core v1 and events.k8s.io spellings, newest field first."""
    series = event.get("series") or {}
    last = (
        parse_time(event.get("lastTimestamp"))
        or parse_time(series.get("lastObservedTime"))
        or parse_time(event.get("eventTime"))
        or parse_time(event.get("firstTimestamp"))
        or parse_time(meta(event).get("creationTimestamp"))
    )
    first = parse_time(event.get("firstTimestamp")) or parse_time(event.get("eventTime")) or last
    return first, last


async def events(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    start, end = resolve_window(args, ctx)
    items = as_events(found.took(await reader.list("events", args.namespace)))
    selected: list[tuple[EventBody, datetime | None, datetime | None]] = []
    undated = 0
    for event in items:
        obj = event.get("involvedObject") or event.get("regarding") or {}
        if args.service and not belongs_to(str(obj.get("name", "")), args.service):
            continue
        first, last = event_times(event)
        if last is None:
            undated += 1
            continue
        if (first is not None and first > end) or last < start:
            continue
        selected.append((event, first, last))
    if undated:
        found.gap(f"{undated} events carry no time and could not be placed in the window")
    selected.sort(key=lambda e: (e[0].get("type") != "Warning", -(e[2].timestamp() if e[2] else 0)))
    if len(selected) > args.limit:
        found.truncated = True
        found.gap(
            f"{len(selected)} events matched; only the first {args.limit} are shown "
            "(Warning first, newest first)"
        )
    for event, first, last in selected[: args.limit]:
        found.facts.append(_event_fact(reader, event, first, last))
        obj = event.get("involvedObject") or event.get("regarding") or {}
        if obj.get("name"):
            found.entity(
                str(obj.get("kind", "object")).lower(),
                str(obj["name"]),
                reader.env,
                obj.get("namespace") or args.namespace,
            )
    if not found.facts:
        found.warnings.append(EVENT_TTL_NOTE)
    found.notes.append(EVENT_TTL_NOTE)
    return found.finish(
        "k8s.events",
        args,
        ctx,
        returned=min(len(selected), args.limit),
        proves_absence=False,
        limit=args.limit,
        raw=[e for e, _, _ in selected],
    )


def _event_fact(
    reader: KubeReader, event: EventBody, first: datetime | None, last: datetime | None
) -> ResultFact:
    obj = event.get("involvedObject") or event.get("regarding") or {}
    kind, name = str(obj.get("kind", "Object")), str(obj.get("name", "?"))
    ns = obj.get("namespace") or meta(event).get("namespace")
    series = event.get("series") or {}
    count = int(event.get("count") or series.get("count") or 1)
    message = str(event.get("message") or event.get("note") or "").strip()
    etype, reason = event.get("type") or "Normal", event.get("reason") or "?"
    span = iso(last) if first is None or first == last else f"{iso(first)} .. {iso(last)}"
    text = f"{etype} {reason} on {kind} {ns}/{name} (x{count}, {span}): {message[:2000]}"
    component = (event.get("source") or {}).get("component") or event.get("reportingComponent")
    return ResultFact(
        text=text,
        source=reader.source,
        observed_at=last,
        link=reader.target.link(kind, name, ns),
        historical=True,
        attrs=K8sEvent(
            reason=reason,
            type=etype,
            object=f"{kind}/{name}",
            object_kind=kind,
            name=name,
            namespace=ns,
            count=count,
            message=message,
            first_seen=iso(first),
            last_seen=iso(last),
            component=component,
        ),
    )
