"""Deterministic diagnosis: hypotheses from structured facts, with no model.

Each rule reads fact kinds and attrs (policy/vocabulary.py FACT_KINDS) and may produce a
Finding: a summary line, a hypothesis with the indexes of the facts that support it, a
confidence and bounded recommendations. Rules only name causes that a fact names; a
cause never read (a proxy setting, a kernel knob) is never stated. Causality: a change
after the symptom's start cannot be offered as its cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

import structlog

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


def _of(facts: list[IndexedFact], kind: str) -> list[IndexedFact]:
    return [f for f in facts if f.fact.kind == kind]


def _a(f: IndexedFact, key: str, default: object = None) -> object:
    return f.fact.attrs.get(key, default)


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


def _edge(facts: list[IndexedFact]) -> list[Finding]:
    out: list[Finding] = []
    errors = [f for f in _of(facts, "edge.error") if _a(f, "error_class") in EDGE_CLASS_TEXT]
    access = _of(facts, "edge.access")
    app = _of(facts, "app.response")
    classes: dict[str, list[IndexedFact]] = {}
    for f in errors:
        classes.setdefault(str(_a(f, "error_class")), []).append(f)
    for cls, fs in classes.items():
        text, recs = EDGE_CLASS_TEXT[cls]
        edge_status = next((str(_a(a, "status")) for a in access if _a(a, "status")), None)
        app_status = next((str(_a(a, "status")) for a in app if _a(a, "status")), None)
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


def _anomalous(f: IndexedFact) -> bool:
    if _a(f, "anomalous"):
        return True
    ratio, value, median = _a(f, "ratio"), _a(f, "value"), _a(f, "peer_median")
    if not isinstance(value, (int, float)) or value < ANOMALY_FLOOR:
        return False
    if isinstance(ratio, (int, float)):
        return ratio >= ANOMALY_RATIO
    # every peer at zero: any real amount on this node stands out
    return isinstance(median, (int, float)) and median == 0


def _workload_of(pod: str, owner: object) -> str:
    """service-a-5d8f7c9b4-x2k9p -> service-a (from the ReplicaSet owner when known)."""
    if isinstance(owner, str) and owner:
        parts = owner.rsplit("-", 1)
        return parts[0] if len(parts) == 2 and len(parts[1]) >= 8 else owner
    parts = pod.rsplit("-", 2)
    return parts[0] if len(parts) == 3 else pod


def _node_network(facts: list[IndexedFact]) -> list[Finding]:
    """A node far worse than its peers, hosting pods behind the errors. Strong when two
    independent services on it failed together; no kernel knob is ever named."""
    out = []
    by_node: dict[str, list[IndexedFact]] = {}
    for f in _of(facts, "node.network"):
        if _anomalous(f):
            by_node.setdefault(str(_a(f, "node")), []).append(f)
    edge_classes = {str(_a(f, "error_class")) for f in _of(facts, "edge.error")}
    network_edge = sorted(edge_classes & NETWORKY_EDGE)
    for node, fs in by_node.items():
        metrics = sorted({str(_a(f, "metric")) for f in fs})
        hosted = [
            f
            for f in _of(facts, "k8s.pod")
            + _of(facts, "app.response")
            + _of(facts, "k8s.placement")
            if _a(f, "node") == node and not _a(f, "created_after_moment")
        ]
        services = sorted(
            {_workload_of(str(_a(f, "pod") or ""), _a(f, "owner")) for f in hosted if _a(f, "pod")}
        )
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
                [f.index for f in fs + hosted],
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


def _workload(facts: list[IndexedFact]) -> list[Finding]:
    out = []
    for f in _of(facts, "k8s.termination"):
        if _a(f, "reason") == "OOMKilled":
            usage = [u for u in _of(facts, "metrics.usage") if _a(u, "resource") == "memory"]
            text = (
                f"Container {_a(f, 'container')} of {_a(f, 'pod')} was killed for exceeding its "
                f"memory limit (OOMKilled, exit code {_a(f, 'exit_code', 137)})."
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
    waiting = _of(facts, "k8s.waiting")
    for reason in (
        "CrashLoopBackOff",
        "ImagePullBackOff",
        "ErrImagePull",
        "CreateContainerConfigError",
    ):
        fs = [f for f in waiting if _a(f, "reason") == reason]
        if not fs:
            continue
        f = fs[0]
        logs = [
            lf
            for lf in _of(facts, "k8s.log")
            if lf.fact.attrs.get("pod") in {_a(x, "pod") for x in fs}
        ]
        releases = _releases_before(facts, _symptom_start(facts, fs))
        text = f"Pod {_a(f, 'pod')} is in {reason}"
        if _a(f, "message"):
            text += f": {_a(f, 'message')}"
        severe = [
            lf
            for lf in logs
            if str(lf.fact.attrs.get("level", "")).upper()
            in ("ERROR", "FATAL", "CRITICAL", "PANIC")
        ]
        quoted = _distinct_lines(severe or logs)[-2:]
        if quoted:
            text += ". Its log says: " + " / ".join(quoted)
        if releases and reason == "CrashLoopBackOff":
            r = releases[-1]
            text += f". It started failing after release job {_a(r, 'job_name')} #{_a(r, 'job_id')}"
        out.append(
            Finding(
                text + ".",
                text + ".",
                [x.index for x in fs[:2] + logs[-1:] + releases[-1:]],
                "high" if logs else "medium",
                weight=15,
            )
        )
    evicted = [f for f in _of(facts, "k8s.pod") if _a(f, "pod_reason") == "Evicted"]
    if evicted:
        f = evicted[0]
        text = (
            f"{len(evicted)} pod(s) were evicted by the kubelet, e.g. {_a(f, 'pod')}: "
            f"{_a(f, 'pod_message') or 'no message'}"
        )
        out.append(Finding(text, text, [e.index for e in evicted[:3]], "high", weight=15))
    for f in _of(facts, "k8s.event"):
        reason = str(_a(f, "reason") or "")
        if reason in ("FailedMount", "FailedAttachVolume", "FailedScheduling", "FailedCreate"):
            text = (
                f"Kubernetes reports {reason} for {_a(f, 'object')}: {_a(f, 'message', '')}".strip()
            )
            out.append(Finding(text, text, [f.index], "high", weight=18))
    return out


def _line(lf: IndexedFact) -> str:
    return str(lf.fact.attrs.get("message") or lf.fact.attrs.get("line") or lf.fact.text)


def _distinct_lines(lines: list[IndexedFact]) -> list[str]:
    """The same crash repeats in every restart: quote each message once, without its time."""
    out: list[str] = []
    for lf in lines:
        text = re.sub(r"^\S*\d{2}:\d{2}:\d{2}\S*\s+", "", _line(lf)).strip()
        if text and text not in out:
            out.append(text)
    return out


def _parse(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        # a source that drops the offset means UTC (Kubernetes and Elasticsearch do)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


FAILURE_EVENTS = {"BackOff", "Failed", "Unhealthy", "FailedMount", "FailedScheduling", "Killing"}


def _symptom_start(facts: list[IndexedFact], waiting: list[IndexedFact]) -> datetime | None:
    """When the failure began, from the earliest evidence of it: the first warning event,
    the first restart, the first termination. A release after that cannot explain it."""
    pods = {str(_a(w, "pod")) for w in waiting}
    times: list[datetime] = []
    for f in _of(facts, "k8s.event"):
        failing = _a(f, "reason") in FAILURE_EVENTS and any(p in str(_a(f, "name")) for p in pods)
        if failing and (t := _parse(_a(f, "first_seen"))) is not None:
            times.append(t)
    for f in _of(facts, "metrics.restarts"):
        if str(_a(f, "pod")) in pods and (t := _parse(_a(f, "first_increase_at"))) is not None:
            times.append(t)
    for f in _of(facts, "k8s.termination"):
        if str(_a(f, "pod")) in pods and (t := _parse(_a(f, "finished_at"))) is not None:
            times.append(t)
    return min(times) if times else _first_time(waiting)


def _first_time(fs: list[IndexedFact]) -> datetime | None:
    times = [f.fact.observed_at for f in fs if f.fact.observed_at]
    return min(times) if times else None


def _job_start(job: IndexedFact) -> datetime | None:
    """A deploy job changes the cluster while it runs: it can explain what began after it
    started, even before it finished."""
    return _parse(_a(job, "started_at")) or job.fact.observed_at


def _releases_before(facts: list[IndexedFact], symptom: datetime | None) -> list[IndexedFact]:
    """Successful-or-not deploy jobs in scope that started before the symptom began."""
    jobs = [
        j
        for j in _of(facts, "ci.job")
        if _job_start(j) is not None and _a(j, "in_scope", True) is not False
    ]
    before = [j for j in jobs if symptom is None or _job_start(j) <= symptom]  # type: ignore[operator]
    return sorted(before, key=lambda j: _job_start(j))  # type: ignore[arg-type,return-value]


def _quota(facts: list[IndexedFact]) -> list[Finding]:
    out = []
    for f in _of(facts, "k8s.quota"):
        ratio = _a(f, "ratio")
        if isinstance(ratio, (int, float)) and ratio >= 0.85:
            text = (
                f"Quota {_a(f, 'quota')} is at {ratio:.0%} for {_a(f, 'resource')} "
                f"({_a(f, 'used')} of {_a(f, 'hard')})."
            )
            out.append(Finding(text, text, [f.index], "high", weight=30))
    return out


def _is_controller(actor: object) -> bool:
    """Kubernetes' own controllers act on every rollout; they are not who deployed."""
    return str(actor).startswith(
        ("system:serviceaccount:kube-system:", "system:kube-", "system:node:")
    )


