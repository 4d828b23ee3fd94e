"""k8s.pod_placement: which pod (and node) is behind an address the edge log names.

A pod's node and IP never change during its life, so reading the pod *now* tells where it
ran in the past too, provided it already existed then: each fact says when the pod was
created, and a pod created after the moment asked about is flagged. A pod that is gone
cannot be found, so an empty answer proves nothing (negative semantics "none").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from connectors.kubernetes._bodies import KubeObject
from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._common import Findings, belongs_to, meta, name_of
from policy.facts import K8sPlacement
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext


def _created(pod: KubeObject) -> datetime | None:
    raw = meta(pod).get("creationTimestamp")
    try:
        return datetime.fromisoformat(str(raw).replace("Z", "+00:00")) if raw else None
    except ValueError:
        return None


async def pod_placement(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    env = reader.env
    wanted_ips = {a.split(":")[0].strip("[]") for a in args.addresses or []}
    wanted_pods = set(args.pods or [])
    pods = found.took(await reader.list("pods", args.namespace))
    start, _ = ctx.scope.time.bounds(ctx.now)
    moment = ctx.scope.time.at or start
    matched = 0
    for pod in pods:
        status = pod.get("status") or {}
        ips = {status.get("podIP")} | {p.get("ip") for p in status.get("podIPs") or []}
        name = name_of(pod)
        hit = ips & wanted_ips
        of_service = bool(args.service) and belongs_to(name, args.service)
        if not hit and name not in wanted_pods and not of_service:
            continue
        matched += 1
        ns = meta(pod).get("namespace")
        node = (pod.get("spec") or {}).get("nodeName")
        created = _created(pod)
        owner = next(
            (r.get("name") for r in meta(pod).get("ownerReferences") or [] if r.get("controller")),
            None,
        )
        later = created is not None and ctx.scope.time.mode == "historical" and created > moment
        ip = next(iter(hit), status.get("podIP"))
        text = (
            f"address {ip} is pod {ns}/{name} on node {node or 'unscheduled'}"
            f" (created {created.isoformat() if created else 'at an unknown time'}"
            + (
                ", AFTER the time asked about: it cannot be the pod that served then)"
                if later
                else ")"
            )
        )
        found.facts.append(
            ResultFact(
                text=text,
                source=reader.source,
                observed_at=ctx.now,
                link=reader.target.link("Pod", name, ns),
                historical=False,
                attrs=K8sPlacement(
                    pod=name,
                    namespace=ns,
                    node=node,
                    ip=ip,
                    owner=owner,
                    created=created.isoformat() if created else None,
                    created_after_moment=later,
                ),
            )
        )
        if not later:
            found.entity("pod", name, env, ns, node=node, ip=ip)
            if node:
                found.entity("node", node, env, None)
                found.relate(f"pod/{name}", "runs_on", f"node/{node}", ctx.now)
    placed = {f.attrs.ip for f in found.facts if isinstance(f.attrs, K8sPlacement)}
    missing = sorted(wanted_ips - placed)
    if missing:
        found.warnings.append(
            f"no current pod has {'address' if len(missing) == 1 else 'addresses'} "
            f"{', '.join(missing)}: the pod may be gone"
        )
    return found.finish(
        "k8s.pod_placement",
        args,
        ctx,
        returned=matched,
        proves_absence=False,
        raw={"matched": [f.attrs for f in found.facts]},
    )
