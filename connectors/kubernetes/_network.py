"""k8s.endpoints and k8s.node_health: where a service routes, and how a node is doing."""

from __future__ import annotations

import re
from typing import Any

from connectors.kubernetes._bodies import KubeObject, as_endpoint_slices
from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._common import Findings, meta, name_of
from connectors.kubernetes._pods import pod_facts, pod_summary
from policy.facts import K8sEndpoints, K8sNodeCondition
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
_SHOWN = 20


async def endpoints(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    ns, service, env = args.namespace, args.service, reader.env
    svc = await reader.get("services", service, ns)
    slices = as_endpoint_slices(
        found.took(
            await reader.list(
                "endpointslices", ns, label_selector=f"{SERVICE_NAME_LABEL}={service}"
            )
        )
    )
    if svc is None and not slices:
        # the Service may be named differently from the workload (cart-api vs cart-api-http):
        # find the one whose selector matches the workload's pods
        other = await _service_for_workload(reader, found, ns, service)
        if other is None:
            found.warnings.append(
                f"no Service named {service} in namespace {ns} of {env}, and none selects its "
                "pods: its endpoints could not be read"
            )
            # not a proof of "no ready endpoints": nothing was there to read
            return found.finish("k8s.endpoints", args, ctx, returned=0, proves_absence=False)
        found.warnings.append(
            f"no Service named {service}; Service {name_of(other)} selects its pods"
        )
        svc, service = other, name_of(other)
        slices = as_endpoint_slices(
            found.took(
                await reader.list(
                    "endpointslices", ns, label_selector=f"{SERVICE_NAME_LABEL}={service}"
                )
            )
        )
    found.entity("service", service, env, ns)
    rows: list[dict[str, Any]] = []
    ports: set[str] = set()
    for piece in slices:
        for port in piece.get("ports") or []:
            ports.add(f"{port.get('name') or '-'} {port.get('port')}/{port.get('protocol', 'TCP')}")
        for ep in piece.get("endpoints") or []:
            cond = ep.get("conditions") or {}
            ref = ep.get("targetRef") or {}
            rows.append(
                {
                    "addresses": list(ep.get("addresses") or []),
                    # a nil `ready` means unknown, which consumers treat as ready (API docs)
                    "ready": cond.get("ready") is not False,
                    "serving": cond.get("serving"),
                    "terminating": bool(cond.get("terminating")),
                    "pod": ref.get("name") if ref.get("kind") == "Pod" else None,
                    "node": ep.get("nodeName"),
                    "slice": name_of(piece),
                }
            )
    ready = [r for r in rows if r["ready"]]
    not_ready = [r for r in rows if not r["ready"]]
    text = f"Service {ns}/{service} has {len(ready)} ready and {len(not_ready)} not-ready endpoints"
    if rows:
        text += ": " + ", ".join(_describe(r) for r in (not_ready + ready)[:_SHOWN])
        if len(rows) > _SHOWN:
            text += f", and {len(rows) - _SHOWN} more"
    elif svc is not None and not (svc.get("spec") or {}).get("selector"):
        text += " (the Service has no selector; its endpoints are managed by hand)"
    if ports:
        text += f"; ports {', '.join(sorted(ports))}"
    declared, unserved = await _port_check(reader, svc, rows, ns)
    if unserved:
        text += (
            f"; its target port {', '.join(unserved)} is no port its pods' containers "
            f"declare or listen on ({', '.join(declared)})"
        )
    found.facts.append(
        ResultFact(
            text=text,
            source=reader.source,
            observed_at=ctx.now,
            link=reader.target.link("Service", service, ns),
            historical=False,
            attrs=K8sEndpoints(
                service=service,
                namespace=ns,
                ready=len(ready),
                not_ready=len(not_ready),
                endpoints=rows,
                ports=sorted(ports),
                service_found=svc is not None,
                unserved_ports=unserved or None,
                container_ports=declared or None,
            ),
        )
    )
    if svc is None:
        found.warnings.append(
            f"EndpointSlices name Service {service}, but no such Service exists in namespace {ns}"
        )
    for row in rows:
        if row["pod"]:
            found.entity("pod", row["pod"], env, ns, ready=row["ready"], node=row["node"])
            found.relate(f"service/{service}", "routes_to", f"pod/{row['pod']}", ctx.now)
            if row["node"]:
                found.entity("node", row["node"], env, None)
                found.relate(f"pod/{row['pod']}", "runs_on", f"node/{row['node']}", ctx.now)
    return found.finish(
        "k8s.endpoints",
        args,
        ctx,
        returned=len(rows),
        raw={"service": svc, "endpointslices": slices},
    )


def _describe(row: dict[str, Any]) -> str:
    state = "ready" if row["ready"] else "NOT ready"
    if row["terminating"]:
        state += ", terminating"
    where = f"pod {row['pod']}" if row["pod"] else "no pod"
    if row["node"]:
        where += f" on {row['node']}"
    return f"{'/'.join(row['addresses']) or '?'} ({where}, {state})"


async def _port_check(
    reader: KubeReader, svc: KubeObject | None, rows: list[dict[str, Any]], ns: str | None
) -> tuple[list[str], list[str]]:
    """(the ports the Service's pods' containers declare, or say in their log they listen
    on; the Service's target ports none of them is): a Service edited to send traffic to
    a port nothing listens on, or a process that binds another port than the one declared.
    Read from one pod behind it; a pod that says nothing of its ports says nothing either
    way."""
    pod_name = next((r["pod"] for r in rows if r["pod"]), None)
    if svc is None or pod_name is None or ns is None:
        return [], []
    pod = await reader.get("pods", pod_name, ns)
    containers = ((pod or {}).get("spec") or {}).get("containers") or []
    declared = [p for c in containers for p in c.get("ports") or [] if p.get("containerPort")]
    by_name = {str(p.get("name")): int(p["containerPort"]) for p in declared if p.get("name")}
    targets: list[int | str] = []
    for port in (svc.get("spec") or {}).get("ports") or []:
        target = port.get("targetPort", port.get("port"))
        if isinstance(target, str) and not target.isdigit():
            targets.append(by_name.get(target, target))
        elif target is not None:
            targets.append(int(target))
    numbers = {int(p["containerPort"]) for p in declared}
    said = [
        f"{p.get('name') or '-'} {p['containerPort']}/{p.get('protocol', 'TCP')}" for p in declared
    ]
    unserved = [str(t) for t in targets if not (isinstance(t, int) and t in numbers)]
    if declared and unserved:
        return said, unserved
    # declared or not, the process may bind another port: what its log says it listens on
    bound = await _bound_ports(reader, pod, ns)
    if not bound:
        return said, []
    unbound = [str(t) for t in targets if isinstance(t, int) and t not in bound]
    return [f"{port} (its log says it listens there)" for port in sorted(bound)], unbound


# "listening on :8081", "Listening at: http://0.0.0.0:8000", "Tomcat started on port 8080",
# a JSON line's "msg":"http server listening","addr":":8081": the ports a server binds
_LISTENING = re.compile(
    r"(?:listen\w{0,12}|started on port|bound to|serving on|running on)"
    r"[^\n]{0,80}?[:\s](\d{2,5})\b",
    re.I,
)
# the head of a log, where a server says what it binds, read line by line: the words and
# the port are near each other near the line's start
BOUND_READ = 65_536
LINE_READ = 400


async def _bound_ports(reader: KubeReader, pod: KubeObject | None, ns: str) -> set[int]:
    """The ports a pod's containers say in their log they listen on (the log from its
    start: the line is written once)."""
    if pod is None:
        return set()
    ports: set[int] = set()
    for container in ((pod.get("spec") or {}).get("containers") or [])[:3]:
        read = await reader.pod_log(
            ns,
            name_of(pod),
            str(container.get("name")),
            since_time=None,
            previous=False,
            limit_bytes=BOUND_READ,
        )
        for line in read.body.splitlines():
            for m in _LISTENING.finditer(line[:LINE_READ]):
                if 20 <= int(m.group(1)) <= 65535:
                    ports.add(int(m.group(1)))
    return ports


async def _service_for_workload(
    reader: KubeReader, found: Findings, ns: str, workload: str
) -> KubeObject | None:
    """The Service whose selector matches the pod template of the workload named `workload`."""
    labels: dict[str, Any] = {}
    for resource in ("deployments", "statefulsets", "daemonsets"):
        obj = await reader.get(resource, workload, ns)
        if obj is not None:
            template = ((obj.get("spec") or {}).get("template") or {}).get("metadata") or {}
            labels = template.get("labels") or {}
            break
    if not labels:
        return None
    for candidate in found.took(await reader.list("services", ns)):
        selector = (candidate.get("spec") or {}).get("selector") or {}
        if selector and all(labels.get(k) == v for k, v in selector.items()):
            return candidate
    return None


def condition_abnormal(kind: str, status: str) -> bool:
    """Ready must be True; every other node condition (pressure, NetworkUnavailable,
    node-problem-detector ones) must be False; Unknown is always abnormal."""
    if status == "Unknown":
        return True
    return status != "True" if kind == "Ready" else status == "True"


async def node_health(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    node_name, env = args.node, reader.env
    node = await reader.get("nodes", node_name)
    if node is None:
        found.warnings.append(f"no node named {node_name} in {env}")
        return found.finish("k8s.node_health", args, ctx, returned=0)
    pods = found.took(await reader.list("pods", field_selector=f"spec.nodeName={node_name}"))
    spec, status = node.get("spec") or {}, node.get("status") or {}
    link = reader.target.link("Node", node_name)
    capacity, allocatable = status.get("capacity") or {}, status.get("allocatable") or {}
    taints = [
        f"{t.get('key')}={t.get('value') or ''}:{t.get('effect')}" for t in spec.get("taints") or []
    ]
    summaries = [pod_summary(p) for p in pods]
    unhealthy = [
        p
        for p, s in zip(pods, summaries, strict=True)
        if s["phase"] not in ("Running", "Succeeded")
        or (s["phase"] == "Running" and not s["ready"])
    ]
    placed = f"{len(pods)} pods placed ({len(unhealthy)} not ready)" + (
        ": " + ", ".join(f"{meta(p).get('namespace')}/{name_of(p)}" for p in pods[:30])
        if pods
        else ""
    )
    extra: dict[str, Any] = {
        "capacity": capacity,
        "allocatable": allocatable,
        "taints": taints,
        "unschedulable": bool(spec.get("unschedulable")),
        "pods": len(pods),
    }
    conditions = list(status.get("conditions") or [])
    if spec.get("unschedulable"):
        conditions.append(
            {
                "type": "Unschedulable",
                "status": "True",
                "reason": "Cordoned",
                "message": "spec.unschedulable is true (node cordoned)",
            }
        )
    for cond in conditions:
        kind, value = str(cond.get("type")), str(cond.get("status"))
        abnormal = condition_abnormal(kind, value) if kind != "Unschedulable" else True
        text = f"Node {node_name} {kind}={value} ({cond.get('reason')}: {cond.get('message')})"
        text += " - ABNORMAL" if abnormal else ""
        if kind == "Ready":
            text += (
                f"; capacity cpu {capacity.get('cpu')}, memory {capacity.get('memory')}, "
                f"pods {capacity.get('pods')}; {placed}"
            )
            if taints:
                text += f"; taints {', '.join(taints)}"
        found.facts.append(
            ResultFact(
                text=text,
                source=reader.source,
                observed_at=ctx.now,
                link=link,
                historical=False,
                attrs=K8sNodeCondition(
                    node=node_name,
                    condition=kind,
                    status=value,
                    reason=cond.get("reason"),
                    message=cond.get("message"),
                    abnormal=abnormal,
                    last_transition=cond.get("lastTransitionTime"),
                    **extra if kind == "Ready" else {},
                ),
            )
        )
    found.facts.sort(key=lambda f: not (isinstance(f.attrs, K8sNodeCondition) and f.attrs.abnormal))
    found.entity("node", node_name, env, None, **extra)
    for pod, summary in zip(pods, summaries, strict=True):
        ns = meta(pod).get("namespace")
        found.entity("pod", summary["pod"], env, ns, phase=summary["phase"], ready=summary["ready"])
        found.relate(f"pod/{summary['pod']}", "runs_on", f"node/{node_name}", ctx.now)
    for pod in unhealthy:
        pod_facts(reader, pod, found, ctx)
    return found.finish(
        "k8s.node_health", args, ctx, returned=len(pods), raw={"node": node, "pods": pods}
    )
