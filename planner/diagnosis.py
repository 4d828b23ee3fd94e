"""Deterministic diagnosis: hypotheses from structured facts, with no model.

Each rule reads typed fact attributes (policy/facts.py) and may produce a
Finding: a summary line, a hypothesis with the indexes of the facts that support it, a
confidence and bounded recommendations. Rules only name causes that a fact names; a
cause never read (a proxy setting, a kernel knob) is never stated. Causality: a change
after the symptom's start cannot be offered as its cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Generic, Literal, TypeVar

import structlog

from policy.facts import (
    AppResponse,
    CiCommit,
    CiJob,
    EdgeAccess,
    EdgeError,
    HttpRate,
    K8sAudit,
    K8sAutoscaler,
    K8sEvent,
    K8sLog,
    K8sPlacement,
    K8sPod,
    K8sQuota,
    K8sTermination,
    K8sWaiting,
    MetricsRestarts,
    MetricsUsage,
    NetProbe,
    NodeNetwork,
)
from policy.results import ResultFact

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class IndexedFact:
    index: int
    fact: ResultFact
    env: str | None


@dataclass
class Finding:
    summary: str
    hypothesis: str | None
    supported_by: list[int]
    confidence: Literal["low", "medium", "high"] = "medium"
    recommendations: list[str] = field(default_factory=list)
    weight: int = 50  # lower comes first


A = TypeVar("A")


@dataclass(frozen=True)
class Seen(Generic[A]):
    """A fact of one kind, with its attributes typed as that kind's model."""

    index: int
    fact: ResultFact
    a: A


def _of(facts: list[IndexedFact], model: type[A]) -> list[Seen[A]]:
    return [Seen(f.index, f.fact, f.fact.attrs) for f in facts if isinstance(f.fact.attrs, model)]


EDGE_CLASS_TEXT: dict[str, tuple[str, list[str]]] = {
    "too_big_header": (
        "the response headers did not fit the edge proxy's buffer "
        '("upstream sent too big header while reading response header from upstream")',
        [
            "Inspect the full response header set of this path (Location, Set-Cookie) and trim it.",
            "Raise proxy_buffer_size / proxy_buffers only after measuring the real header size.",
        ],
    ),
    "timeout": (
        "the upstream did not answer in time (upstream timed out)",
        ["Check the backend's latency and slow requests for this path around that time."],
    ),
    "connect_timeout": (
        "the proxy could not even connect to the upstream in time (connect timeout): the pod "
        "or the node behind that address did not answer",
        ["Check the pods behind the failing upstream addresses and the state of their nodes."],
    ),
    "connection_refused": (
        "nothing accepted connections at the upstream address (connection refused)",
        ["Check whether the pod behind that address was listening (readiness, restarts)."],
    ),
    "connection_reset": (
        "the upstream reset the connection (connection reset by peer)",
        ["Compare with the network health of the nodes behind the upstream addresses."],
    ),
    "premature_close": (
        "the upstream closed the connection before sending a full response",
        ["Compare with the network health of the nodes behind the upstream addresses."],
    ),
    "invalid_header": (
        "the upstream sent a response header the proxy could not parse",
        ["Inspect the raw response headers of the application for this path."],
    ),
    "upstream_tls": (
        "the TLS handshake or certificate check towards the upstream failed",
        ["Check the upstream certificate chain and the proxy's TLS settings towards it."],
    ),
    "no_live_upstreams": (
        "the proxy had no live upstream left (all marked failed)",
        ["Check why every upstream failed just before (refused, timeouts)."],
    ),
}


def _edge(facts: list[IndexedFact], onset: datetime | None = None) -> list[Finding]:
    out: list[Finding] = []
    access = _of(facts, EdgeAccess)
    # what the application answered to the requests the edge failed, never to others in
    # the window ("the application answered 200" was an unrelated GET)
    failed = {str(a.a.request_id) for a in access if a.a.request_id}
    app = [
        a for a in _of(facts, AppResponse) if not failed or str(a.a.request_id) in failed
    ]  # with no request id to tie them by, the read itself was about the request
    classes: dict[str, list[Seen[EdgeError]]] = {}
    for f in _of(facts, EdgeError):
        if f.a.error_class in EDGE_CLASS_TEXT:
            classes.setdefault(f.a.error_class, []).append(f)
    for cls, fs in classes.items():
        text, recs = EDGE_CLASS_TEXT[cls]
        edge_status = next((str(a.a.status) for a in access if a.a.status), None)
        app_status = next((str(a.a.status) for a in app if a.a.status), None)
        support = [f.index for f in fs] + [a.index for a in access[:1]] + [a.index for a in app[:1]]
        if app_status and edge_status and app_status != edge_status:
            summary = (
                f"The application answered {app_status}; the edge proxy returned {edge_status} "
                f"because {text}."
            )
            confidence: Literal["low", "medium", "high"] = "high"
        elif edge_status:
            summary = f"The edge proxy returned {edge_status}: {text}."
            confidence = "high" if access else "medium"
        else:
            summary = f"The edge error log shows that {text}."
            confidence = "medium"
        out.append(Finding(summary, summary, support, confidence, recs, weight=10))
    return out


