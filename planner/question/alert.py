"""An alert pasted into the question, read into a typed `PastedAlert`.

Engineers paste the notification they got and ask about it ("why?", "что с ним?", or
nothing at all). Its scope is the alert's *subject* (the object its labels describe), not
whatever names its text carries: a crash-looping pod's alert, scraped from
kube-state-metrics, also carries the exporter's own `pod`, `instance` and `service`.

The text is read by planner.question.alertjson (Alertmanager's JSON) or
planner.question.alertlines (Alertmanager's and Grafana's notifications, label sets,
alert links). Here: which labels are the subject's, one rule
(`subject_of`); which question the alert asks, one table (`ALERT_ASKS`, then the name's
words, then the labels); which time it points at (`alert_time`). The lines that are not
the alert's are the asker's own words (`PastedAlert.own_words`): the question's language
and grammar are read from them alone (`asker_words`), its scope from them and the
subject's names (`scope_words`). Never raises.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from planner.question.alertjson import json_alert_lines
from planner.question.alertlines import MAX_VALUE, AlertStatus, read_alert_lines
from planner.question.extract import Identifiers
from planner.question.intent import Intent, classify_all, classify_strong
from planner.question.timeparse import DEFAULT_WINDOW
from policy.instances import instance_host
from policy.scope import TimeSpec

__all__ = [
    "ALERT_ASKS",
    "ENV_LABELS",
    "AlertStatus",
    "AlertSubject",
    "EnvLabel",
    "PastedAlert",
    "alert_time",
    "asked_intents",
    "asker_words",
    "pasted_alert",
    "scope_words",
    "subject_of",
]

EnvLabel = Literal["cluster", "env", "environment", "dc", "datacenter", "region"]
"""Labels that name where the alert fired; the value is matched against the configured
environments (and their aliases) by planner.question.envs, like a word of the question."""
ENV_LABELS: tuple[EnvLabel, ...] = get_args(EnvLabel)

# labels naming the workload (or another object an inventory lists) the alert is about,
# the more specific first: kube-state-metrics' object labels, the kubernetes-mixin
# `workload`, and a claim (its name carries its StatefulSet's: data-<sts>-0)
_WORKLOAD_LABELS = (
    "deployment",
    "statefulset",
    "daemonset",
    "cronjob",
    "job_name",
    "workload",
    "horizontalpodautoscaler",
    "replicaset",
    "persistentvolumeclaim",
)
# the names of exporters that report on other objects: a label whose value names one is
# the exporter's own (its pod, container, service, scrape job), never the subject
_EXPORTERS = (
    "kube-state-metrics",
    "node-exporter",
    "blackbox-exporter",
    "ingress-nginx-controller",
    "nginx-ingress-controller",
)
# scrape jobs whose targets are exporters of others' objects: their target labels
# (`instance`, `service`, `endpoint`) are the exporter's address
_EXPORTER_JOBS = ("kube-state-metrics",)
# scrape jobs whose `instance` is the host they run on (a node)
_NODE_JOBS = ("node-exporter", "node_exporter", "node")


class AlertSubject(BaseModel):
    """The object an alert is about, from its labels (`subject_of`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    namespace: str | None = None
    workload: str | None = None
    pod: str | None = None
    container: str | None = None
    node: str | None = None
    service: str | None = None
    ingress: str | None = None
    host: str | None = None
    env: str | None = None
    env_label: EnvLabel | None = None

    def names(self) -> tuple[str, ...]:
        """The names an inventory may list, the most specific first (a pod's name carries
        its workload's: the existing name matching maps it)."""
        found = (self.workload, self.pod, self.service, self.ingress)
        return tuple(dict.fromkeys(n for n in found if n))


class PastedAlert(BaseModel):
    """One alert read from pasted text (the first, when a notification groups several)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: AlertStatus | None = None
    alertname: str | None = None
    severity: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    starts_at: datetime | None = None
    subject: AlertSubject = Field(default_factory=AlertSubject)
    ask: Intent | None = Field(default=None, description="what the alert asks (ALERT_ASKS)")
    own_words: str = Field(default="", description="the lines that are not the alert's")
    title_values: tuple[str, ...] = Field(
        default=(), description="the label values its title lists (Alertmanager's subject)"
    )
    alerts: int = Field(default=1, description="how many alerts the paste holds")

    def scope_text(self) -> str:
        """What the scope is read from: the subject's names (objects first, the first
        named is the scope's object; namespace, env, node, host), one a line, then the
        asker's own words, for the name and env matching of planner.question to find; the
        values its title lists, its summary and description only when its labels name no
        object (a title pasted alone)."""
        s = self.subject
        names = [*s.names(), s.namespace, s.env, s.node, s.host]
        lines = [*(n for n in names if n), self.own_words]
        if not s.names() and s.node is None:
            lines += [" ".join(self.title_values)]
            lines += [self.annotations.get(k, "") for k in ("summary", "description")]
        return "\n".join(line for line in lines if line)


# a rule's expression reads a range before it turns true (a rate over minutes), and its
# `for:` keeps it pending (15 minutes in most kubernetes-mixin and node-exporter rules):
# the symptom began that long before the alert's start
LEAD = timedelta(minutes=20)
MAX_SINCE = timedelta(days=7)


def alert_time(alert: PastedAlert, now: datetime) -> TimeSpec | None:
    """The time a pasted alert points at: a firing one, from a little before its start
    until now (the symptom goes on); a resolved one, the window around its start (the
    past). None without a start, or with one not before now."""
    start = alert.starts_at
    if start is None or start >= now:
        return None
    if alert.status is AlertStatus.RESOLVED:
        return TimeSpec(at=start, window=DEFAULT_WINDOW, mode="historical")
    window = min(now - start + LEAD, MAX_SINCE)
    return TimeSpec(at=now - window / 2, window=window, mode="now")


# ---- which labels are the subject's ---------------------------------------------------


def _names_exporter(value: str | None) -> bool:
    low = (value or "").lower()
    return any(e in low for e in _EXPORTERS)


def subject_of(labels: dict[str, str]) -> AlertSubject:
    """The alert's subject from its labels: the one rule for telling the alerted object
    from the exporter that measured it.

    - `exported_<name>` beats `<name>`: a scrape renames an object's label to it when the
      target (the exporter) has a label of that name, so the plain one is the exporter's.
    - `job` is always the scrape job; a Job object is `job_name`.
    - `pod`, `container`, `service` whose value names an exporter (kube-state-metrics,
      node-exporter, an ingress controller) are the exporter's; so is the `namespace` of an
      exporter's pod.
    - under an exporter job (kube-state-metrics), `instance`, `service` and `endpoint` are
      the exporter's address; under a node-exporter job, `instance` is the node's.
    """
    job = labels.get("job", "").lower()
    exporter_job = any(j in job for j in _EXPORTER_JOBS)

    def own(name: str) -> str | None:
        exported = labels.get(f"exported_{name}")
        if exported:
            return exported
        value = labels.get(name)
        if value is None or _names_exporter(value):
            return None
        if name == "service" and exporter_job:
            return None
        return value

    pod = own("pod")
    exporter_pod = "exported_pod" not in labels and _names_exporter(labels.get("pod"))
    namespace = labels.get("exported_namespace") or (
        None if exporter_pod else labels.get("namespace")
    )
    node = labels.get("node") or labels.get("exported_node") or labels.get("kubernetes_node")
    if node is None and any(j in job for j in _NODE_JOBS):
        node = instance_host(labels.get("instance"))
    env_label = next((e for e in ENV_LABELS if labels.get(e)), None)
    return AlertSubject(
        namespace=namespace or None,
        workload=next((labels[k] for k in _WORKLOAD_LABELS if labels.get(k)), None),
        pod=pod,
        container=own("container"),
        node=node or None,
        service=own("service"),
        ingress=labels.get("ingress") or labels.get("exported_ingress"),
        host=labels.get("host"),
        env=labels[env_label] if env_label else None,
        env_label=env_label,
    )


# ---- what the alert asks ----------------------------------------------------------------

ALERT_ASKS: dict[str, Intent] = {
    # kubernetes-mixin: a workload's pods that do not start or stay up
    "KubePodCrashLooping": "workload_startup",
    "KubePodNotReady": "workload_startup",
    "KubeContainerWaiting": "workload_startup",
    "KubeDeploymentReplicasMismatch": "workload_startup",
    "KubeDeploymentRolloutStuck": "workload_startup",
    "KubeDeploymentGenerationMismatch": "workload_startup",
    "KubeStatefulSetReplicasMismatch": "workload_startup",
    "KubeStatefulSetUpdateNotRolledOut": "workload_startup",
    "KubeStatefulSetGenerationMismatch": "workload_startup",
    "KubeDaemonSetRolloutStuck": "workload_startup",
    "KubeDaemonSetNotScheduled": "workload_startup",
    "KubeDaemonSetMisScheduled": "workload_startup",
    "KubeJobFailed": "workload_startup",
    "KubeJobNotCompleted": "workload_startup",
    "TargetDown": "workload_startup",
    # kubernetes-mixin: resources
    "KubeHpaMaxedOut": "capacity",
    "KubeHpaReplicasMismatch": "capacity",
    "CPUThrottlingHigh": "capacity",
    "KubeCPUOvercommit": "capacity",
    "KubeMemoryOvercommit": "capacity",
    "KubeCPUQuotaOvercommit": "capacity",
    "KubeMemoryQuotaOvercommit": "capacity",
    "KubeQuotaAlmostFull": "capacity",
    "KubeQuotaFullyUsed": "capacity",
    "KubeQuotaExceeded": "capacity",
    "KubePersistentVolumeFillingUp": "capacity",
    "KubePersistentVolumeInodesFillingUp": "capacity",
    # nodes (kubernetes-mixin, node-exporter mixin)
    "KubeNodeNotReady": "node_health",
    "KubeNodeUnreachable": "node_health",
    "KubeNodeReadinessFlapping": "node_health",
    "KubeletTooManyPods": "node_health",
    "NodeNotReady": "node_health",
    "NodeFilesystemSpaceFillingUp": "node_health",
    "NodeFilesystemAlmostOutOfSpace": "node_health",
    "NodeFilesystemFilesFillingUp": "node_health",
    "NodeMemoryHighUtilization": "node_health",
    "NodeCPUHighUsage": "node_health",
    "NodeNetworkReceiveErrs": "node_health",
    "NodeNetworkTransmitErrs": "node_health",
    "NodeHighNumberConntrackEntriesUsed": "node_health",
    "NodeClockNotSynchronising": "node_health",
    "NodeSystemSaturation": "node_health",
    # ingress-nginx's chart (controller.metrics.prometheusRule examples): its 500s,
    # latency and "ConfigFailed" names ask by their words
    "NGINXTooMany400s": "http_errors",
}
# the words of an alert name not in the table (split at its capitals, "Http5xx" ->
# "http", "5xx"), by what they ask (kubernetes-mixin's, node-exporter's and
# awesome-prometheus-alerts' wording); the first rule with a word in the name decides
_NAME_WORDS: tuple[tuple[frozenset[str], Intent], ...] = (
    (frozenset({"5xx", "5xxs", "500s", "502s", "503s", "http5xx", "error", "errors", "5xxerror"}),
     "http_errors"),
    (frozenset({"latency", "slow", "duration", "p99", "p95", "response"}), "latency"),
    # a host's alert ("HostOomKillDetected", "NodeDown") is about the host first
    (frozenset({"node", "host", "disk", "filesystem", "conntrack", "network"}), "node_health"),
    (frozenset({"crash", "crashing", "crashloop", "crashlooping", "oom", "oomkilled", "restart",
                "restarts", "restarting", "imagepull", "pending", "waiting", "down",
                "notready", "unavailable", "rollout", "replicas", "failed"}),
     "workload_startup"),
    (frozenset({"quota", "overcommit", "throttling", "memory", "cpu", "hpa", "volume",
                "filling", "full", "capacity"}),
     "capacity"),
    (frozenset({"traffic", "rps", "requests", "qps"}), "traffic"),
)  # fmt: skip
# label values that say what the alert is about when its name does not
_REASON_ASKS: dict[str, Intent] = {
    "crashloopbackoff": "workload_startup",
    "oomkilled": "workload_startup",
    "imagepullbackoff": "workload_startup",
    "errimagepull": "workload_startup",
    "createcontainerconfigerror": "workload_startup",
    "error": "workload_startup",
}
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+[a-z]*", re.ASCII)


def _name_words(name: str) -> set[str]:
    """ "NginxHighHttp5xxErrorRate" -> {"nginx", "high", "http", "5xx", "error", "rate"}."""
    words = {w.lower() for w in _CAMEL.findall(name[:MAX_VALUE])}
    return words | {w.lower() for w in re.split(r"[\W_]+", name[:MAX_VALUE]) if w}


def ask_of(alertname: str | None, labels: dict[str, str], subject: AlertSubject) -> Intent | None:
    """What the alert asks: the table; else its name's words; else its `reason` label
    (CrashLoopBackOff, OOMKilled); else a node alone asks about the node; else None."""
    if alertname:
        if alertname in ALERT_ASKS:
            return ALERT_ASKS[alertname]
        words = _name_words(alertname)
        for vocabulary, intent in _NAME_WORDS:
            if words & vocabulary:
                return intent
    reason = labels.get("reason", "").lower()
    if reason in _REASON_ASKS:
        return _REASON_ASKS[reason]
    if subject.node and not subject.names():
        return "node_health"
    return None


def pasted_alert(text: str) -> PastedAlert | None:
    """The alert pasted in `text`, or None when it holds none (an alert has a name, or
    labels under a notification's marks). Never raises."""
    try:
        return _pasted_alert(text)
    except (ValueError, TypeError, OverflowError):
        return None


def _pasted_alert(text: str) -> PastedAlert | None:
    read = json_alert_lines(text) or read_alert_lines(text)
    labels = read.labels
    name = labels.get("alertname") or read.title_name
    if not name and not (read.marked and labels):
        return None
    subject = subject_of(labels)
    return PastedAlert(
        status=read.status,
        alertname=name,
        severity=labels.get("severity") or read.severity,
        labels=labels,
        annotations=read.annotations,
        starts_at=read.starts_at,
        subject=subject,
        ask=ask_of(name, labels, subject),
        own_words=read.own_words,
        alerts=read.alerts,
        title_values=read.title_values,
    )


def asked_intents(alert: PastedAlert, ids: Identifiers) -> list[Intent]:
    """What a paste asks: the asker's words when they ask a kind of question strongly (a
    symptom, "who deployed it?"); else the alert's ask (a "what happened?" or a bare
    "why?" under a crash-looping alert asks why it crash-loops); else what the words ask."""
    strong = classify_strong(alert.own_words, ids)
    if strong or alert.ask is None:
        return strong or classify_all(alert.own_words, ids)
    return [alert.ask]


def asker_words(text: str) -> str:
    """The words of the asker: without a pasted alert's lines (its language and grammar
    are the alert's), or the whole text when none is pasted."""
    alert = pasted_alert(text)
    return text if alert is None else alert.own_words


def scope_words(text: str) -> str:
    """What the scope is read from: a pasted alert's subject and the asker's words
    (`PastedAlert.scope_text`), or the whole text when none is pasted. The envs to list and
    the names to look for come from it, not from the exporter's labels."""
    alert = pasted_alert(text)
    return text if alert is None else alert.scope_text()
