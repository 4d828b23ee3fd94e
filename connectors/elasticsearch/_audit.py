"""k8s.audit_log: who changed an object, from the audit events shipped to Elasticsearch.

A real cluster has no API to read its audit log: the API server's log backend writes one
audit.k8s.io/v1 Event per request stage as a JSON line, and Filebeat or Fluent Bit index
each line as one document (`auditID`, `stage`, `verb`, `user.username`, `objectRef.*`,
`requestReceivedTimestamp`, `responseStatus.code`, maybe `requestObject` /
`responseObject`), adding the shipper's `@timestamp`. Elastic Agent's Kubernetes
integration keeps the same Event under `kubernetes.audit.*`; a document may hold either,
nested or as flat dotted keys.

The same events make the same facts as `k8s.audit_trail` (`connectors.kit.audit`), and the tool
declares the same evidence, so a plan reads whichever is configured. The query filters by
object, namespace, window (the request's own time; `@timestamp` only for a document
without it) and verb, and the reader's field check makes an index that names none of
those fields a stated gap, never an empty trail.

What the workload's pods mount (a ConfigMap edit reaches them with no change to the
Deployment) is read from the newest full spec of the workload the index holds (a
`responseObject`, or the body of a create/update). Without one, the changes to what its
pods mount under other names are said as not checked: that needs the Kubernetes API.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from connectors.elasticsearch._common import (
    SubRead,
    attempt_all,
    build_result,
    reader_for,
    window,
)
from connectors.elasticsearch._reader import SOURCE, LogReader, any_of, kw_term, time_range
from connectors.elasticsearch._settings import iso_utc
from connectors.kit.audit import (
    CHURN_RESOURCES,
    CONTROLLER_USERS,
    READ_VERBS,
    WORKLOAD_RESOURCES,
    AuditArgs,
    Mount,
    Selection,
    audit_fact,
    mounts,
    ref_of,
)
from policy.contracts import AgentMeta, ToolContract
from policy.errors import SourceUnsupported
from policy.findings import Findings
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext, scope_of

NAME = "k8s.audit_log"
EVIDENCE = "k8s.audit"
SRC_AUDIT = f"{SOURCE}/k8s-audit"
# where a document keeps the Event: at its root (a shipper indexing the JSON line) or
# under kubernetes.audit (Elastic Agent's Kubernetes integration)
ROOTS = ("", "kubernetes.audit.")
# a shipper stamps a line after the request and before this read: a bound on @timestamp
# that narrows the indices read and never loses an event of the window
CLOCK_SKEW = timedelta(minutes=5)
# keys whose own names hold dots (annotation and label keys): never split into objects
_OPAQUE = frozenset(
    {"annotations", "labels", "matchLabels", "nodeSelector", "extra", "data", "stringData"}
)


def contract(envs: list[str]) -> ToolContract:
    return ToolContract(
        name=NAME,
        description=(
            "Kubernetes audit trail read from the audit log in Elasticsearch (the audit.k8s.io"
            "/v1 events the API server's log backend wrote and a shipper indexed): of an "
            "object and the objects it owns (name-*) or its pods mount, or of every object of "
            "a namespace or environment: who (user or ServiceAccount) created/patched/"
            "deleted/scaled it, response code, time, user agent and any CI job/pipeline URL "
            "in the request annotations. Mutating verbs unless include_reads. Where the index "
            "holds no full spec of the workload, what its pods mount under other names is "
            "said as not checked."
        ),
        args_model=AuditArgs,
        agent=AgentMeta(
            evidence=[EVIDENCE],
            sources=["elasticsearch"],
            output_kind="timeline",
            freshness="event_time",
            negative_semantics="complete_read",
            supports_history=True,
            current_only=False,
            read_only=True,
        ),
        enums={"env": envs},
    )


# -- documents -> Events ----------------------------------------------------------------


def _path(key: str) -> list[str]:
    """A flat dotted key as the path it stands for; the rest of the key after an
    annotation-like map stays whole (`...annotations.ci.example.com/job-url`)."""
    parts: list[str] = []
    rest = key
    while "." in rest:
        head, _, tail = rest.partition(".")
        if not head or not tail:
            break
        parts.append(head)
        rest = tail
        if head in _OPAQUE:
            break
    return [*parts, rest]


def _put(out: dict[str, Any], path: list[str], value: Any) -> None:
    node = out
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    last = path[-1]
    if isinstance(node.get(last), dict) and isinstance(value, dict):
        for key, inner in value.items():
            _put(node[last], [key], inner)
    else:
        node[last] = value


def _nest(doc: dict[str, Any]) -> dict[str, Any]:
    """A document's flat dotted keys (`objectRef.name`, as some shippers write them) as
    the objects they stand for. Only the document's own keys are read so: inside an
    object a dot is part of the key (`authorization.k8s.io/decision`, `nvidia.com/gpu`)."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        _put(out, _path(str(key)), value)
    return out