ANOMALY_RATIO = 3.0  # a node this many times worse than its peers' median stands out
ANOMALY_FLOOR = 0.5  # per second: below this, a ratio is noise
NETWORKY_EDGE = {"premature_close", "connection_reset", "timeout", "connect_timeout"}


def _anomalous(f: NodeNetwork) -> bool:
    if f.value is None or f.value < ANOMALY_FLOOR:
        return False
    if f.ratio is not None:
        return f.ratio >= ANOMALY_RATIO
    # every peer at zero: any real amount on this node stands out
    return f.peer_median == 0


def within_normal(attrs: object) -> bool:
    """A reading that is not a signal: a node's figure that the node anomaly rule would not
    call out (near its peers, or too small to tell). Class "noise shown as evidence"."""
    return isinstance(attrs, NodeNetwork) and attrs.node is not None and not _anomalous(attrs)


def _workload_of(pod: str, owner: str | None) -> str:
    """service-a-5d8f7c9b4-x2k9p -> service-a (from the ReplicaSet owner when known)."""
    if owner:
        parts = owner.rsplit("-", 1)
        return parts[0] if len(parts) == 2 and len(parts[1]) >= 8 else owner
    parts = pod.rsplit("-", 2)
    return parts[0] if len(parts) == 3 else pod


def _node_network(facts: list[IndexedFact], onset: datetime | None = None) -> list[Finding]:
    """A node far worse than its peers, hosting pods behind the errors. Strong when two
    independent services on it failed together; no kernel knob is ever named."""
    out = []
    by_node: dict[str, list[Seen[NodeNetwork]]] = {}
    for f in _of(facts, NodeNetwork):
        if _anomalous(f.a):
            by_node.setdefault(str(f.a.node), []).append(f)
    edge_classes = {str(f.a.error_class) for f in _of(facts, EdgeError)}
    network_edge = sorted(edge_classes & NETWORKY_EDGE)
    for node, fs in by_node.items():
        metrics = sorted({str(f.a.metric) for f in fs})
        hosted = _hosted_on(facts, node)
        services = sorted({_workload_of(pod, owner) for _, pod, owner in hosted if pod})
        conf: Literal["low", "medium", "high"] = "medium" if len(services) < 2 else "high"
        text = (
            f"Node {node} shows network trouble ({', '.join(metrics)}) far above its peers"
            + (f"; it hosts pods of {', '.join(services)}" if services else "")
            + (
                f", consistent with the edge errors ({', '.join(network_edge)})"
                if network_edge
                else ""
            )
            + ". No specific kernel setting is established by the evidence."
        )
        out.append(
            Finding(
                text,
                text,
                [f.index for f in fs] + [index for index, _, _ in hosted],
                conf,
                [
                    f"Check {node}'s NIC, softnet backlog and the hypervisor it runs on "
                    "before changing any setting."
                ],
                # the node explains the edge symptoms; it leads when both are present
                weight=5 if network_edge else 20,
            )
        )
    return out


def _hosted_on(facts: list[IndexedFact], node: str) -> list[tuple[int, str | None, str | None]]:
    """(fact index, pod, owner) of every fact placing a pod on the node: the API's pod
    list, an application line naming its node, a placement. A pod that got its address
    only after the moment asked about is not."""
    out: list[tuple[int, str | None, str | None]] = []
    for p in _of(facts, K8sPod):
        if p.a.node == node:
            out.append((p.index, p.a.pod, None))
    for r in _of(facts, AppResponse):
        if r.a.node == node:
            out.append((r.index, None if r.a.pod is None else str(r.a.pod), None))
    for pl in _of(facts, K8sPlacement):
        if pl.a.node == node and not pl.a.created_after_moment:
            out.append((pl.index, pl.a.pod, pl.a.owner))
    return out


