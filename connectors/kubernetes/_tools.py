"""Argument models, contracts and `build_tools` for the Kubernetes tools."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, Field, field_validator, model_validator

from connectors.kit.audit import AuditArgs
from connectors.kit.patterns import line_pattern
from connectors.kubernetes._audit import audit_trail
from connectors.kubernetes._autoscaler import EVIDENCE as EVIDENCE_AUTOSCALER
from connectors.kubernetes._autoscaler import autoscaler
from connectors.kubernetes._client import KubeReader
from connectors.kubernetes._events import events
from connectors.kubernetes._logs import log_errors, pod_logs
from connectors.kubernetes._network import endpoints, node_health
from connectors.kubernetes._placement import pod_placement
from connectors.kubernetes._quotas import quotas
from connectors.kubernetes._settings import KubernetesTarget
from connectors.kubernetes._sweep import health_sweep
from connectors.kubernetes._workloads import inventory, workload_status
from policy.contracts import AgentMeta, Freshness, NegativeSemantics, OutputKind, ToolContract
from policy.errors import ConfigError, SourceUnsupported
from policy.results import ToolResult
from policy.toolset import CallContext, FunctionTool, Tool
from policy.vocabulary import Facet
from policy.window import EnvArgs, WindowArgs

_NAME = r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"


_Args = EnvArgs


def _every_namespace() -> Any:
    """An optional namespace; without one, every namespace is read."""
    return Field(
        default=None,
        min_length=1,
        max_length=63,
        pattern=_NAME,
        description="default: every namespace",
    )


class InventoryArgs(_Args):
    pass


class WorkloadArgs(_Args):
    namespace: str = Field(min_length=1, max_length=63, pattern=_NAME)
    service: str = Field(
        min_length=1,
        max_length=253,
        pattern=_NAME,
        description="Deployment / StatefulSet / DaemonSet / Service name",
    )


class PlacementArgs(_Args):
    namespace: str | None = Field(default=None, min_length=1, max_length=63, pattern=_NAME)
    addresses: list[Annotated[str, Field(pattern=r"^[0-9A-Fa-f.:\[\]]{3,64}$")]] | None = Field(
        default=None, max_length=50, description="pod IPs (ip or ip:port)"
    )
    pods: list[Annotated[str, Field(pattern=_NAME, max_length=253)]] | None = Field(
        default=None, max_length=50
    )
    service: str | None = Field(
        default=None,
        min_length=1,
        max_length=253,
        pattern=_NAME,
        description="the pods of this workload (by name prefix), with their IPs and nodes",
    )

    @model_validator(mode="after")
    def _something(self) -> PlacementArgs:
        if not self.addresses and not self.pods and not self.service:
            raise ValueError("give addresses, pods or service")
        return self


class EventsArgs(WindowArgs):
    namespace: str = Field(min_length=1, max_length=63, pattern=_NAME)
    service: str | None = Field(
        default=None,
        min_length=1,
        max_length=253,
        pattern=_NAME,
        description="object name; objects named service-* match too",
    )
    limit: int = Field(default=50, ge=1, le=500)


class SweepArgs(WindowArgs):
    namespace: str | None = _every_namespace()
    limit: int = Field(default=20, ge=1, le=200, description="most unhealthy pods shown")


class NodeArgs(_Args):
    node: str = Field(min_length=1, max_length=253, pattern=_NAME)


class PodLogsArgs(WindowArgs):
    namespace: str = Field(min_length=1, max_length=63, pattern=_NAME)
    pod: str | None = Field(default=None, min_length=1, max_length=253, pattern=_NAME)
    service: str | None = Field(
        default=None,
        min_length=1,
        max_length=253,
        pattern=_NAME,
        description="read the pods named service-* (when no pod)",
    )
    container: str | None = Field(default=None, min_length=1, max_length=63, pattern=_NAME)
    grep: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="regular expression (RE2 syntax: no lookaround or backreference) a line "
        "must match",
    )
    previous: bool = Field(default=False, description="the previous (terminated) container")
    limit: int = Field(default=200, ge=1, le=2000)

    @field_validator("grep")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            line_pattern(value)  # raises ValueError naming what RE2 cannot read
        return value

    @model_validator(mode="after")
    def _pod_or_service(self) -> PodLogsArgs:
        if not self.pod and not self.service:
            raise ValueError("give a pod or a service")
        return self


class LogErrorsArgs(WindowArgs):
    namespace: str = Field(min_length=1, max_length=63, pattern=_NAME)
    service: str = Field(
        min_length=1,
        max_length=253,
        pattern=_NAME,
        description="workload whose pods (service-*) are read",
    )


class QuotaArgs(_Args):
    namespace: str | None = _every_namespace()


def _meta(
    evidence: str,
    output: OutputKind,
    freshness: Freshness,
    negative: NegativeSemantics,
    *,
    history: bool,
    current: bool,
    facet: Facet | None = None,
) -> AgentMeta:
    """`facet`: for an evidence kind this connector declares itself (the shared
    vocabulary does not name it)."""
    return AgentMeta(
        evidence=[evidence],
        facets={evidence: facet} if facet else {},
        sources=["kubernetes"],
        output_kind=output,
        freshness=freshness,
        negative_semantics=negative,
        supports_history=history,
        current_only=current,
        read_only=True,
    )


Runner = Callable[[KubeReader, Any, CallContext], Awaitable[ToolResult]]
_SPECS: tuple[tuple[str, str, type[BaseModel], AgentMeta, Runner], ...] = (
    (
        "k8s.inventory",
        "Namespaces, Deployments, StatefulSets, DaemonSets and Services of an environment as "
        "entities (names, ready/desired, images): to recognise the names used in a question.",
        InventoryArgs,
        _meta("inventory", "objects", "live", "complete_read", history=False, current=True),
        inventory,
    ),
    (
        "k8s.health_sweep",
        "What is unhealthy in a whole environment (or one namespace) now: pods that are not "
        "running and ready (CrashLoopBackOff, ImagePullBackOff, OOMKilled, Pending, Evicted, "
        "failing readiness), nodes with abnormal conditions, and the window's Warning events "
        "grouped by reason. For questions that name no object.",
        SweepArgs,
        _meta("k8s.health_sweep", "objects", "live", "complete_read", history=False, current=True),
        health_sweep,
    ),
    (
        "k8s.workload_status",
        "Current state of a workload: Deployment (or StatefulSet/DaemonSet) -> ReplicaSets -> "
        "pods -> nodes, images, ready/desired, restarts, last termination (OOMKilled, exit "
        "code, time), waiting reasons (CrashLoopBackOff, ImagePullBackOff, ...), Pending pods "
        "and why they are not scheduled.",
        WorkloadArgs,
        _meta(
            "k8s.workload_status", "objects", "live", "complete_read", history=False, current=True
        ),
        workload_status,
    ),
    (
        "k8s.autoscaler",
        "HorizontalPodAutoscalers that scale a workload: current and desired replicas "
        "against min/max (flagged at its maximum), each metric against its target, and "
        "conditions that stop it scaling (ScalingLimited, AbleToScale=False).",
        WorkloadArgs,
        _meta(
            EVIDENCE_AUTOSCALER,
            "objects",
            "live",
            "complete_read",
            history=False,
            current=True,
            facet=Facet.STATE,
        ),
        autoscaler,
    ),
    (
        "k8s.events",
        "Kubernetes events (FailedMount, FailedScheduling, BackOff, Unhealthy, Killing, ...) of "
        "an object and the objects named after it, or of a whole namespace, in a window; "
        "Warning first. Events expire after about an hour: none found proves nothing.",
        EventsArgs,
        _meta("k8s.events", "events", "event_time", "none", history=True, current=False),
        events,
    ),
    (
        "k8s.endpoints",
        "Ready and not-ready endpoints of a Service (EndpointSlices) with their pods and nodes.",
        WorkloadArgs,
        _meta(
            "k8s.ready_endpoints", "objects", "live", "complete_read", history=False, current=True
        ),
        endpoints,
    ),
    (
        "k8s.node_health",
        "Conditions of a node (abnormal ones flagged), capacity, taints, cordon, and the pods "
        "placed on it.",
        NodeArgs,
        _meta("k8s.node_health", "objects", "live", "complete_read", history=False, current=True),
        node_health,
    ),
    (
        "k8s.pod_placement",
        "Which pod and node are behind pod IPs (e.g. the upstream addresses in an edge log) "
        "or pod names, with each pod's creation time; a pod's node never changes, so this "
        "answers for the past too when the pod already existed then. A pod that is gone "
        "cannot be found: an empty answer proves nothing.",
        PlacementArgs,
        _meta("k8s.placement", "objects", "snapshot", "none", history=True, current=False),
        pod_placement,
    ),
    (
        "k8s.pod_logs",
        "Container log lines of a pod (or of a service's pods) in a window, optionally filtered "
        "by a regex; previous=true reads the previous (crashed) container.",
        PodLogsArgs,
        _meta(
            "k8s.pod_logs", "log_lines", "event_time", "complete_read", history=True, current=False
        ),
        pod_logs,
    ),
    (
        "k8s.log_errors",
        "Error-like lines in the container logs of every pod of a workload in a window, "
        "grouped by message template (numbers, ids and addresses masked) with a count, first "
        "and last time, the pods that wrote them and an example; stack traces and tracebacks "
        "read as one record; a crashed container's last run is read.",
        LogErrorsArgs,
        _meta(
            "logs.error_templates",
            "log_lines",
            "event_time",
            "complete_read",
            history=True,
            current=False,
        ),
        log_errors,
    ),
    (
        "k8s.quotas",
        "ResourceQuota hard limits vs used (requests/limits reserved) per resource, with the "
        "ratio; 85% or more is flagged.",
        QuotaArgs,
        _meta("k8s.quota", "table", "live", "complete_read", history=False, current=True),
        quotas,
    ),
    (
        "k8s.audit_trail",
        "Kubernetes audit trail of an object and the objects it owns (name-*), or of every "
        "object of a namespace or environment: who (user or ServiceAccount) created/patched/"
        "deleted/scaled it, response code, time, user agent and any CI job/pipeline URL in the "
        "request annotations. Mutating verbs unless include_reads.",
        AuditArgs,
        _meta("k8s.audit", "timeline", "event_time", "complete_read", history=True, current=False),
        audit_trail,
    ),
)


def build_tools(targets: Sequence[KubernetesTarget]) -> list[Tool]:
    """The Kubernetes tools over one ApiClient per configured environment."""
    readers: dict[str, KubeReader] = {}
    for target in targets:
        if target.env in readers:
            raise ConfigError(f"kubernetes: environment {target.env!r} is configured twice")
        readers[target.env] = KubeReader(target)
    envs = list(readers)
    tools: list[Tool] = []
    for name, description, model, agent, runner in _SPECS:
        contract = ToolContract(
            name=name, description=description, args_model=model, agent=agent, enums={"env": envs}
        )
        tools.append(
            FunctionTool(contract, _bind(readers, runner), resources=tuple(readers.values()))
        )
    return tools


def _bind(
    readers: dict[str, KubeReader], runner: Runner
) -> Callable[[Any, CallContext], Awaitable[ToolResult]]:
    async def run(args: Any, ctx: CallContext) -> ToolResult:
        reader = readers.get(args.env)
        if reader is None:
            raise SourceUnsupported(
                f"kubernetes/{args.env}", f"no Kubernetes API is configured for {args.env}"
            )
        return await runner(reader, args, ctx)

    return run
