"""Deterministic diagnosis: hypotheses from structured facts, with no model.

Each rule (planner/conclude/rule.py says what one reads and returns; the rules about
changes and releases are in planner/conclude/changes.py) reads typed fact attributes
(policy/facts.py) and may produce a Finding: a summary line, a hypothesis with the
indexes of the facts that support it, a confidence and bounded recommendations. Rules
only name causes that a fact names; a cause never read (a proxy setting, a kernel knob)
is never stated. Causality: a change after the symptom's start cannot be offered as its
cause.
"""

from __future__ import annotations

import re
from datetime import datetime

import structlog

from planner.conclude.chain import dependency_chain
from planner.conclude.changes import (
    ONSET_SLACK,
    change_text,
    changes_before,
    failure_start,
    releases,
    symptom_start,
)
from planner.conclude.diagnosis_text import EDGE_CLASS_TEXT, Said, said
from planner.conclude.rule import Confidence, Finding, IndexedFact, Rule, Seen, of_kind
from planner.conclude.runs import failed_runs
from policy.facts import (
    AppResponse,
    EdgeAccess,
    EdgeError,
    HttpRate,
    K8sAutoscaler,
    K8sEndpoints,
    K8sEvent,
    K8sLog,
    K8sPlacement,
    K8sPod,
    K8sQuota,
    K8sTermination,
    K8sWaiting,
    MetricsUsage,
    NetProbe,
    NodeNetwork,
)
from policy.language import Language
from policy.numbers import Nouns, count_said, percent_said

__all__ = ["Finding", "IndexedFact", "diagnose", "within_normal"]

log = structlog.get_logger(__name__)


