"""k8s.audit_trail: who changed an object (and the objects it owns) and when.

Audit events come from the operator's audit backend, exposed as the read-only API
`audit.infrabot.dev/v1` `auditevents` (items are audit.k8s.io/v1 Event objects). A
ServiceAccount is an identity a program runs as, never a person: the fact names it as a
ServiceAccount, and any CI job or pipeline URL found in the request's annotations is kept
beside it, so the person can be found in CI, not guessed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from connectors.kubernetes._client import AUDIT_PLURAL, KubeReader
from connectors.kubernetes._common import Findings, belongs_to, iso, parse_time, window
from connectors.kubernetes._workloads import mounted, workload_object
from policy.errors import SourceError
from policy.facts import K8sAudit
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext

READ_VERBS = frozenset({"get", "list", "watch"})
_PAST = {
    "create": "created",
    "update": "updated",
    "patch": "patched",
    "delete": "deleted",
    "deletecollection": "deleted a collection of",
    "get": "read",
    "list": "listed",
    "watch": "watched",
}
_STAGE_RANK = {"ResponseComplete": 3, "Panic": 2, "ResponseStarted": 1, "RequestReceived": 0}


def actor_of(username: str) -> tuple[str, str]:
    """(type, label) of an audit user; a ServiceAccount is never called a person."""
    if username.startswith("system:serviceaccount:"):
        return "service_account", f"ServiceAccount {username}"
    if username.startswith("system:node:"):
        return "node", f"Node {username}"
    if username.startswith("system:"):
        return "system", f"System component {username}"
    return "user", f"User {username}"


def _singular(resource: str) -> str:
    if resource.endswith("sses"):
        return resource[:-2]
    if resource.endswith("ies"):
        return resource[:-3] + "y"
    if resource.endswith("s") and not resource.endswith(("ss", "endpoints")):
        return resource[:-1]
    return resource


def _ci_links(event: dict[str, Any]) -> dict[str, str]:
    """CI job / pipeline URLs and commit found in the request's (or response's) annotations."""
    found: dict[str, str] = {}
    for body in (event.get("requestObject"), event.get("responseObject")):
        if not isinstance(body, dict):
            continue
        template = ((body.get("spec") or {}).get("template") or {}).get("metadata") or {}
        for notes in ((body.get("metadata") or {}).get("annotations"), template.get("annotations")):
            for key, value in (notes or {}).items():
                key, value = str(key).lower(), str(value)
                if ("job" in key and value.startswith("http")) or "/-/jobs/" in value:
                    found.setdefault("ci_job_url", value)
                elif ("pipeline" in key and value.startswith("http")) or "/-/pipelines/" in value:
                    found.setdefault("ci_pipeline_url", value)
                elif "commit" in key:
                    found.setdefault("commit_sha", value)
    return found


def _images(event: dict[str, Any]) -> list[str]:
    body = event.get("requestObject")
    if not isinstance(body, dict):
        return []
    pod_spec = (((body.get("spec") or {}).get("template") or {}).get("spec")) or {}
    return [str(c["image"]) for c in pod_spec.get("containers") or [] if c.get("image")]


_CONTROLLERS = ("system:node:", "system:kube-", "system:serviceaccount:kube-system:")
_CHURN = {"leases", "events", "endpoints", "endpointslices", "tokenreviews", "subjectaccessreviews"}


def _housekeeping(event: dict[str, Any]) -> bool:
    """What Kubernetes does by itself all day (controllers and kubelets writing status,
    leases, endpoints): not a change anyone made, when every object of an env is read."""
    user = str((event.get("user") or {}).get("username") or "")
    ref = event.get("objectRef") or {}
    return (
        user.startswith(_CONTROLLERS)
        or str(ref.get("resource")) in _CHURN
        or ref.get("subresource") == "status"
    )


def _dedupe(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One event per request: the most complete stage of each auditID."""
    best: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for i, event in enumerate(items):
        key = str(event.get("auditID") or f"#{i}")
        if key not in best:
            order.append(key)
            best[key] = event
        elif _STAGE_RANK.get(str(event.get("stage")), 0) > _STAGE_RANK.get(
            str(best[key].get("stage")), 0
        ):
            best[key] = event
    return [best[k] for k in order]