def event_of(source: dict[str, Any]) -> dict[str, Any]:
    """The audit Event a shipped document holds, nested as the API server wrote it, with
    the shipper's @timestamp beside it."""
    doc = _nest(source)
    kube = doc.get("kubernetes")
    inner = kube.get("audit") if isinstance(kube, dict) else None
    if isinstance(inner, dict) and not (doc.get("verb") or doc.get("objectRef")):
        return {**inner, "@timestamp": doc.get("@timestamp")}
    return doc


# -- query clauses on the Event's fields, wherever the document keeps them --------------


def _names(field: str) -> list[str]:
    return [root + field for root in ROOTS]


def _is(field: str, value: str) -> dict[str, Any]:
    return any_of(*(kw_term(n, value) for n in _names(field)))


def _one_of(field: str, values: list[str]) -> list[dict[str, Any]]:
    return [{"terms": {m: values}} for n in _names(field) for m in (n, f"{n}.keyword")]


def _starts(field: str, prefix: str) -> list[dict[str, Any]]:
    return [{"prefix": {m: prefix}} for n in _names(field) for m in (n, f"{n}.keyword")]


def _has(field: str) -> dict[str, Any]:
    return any_of(*({"exists": {"field": n}} for n in _names(field)))


def _lacks(field: str) -> dict[str, Any]:
    return {"bool": {"must_not": [{"exists": {"field": n}} for n in _names(field)]}}


def _received(start: datetime, end: datetime) -> dict[str, Any]:
    """The request's own time in the window; the shipper's only where it has none."""
    by_shipper = {
        "bool": {
            "filter": [time_range(start, end)],
            "must_not": [{"exists": {"field": n}} for n in _names("requestReceivedTimestamp")],
        }
    }
    own = [time_range(start, end, n) for n in _names("requestReceivedTimestamp")]
    return any_of(*own, by_shipper)


def events_query(asked: Selection, now: datetime) -> dict[str, Any]:
    """The events the selection keeps, as far as a query can say it (the selection is
    applied again to what comes back)."""
    filters = [
        time_range(asked.start - CLOCK_SKEW, max(asked.end, now) + CLOCK_SKEW),
        _received(asked.start, asked.end),
    ]
    must_not: list[dict[str, Any]] = []
    if asked.namespace:
        # a cluster-scoped object (a Namespace, a ClusterRole) names no namespace
        filters.append(
            any_of(_is("objectRef.namespace", asked.namespace), _lacks("objectRef.namespace"))
        )
    if asked.service:
        own = [
            _is("objectRef.name", asked.service),
            *_starts("objectRef.name", asked.service + "-"),
        ]
        mounted = [
            {"bool": {"filter": [_is("objectRef.resource", r), _is("objectRef.name", n)]}}
            for r, n in sorted(asked.mounted)
        ]
        filters.append(any_of(*own, *mounted))
    else:
        must_not += [c for prefix in CONTROLLER_USERS for c in _starts("user.username", prefix)]
        must_not += _one_of("objectRef.resource", sorted(CHURN_RESOURCES))
        must_not += _one_of("objectRef.subresource", ["status"])
    if not asked.include_reads:
        must_not += _one_of("verb", sorted(READ_VERBS))
    return {"bool": {"filter": filters, "must_not": must_not}}


def spec_query(namespace: str, service: str) -> dict[str, Any]:
    """Events of the workload that carry its whole spec: the object a write answered
    with, or the body of a create or update (a patch's body is only the change)."""
    whole = {
        "bool": {
            "filter": [
                _has("requestObject.spec.template.spec"),
                any_of(*_one_of("verb", ["create", "update"])),
            ]
        }
    }
    return {
        "bool": {
            "filter": [
                _is("objectRef.name", service),
                _is("objectRef.namespace", namespace),
                any_of(*_one_of("objectRef.resource", sorted(WORKLOAD_RESOURCES))),
                any_of(_has("responseObject.spec.template.spec"), whole),
            ],
            "must_not": [{"range": {n: {"gte": 400}}} for n in _names("responseStatus.code")],
        }
    }


