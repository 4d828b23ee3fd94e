"""k8s.inventory and k8s.workload_status: what runs, and how each piece of it is doing."""

from __future__ import annotations

import asyncio
from typing import Any

from connectors.kubernetes._bodies import KubeObject
from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._common import (
    Findings,
    belongs_to,
    meta,
    name_of,
    owned_by,
    selector_string,
)
from connectors.kubernetes._config import dependency_facts
from connectors.kubernetes._netpol import policy_facts
from connectors.kubernetes._pods import pod_facts
from policy.errors import SourceError
from policy.facts import K8sWorkload, ReplicaSetState
from policy.numbers import Noun, count_said
from policy.results import IngressRoute, ResultFact, ToolResult
from policy.toolset import CallContext

OLDER_SETS = Noun(
    "older replica set",
    "older replica sets",
    "старый ReplicaSet",
    "старых ReplicaSet",
    "старых ReplicaSet",
)

_WORKLOADS = (
    ("Deployment", "deployments"),
    ("StatefulSet", "statefulsets"),
    ("DaemonSet", "daemonsets"),
)
# listed by the inventory so their names resolve; they own pods too ("<cronjob>-<n>-<hash>")
_BATCH = (("CronJob", "cronjobs"), ("Job", "jobs"))
_BAD_CONDITIONS = {"Available": "False", "Progressing": "False", "ReplicaFailure": "True"}


def mounted(obj: KubeObject) -> set[tuple[str, str]]:
    """(resource, name) of every ConfigMap and Secret a workload's pods mount or read
    their environment from: a change to one of them changes the pods without touching the
    workload (an edited config the kubelet refreshes, a rotated password)."""
    spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    out: set[tuple[str, str]] = set()

    def add(resource: str, name: Any) -> None:
        if isinstance(name, str) and name:
            out.add((resource, name))

    for vol in spec.get("volumes") or []:
        add("configmaps", (vol.get("configMap") or {}).get("name"))
        add("secrets", (vol.get("secret") or {}).get("secretName"))
        for src in (vol.get("projected") or {}).get("sources") or []:
            add("configmaps", (src.get("configMap") or {}).get("name"))
            add("secrets", (src.get("secret") or {}).get("name"))
    for container in [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]:
        for env_from in container.get("envFrom") or []:
            add("configmaps", (env_from.get("configMapRef") or {}).get("name"))
            add("secrets", (env_from.get("secretRef") or {}).get("name"))
        for env in container.get("env") or []:
            ref = env.get("valueFrom") or {}
            add("configmaps", (ref.get("configMapKeyRef") or {}).get("name"))
            add("secrets", (ref.get("secretKeyRef") or {}).get("name"))
    return out


async def workload_object(
    reader: KubeReader, name: str, namespace: str | None
) -> tuple[str, KubeObject | None]:
    """(kind, object) of the Deployment, StatefulSet or DaemonSet of that name."""
    for kind, plural in _WORKLOADS:
        obj = await reader.get(plural, name, namespace)
        if obj is not None:
            return kind, obj
    return "", None


def _rs_owner_belongs(pod: KubeObject, service: str) -> bool:
    return any(
        ref.get("kind") == "ReplicaSet" and belongs_to(str(ref.get("name", "")), service)
        for ref in meta(pod).get("ownerReferences") or []
    )


def _counts(kind: str, obj: KubeObject) -> tuple[int, int]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    if kind == "DaemonSet":
        return int(status.get("numberReady") or 0), int(status.get("desiredNumberScheduled") or 0)
    desired = spec.get("replicas")
    return int(status.get("readyReplicas") or 0), int(1 if desired is None else desired)


def ingress_routes(ing: KubeObject) -> list[IngressRoute]:
    """(host, path, backend service) of every rule of a networking.k8s.io/v1 Ingress; an
    empty host serves any host, the default backend any path."""
    spec = ing.get("spec") or {}
    out: list[IngressRoute] = []
    for rule in spec.get("rules") or []:
        host = str(rule.get("host") or "")
        for path in (rule.get("http") or {}).get("paths") or []:
            service = ((path.get("backend") or {}).get("service") or {}).get("name")
            if service:
                out.append(
                    IngressRoute(host=host, path=str(path.get("path") or "/"), service=service)
                )
    default = ((spec.get("defaultBackend") or {}).get("service") or {}).get("name")
    if default:
        out.append(IngressRoute(host="", path="/", service=str(default)))
    return out


def _rs_revision(rs: KubeObject) -> int:
    revision = str((meta(rs).get("annotations") or {}).get("deployment.kubernetes.io/revision"))
    return int(revision) if revision.isdigit() else -1