def _releases(facts: list[IndexedFact]) -> list[Finding]:
    """Who deployed, with the roles kept apart: the job's user started the job, the commit
    author wrote the change, the audit actor changed the object in the cluster."""
    jobs = [j for j in _of(facts, "ci.job") if _a(j, "in_scope", True) is not False]
    audits = [a for a in _of(facts, "k8s.audit") if not _is_controller(_a(a, "actor"))]
    if not jobs and not audits:
        return []
    parts = []
    support = []
    for j in jobs[:3]:
        user = _a(j, "user")
        parts.append(
            f"job {_a(j, 'job_name')} #{_a(j, 'job_id')} (pipeline {_a(j, 'pipeline_id')}) "
            + (f"was started by {user}" if user else "has no user in GitLab's answer")
            + f", status {_a(j, 'status')}"
        )
        support.append(j.index)
    shas = {str(_a(j, "commit_sha") or "") for j in jobs}
    for c in _of(facts, "ci.commit"):
        sha = str(_a(c, "sha") or "")
        if jobs and not any(s and (sha.startswith(s) or s.startswith(sha)) for s in shas):
            continue
        parts.append(f"commit {sha[:8]} was authored by {_a(c, 'author')}")
        support.append(c.index)
    for a in audits[:2]:
        parts.append(
            f"in the cluster {_a(a, 'actor')} did {_a(a, 'verb')} on {_a(a, 'resource')} "
            f"{_a(a, 'name')}"
        )
        support.append(a.index)
    summary = "; ".join(parts) + "."
    return [Finding(summary[0].upper() + summary[1:], None, support, "high", weight=40)]


def _rates(facts: list[IndexedFact]) -> list[Finding]:
    rates = _of(facts, "http.rate")
    if not rates:
        return []
    return [Finding(rates[0].fact.text, None, [rates[0].index], "high", weight=60)]


def _probes(facts: list[IndexedFact]) -> list[Finding]:
    probes = _of(facts, "net.probe")
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


RULES = (_edge, _node_network, _workload, _quota, _releases, _rates, _probes)


def diagnose(facts: list[IndexedFact]) -> list[Finding]:
    """Every rule's findings, most explanatory first. A rule that breaks on odd data is
    skipped (and logged): the facts already collected must still reach the answer."""
    findings: list[Finding] = []
    for rule in RULES:
        try:
            findings.extend(rule(facts))
        except (TypeError, ValueError, KeyError, AttributeError):
            log.exception("diagnosis.rule_failed", rule=rule.__name__)
    return sorted(findings, key=lambda f: f.weight)