def _edge(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    out: list[Finding] = []
    access = of_kind(facts, EdgeAccess)
    # what the application answered to the requests the edge failed, never to others in
    # the window ("the application answered 200" was an unrelated GET)
    failed = {str(a.a.request_id) for a in access if a.a.request_id}
    app = [
        a for a in of_kind(facts, AppResponse) if not failed or str(a.a.request_id) in failed
    ]  # with no request id to tie them by, the read itself was about the request
    classes: dict[str, list[Seen[EdgeError]]] = {}
    for f in of_kind(facts, EdgeError):
        if f.a.error_class in EDGE_CLASS_TEXT:
            classes.setdefault(f.a.error_class, []).append(f)
    for cls, fs in classes.items():
        text, recs = EDGE_CLASS_TEXT[cls].text(lang), EDGE_CLASS_TEXT[cls].recommendations(lang)
        edge_status = next((str(a.a.status) for a in access if a.a.status), None)
        app_status = next((str(a.a.status) for a in app if a.a.status), None)
        support = [f.index for f in fs] + [a.index for a in access[:1]] + [a.index for a in app[:1]]
        if app_status and edge_status and app_status != edge_status:
            summary = said(Said.APP_VS_EDGE, lang, app=app_status, edge=edge_status, text=text)
            confidence: Confidence = "high"
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
    """<workload>-<hash>-<hash> -> <workload> (from the ReplicaSet owner when known)."""
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
    for f in of_kind(facts, NodeNetwork):
        if _anomalous(f.a):
            by_node.setdefault(str(f.a.node), []).append(f)
    edge_classes = {str(f.a.error_class) for f in of_kind(facts, EdgeError)}
    network_edge = sorted(edge_classes & NETWORKY_EDGE)
    for node, fs in by_node.items():
        metrics = sorted({str(f.a.metric) for f in fs})
        hosted = _hosted_on(facts, node)
        services = sorted({_workload_of(pod, owner) for _, pod, owner in hosted if pod})
        conf: Confidence = "medium" if len(services) < 2 else "high"
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
    for p in of_kind(facts, K8sPod):
        if p.a.node == node:
            out.append((p.index, p.a.pod, None))
    for r in of_kind(facts, AppResponse):
        if r.a.node == node:
            out.append((r.index, None if r.a.pod is None else str(r.a.pod), None))
    for pl in of_kind(facts, K8sPlacement):
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
    waiting = of_kind(facts, K8sWaiting)
    for reason in WAITING_REASONS:
        fs = [w for w in waiting if w.a.reason == reason]
        if fs:
            out.append(_waiting(facts, onset, lang, reason, fs))
    out += _evicted(facts, lang)
    out += _liveness(facts, onset, lang)
    out += _failed_events(facts, lang)
    return out


# the kubelet's own event texts: reason Unhealthy "Liveness probe failed: <output>", reason
# Killing "Container <c> failed liveness probe, will be restarted"
_LIVENESS_FAILED = re.compile(r"^liveness probe failed|failed liveness probe", re.I)
_KILLED_CONTAINER = re.compile(r"^container (\S+) failed liveness probe", re.I)
_PROBE_SAID = re.compile(r"^liveness probe failed: ?", re.I)


def _liveness(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    """Containers the kubelet kills because their liveness probe fails: the restarts' cause
    is the probe, not the program's exit (143 or 137 after SIGTERM/SIGKILL), with what the
    probe got and the change before the first failure."""
    events = [
        e
        for e in of_kind(facts, K8sEvent)
        if e.a.reason in {"Unhealthy", "Killing"} and _LIVENESS_FAILED.search(e.a.message or "")
    ]
    if not events:
        return []
    failed = next((e for e in events if e.a.reason == "Unhealthy"), events[0])
    pods = {str(e.a.name) for e in events if e.a.name}
    killed = [
        t for t in of_kind(facts, K8sTermination) if t.a.pod in pods and t.a.reason != "OOMKilled"
    ]
    named = next(
        (m.group(1) for e in events if (m := _KILLED_CONTAINER.search(e.a.message or ""))), None
    )
    container = named or (killed[0].a.container if killed else None) or "?"
    text = said(
        Said.LIVENESS,
        lang,
        container=container,
        pod=failed.a.name or failed.a.object,
        message=_PROBE_SAID.sub("", failed.a.message or "", count=1),
    )
    if killed:
        code = killed[-1].a.exit_code if killed[-1].a.exit_code is not None else "?"
        names = sorted({str(t.a.pod) for t in killed})
        text += said(Said.LIVENESS_KILLS, lang, pods=", ".join(names[:3]), code=code)
    began = [t for t in (failure_start(facts, pods), onset) if t is not None]
    last_change = changes_before(facts, min(began) if began else None)[-1:]
    for change in last_change:
        text += said(Said.POD_AFTER, lang, change=change_text(change, lang))
    support = [failed.index, *(t.index for t in killed[:2]), *(c.index for c in last_change)]
    confidence: Confidence = "high" if killed else "medium"
    return [Finding(text + ".", text + ".", support, confidence, weight=15)]


def _oom(facts: list[IndexedFact], lang: Language) -> list[Finding]:
    """The first container killed for memory, with the memory it used."""
    for f in of_kind(facts, K8sTermination):
        if f.a.reason != "OOMKilled":
            continue
        usage = [u for u in of_kind(facts, MetricsUsage) if u.a.resource == "memory"]
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
    logs = [lf for lf in of_kind(facts, K8sLog) if lf.a.pod in {x.a.pod for x in fs}]
    # the symptom began at the earliest of what the evidence shows and what the
    # question says ("503 since 12:30"): a release after that is no cause
    began = [
        t
        for t in (symptom_start(facts, fs), onset + ONSET_SLACK if onset else None)
        if t is not None
    ]
    changes = changes_before(facts, min(began) if began else None)
    # which build is failing: a crash after a release is about that image
    text = said(Said.POD, lang, pod=first.a.pod)
    text += said(Said.POD_IMAGE, lang, image=first.a.image) if first.a.image else ""
    text += said(Said.POD_IN, lang, reason=reason)
    if first.a.message and not _BACK_OFF.fullmatch(first.a.message.strip()):
        text += f": {first.a.message}"
    # the registry's answer is in the waiting message, or in the pull events of the pod
    pulls = [first.a.message or ""] + [
        str(e.a.message or "") for e in of_kind(facts, K8sEvent) if e.a.name == first.a.pod
    ]
    if first.a.pull_secrets and any(_REFUSED.search(m) for m in pulls):
        names = first.a.pull_secrets
        one = Said.PULL_SECRET if len(names) == 1 else Said.PULL_SECRETS
        text += said(one, lang, secrets=", ".join(names))
    severe = [lf for lf in logs if str(lf.a.level or "").upper() in SEVERE_LEVELS]
    # the exception a stack trace ended with says why; the last severe line, how it ended
    cause = _distinct_lines([lf for lf in logs if lf.a.raised])[-1:]
    ending = [x for x in _distinct_lines(severe or logs) if x not in cause]
    quoted = [*cause, *ending[-1:]] if cause else ending[-2:]
    if quoted:
        text += said(Said.POD_LOG, lang, lines=" / ".join(quoted).rstrip("."))
    last_change = changes[-1:] if reason == "CrashLoopBackOff" else []
    for change in last_change:
        text += said(Said.POD_AFTER, lang, change=change_text(change, lang))
    return Finding(
        text + ".",
        text + ".",
        [x.index for x in fs[:2] + logs[-1:]] + [c.index for c in last_change],
        "high" if logs else "medium",
        weight=15,
    )


# the registry refused the credential, not the image: 401/403, unauthorized, denied
# the kubelet's waiting message for a crash loop ("back-off 5m0s restarting failed
# container=app pod=web-1_shop(uid)") restates the reason and names no cause: the headline
# leaves it to the evidence, where the pod's state keeps it whole
_BACK_OFF = re.compile(r"back-off \S+ restarting failed container=\S+ pod=\S+")
_REFUSED = re.compile(r"\b40[13]\b|unauthori[sz]ed|forbidden|denied|authenticat", re.I)


def _evicted(facts: list[IndexedFact], lang: Language) -> list[Finding]:
    evicted = [p for p in of_kind(facts, K8sPod) if p.a.pod_reason == "Evicted"]
    if not evicted:
        return []
    e = evicted[0]
    text = said(
        Said.EVICTED,
        lang,
        pods=count_said(len(evicted), Nouns.POD, lang),
        pod=e.a.pod,
        message=e.a.pod_message or said(Said.NO_MESSAGE, lang),
    )
    return [Finding(text, text, [x.index for x in evicted[:3]], "high", weight=15)]


def _failed_events(facts: list[IndexedFact], lang: Language) -> list[Finding]:
    """What Kubernetes reports it could not do for the workload (mount, schedule, create)."""
    out = []
    for ev in of_kind(facts, K8sEvent):
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


def _quota(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    out = []
    for q in of_kind(facts, K8sQuota):
        ratio = q.a.ratio
        if ratio is not None and ratio >= 0.85:
            text = said(
                Said.QUOTA,
                lang,
                quota=q.a.quota,
                ratio=percent_said(ratio),
                resource=q.a.resource,
                used=q.a.used,
                hard=q.a.hard,
            )
            out.append(Finding(text, text, [q.index], "high", weight=30))
    return out


def _ports(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    """A Service whose target port no container of its pods declares (edited to a port
    nothing listens on), with the last change before the symptom: who edited it."""
    out = []
    for e in of_kind(facts, K8sEndpoints):
        if not e.a.unserved_ports:
            continue
        text = said(
            Said.PORT_UNSERVED,
            lang,
            service=f"{e.a.namespace}/{e.a.service}",
            target=", ".join(e.a.unserved_ports),
            declared=", ".join(e.a.container_ports or []),
        )
        changes = changes_before(facts, onset + ONSET_SLACK if onset else None)[-1:]
        for change in changes:
            text += said(Said.POD_AFTER, lang, change=change_text(change, lang))
        support = [e.index, *(c.index for c in changes)]
        out.append(Finding(text + ".", text + ".", support, "high", weight=9))
    return out


def _rates(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    rates = of_kind(facts, HttpRate)
    if not rates:
        return []
    return [Finding(rates[0].fact.text, None, [rates[0].index], "high", weight=60)]


def _probes(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    probes = of_kind(facts, NetProbe)
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
    for h in of_kind(facts, K8sAutoscaler):
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


# Every rule, in the order findings of equal weight are told; a new one joins here. A rule
# reads the kinds it needs (the edge rule: the access log, the error log and the app's
# answer), so rules are listed here, not on any one fact kind.
RULES: tuple[Rule, ...] = (
    _edge,
    _node_network,
    _ports,
    _workload,
    _quota,
    _autoscaler,
    failed_runs,
    releases,
    _rates,
    _probes,
)


def diagnose(
    facts: list[IndexedFact],
    onset: datetime | None = None,
    language: Language = Language.EN,
    asked: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Every rule's findings, most explanatory first, and the chain from the objects
    `asked` about to what is behind them. A rule that breaks on odd data is skipped (and
    logged): the facts already collected must still reach the answer."""
    findings: list[Finding] = []
    for rule in RULES:
        try:
            findings.extend(rule(facts, onset, language))
        except (TypeError, ValueError, KeyError, AttributeError):
            log.exception("diagnosis.rule_failed", rule=rule.__name__)
    try:
        findings.extend(dependency_chain(facts, asked, language))
    except (TypeError, ValueError, KeyError, AttributeError):
        log.exception("diagnosis.rule_failed", rule="dependency_chain")
    return sorted(findings, key=lambda f: f.weight)
