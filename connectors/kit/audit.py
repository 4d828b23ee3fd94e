"""Kubernetes audit events (audit.k8s.io/v1 `Event`) as facts, wherever they were read.

A cluster writes one Event per request stage; an operator reads them from wherever the
audit backend ships them (an aggregated API, an Elasticsearch index). Every connector
that reads them uses this one reading, so the same event is the same fact from either
place: which events belong to an object, which are Kubernetes' own housekeeping, who the
actor is, and what the fact says.

A ServiceAccount is an identity a program runs as, never a person: the fact names it as a
ServiceAccount, and any CI job or pipeline URL found in the request's annotations is kept
beside it, so the person can be found in CI, not guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import Field

from policy.facts import K8sAudit
from policy.findings import Findings
from policy.results import ResultFact
from policy.window import WindowArgs

READ_VERBS = frozenset({"get", "list", "watch"})
MUTATING_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
PAST = {
    "create": "created",
    "update": "updated",
    "patch": "patched",
    "delete": "deleted",
    "deletecollection": "deleted a collection of",
    "get": "read",
    "list": "listed",
    "watch": "watched",
}
STAGE_RANK = {"ResponseComplete": 3, "Panic": 2, "ResponseStarted": 1, "RequestReceived": 0}
# who and what Kubernetes itself writes all day (controllers and kubelets writing status,
# leases, endpoints): not a change anyone made
CONTROLLER_USERS = ("system:node:", "system:kube-", "system:serviceaccount:kube-system:")
CHURN_RESOURCES = frozenset(
    {"leases", "events", "endpoints", "endpointslices", "tokenreviews", "subjectaccessreviews"}
)
WORKLOAD_RESOURCES = {
    "deployments": "Deployment",
    "statefulsets": "StatefulSet",
    "daemonsets": "DaemonSet",
}
_NAME = r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"
_FRACTION = re.compile(r"\.(\d+)")

Mount = tuple[str, str]  # (resource, name): ("configmaps", "tariffs")


class AuditArgs(WindowArgs):
    """What every audit-trail tool takes, whichever backend it reads."""

    namespace: str | None = Field(
        default=None,
        min_length=1,
        max_length=63,
        pattern=_NAME,
        description="default: every namespace",
    )
    service: str | None = Field(
        default=None,
        min_length=1,
        max_length=253,
        pattern=_NAME,
        description="object name; objects it owns (service-*) match too; default: every "
        "object changed by a person or a CI job (not Kubernetes' own controllers)",
    )
    include_reads: bool = Field(default=False, description="also get/list/watch")
    limit: int = Field(default=100, ge=1, le=1000)


def parse_time(value: Any) -> datetime | None:
    """RFC 3339 with any fraction length (the API server writes microseconds, some
    shippers nanoseconds); a time without an offset is UTC."""
    if not value or not isinstance(value, str):
        return None
    text = value.strip().replace(" ", "T", 1)
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    frac = _FRACTION.search(text)
    if frac and len(frac[1]) > 6:
        text = text.replace(frac[0], "." + frac[1][:6], 1)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def event_time(event: dict[str, Any]) -> datetime | None:
    """When the request was received; a shipper's `@timestamp` only for an event that
    carries neither of its own times."""
    for key in ("requestReceivedTimestamp", "stageTimestamp", "@timestamp"):
        moment = parse_time(event.get(key))
        if moment is not None:
            return moment
    return None


def actor_of(username: str) -> tuple[str, str]:
    """(type, label) of an audit user; a ServiceAccount is never called a person."""
    if username.startswith("system:serviceaccount:"):
        return "service_account", f"ServiceAccount {username}"
    if username.startswith("system:node:"):
        return "node", f"Node {username}"
    if username.startswith("system:"):
        return "system", f"System component {username}"
    return "user", f"User {username}"


def singular(resource: str) -> str:
    """configmaps -> configmap, ingresses -> ingress, policies -> policy."""
    if resource.endswith("sses"):
        return resource[:-2]
    if resource.endswith("ies"):
        return resource[:-3] + "y"
    if resource.endswith("s") and not resource.endswith(("ss", "endpoints")):
        return resource[:-1]
    return resource


def belongs_to(name: str, service: str) -> bool:
    """Objects of a workload carry its name plus generated suffixes (<name>-<hash>-<id>)."""
    return name == service or name.startswith(service + "-")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def ref_of(event: dict[str, Any]) -> dict[str, Any]:
    return _dict(event.get("objectRef"))


def ci_links(event: dict[str, Any]) -> dict[str, str]:
    """CI job / pipeline URLs and commit found in the request's (or response's) annotations."""
    found: dict[str, str] = {}
    for body in (event.get("requestObject"), event.get("responseObject")):
        if not isinstance(body, dict):
            continue
        template = _dict(_dict(_dict(body.get("spec")).get("template")).get("metadata"))
        for notes in (_dict(body.get("metadata")).get("annotations"), template.get("annotations")):
            for key, value in _dict(notes).items():
                key, value = str(key).lower(), str(value)
                if not _one_url(value) and "commit" not in key:
                    continue  # a whole object (last-applied-configuration) is no link
                if ("job" in key and value.startswith("http")) or "/-/jobs/" in value:
                    found.setdefault("ci_job_url", value)
                elif ("pipeline" in key and value.startswith("http")) or "/-/pipelines/" in value:
                    found.setdefault("ci_pipeline_url", value)
                elif "commit" in key:
                    found.setdefault("commit_sha", value)
    return found


def _one_url(value: str) -> bool:
    """A value that is one http(s) URL and nothing else."""
    return (
        value.startswith(("http://", "https://"))
        and len(value) <= 2048
        and not any(ch.isspace() or ch in "\"'{}<>" for ch in value)
    )


def images(event: dict[str, Any]) -> list[str]:
    """The images a workload write sets (its pod template's containers)."""
    body = event.get("requestObject")
    if not isinstance(body, dict):
        return []
    pod_spec = _dict(_dict(_dict(body.get("spec")).get("template")).get("spec"))
    containers = pod_spec.get("containers")
    listed = containers if isinstance(containers, list) else []
    return [str(c["image"]) for c in listed if isinstance(c, dict) and c.get("image")]


def mounts(obj: Mapping[str, Any]) -> set[Mount]:
    """(resource, name) of every ConfigMap and Secret a workload's pods mount or read
    their environment from: a change to one of them changes the pods without touching the
    workload (an edited config the kubelet refreshes, a rotated password)."""
    spec = _dict(_dict(_dict(obj.get("spec")).get("template")).get("spec"))
    out: set[Mount] = set()

    def add(resource: str, name: Any) -> None:
        if isinstance(name, str) and name:
            out.add((resource, name))

    def items(value: Any) -> list[dict[str, Any]]:
        return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []

    for vol in items(spec.get("volumes")):
        add("configmaps", _dict(vol.get("configMap")).get("name"))
        add("secrets", _dict(vol.get("secret")).get("secretName"))
        for src in items(_dict(vol.get("projected")).get("sources")):
            add("configmaps", _dict(src.get("configMap")).get("name"))
            add("secrets", _dict(src.get("secret")).get("name"))
    for container in [*items(spec.get("initContainers")), *items(spec.get("containers"))]:
        for env_from in items(container.get("envFrom")):
            add("configmaps", _dict(env_from.get("configMapRef")).get("name"))
            add("secrets", _dict(env_from.get("secretRef")).get("name"))
        for env in items(container.get("env")):
            ref = _dict(env.get("valueFrom"))
            add("configmaps", _dict(ref.get("configMapKeyRef")).get("name"))
            add("secrets", _dict(ref.get("secretKeyRef")).get("name"))
    return out


def housekeeping(event: dict[str, Any]) -> bool:
    """What Kubernetes does by itself all day: not a change anyone made, when every
    object of an env is read."""
    user = str(_dict(event.get("user")).get("username") or "")
    ref = ref_of(event)
    return (
        user.startswith(CONTROLLER_USERS)
        or str(ref.get("resource")) in CHURN_RESOURCES
        or ref.get("subresource") == "status"
    )


def dedupe(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One event per request: the most complete stage of each auditID."""
    best: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for i, event in enumerate(items):
        key = str(event.get("auditID") or f"#{i}")
        if key not in best:
            order.append(key)
            best[key] = event
        elif STAGE_RANK.get(str(event.get("stage")), 0) > STAGE_RANK.get(
            str(best[key].get("stage")), 0
        ):
            best[key] = event
    return [best[k] for k in order]


@dataclass(frozen=True)
class Selection:
    """Which events an audit-trail call asked for."""

    start: datetime
    end: datetime
    namespace: str | None = None
    service: str | None = None
    include_reads: bool = False
    mounted: frozenset[Mount] = frozenset()

    def keeps(self, event: dict[str, Any]) -> bool:
        ref = ref_of(event)
        if self.namespace and ref.get("namespace") not in (None, self.namespace):
            return False
        name = str(ref.get("name") or "")
        if self.service is None:
            if housekeeping(event):
                return False
        elif not belongs_to(name, self.service) and (
            (str(ref.get("resource")), name) not in self.mounted
        ):
            return False
        return not (str(event.get("verb")) in READ_VERBS and not self.include_reads)

    def select(self, events: Iterable[dict[str, Any]]) -> list[tuple[datetime, dict[str, Any]]]:
        """The events asked for, one per request, oldest first."""
        chosen = []
        for event in dedupe(events):
            at = event_time(event)
            if at is not None and self.start <= at <= self.end and self.keeps(event):
                chosen.append((at, event))
        chosen.sort(key=lambda pair: pair[0])
        return chosen

    def mounted_by(self, event: dict[str, Any], owner: str) -> str | None:
        """The workload whose pods mount the object an event changed, if they do."""
        ref = ref_of(event)
        key = (str(ref.get("resource")), str(ref.get("name") or ""))
        return owner if owner and key in self.mounted else None


MAX_SET = 4  # the values of a patch a fact names
_NOT_A_CHANGE = ("metadata.managedFields", "metadata.annotations.kubectl.kubernetes.io/")


def patch_values(event: dict[str, Any]) -> list[str]:
    """What a patch set, as `path=value` (a list item by its `name`: containers[app]):
    "spec.template.spec.containers[app].resources.limits.memory=1Gi". Only a patch's own
    body is read: an update carries the whole object, which says nothing of what moved."""
    if event.get("verb") != "patch":
        return []
    out: list[str] = []

    def walk(node: Any, path: str) -> None:
        if len(out) >= MAX_SET or path.startswith(_NOT_A_CHANGE):
            return
        if isinstance(node, dict):
            for key, value in node.items():
                if not str(key).startswith("$"):  # strategic merge directives
                    walk(value, f"{path}.{key}" if path else str(key))
        elif isinstance(node, list):
            for item in node:
                named = item.get("name") if isinstance(item, dict) else None
                walk(
                    {k: v for k, v in item.items() if k != "name"} if named else item,
                    f"{path}[{named}]" if named else f"{path}[]",
                )
        else:
            out.append(f"{path}={node}")

    walk(event.get("requestObject"), "")
    return out


def audit_fact(
    event: dict[str, Any],
    at: datetime,
    found: Findings,
    *,
    source: str,
    env: str,
    link: str | None,
    mounted_by: str | None = None,
) -> ResultFact:
    """The fact of one event, its actor as an entity and `object changed_by actor`."""
    ref, user = ref_of(event), _dict(event.get("user"))
    username = str(user.get("username") or "unknown")
    actor_type, actor = actor_of(username)
    impersonated = _dict(event.get("impersonatedUser")).get("username")
    if impersonated:
        actor += f" (impersonating {impersonated})"
    verb = str(event.get("verb") or "?")
    resource, name = str(ref.get("resource") or "object"), str(ref.get("name") or "?")
    ns, sub = ref.get("namespace"), ref.get("subresource")
    code = _dict(event.get("responseStatus")).get("code")
    target = f"{singular(resource)} {ns + '/' if ns else ''}{name}" + (f"/{sub}" if sub else "")
    text = f"{actor} {PAST.get(verb, verb)} {target} ({code}) at {iso(at)}"
    if mounted_by:
        text += f" (the pods of {mounted_by} mount it)"
    agent = event.get("userAgent")
    if agent:
        text += f" via {agent}"
    ci = ci_links(event)
    if ci.get("ci_job_url"):
        text += f"; CI job {ci['ci_job_url']}"
    if ci.get("ci_pipeline_url"):
        text += f"; pipeline {ci['ci_pipeline_url']}"
    if ci.get("commit_sha"):
        text += f"; commit {ci['commit_sha']}"
    changed = images(event)
    if changed:
        text += f"; image {', '.join(changed)}"
    values = patch_values(event)
    if values:
        text += f"; set {', '.join(values)}"
    if isinstance(code, int) and code >= 400:
        text += "; refused: nothing was changed"
    entity_kind = "serviceaccount" if actor_type == "service_account" else actor_type
    found.entity(entity_kind, username, env, None)
    found.relate(f"{singular(resource)}/{name}", "changed_by", f"{entity_kind}/{username}", at)
    ips = event.get("sourceIPs")
    return ResultFact(
        text=text,
        source=source,
        observed_at=at,
        link=link,
        historical=True,
        attrs=K8sAudit(
            actor=username,
            actor_type=actor_type,
            verb=verb,
            code=code,
            resource=resource,
            name=name,
            namespace=ns,
            subresource=sub,
            user_agent=agent,
            timestamp=iso(at),
            audit_id=event.get("auditID"),
            impersonated_user=impersonated,
            source_ips=[str(ip) for ip in ips] if isinstance(ips, list) else [],
            images=changed,
            mounted_by=mounted_by,
            **ci,
        ),
    )
