"""k8s.health_sweep: what is unhealthy in a whole environment (or namespace) now, and
which warnings it raised in the window.

For questions that name no object ("что не так в <env>?", "which pods are not ready?"):
every pod that is not running and ready (crash-looping, pending, evicted, OOM-killed,
failing its readiness probe), every node with an abnormal condition, and the Warning
events of the window grouped by reason, most frequent first. One `k8s.sweep` fact says
what was covered, so "nothing unhealthy" is said only after a complete read of the
lists, and never of events (they expire after about an hour).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import datetime
from typing import Any

from connectors.kubernetes._bodies import EventBody, KubeObject, as_events
from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._common import Findings, iso, meta, name_of
from connectors.kubernetes._events import EVENT_TTL_NOTE, event_times
from connectors.kubernetes._network import condition_abnormal
from connectors.kubernetes._pods import pod_facts, pod_summary
from policy.facts import K8sEvent, K8sNodeCondition, K8sSweep
from policy.numbers import Noun, Nouns, count_said
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext
from policy.window import resolve_window

WARNING_EVENTS = Noun(
    "Warning event",
    "Warning events",
    "событие Warning",
    "события Warning",
    "событий Warning",
)

NAME = "k8s.health_sweep"
_WAITING_BAD = {
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "CreateContainerConfigError",
    "CreateContainerError",
    "InvalidImageName",
    "RunContainerError",
}


def _severity(pod: KubeObject) -> int | None:
    """How bad a pod looks now (lower is worse), or None when it is healthy: a container
    that cannot run, then a kill for memory, then a pod not scheduled or evicted, then a
    running pod that is not ready."""
    status = pod.get("status") or {}
    phase = status.get("phase")
    if phase == "Succeeded":
        return None
    containers = list(status.get("initContainerStatuses") or []) + list(
        status.get("containerStatuses") or []
    )
    waiting = {str((c.get("state") or {}).get("waiting", {}).get("reason")) for c in containers}
    if waiting & _WAITING_BAD:
        return 0
    last = [(c.get("lastState") or {}).get("terminated") or {} for c in containers]
    if any(t.get("reason") == "OOMKilled" for t in last):
        return 1
    if status.get("reason") or phase in ("Pending", "Failed", "Unknown"):
        return 2
    if not pod_summary(pod)["ready"]:
        return 3
    return None


async def health_sweep(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    env = reader.env
    start, end = resolve_window(args, ctx)
    pods_read, nodes_read, events_read = await asyncio.gather(
        reader.list("pods", args.namespace),
        reader.list("nodes"),
        reader.list("events", args.namespace, field_selector="type=Warning"),
    )
    pods = found.took(pods_read)
    nodes = found.took(nodes_read)
    events = as_events(found.took(events_read))
    namespaces = {meta(p).get("namespace") for p in pods}

    bad = sorted(
        ((sev, p) for p in pods if (sev := _severity(p)) is not None),
        key=lambda sp: (sp[0], str(meta(sp[1]).get("namespace")), name_of(sp[1])),
    )
    shown = bad[: args.limit]
    if len(bad) > len(shown):
        found.truncated = True
        found.gap(f"{len(bad)} pods are not healthy; the {len(shown)} worst are shown")
    for _, pod in shown:
        pod_facts(reader, pod, found, ctx)
        found.entity("pod", name_of(pod), env, meta(pod).get("namespace"), failing=True)
        node = (pod.get("spec") or {}).get("nodeName")
        if node:
            found.relate(f"pod/{name_of(pod)}", "runs_on", f"node/{node}", ctx.now)

    abnormal_nodes = 0
    for node in nodes:
        name = name_of(node)
        conditions = [
            c
            for c in (node.get("status") or {}).get("conditions") or []
            if condition_abnormal(str(c.get("type")), str(c.get("status")))
        ]
        if (node.get("spec") or {}).get("unschedulable"):
            conditions.append(
                {"type": "Unschedulable", "status": "True", "reason": "Cordoned", "message": ""}
            )
        abnormal_nodes += bool(conditions)
        for cond in conditions:
            found.facts.append(
                ResultFact(
                    text=f"Node {name} {cond.get('type')}={cond.get('status')} "
                    f"({cond.get('reason')}: {cond.get('message')}) - ABNORMAL",
                    source=reader.source,
                    observed_at=ctx.now,
                    link=reader.target.link("Node", name),
                    historical=False,
                    attrs=K8sNodeCondition(
                        node=name,
                        condition=str(cond.get("type")),
                        status=str(cond.get("status")),
                        reason=cond.get("reason"),
                        message=cond.get("message"),
                        abnormal=True,
                        last_transition=cond.get("lastTransitionTime"),
                    ),
                )
            )
            found.entity("node", name, env, None)

    # (event, first seen, last seen), its times read once
    by_reason: dict[str, list[tuple[EventBody, datetime | None, datetime]]] = {}
    counts: Counter[str] = Counter()
    for event in events:
        first, last = event_times(event)
        if last is None or last < start or (first is not None and first > end):
            continue
        reason = str(event.get("reason") or "?")
        by_reason.setdefault(reason, []).append((event, first, last))
        counts[reason] += int(event.get("count") or (event.get("series") or {}).get("count") or 1)
    for reason, total in counts.most_common(args.limit):
        group = by_reason[reason]
        newest, _, last = max(group, key=lambda entry: entry[2])
        obj = newest.get("involvedObject") or newest.get("regarding") or {}
        objects = sorted({str((e.get("involvedObject") or {}).get("name")) for e, _, _ in group})
        message = str(newest.get("message") or newest.get("note") or "").strip()
        first = min((t for _, t, _ in group if t is not None), default=None)
        found.facts.append(
            ResultFact(
                text=f"Warning {reason} x{total} on {count_said(len(objects), Nouns.OBJECT)} "
                f"({', '.join(objects[:5])}{', ...' if len(objects) > 5 else ''}) between "
                f"{iso(first)} and {iso(last)}; latest on {obj.get('kind')} "
                f"{obj.get('namespace')}/{obj.get('name')}: {message[:500]}",
                source=reader.source,
                observed_at=last,
                link=reader.target.link(
                    str(obj.get("kind", "Pod")), str(obj.get("name", "")), obj.get("namespace")
                ),
                historical=True,
                attrs=K8sEvent(
                    reason=reason,
                    type="Warning",
                    object=f"{obj.get('kind')}/{obj.get('name')}",
                    object_kind=obj.get("kind"),
                    name=obj.get("name"),
                    namespace=obj.get("namespace"),
                    count=total,
                    message=message,
                    first_seen=iso(first),
                    last_seen=iso(last),
                ),
            )
        )
    found.notes.append(EVENT_TTL_NOTE)

    where = (
        f"namespace {args.namespace}"
        if args.namespace
        else count_said(len(namespaces), Nouns.NAMESPACE)
    )
    summary = (
        f"Swept {env}: {count_said(len(pods), Nouns.POD)} in {where}, "
        f"{count_said(len(nodes), Nouns.NODE)}, "
        f"{count_said(sum(counts.values()), WARNING_EVENTS)} between {iso(start)} and "
        f"{iso(end)}: {count_said(len(bad), Nouns.POD)} not healthy, "
        f"{count_said(abnormal_nodes, Nouns.NODE)} with abnormal conditions"
        + ("" if found.complete else " (the lists were not read completely)")
    )
    found.facts.insert(
        0,
        ResultFact(
            text=summary,
            source=reader.source,
            observed_at=ctx.now,
            historical=False,
            attrs=K8sSweep(
                namespace=args.namespace,
                pods=len(pods),
                namespaces=len(namespaces),
                nodes=len(nodes),
                warning_events=sum(counts.values()),
                unhealthy_pods=len(bad),
                abnormal_nodes=abnormal_nodes,
            ),
        ),
    )
    # the lists prove what is unhealthy now; events expire, so they prove nothing absent
    return found.finish(
        NAME,
        args,
        ctx,
        returned=len(pods) + len(nodes) + len(events),
        limit=args.limit,
        raw={"unhealthy": [name_of(p) for _, p in bad]},
    )