def _workload(facts: list[IndexedFact], onset: datetime | None = None) -> list[Finding]:
    out = []
    for f in _of(facts, K8sTermination):
        if f.a.reason == "OOMKilled":
            usage = [u for u in _of(facts, MetricsUsage) if u.a.resource == "memory"]
            exit_code = 137 if f.a.exit_code is None else f.a.exit_code
            limit = f" of {f.a.memory_limit}" if f.a.memory_limit else ""
            text = (
                f"Container {f.a.container} of {f.a.pod} was killed for exceeding its "
                f"memory limit{limit} (OOMKilled, exit code {exit_code})."
            )
            out.append(
                Finding(
                    text,
                    text,
                    [f.index] + [u.index for u in usage[:2]],
                    "high",
                    [
                        "Compare memory usage with the limit over a day before raising it; "
                        "look for a leak if usage only grows."
                    ],
                    weight=15,
                )
            )
            break
    waiting = _of(facts, K8sWaiting)
    for reason in (
        "CrashLoopBackOff",
        "ImagePullBackOff",
        "ErrImagePull",
        "CreateContainerConfigError",
    ):
        fs = [w for w in waiting if w.a.reason == reason]
        if not fs:
            continue
        first = fs[0]
        logs = [lf for lf in _of(facts, K8sLog) if lf.a.pod in {x.a.pod for x in fs}]
        # the symptom began at the earliest of what the evidence shows and what the
        # question says ("503 since 12:30"): a release after that is no cause
        began = [
            t
            for t in (_symptom_start(facts, fs), onset + ONSET_SLACK if onset else None)
            if t is not None
        ]
        changes = _changes_before(facts, min(began) if began else None)
        # which build is failing: a crash after a release is about that image
        text = f"Pod {first.a.pod}" + (f" (image {first.a.image})" if first.a.image else "")
        text += f" is in {reason}"
        if first.a.message:
            text += f": {first.a.message}"
        severe = [
            lf
            for lf in logs
            if str(lf.a.level or "").upper() in ("ERROR", "FATAL", "CRITICAL", "PANIC")
        ]
        quoted = _distinct_lines(severe or logs)[-2:]
        if quoted:
            text += ". Its log says: " + " / ".join(quoted)
        last_change = changes[-1:] if reason == "CrashLoopBackOff" else []
        for change in last_change:
            text += f". It started failing after {_change_text(change)}"
        out.append(
            Finding(
                text + ".",
                text + ".",
                [x.index for x in fs[:2] + logs[-1:]] + [c.index for c in last_change],
                "high" if logs else "medium",
                weight=15,
            )
        )
    evicted = [p for p in _of(facts, K8sPod) if p.a.pod_reason == "Evicted"]
    if evicted:
        e = evicted[0]
        text = (
            f"{len(evicted)} pod(s) were evicted by the kubelet, e.g. {e.a.pod}: "
            f"{e.a.pod_message or 'no message'}"
        )
        out.append(Finding(text, text, [x.index for x in evicted[:3]], "high", weight=15))
    for ev in _of(facts, K8sEvent):
        reason = ev.a.reason or ""
        if reason in ("FailedMount", "FailedAttachVolume", "FailedScheduling", "FailedCreate"):
            text = f"Kubernetes reports {reason} for {ev.a.object}: {ev.a.message or ''}".strip()
            out.append(Finding(text, text, [ev.index], "high", weight=18))
    return out


def _line(lf: Seen[K8sLog]) -> str:
    return str(lf.a.message or lf.a.line or lf.fact.text)


def _distinct_lines(lines: list[Seen[K8sLog]]) -> list[str]:
    """The same crash repeats in every restart: quote each message once, without its time."""
    out: list[str] = []
    for lf in lines:
        text = re.sub(r"^\S*\d{2}:\d{2}:\d{2}\S*\s+", "", _line(lf)).strip()
        if text and text not in out:
            out.append(text)
    return out


def _parse(value: str | None) -> datetime | None:
    if value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        # a source that drops the offset means UTC (Kubernetes and Elasticsearch do)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


FAILURE_EVENTS = {"BackOff", "Failed", "Unhealthy", "FailedMount", "FailedScheduling", "Killing"}