def template_diff(replicasets: list[KubeObject]) -> list[str]:
    """What the newest revision changed in the pod template against the one before it:
    each container's image, CPU and memory requests and limits, and which env values
    changed (their names only: a value may be a secret)."""
    ordered = sorted(replicasets, key=_rs_revision)
    if len(ordered) < 2:
        return []
    old, new = (_containers_of(rs) for rs in ordered[-2:])
    out: list[str] = []
    for name, container in new.items():
        before = old.get(name)
        if before is None:
            continue
        if before.get("image") != container.get("image"):
            out.append(f"{name} image {before.get('image')} -> {container.get('image')}")
        for kind in ("limits", "requests"):
            was = (before.get("resources") or {}).get(kind) or {}
            now = (container.get("resources") or {}).get(kind) or {}
            for resource in sorted(set(was) | set(now)):
                if was.get(resource) != now.get(resource):
                    out.append(
                        f"{name} {resource} {kind[:-1]} {was.get(resource, 'none')} -> "
                        f"{now.get(resource, 'none')}"
                    )
        env_was = {e.get("name"): e.get("value") for e in before.get("env") or []}
        env_now = {e.get("name"): e.get("value") for e in container.get("env") or []}
        moved = sorted(
            str(k) for k in set(env_was) | set(env_now) if env_was.get(k) != env_now.get(k)
        )
        if moved:
            out.append(f"{name} env {', '.join(moved[:5])}")
    return out[:6]


def _containers_of(rs: KubeObject) -> dict[str, dict[str, Any]]:
    spec = ((rs.get("spec") or {}).get("template") or {}).get("spec") or {}
    return {str(c.get("name")): c for c in spec.get("containers") or []}


def _revision_order(state: ReplicaSetState) -> int:
    revision = state.revision or ""
    return int(revision) if revision.isdigit() else -1


def _images(obj: KubeObject) -> list[str]:
    spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    return [str(c.get("image")) for c in spec.get("containers") or [] if c.get("image")]


