"""Facts about one pod: its state, its containers' terminations and waits, scheduling."""

from __future__ import annotations

from typing import Any

from connectors.kit.audit import parse_time
from connectors.kubernetes._bodies import KubeObject
from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._common import Findings, iso, meta, name_of
from policy.facts import K8sPod, K8sTermination, K8sWaiting
from policy.results import ResultFact
from policy.toolset import CallContext

# the waiting reasons of a container whose image the kubelet could not pull
PULL_FAILURES = frozenset({"ImagePullBackOff", "ErrImagePull"})


def _statuses(pod: KubeObject) -> list[dict[str, Any]]:
    status = pod.get("status") or {}
    return list(status.get("initContainerStatuses") or []) + list(
        status.get("containerStatuses") or []
    )


def pod_summary(pod: KubeObject) -> dict[str, Any]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    containers = status.get("containerStatuses") or []
    return {
        "pod": name_of(pod),
        "node": spec.get("nodeName"),
        "phase": status.get("phase"),
        "ready": bool(containers) and all(c.get("ready") for c in containers),
        "containers_ready": f"{sum(1 for c in containers if c.get('ready'))}/"
        f"{len(spec.get('containers') or [])}",
        "restarts": sum(int(c.get("restartCount") or 0) for c in containers),
        "image": next((c.get("image") for c in spec.get("containers") or []), None),
        "images": [c.get("image") for c in spec.get("containers") or []],
    }


def _condition(pod: KubeObject, kind: str) -> dict[str, Any] | None:
    return next(
        (c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == kind),
        None,
    )


def pod_facts(reader: KubeReader, pod: KubeObject, found: Findings, ctx: CallContext) -> None:
    """A k8s.pod fact, plus k8s.termination / k8s.waiting facts for its containers."""
    ns, name = meta(pod).get("namespace"), name_of(pod)
    link = reader.target.link("Pod", name, ns)
    info = pod_summary(pod)
    node = info["node"]
    text = (
        f"Pod {ns}/{name} on node {node or '(not scheduled)'}: {info['phase'] or 'Unknown'}, "
        f"{info['containers_ready']} containers ready, {info['restarts']} restarts, "
        f"image {', '.join(str(i) for i in info['images'])}"
    )
    scheduled = _condition(pod, "PodScheduled")
    if scheduled is not None and scheduled.get("status") != "True":
        text += (
            f"; not scheduled: PodScheduled={scheduled.get('status')} "
            f"({scheduled.get('reason')}: {scheduled.get('message')})"
        )
        info["scheduling"] = {
            "reason": scheduled.get("reason"),
            "message": scheduled.get("message"),
        }
    status = pod.get("status") or {}
    if status.get("reason"):
        # Evicted, NodeLost, Shutdown...: the kubelet's own reason for the whole pod
        text += f"; {status.get('reason')}: {status.get('message') or ''}".rstrip(": ")
        info["pod_reason"] = status.get("reason")
        info["pod_message"] = status.get("message")
    ready = _condition(pod, "Ready")
    if ready is not None and ready.get("status") != "True" and ready.get("reason"):
        text += f"; Ready={ready.get('status')} ({ready.get('reason')})"
    if meta(pod).get("deletionTimestamp"):
        text += f"; terminating since {meta(pod)['deletionTimestamp']}"
        info["terminating"] = True
    found.facts.append(
        ResultFact(
            text=text,
            source=reader.source,
            observed_at=ctx.now,
            link=link,
            historical=False,
            attrs=K8sPod.model_validate(info),
        )
    )
    found.entity(
        "pod",
        name,
        reader.env,
        ns,
        node=node,
        phase=info["phase"],
        ready=info["ready"],
        restarts=info["restarts"],
    )
    if node:
        found.entity("node", node, reader.env, None)
        found.relate(f"pod/{name}", "runs_on", f"node/{node}", ctx.now)
    limits = _memory_limits(pod)
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    secrets = [
        str(ref.get("name"))
        for ref in (spec or {}).get("imagePullSecrets") or []
        if isinstance(ref, dict) and ref.get("name")
    ]
    for cs in _statuses(pod):
        limit = limits.get(str(cs.get("name")))
        _container_facts(reader, ns, name, cs, found, link, ctx, limit, secrets)


def _memory_limits(pod: KubeObject) -> dict[str, str]:
    """Container name -> its memory limit as the spec writes it ("512Mi")."""
    spec = pod.get("spec")
    if not isinstance(spec, dict):
        return {}
    out: dict[str, str] = {}
    for c in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
        if not isinstance(c, dict):
            continue
        resources = c.get("resources")
        limits = resources.get("limits") if isinstance(resources, dict) else None
        if isinstance(limits, dict) and limits.get("memory") is not None:
            out[str(c.get("name"))] = str(limits["memory"])
    return out


def _container_facts(
    reader: KubeReader,
    ns: str | None,
    pod: str,
    cs: dict[str, Any],
    found: Findings,
    link: str,
    ctx: CallContext,
    memory_limit: str | None = None,
    pull_secrets: list[str] | None = None,
) -> None:
    container, restarts = cs.get("name"), int(cs.get("restartCount") or 0)
    state, last = cs.get("state") or {}, cs.get("lastState") or {}
    for when, term in (("last", last.get("terminated")), ("current", state.get("terminated"))):
        if not term:
            continue
        finished = parse_time(term.get("finishedAt"))
        reason = term.get("reason") or "Terminated"
        verb = "was OOMKilled" if reason == "OOMKilled" else f"terminated with {reason}"
        limit = f", memory limit {memory_limit}" if reason == "OOMKilled" and memory_limit else ""
        text = (
            f"Container {container} in pod {ns}/{pod} {verb} (exit code "
            f"{term.get('exitCode')}{limit}) at {iso(finished)}"
        )
        if term.get("startedAt"):
            text += f" after starting at {term['startedAt']}"
        if term.get("message"):
            text += f": {str(term['message'])[:300]}"
        text += f"; {restarts} restarts so far"
        found.facts.append(
            ResultFact(
                text=text,
                source=reader.source,
                observed_at=finished or ctx.now,
                link=link,
                historical=True,
                attrs=K8sTermination(
                    pod=pod,
                    container=container,
                    reason=reason,
                    exit_code=term.get("exitCode"),
                    signal=term.get("signal"),
                    finished_at=term.get("finishedAt"),
                    started_at=term.get("startedAt"),
                    restarts=restarts,
                    state=when,
                    memory_limit=memory_limit,
                ),
            )
        )
    waiting = state.get("waiting")
    if waiting:
        reason = waiting.get("reason") or "Waiting"
        text = f"Container {container} in pod {ns}/{pod} is waiting: {reason}"
        if waiting.get("message"):
            text += f" - {str(waiting['message'])[:300]}"
        pulling = reason in PULL_FAILURES
        if pulling and pull_secrets:
            # the registry credential the kubelet pulled with: a 401 names it
            secrets = "secret" if len(pull_secrets) == 1 else "secrets"
            text += f"; image pull {secrets}: {', '.join(pull_secrets)}"
        text += f"; {restarts} restarts so far"
        found.facts.append(
            ResultFact(
                text=text,
                source=reader.source,
                observed_at=ctx.now,
                link=link,
                historical=False,
                attrs=K8sWaiting(
                    pod=pod,
                    container=container,
                    reason=reason,
                    message=waiting.get("message"),
                    restarts=restarts,
                    image=cs.get("image"),
                    pull_secrets=(pull_secrets or None) if pulling else None,
                ),
            )
        )