def _symptom_start(facts: list[IndexedFact], waiting: list[Seen[K8sWaiting]]) -> datetime | None:
    """When the failure began, from the earliest evidence of it: the first warning event,
    the first restart, the first termination. A release after that cannot explain it."""
    pods = {str(w.a.pod) for w in waiting}
    times: list[datetime] = []
    for ev in _of(facts, K8sEvent):
        failing = ev.a.reason in FAILURE_EVENTS and any(p in str(ev.a.name) for p in pods)
        if failing and (t := _parse(ev.a.first_seen)) is not None:
            times.append(t)
    for r in _of(facts, MetricsRestarts):
        if str(r.a.pod) in pods and (t := _parse(r.a.first_increase_at)) is not None:
            times.append(t)
    for term in _of(facts, K8sTermination):
        if str(term.a.pod) in pods and (t := _parse(term.a.finished_at)) is not None:
            times.append(t)
    if times:
        return min(times)
    observed = [w.fact.observed_at for w in waiting if w.fact.observed_at]
    return min(observed) if observed else None


def _job_start(job: Seen[CiJob]) -> datetime | None:
    """A deploy job changes the cluster while it runs: it can explain what began after it
    started, even before it finished."""
    return _parse(job.a.started_at) or job.fact.observed_at


# A clock time a person gives for the start of a symptom is rounded ("since 12:30" for a
# first failure at 12:32): a change that soon after it may still come before the symptom,
# whose start the evidence then fixes.
ONSET_SLACK = timedelta(minutes=5)
_MUTATING = frozenset({"create", "update", "patch", "delete", "deletecollection"})
_NO_CHANGE_SUBRESOURCES = frozenset(
    {"exec", "attach", "portforward", "proxy", "log", "eviction", "binding", "status"}
)

Change = Seen[CiJob] | Seen[K8sAudit]


def _changes_before(facts: list[IndexedFact], symptom: datetime | None) -> list[Change]:
    """What changed before the symptom began, oldest first: deploy jobs in scope that ran
    (successful or not), and what a person or a CI identity changed in the cluster (the
    object, or a ConfigMap or Secret its pods mount). A change after the start of the
    symptom is no cause (class "causality in code")."""
    jobs = [
        (at, j)
        for j in _of(facts, CiJob)
        if j.a.in_scope and j.a.ran and (at := _job_start(j)) is not None
    ]
    runs = [(at, _parse(j.a.finished_at) or at) for at, j in jobs]
    timed: list[tuple[datetime, Change]] = list(jobs)
    timed += [
        (at, a)
        for a in _of(facts, K8sAudit)
        if (at := a.fact.observed_at) is not None
        and not _is_controller(a.a.actor)
        and a.a.verb in _MUTATING
        and (a.a.code is None or a.a.code < 400)
        # a shell in a pod, an eviction, a pod deleted or made: no change to what runs
        and a.a.subresource not in _NO_CHANGE_SUBRESOURCES
        and a.a.resource != "pods"
        # a program's write while a deploy job ran is that job's release, said once
        and not (a.a.actor_type == "service_account" and _during(at, runs))
    ]
    before = [(at, c) for at, c in timed if symptom is None or at <= symptom]
    return [c for _, c in sorted(before, key=lambda pair: pair[0])]


def _during(at: datetime, runs: list[tuple[datetime, datetime]]) -> bool:
    return any(start <= at <= end + timedelta(minutes=1) for start, end in runs)


def _change_text(change: Change) -> str:
    a = change.a
    if isinstance(a, CiJob):
        return f"release job {a.job_name} #{a.job_id}"
    at = change.fact.observed_at
    when = f" at {at.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}" if at else ""
    what = f"{a.resource} {a.namespace + '/' if a.namespace else ''}{a.name}"
    mounted = f", which the pods of {a.mounted_by} mount" if a.mounted_by else ""
    return f"{a.actor} did {a.verb} on {what}{when}{mounted}"


def _quota(facts: list[IndexedFact], onset: datetime | None = None) -> list[Finding]:
    out = []
    for q in _of(facts, K8sQuota):
        ratio = q.a.ratio
        if ratio is not None and ratio >= 0.85:
            text = (
                f"Quota {q.a.quota} is at {ratio:.0%} for {q.a.resource} "
                f"({q.a.used} of {q.a.hard})."
            )
            out.append(Finding(text, text, [q.index], "high", weight=30))
    return out