async def inventory(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    env = reader.env
    resources = [
        "namespaces",
        "services",
        "nodes",
        "ingresses",
        *(plural for _, plural in _WORKLOADS),
        *(plural for _, plural in _BATCH),
    ]
    # the lists are independent: read together, so the step costs one round trip, not six
    outcomes = await asyncio.gather(*(reader.list(r) for r in resources), return_exceptions=True)
    reads: dict[str, list[KubeObject] | None] = {}
    failures: list[SourceError] = []
    for resource, outcome in zip(resources, outcomes, strict=True):
        if isinstance(outcome, SourceError):  # one failed sub-read: keep the others
            failures.append(outcome)
            found.gap(f"{resource}: {outcome.reason}")
            reads[resource] = None
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            reads[resource] = found.took(outcome)
    if len(failures) == len(resources):
        raise failures[0]
    for ns in reads["namespaces"] or []:
        found.entity(
            "namespace", name_of(ns), env, None, phase=(ns.get("status") or {}).get("phase")
        )
    for kind, plural in _WORKLOADS:
        for obj in reads[plural] or []:
            ready, desired = _counts(kind, obj)
            found.entity(
                kind.lower(),
                name_of(obj),
                env,
                meta(obj).get("namespace"),
                ready=ready,
                desired=desired,
                images=_images(obj),
            )
    for kind, plural in _BATCH:
        # scheduled and one-off runs: a question about a backup CronJob or a migration Job
        # names something the env has, never "not found"
        for obj in reads[plural] or []:
            found.entity(kind.lower(), name_of(obj), env, meta(obj).get("namespace"))
    for node in reads["nodes"] or []:
        # a node-exporter's alert names its node by address (`instance: 10.0.0.7:9100`)
        found.entity("node", name_of(node), env, None, addresses=_node_addresses(node))
    for ing in reads["ingresses"] or []:
        routes = ingress_routes(ing)
        found.entity("ingress", name_of(ing), env, meta(ing).get("namespace"), routes=routes)
        for route in routes:
            found.relate(
                f"ingress/{name_of(ing)}", "routes_to", f"service/{route.service}", ctx.now
            )
    by_namespace: dict[Any, list[tuple[str, KubeObject]]] = {}
    for kind, plural in _WORKLOADS:
        for obj in reads[plural] or []:
            by_namespace.setdefault(meta(obj).get("namespace"), []).append((kind, obj))
    for svc in reads["services"] or []:
        spec = svc.get("spec") or {}
        found.entity(
            "service",
            name_of(svc),
            env,
            meta(svc).get("namespace"),
            type=spec.get("type"),
            selector=spec.get("selector") or {},
            addresses=_cluster_ips(spec),
        )
        _relate_selected(found, svc, by_namespace.get(meta(svc).get("namespace"), []), ctx)
    return found.finish(
        "k8s.inventory", args, ctx, returned=len(found.entities), data_in_entities=True
    )


def _node_addresses(node: KubeObject) -> list[str]:
    """A Node's addresses (InternalIP, ExternalIP, Hostname) other than its name."""
    rows = (node.get("status") or {}).get("addresses") or []
    found = [str(a.get("address")) for a in rows if isinstance(a, dict) and a.get("address")]
    return [a for a in dict.fromkeys(found) if a != name_of(node)]


def _cluster_ips(spec: dict[str, Any]) -> list[str]:
    """A Service's virtual addresses ("None" for a headless one is none)."""
    ips = spec.get("clusterIPs") or [spec.get("clusterIP")]
    return [str(ip) for ip in ips if ip and ip != "None"]


def _relate_selected(
    found: Findings, svc: KubeObject, workloads: list[tuple[str, KubeObject]], ctx: Any
) -> None:
    """service -> the workloads of its namespace whose pod template its selector matches:
    a Service named otherwise than its Deployment still fronts it (its traffic is labelled
    with its name)."""
    selector = (svc.get("spec") or {}).get("selector") or {}
    if not selector:
        return
    for kind, obj in workloads:
        template = ((obj.get("spec") or {}).get("template") or {}).get("metadata") or {}
        labels = template.get("labels") or {}
        if all(labels.get(k) == v for k, v in selector.items()):
            found.relate(
                f"service/{name_of(svc)}", "selects", f"{kind.lower()}/{name_of(obj)}", ctx.now
            )


def _workload_fact(
    reader: KubeReader,
    kind: str,
    obj: KubeObject,
    replicasets: list[KubeObject],
    ctx: CallContext,
    namespace_labels: dict[str, str] | None = None,
) -> ResultFact:
    ns, name = meta(obj).get("namespace"), name_of(obj)
    template = ((obj.get("spec") or {}).get("template") or {}).get("metadata") or {}
    status = obj.get("status") or {}
    ready, desired = _counts(kind, obj)
    images = _images(obj)
    text = f"{kind} {ns}/{name}: {ready}/{desired} ready"
    if kind == "Deployment":
        text += (
            f" ({int(status.get('updatedReplicas') or 0)} updated, "
            f"{int(status.get('availableReplicas') or 0)} available)"
        )
    text += f", image {', '.join(images) or 'unknown'}"
    revision = (meta(obj).get("annotations") or {}).get("deployment.kubernetes.io/revision")
    if revision:
        text += f", revision {revision}"
    bad = []
    for cond in status.get("conditions") or []:
        if _BAD_CONDITIONS.get(str(cond.get("type"))) == str(cond.get("status")):
            bad.append(
                f"{cond.get('type')}={cond.get('status')} ({cond.get('reason')}: "
                f"{cond.get('message')})"
            )
    if bad:
        text += "; condition " + "; ".join(bad)
    live = [
        rs
        for rs in replicasets
        if int((rs.get("spec") or {}).get("replicas") or 0) > 0
        or int((rs.get("status") or {}).get("replicas") or 0) > 0
    ]
    states = []
    for rs in live:
        rs_rev = (meta(rs).get("annotations") or {}).get("deployment.kubernetes.io/revision")
        rs_ready, rs_desired = _counts("ReplicaSet", rs)
        states.append(
            ReplicaSetState(
                name=name_of(rs),
                revision=rs_rev,
                ready=rs_ready,
                desired=rs_desired,
                images=_images(rs),
            )
        )
    if states:
        text += "; replica sets: " + ", ".join(
            f"{st.name} (revision {st.revision or '?'}, "
            f"{st.ready}/{st.desired} ready, {', '.join(st.images)})"
            for st in states
        )
    idle = len(replicasets) - len(live)
    if idle:
        text += f"; {count_said(idle, OLDER_SETS)} scaled to 0"
    changed = template_diff(replicasets)
    if changed:
        text += f"; its last revision changed {'; '.join(changed)}"
    return ResultFact(
        text=text,
        source=reader.source,
        observed_at=ctx.now,
        link=reader.target.link(kind, name, ns),
        historical=False,
        attrs=K8sWorkload(
            workload_kind=kind,
            name=name,
            namespace=ns,
            ready=ready,
            desired=desired,
            image=images[0] if images else None,
            images=images,
            revision=revision,
            abnormal_conditions=bad,
            replicasets=[name_of(rs) for rs in replicasets],
            live_replicasets=sorted(states, key=_revision_order) or None,
            pod_labels={str(k): str(v) for k, v in (template.get("labels") or {}).items()} or None,
            last_change=changed or None,
            namespace_labels=namespace_labels or None,
        ),
    )


async def workload_status(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    ns, service, env = args.namespace, args.service, reader.env
    kind, obj = await workload_object(reader, service, ns)
    if obj is None:
        return await _service_pods(reader, args, ctx, found)
    uid = meta(obj).get("uid")
    selector = selector_string((obj.get("spec") or {}).get("selector"))
    replicasets: list[KubeObject] = []
    owners: set[str] = {service}
    if kind == "Deployment":
        rs_read = await reader.list("replicasets", ns, label_selector=selector)
        replicasets = [rs for rs in found.took(rs_read) if owned_by(rs, kind, service, uid)]
        owners = {name_of(rs) for rs in replicasets}
    pods = [
        p
        for p in found.took(await reader.list("pods", ns, label_selector=selector))
        if not meta(p).get("ownerReferences")
        or any(owned_by(p, k, o, None) for o in owners for k in ("ReplicaSet", kind))
        # a ReplicaSet we could not read (deleted, or not listed) still names its
        # Deployment: <deployment>-<pod-template-hash>
        or (kind == "Deployment" and _rs_owner_belongs(p, service))
    ]
    space = await reader.get("namespaces", ns) if ns else None
    space_labels = {str(k): str(v) for k, v in (meta(space or {}).get("labels") or {}).items()}
    found.facts.append(_workload_fact(reader, kind, obj, replicasets, ctx, space_labels))
    await dependency_facts(reader, kind, obj, found, ctx)
    await policy_facts(reader, kind, obj, found, ctx)
    ready, desired = _counts(kind, obj)
    found.entity(kind.lower(), service, env, ns, ready=ready, desired=desired)
    for rs in replicasets:
        rs_ready, rs_desired = _counts("ReplicaSet", rs)
        found.entity(
            "replicaset",
            name_of(rs),
            env,
            ns,
            ready=rs_ready,
            desired=rs_desired,
            created=meta(rs).get("creationTimestamp"),
        )
        found.relate(f"{kind.lower()}/{service}", "owns", f"replicaset/{name_of(rs)}", ctx.now)
    for pod in pods:
        owner = next(
            (r.get("name") for r in meta(pod).get("ownerReferences") or [] if r.get("controller")),
            None,
        )
        parent = (
            f"replicaset/{owner}" if kind == "Deployment" and owner else f"{kind.lower()}/{service}"
        )
        found.relate(parent, "owns", f"pod/{name_of(pod)}", ctx.now)
        pod_facts(reader, pod, found, ctx)
    if not pods and desired:
        found.warnings.append(f"{kind} {ns}/{service} wants {desired} pods but none exist")
    raw = {"workload": obj, "replicasets": replicasets, "pods": pods}
    return found.finish("k8s.workload_status", args, ctx, returned=len(pods), raw=raw)


async def _service_pods(
    reader: KubeReader, args: Any, ctx: CallContext, found: Findings
) -> ToolResult:
    """No workload by that name: show the pods a Service of that name selects, if any."""
    ns, service, env = args.namespace, args.service, reader.env
    missing = f"no Deployment, StatefulSet or DaemonSet named {service} in namespace {ns} of {env}"
    svc = await reader.get("services", service, ns)
    selector = ((svc or {}).get("spec") or {}).get("selector")
    if not selector:
        found.warnings.append(missing)
        if svc is None and await reader.get("namespaces", ns) is None:
            found.warnings.append(f"namespace {ns} does not exist in {env}")
        return found.finish("k8s.workload_status", args, ctx, returned=0)
    found.warnings.append(f"{missing}; showing the pods Service {service} selects")
    label_selector = ",".join(f"{k}={v}" for k, v in selector.items())
    pods = found.took(await reader.list("pods", ns, label_selector=label_selector))
    found.entity("service", service, env, ns)
    for pod in pods:
        found.relate(f"service/{service}", "selects", f"pod/{name_of(pod)}", ctx.now)
        pod_facts(reader, pod, found, ctx)
    raw = {"service": svc, "pods": pods}
    return found.finish("k8s.workload_status", args, ctx, returned=len(pods), raw=raw)
