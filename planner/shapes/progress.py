"""What a turn is reading right now, for a surface that shows it while the turn runs (the
web chat's live progress, a Mattermost progress note).

The executor tells a `ProgressSink` when each read starts and how it ended; a sink that
fails is ignored (showing progress must never break a turn). Each event says what the read
is (`ReadKind`, from the tool's contract) and what it is about (`ReadSubject`, from the
call's arguments), so a surface can write "reading events of X in dc" rather than the
source's name; the words are in planner/shapes/progress_said.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

import structlog
from pydantic import BaseModel, ConfigDict

from policy.contracts import OutputKind, ToolContract
from policy.vocabulary import Facet

log = structlog.get_logger(__name__)


class CallState(StrEnum):
    READING = "reading"
    DONE = "done"  # something came back
    EMPTY = "empty"  # the read worked and found nothing
    FAILED = "failed"  # an error, a timeout, a refusal, or skipped as down


class ReadKind(StrEnum):
    """What a read is, as a person would name it ("events", "logs"): several tools and
    evidence kinds may be the same read to a reader, and are said once."""

    STATE = "state"
    ENDPOINTS = "endpoints"
    RESTARTS = "restarts"
    EVENTS = "events"
    LOGS = "logs"
    ERROR_LINES = "error_lines"
    PROXY_LOGS = "proxy_logs"
    REQUESTS = "requests"
    ERRORS = "errors"
    LATENCY = "latency"
    RESOURCES = "resources"
    QUOTAS = "quotas"
    PLACEMENT = "placement"
    NETWORK = "network"
    AUDIT = "audit"
    RELEASES = "releases"
    CHANGES = "changes"
    HEALTH = "health"
    RANKING = "ranking"
    NAMES = "names"
    METRICS = "metrics"
    REACHABILITY = "reachability"


class SubjectKind(StrEnum):
    """What kind of thing a read is about; a workload is written by its name alone."""

    WORKLOAD = "workload"
    POD = "pod"
    NODE = "node"
    NAMESPACE = "namespace"
    PROJECT = "project"


class ReadSubject(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: SubjectKind
    name: str


ProgressKey = tuple[str, str | None, ReadSubject | None]  # (tool, env, subject): one read


class ProgressEvent(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    source: str
    env: str | None
    state: CallState
    read: ReadKind | None = None  # None: a tool whose contract says nothing nameable
    subject: ReadSubject | None = None  # None: a read of a whole environment, or a query

    @property
    def key(self) -> ProgressKey:
        """The one read this event is about: its start and its end share it."""
        return (self.tool, self.env, self.subject)


ProgressSink = Callable[[ProgressEvent], None]

# the evidence kinds of the shared vocabulary (policy/vocabulary.py), as a reader names them
_BY_EVIDENCE: dict[str, ReadKind] = {
    "inventory": ReadKind.NAMES,
    "edge.access_log": ReadKind.PROXY_LOGS,
    "edge.error_log": ReadKind.PROXY_LOGS,
    "app.log": ReadKind.LOGS,
    "http.error_rate": ReadKind.ERRORS,
    "http.request_rate": ReadKind.REQUESTS,
    "http.latency": ReadKind.LATENCY,
    "k8s.workload_status": ReadKind.STATE,
    "k8s.events": ReadKind.EVENTS,
    "k8s.ready_endpoints": ReadKind.ENDPOINTS,
    "k8s.node_health": ReadKind.STATE,
    "k8s.placement": ReadKind.PLACEMENT,
    "k8s.pod_logs": ReadKind.LOGS,
    "logs.error_templates": ReadKind.ERROR_LINES,
    "k8s.quota": ReadKind.QUOTAS,
    "k8s.audit": ReadKind.AUDIT,
    "k8s.health_sweep": ReadKind.HEALTH,
    "metrics.restarts": ReadKind.RESTARTS,
    "metrics.resource_usage": ReadKind.RESOURCES,
    "node.network": ReadKind.NETWORK,
    "ci.release_timeline": ReadKind.RELEASES,
    "net.reachability": ReadKind.REACHABILITY,
    "logs.search": ReadKind.LOGS,
    "metrics.query": ReadKind.METRICS,
    "metrics.discovered": ReadKind.METRICS,
    "metrics.ranking": ReadKind.RANKING,
}
# a kind the vocabulary does not name (a new connector's, an MCP server's): by its facet
_BY_FACET: dict[Facet, ReadKind] = {
    Facet.STATE: ReadKind.STATE,
    Facet.EVENTS: ReadKind.EVENTS,
    Facet.LOGS: ReadKind.LOGS,
    Facet.CHANGES: ReadKind.CHANGES,
    Facet.SYMPTOM: ReadKind.REQUESTS,
    Facet.RESOURCES: ReadKind.RESOURCES,
    Facet.PLACEMENT: ReadKind.PLACEMENT,
    Facet.ENVIRONMENT: ReadKind.HEALTH,
}
# a tool that declares no kind of either: by what it returns
_BY_OUTPUT: dict[OutputKind, ReadKind] = {
    "objects": ReadKind.STATE,
    "events": ReadKind.EVENTS,
    "log_lines": ReadKind.LOGS,
    "series": ReadKind.METRICS,
    "timeline": ReadKind.CHANGES,
    "probe": ReadKind.REACHABILITY,
}


def read_kind(contract: ToolContract) -> ReadKind | None:
    """What a call of this tool reads, by its first evidence kind that names one, else by
    that kind's facet, else by its output; None when nothing in the contract says."""
    for kind in contract.agent.evidence:
        if kind in _BY_EVIDENCE:
            return _BY_EVIDENCE[kind]
    for kind in contract.agent.evidence:
        facet = contract.agent.facet_of(kind)
        if facet is not None and facet in _BY_FACET:
            return _BY_FACET[facet]
    return _BY_OUTPUT.get(contract.agent.output_kind)