def _is_controller(actor: str | None) -> bool:
    """Kubernetes' own controllers act on every rollout; they are not who deployed."""
    return (actor or "").startswith(
        ("system:serviceaccount:kube-system:", "system:kube-", "system:node:")
    )


def _releases(facts: list[IndexedFact], onset: datetime | None = None) -> list[Finding]:
    """Who deployed, with the roles kept apart: the job's user started the job, the commit
    author wrote the change, the audit actor changed the object in the cluster."""
    # a job that ran is a release; one nobody played comes after, said as not run
    jobs = sorted((j for j in _of(facts, CiJob) if j.a.in_scope), key=lambda j: not j.a.ran)
    # a request the API server refused (403, 409, 422...) changed nothing
    audits = [
        a
        for a in _of(facts, K8sAudit)
        if not _is_controller(a.a.actor) and not (a.a.code is not None and a.a.code >= 400)
    ]
    if not jobs and not audits:
        return []
    parts = []
    support = []
    for j in jobs[:3]:
        user = j.a.user
        parts.append(
            f"job {j.a.job_name} #{j.a.job_id} (pipeline {j.a.pipeline_id}) "
            + (
                "has not run"
                if not j.a.ran
                else f"was started by {user}"
                if user
                else "has no user in GitLab's answer"
            )
            + f", status {j.a.status}"
        )
        support.append(j.index)
    shas = {j.a.commit_sha or "" for j in jobs}
    for c in _of(facts, CiCommit):
        sha = c.a.sha or ""
        if jobs and not any(s and (sha.startswith(s) or s.startswith(sha)) for s in shas):
            continue
        parts.append(f"commit {sha[:8]} was authored by {c.a.author}")
        support.append(c.index)
    for a in audits[:2]:
        parts.append(f"in the cluster {a.a.actor} did {a.a.verb} on {a.a.resource} {a.a.name}")
        support.append(a.index)
    summary = "; ".join(parts) + "."
    return [Finding(summary[0].upper() + summary[1:], None, support, "high", weight=40)]


def _rates(facts: list[IndexedFact], onset: datetime | None = None) -> list[Finding]:
    rates = _of(facts, HttpRate)
    if not rates:
        return []
    return [Finding(rates[0].fact.text, None, [rates[0].index], "high", weight=60)]


def _probes(facts: list[IndexedFact], onset: datetime | None = None) -> list[Finding]:
    probes = _of(facts, NetProbe)
    if not probes:
        return []
    return [
        Finding(
            "; ".join(p.fact.text for p in probes[:4]) + ".",
            None,
            [p.index for p in probes[:4]],
            "high",
            weight=55,
        )
    ]


def _autoscaler(facts: list[IndexedFact], onset: datetime | None = None) -> list[Finding]:
    """An autoscaler that may not add replicas while its metric is above target: the load
    is more than the replicas it may run can serve (every pod healthy, nothing restarted)."""
    out = []
    for h in _of(facts, K8sAutoscaler):
        # at its maximum and still asked for more: held there while its metric is above
        # target (pinned min == max, or quiet at its minimum, is no such finding)
        if not (h.a.at_max and (h.a.limited or h.a.over_target)):
            continue
        text = (
            f"{h.a.target} cannot scale out: its HorizontalPodAutoscaler {h.a.name} is at "
            f"its maximum of {h.a.max_replicas} replicas"
        )
        if h.a.metrics:
            text += f" while {', '.join(h.a.metrics)}"
        text += "."
        out.append(
            Finding(
                text,
                text,
                [h.index],
                "medium",
                [
                    "Compare the request rate with the capacity of the maximum replicas "
                    "before raising maxReplicas; check the nodes have room for more pods."
                ],
                weight=25,
            )
        )
    return out


RULES = (_edge, _node_network, _workload, _quota, _autoscaler, _releases, _rates, _probes)


def diagnose(facts: list[IndexedFact], onset: datetime | None = None) -> list[Finding]:
    """Every rule's findings, most explanatory first. A rule that breaks on odd data is
    skipped (and logged): the facts already collected must still reach the answer."""
    findings: list[Finding] = []
    for rule in RULES:
        try:
            findings.extend(rule(facts, onset))
        except (TypeError, ValueError, KeyError, AttributeError):
            log.exception("diagnosis.rule_failed", rule=rule.__name__)
    return sorted(findings, key=lambda f: f.weight)
