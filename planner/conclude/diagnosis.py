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

from planner.conclude.diagnosis_text import EDGE_CLASS_TEXT, Said, said
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
from policy.language import Language
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


def _edge(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
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
        text, recs = EDGE_CLASS_TEXT[cls].text(lang), EDGE_CLASS_TEXT[cls].recommendations(lang)
        edge_status = next((str(a.a.status) for a in access if a.a.status), None)
        app_status = next((str(a.a.status) for a in app if a.a.status), None)
        support = [f.index for f in fs] + [a.index for a in access[:1]] + [a.index for a in app[:1]]
        if app_status and edge_status and app_status != edge_status:
            summary = said(Said.APP_VS_EDGE, lang, app=app_status, edge=edge_status, text=text)
            confidence: Literal["low", "medium", "high"] = "high"
        elif edge_status:
            summary = said(Said.EDGE_RETURNED, lang, edge=edge_status, text=text)
            confidence = "high" if access else "medium"
        else:
            summary = said(Said.EDGE_LOG_SHOWS, lang, text=text)
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


def _node_network(
    facts: list[IndexedFact], onset: datetime | None, lang: Language
) -> list[Finding]:
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
            said(Said.NODE_TROUBLE, lang, node=node, metrics=", ".join(metrics))
            + (said(Said.NODE_HOSTS, lang, services=", ".join(services)) if services else "")
            + (
                said(Said.NODE_CONSISTENT, lang, classes=", ".join(network_edge))
                if network_edge
                else ""
            )
            + said(Said.NODE_NO_KNOB, lang)
        )
        out.append(
            Finding(
                text,
                text,
                [f.index for f in fs] + [index for index, _, _ in hosted],
                conf,
                [said(Said.NODE_CHECK, lang, node=node)],
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


WAITING_REASONS = (
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "CreateContainerConfigError",
)
SEVERE_LEVELS = ("ERROR", "FATAL", "CRITICAL", "PANIC")
FAILED_EVENTS = ("FailedMount", "FailedAttachVolume", "FailedScheduling", "FailedCreate")


def _workload(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    """Why a workload's pods do not run: killed for memory, waiting (a crash loop, an image
    that does not pull), evicted, or an event Kubernetes reported for it. One rule: a
    part that breaks on odd data drops the workload's findings together."""
    out = _oom(facts, lang)
    waiting = _of(facts, K8sWaiting)
    for reason in WAITING_REASONS:
        fs = [w for w in waiting if w.a.reason == reason]
        if fs:
            out.append(_waiting(facts, onset, lang, reason, fs))
    out += _evicted(facts, lang)
    out += _failed_events(facts, lang)
    return out


def _oom(facts: list[IndexedFact], lang: Language) -> list[Finding]:
    """The first container killed for memory, with the memory it used."""
    for f in _of(facts, K8sTermination):
        if f.a.reason != "OOMKilled":
            continue
        usage = [u for u in _of(facts, MetricsUsage) if u.a.resource == "memory"]
        exit_code = 137 if f.a.exit_code is None else f.a.exit_code
        limit = said(Said.OOM_LIMIT, lang, limit=f.a.memory_limit) if f.a.memory_limit else ""
        text = said(
            Said.OOM, lang, container=f.a.container, pod=f.a.pod, limit=limit, code=exit_code
        )
        support = [f.index] + [u.index for u in usage[:2]]
        return [Finding(text, text, support, "high", [said(Said.OOM_CHECK, lang)], weight=15)]
    return []


def _waiting(
    facts: list[IndexedFact],
    onset: datetime | None,
    lang: Language,
    reason: str,
    fs: list[Seen[K8sWaiting]],
) -> Finding:
    """Pods waiting for one reason: which build, what their log says, and for a crash
    loop the last change before the symptom began."""
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
    text = said(Said.POD, lang, pod=first.a.pod)
    text += said(Said.POD_IMAGE, lang, image=first.a.image) if first.a.image else ""
    text += said(Said.POD_IN, lang, reason=reason)
    if first.a.message:
        text += f": {first.a.message}"
    severe = [lf for lf in logs if str(lf.a.level or "").upper() in SEVERE_LEVELS]
    quoted = _distinct_lines(severe or logs)[-2:]
    if quoted:
        text += said(Said.POD_LOG, lang, lines=" / ".join(quoted))
    last_change = changes[-1:] if reason == "CrashLoopBackOff" else []
    for change in last_change:
        text += said(Said.POD_AFTER, lang, change=_change_text(change, lang))
    return Finding(
        text + ".",
        text + ".",
        [x.index for x in fs[:2] + logs[-1:]] + [c.index for c in last_change],
        "high" if logs else "medium",
        weight=15,
    )


def _evicted(facts: list[IndexedFact], lang: Language) -> list[Finding]:
    evicted = [p for p in _of(facts, K8sPod) if p.a.pod_reason == "Evicted"]
    if not evicted:
        return []
    e = evicted[0]
    text = said(
        Said.EVICTED,
        lang,
        count=len(evicted),
        pod=e.a.pod,
        message=e.a.pod_message or said(Said.NO_MESSAGE, lang),
    )
    return [Finding(text, text, [x.index for x in evicted[:3]], "high", weight=15)]


def _failed_events(facts: list[IndexedFact], lang: Language) -> list[Finding]:
    """What Kubernetes reports it could not do for the workload (mount, schedule, create)."""
    out = []
    for ev in _of(facts, K8sEvent):
        reason = ev.a.reason or ""
        if reason in FAILED_EVENTS:
            text = said(
                Said.K8S_REPORTS,
                lang,
                reason=reason,
                object=ev.a.object,
                message=ev.a.message or "",
            ).strip()
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


def _change_text(change: Change, lang: Language) -> str:
    a = change.a
    if isinstance(a, CiJob):
        return said(Said.CHANGE_JOB, lang, job=a.job_name, id=a.job_id)
    at = change.fact.observed_at
    stamp = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if at else None
    when = said(Said.CHANGE_AT, lang, at=stamp) if stamp else ""
    what = f"{a.resource} {a.namespace + '/' if a.namespace else ''}{a.name}"
    mounted = said(Said.CHANGE_MOUNTED, lang, by=a.mounted_by) if a.mounted_by else ""
    return said(
        Said.CHANGE_AUDIT, lang, actor=a.actor, verb=a.verb, what=what, at=when, mounted=mounted
    )


def _quota(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    out = []
    for q in _of(facts, K8sQuota):
        ratio = q.a.ratio
        if ratio is not None and ratio >= 0.85:
            text = said(
                Said.QUOTA,
                lang,
                quota=q.a.quota,
                ratio=f"{ratio:.0%}",
                resource=q.a.resource,
                used=q.a.used,
                hard=q.a.hard,
            )
            out.append(Finding(text, text, [q.index], "high", weight=30))
    return out


def _is_controller(actor: str | None) -> bool:
    """Kubernetes' own controllers act on every rollout; they are not who deployed."""
    return (actor or "").startswith(
        ("system:serviceaccount:kube-system:", "system:kube-", "system:node:")
    )


def _releases(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
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
            said(Said.JOB, lang, name=j.a.job_name, id=j.a.job_id, pipeline=j.a.pipeline_id)
            + (
                said(Said.JOB_NOT_RUN, lang)
                if not j.a.ran
                else said(Said.JOB_STARTED_BY, lang, user=user)
                if user
                else said(Said.JOB_NO_USER, lang)
            )
            + said(Said.JOB_STATUS, lang, status=j.a.status)
        )
        support.append(j.index)
    shas = {j.a.commit_sha or "" for j in jobs}
    for c in _of(facts, CiCommit):
        sha = c.a.sha or ""
        if jobs and not any(s and (sha.startswith(s) or s.startswith(sha)) for s in shas):
            continue
        parts.append(said(Said.COMMIT_AUTHOR, lang, sha=sha[:8], author=c.a.author))
        support.append(c.index)
    for a in audits[:2]:
        parts.append(
            said(
                Said.CLUSTER_CHANGE,
                lang,
                actor=a.a.actor,
                verb=a.a.verb,
                resource=a.a.resource,
                name=a.a.name,
            )
        )
        support.append(a.index)
    summary = "; ".join(parts) + "."
    return [Finding(summary[0].upper() + summary[1:], None, support, "high", weight=40)]


def _rates(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    rates = _of(facts, HttpRate)
    if not rates:
        return []
    return [Finding(rates[0].fact.text, None, [rates[0].index], "high", weight=60)]


def _probes(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
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


def _autoscaler(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    """An autoscaler that may not add replicas while its metric is above target: the load
    is more than the replicas it may run can serve (every pod healthy, nothing restarted)."""
    out = []
    for h in _of(facts, K8sAutoscaler):
        # at its maximum and still asked for more: held there while its metric is above
        # target (pinned min == max, or quiet at its minimum, is no such finding)
        if not (h.a.at_max and (h.a.limited or h.a.over_target)):
            continue
        text = said(Said.HPA_AT_MAX, lang, target=h.a.target, name=h.a.name, max=h.a.max_replicas)
        if h.a.metrics:
            text += said(Said.HPA_WHILE, lang, metrics=", ".join(h.a.metrics))
        text += "."
        out.append(
            Finding(
                text,
                text,
                [h.index],
                "medium",
                [said(Said.HPA_CHECK, lang)],
                weight=25,
            )
        )
    return out


RULES = (_edge, _node_network, _workload, _quota, _autoscaler, _releases, _rates, _probes)


def diagnose(
    facts: list[IndexedFact], onset: datetime | None = None, language: Language = Language.EN
) -> list[Finding]:
    """Every rule's findings, most explanatory first. A rule that breaks on odd data is
    skipped (and logged): the facts already collected must still reach the answer."""
    findings: list[Finding] = []
    for rule in RULES:
        try:
            findings.extend(rule(facts, onset, language))
        except (TypeError, ValueError, KeyError, AttributeError):
            log.exception("diagnosis.rule_failed", rule=rule.__name__)
    return sorted(findings, key=lambda f: f.weight)