# the arguments that name what a read is about, the most particular first (a pod of a
# workload is about the pod); ARGUMENT_NAMES in policy/vocabulary.py gives them one meaning
_SUBJECT_ARGUMENTS: tuple[tuple[str, SubjectKind], ...] = (
    ("pod", SubjectKind.POD),
    ("pods", SubjectKind.POD),
    ("service", SubjectKind.WORKLOAD),
    ("node", SubjectKind.NODE),
    ("nodes", SubjectKind.NODE),
    ("project", SubjectKind.PROJECT),
    ("namespace", SubjectKind.NAMESPACE),
)
# a Kubernetes name or a GitLab path: the progress line is shown before the gate checks
# the arguments, so anything else (markup, a long paste) is not repeated to the reader
_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._/-]{0,126}[A-Za-z0-9])?")


def read_subject(arguments: Mapping[str, Any]) -> ReadSubject | None:
    """The one object a call's arguments name, if any (a list of several names none)."""
    for argument, kind in _SUBJECT_ARGUMENTS:
        value = arguments.get(argument)
        if isinstance(value, list):
            value = value[0] if len(value) == 1 else None
        if isinstance(value, str) and _NAME.fullmatch(value):
            return ReadSubject(kind=kind, name=value)
    return None


def tell(sink: ProgressSink | None, event: ProgressEvent) -> None:
    """Give `event` to `sink`, if any; whatever the sink does wrong stays in the sink."""
    if sink is None:
        return
    try:
        sink(event)
    except Exception as exc:  # a surface's bug must not stop the investigation
        log.warning("progress.sink_failed", error=repr(exc)[:200])


def ended(status: str) -> CallState:
    """A ToolResult's status as a progress state."""
    if status == "ok":
        return CallState.DONE
    if status == "empty":
        return CallState.EMPTY
    return CallState.FAILED