def _spec_of(event: dict[str, Any]) -> dict[str, Any] | None:
    """The workload object an event carries whole, if it does."""
    for key in ("responseObject", "requestObject"):
        body = event.get(key)
        node: Any = body
        for part in ("spec", "template", "spec"):
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(body, dict) and isinstance(node, dict):
            return body
    return None


# -- the tool ---------------------------------------------------------------------------


async def _mounts(
    reader: LogReader, index: str, args: AuditArgs
) -> tuple[str, set[Mount], SubRead | None]:
    """('Deployment x', what its pods mount, the sub-read that says how it was known)."""
    if args.service is None or args.namespace is None:
        return "", set(), None  # as k8s.audit_trail: no workload to read the mounts of
    label = f"ConfigMaps and Secrets the pods of {args.service} mount"
    query = spec_query(args.namespace, args.service)
    ((read, err),) = await attempt_all(reader.search(index, query, limit=1, order="desc"))
    if err is not None:
        return "", set(), SubRead(EVIDENCE, label, error=err)
    assert read is not None
    for source in read.sources():
        event = event_of(source)
        body = _spec_of(event)
        if body is not None:
            kind = WORKLOAD_RESOURCES.get(str(ref_of(event).get("resource")), "Workload")
            sub = SubRead(EVIDENCE, label, read, complete_override=True)
            return f"{kind} {args.service}", mounts(body), sub
    why = (
        f"{index} holds no full spec of a workload named {args.service}, kept only at "
        "RequestResponse level or for a create or update at Request level; the Kubernetes "
        "API has it"
    )
    return "", set(), SubRead(EVIDENCE, label, skipped=why)


def _link(reader: LogReader, index: str, event: dict[str, Any], at: datetime) -> str:
    audit_id = event.get("auditID")
    query = f'auditID:"{audit_id}"' if audit_id else f'objectRef.name:"{ref_of(event).get("name")}"'
    return reader.target.discover_link(
        index, query, at - timedelta(minutes=1), at + timedelta(minutes=1)
    )


async def audit_log(readers: dict[str, LogReader], args: AuditArgs, ctx: CallContext) -> ToolResult:
    reader = reader_for(readers, args.env)
    index = (await reader.resolved()).audit_index  # configured, or found by its fields
    if index is None:
        raise SourceUnsupported(SOURCE, f"no audit index is configured for {args.env}")
    start, end = window(args, ctx)
    owner, mounted, spec_read = await _mounts(reader, index, args)
    asked = Selection(
        start=start,
        end=end,
        namespace=args.namespace,
        service=args.service,
        include_reads=args.include_reads,
        mounted=frozenset(mounted),
    )
    # a request is logged once per stage: room for two documents of each event shown
    limit = min(2 * args.limit, reader.target.max_hits)
    query = events_query(asked, ctx.now)
    ((read, err),) = await attempt_all(reader.search(index, query, limit=limit, order="desc"))
    selected = asked.select(event_of(s) for s in read.sources()) if read is not None else []
    label = f"audit events ({index})"
    warnings: list[str] = []
    cut = len(selected) > args.limit
    if cut:
        warnings.append(
            f"{len(selected)} audit events matched; only the latest {args.limit} are shown"
        )
        label += f", the latest {args.limit} of {len(selected)} shown"
        selected = selected[-args.limit :]
    elif read is not None and not read.complete and not read.missing:
        warnings.append(f"showing the latest audit events ({len(selected)}); {read.describe()}")
    graph = Findings(SOURCE, env=args.env)
    facts: list[ResultFact] = [
        audit_fact(
            event,
            at,
            graph,
            source=SRC_AUDIT,
            env=args.env,
            link=_link(reader, index, event, at),
            mounted_by=asked.mounted_by(event, owner),
        )
        for at, event in selected
    ]
    main = SubRead(EVIDENCE, label, read, err, found=bool(facts))
    if cut:
        main.complete_override = False
    subs = [main] + ([spec_read] if spec_read is not None else [])
    return build_result(
        NAME,
        scope_of(args, ctx),
        subs,
        facts,
        graph=graph,
        warnings=warnings,
        limit=limit,
        raw={"window": [iso_utc(start), iso_utc(end)], "events": [e for _, e in selected]},
    )