async def _mounts(reader: KubeReader, args: Any) -> tuple[str, set[tuple[str, str]]]:
    """('Deployment x', what its pods mount) of the object asked about; nothing for an
    object that no longer exists or a read without a namespace (the audit still has it)."""
    if args.service is None or args.namespace is None:
        return "", set()
    kind, obj = await workload_object(reader, args.service, args.namespace)
    return (f"{kind} {args.service}", mounted(obj)) if obj is not None else ("", set())


async def audit_trail(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    start, end = window(args, ctx)
    items = _dedupe(found.took(await reader.list(AUDIT_PLURAL, args.namespace)))
    try:
        owner, mounts = await _mounts(reader, args)
    except SourceError as exc:
        # the object's own changes are still read; what it mounts is a stated hole
        owner, mounts = "", set()
        found.gap(f"what {args.service}'s pods mount was not read ({exc.reason})")
    selected: list[tuple[datetime, dict[str, Any]]] = []
    for event in items:
        ref = event.get("objectRef") or {}
        if args.namespace and ref.get("namespace") not in (None, args.namespace):
            continue
        name = str(ref.get("name") or "")
        if args.service is None:
            if _housekeeping(event):
                continue
        elif not belongs_to(name, args.service) and (str(ref.get("resource")), name) not in mounts:
            continue
        if str(event.get("verb")) in READ_VERBS and not args.include_reads:
            continue
        at = parse_time(event.get("requestReceivedTimestamp")) or parse_time(
            event.get("stageTimestamp")
        )
        if at is None or not start <= at <= end:
            continue
        selected.append((at, event))
    selected.sort(key=lambda pair: pair[0])
    if len(selected) > args.limit:
        found.truncated = True
        found.gap(f"{len(selected)} audit events matched; only the latest {args.limit} are shown")
        selected = selected[-args.limit :]
    for at, event in selected:
        ref = event.get("objectRef") or {}
        key = (str(ref.get("resource")), str(ref.get("name") or ""))
        found.facts.append(_audit_fact(reader, event, at, found, owner if key in mounts else None))
    return found.finish(
        "k8s.audit_trail",
        args,
        ctx,
        returned=len(selected),
        limit=args.limit,
        raw=[e for _, e in selected],
    )


def _audit_fact(
    reader: KubeReader,
    event: dict[str, Any],
    at: datetime,
    found: Findings,
    mounted_by: str | None = None,
) -> ResultFact:
    ref, user = event.get("objectRef") or {}, event.get("user") or {}
    username = str(user.get("username") or "unknown")
    actor_type, actor = actor_of(username)
    impersonated = (event.get("impersonatedUser") or {}).get("username")
    if impersonated:
        actor += f" (impersonating {impersonated})"
    verb = str(event.get("verb") or "?")
    resource, name = str(ref.get("resource") or "object"), str(ref.get("name") or "?")
    ns, sub = ref.get("namespace"), ref.get("subresource")
    code = (event.get("responseStatus") or {}).get("code")
    target = f"{_singular(resource)} {ns + '/' if ns else ''}{name}" + (f"/{sub}" if sub else "")
    text = f"{actor} {_PAST.get(verb, verb)} {target} ({code}) at {iso(at)}"
    if mounted_by:
        text += f" (the pods of {mounted_by} mount it)"
    agent = event.get("userAgent")
    if agent:
        text += f" via {agent}"
    ci = _ci_links(event)
    if ci.get("ci_job_url"):
        text += f"; CI job {ci['ci_job_url']}"
    if ci.get("ci_pipeline_url"):
        text += f"; pipeline {ci['ci_pipeline_url']}"
    if ci.get("commit_sha"):
        text += f"; commit {ci['commit_sha']}"
    images = _images(event)
    if images:
        text += f"; image {', '.join(images)}"
    entity_kind = "serviceaccount" if actor_type == "service_account" else actor_type
    found.entity(entity_kind, username, reader.env, None)
    found.relate(f"{_singular(resource)}/{name}", "changed_by", f"{entity_kind}/{username}", at)
    return ResultFact(
        text=text,
        source=reader.source,
        observed_at=at,
        link=reader.target.link(_singular(resource), name, ns),
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
            source_ips=event.get("sourceIPs") or [],
            images=images,
            mounted_by=mounted_by,
            **ci,
        ),
    )
