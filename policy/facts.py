"""The typed evidence vocabulary: fact kinds, their attributes, entity and relation kinds.

Connectors emit facts; the planner reasons over them (diagnosis, discovery of entities,
the evidence packet). Both sides meet here, in types a checker can follow: a fact's
`attrs` is one model per kind, so a reader writes `fact.attrs.error_class` after
narrowing with `isinstance`, never `attrs.get("error_class")`, and a connector that
emits an attribute the model does not know fails at once instead of being silently
ignored.

Adding a fact kind: one `FactKind` member, one attribute model with that member as its
`kind` and its `rank`, the model added to `FactAttrs` (all in this file), and the
connector that emits it; a diagnosis rule (planner/conclude/diagnosis.py) if it names a
cause.

Attributes are optional: one kind is emitted by several tools (the endpoints of a
service come from the Kubernetes API and from kube-state-metrics), each knowing a part.
Times inside attributes stay ISO-8601 text as the source wrote them. A value copied from
a document the source does not type (a log line's fields) is `Logged`: whatever shape a
shipper gave it is kept as a scalar, so an unexpected layout never loses the read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from policy.bounded_text import bounded
from policy.vocabulary import RankMeasure, RankSubject


def _scalar(value: Any) -> Any:
    """A document's value as a scalar: text and numbers as they are, anything else (an
    object, a list, a boolean) as its JSON text."""
    if isinstance(value, str):
        return bounded(value)
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    return bounded(json.dumps(value, sort_keys=True, default=str))


Logged = Annotated[str | int | float | None, BeforeValidator(_scalar)]
"""A value as a log document held it (`status` may be 502 or "502", `host` an object)."""


class FactKind(StrEnum):
    """What a fact observes. The planner's rules select facts by this, never by text."""

    EDGE_ACCESS = "edge.access"
    EDGE_ERROR = "edge.error"
    APP_RESPONSE = "app.response"
    APP_LOG = "app.log"
    HTTP_RATE = "http.rate"
    HTTP_LATENCY = "http.latency"
    K8S_WORKLOAD = "k8s.workload"
    K8S_POD = "k8s.pod"
    K8S_TERMINATION = "k8s.termination"
    K8S_WAITING = "k8s.waiting"
    K8S_EVENT = "k8s.event"
    K8S_ENDPOINTS = "k8s.endpoints"
    K8S_PLACEMENT = "k8s.placement"
    K8S_NODE_CONDITION = "k8s.node_condition"
    K8S_QUOTA = "k8s.quota"
    K8S_AUDIT = "k8s.audit"
    K8S_LOG = "k8s.log"
    K8S_SWEEP = "k8s.sweep"  # what a sweep of a whole environment covered and found
    K8S_AUTOSCALER = "k8s.autoscaler"  # a HorizontalPodAutoscaler's bounds, metrics, limits
    K8S_DEPENDENCY = "k8s.dependency"  # an address a workload's configuration calls
    K8S_NETWORK_POLICY = "k8s.network_policy"  # a NetworkPolicy that selects a workload
    LOG_TEMPLATE = "log.template"  # error-like log lines of one template, with a count
    METRICS_RESTARTS = "metrics.restarts"
    METRICS_USAGE = "metrics.usage"
    METRICS_VALUE = "metrics.value"
    METRICS_RANK = "metrics.rank"  # one place of a ranking of pods or nodes by a measure
    NODE_NETWORK = "node.network"
    CI_JOB = "ci.job"
    CI_COMMIT = "ci.commit"
    NET_PROBE = "net.probe"
    LOGS_HIT = "logs.hit"
    SKILL_OUTPUT = "skill.output"  # a text an external skill (an MCP server's tool) returned
    NEGATIVE = "negative"  # a complete read that found nothing, said as a fact
    KNOWLEDGE = "knowledge"  # confirmed operational knowledge (answers only, never a tool's)


class EntityKind(StrEnum):
    """Nodes of the infrastructure graph a call observed. A Kubernetes kind not listed
    (an event about a HorizontalPodAutoscaler) is an `OBJECT`: `EntityKind.of` says so."""

    POD = "pod"
    NODE = "node"
    SERVICE = "service"
    INGRESS = "ingress"
    ENDPOINT = "endpoint"  # an address behind a service or an upstream of the edge
    DEPLOYMENT = "deployment"
    STATEFULSET = "statefulset"
    DAEMONSET = "daemonset"
    REPLICASET = "replicaset"
    JOB = "job"
    CRONJOB = "cronjob"
    NAMESPACE = "namespace"
    RESOURCEQUOTA = "resourcequota"
    HOST = "host"
    EDGE_NODE = "edge_node"
    PROJECT = "project"
    PIPELINE = "pipeline"
    COMMIT = "commit"
    USER = "user"
    SERVICEACCOUNT = "serviceaccount"
    GROUP = "group"
    OBJECT = "object"

    @classmethod
    def of(cls, kind: str) -> EntityKind:
        """The member for a source's kind name (`Deployment`, `pod`), else `OBJECT`."""
        try:
            return cls(kind.lower())
        except ValueError:
            return cls.OBJECT


class RelationKind(StrEnum):
    """Edges of the infrastructure graph: `src rel dst`."""

    SELECTS = "selects"  # service -> pod
    ROUTES_TO = "routes_to"  # ingress -> service, service -> pod, edge node -> endpoint
    RUNS_ON = "runs_on"  # pod -> node
    OWNS = "owns"  # deployment -> replicaset -> pod
    SERVED_BY = "served_by"  # host -> edge node
    RESOLVES_TO = "resolves_to"  # host -> address
    CHANGED_BY = "changed_by"  # object -> user (audit)
    PART_OF = "part_of"  # job -> pipeline
    STARTED_BY = "started_by"  # job -> user
    RUNS_COMMIT = "runs_commit"  # job -> commit
    AUTHORED_BY = "authored_by"  # commit -> user
    COMMITTED_BY = "committed_by"  # commit -> user
    DEPLOYS_TO = "deploys_to"  # job -> env


class _Attrs(BaseModel):
    """Unknown attributes are an error: a typo in a connector must not vanish.

    `rank`, declared by every kind (no default, a unit test holds it): how early a fact of
    this kind is kept in a source's budget and shown, lower first. The order a reader
    needs: the symptom and its direct cause, then context; a kind that is neither (a
    workload's state, a probe, a skill's text) ranks 50."""

    model_config = ConfigDict(extra="forbid")

    rank: ClassVar[int]


class MetricAttrs(_Attrs):
    """Every fact read from a metrics source names its env and the query that read it."""

    env: str | None = None
    query: str | None = None


class EdgeAccess(_Attrs):
    kind: Literal[FactKind.EDGE_ACCESS] = FactKind.EDGE_ACCESS
    rank: ClassVar[int] = 1
    request_id: Logged = None
    status: Logged = None
    upstream_status: Logged = None
    host: Logged = None
    path: Logged = None
    method: Logged = None
    upstream_addr: Logged = None
    upstream_name: Logged = None  # ingress-nginx's <namespace>-<service>-<port>
    connection: Logged = None
    edge_node: Logged = None
    request_time: Logged = None
    index: str | None = None
    # an aggregate of many access lines (a window count) instead of one request
    count: int | None = None
    count_is_exact: bool | None = None
    window_start: str | None = None
    window_end: str | None = None
    timeline: list[Any] | None = None
    interval: str | None = None


class EdgeError(_Attrs):
    kind: Literal[FactKind.EDGE_ERROR] = FactKind.EDGE_ERROR
    rank: ClassVar[int] = 0
    error_class: str | None = None  # policy.vocabulary.EDGE_ERROR_CLASSES
    message: Logged = None
    connection: Logged = None
    host: Logged = None
    upstream: Logged = None
    edge_node: Logged = None
    request: Logged = None
    client: Logged = None
    level: Logged = None
    request_id: Logged = None
    correlated_by: list[str] | None = None
    index: str | None = None
    count: int | None = None
    count_is_exact: bool | None = None
    upstreams: dict[str, int] | None = None  # upstream address -> lines
    hosts: dict[str, int] | None = None


class _AppAttrs(_Attrs):
    request_id: Logged = None
    pod: Logged = None
    node: Logged = None
    namespace: Logged = None
    service: Logged = None
    index: str | None = None


class AppResponse(_AppAttrs):
    kind: Literal[FactKind.APP_RESPONSE] = FactKind.APP_RESPONSE
    rank: ClassVar[int] = 2
    status: Logged = None
    method: Logged = None
    path: Logged = None
    duration_ms: Logged = None
    header_bytes: Logged = None
    headers_bytes: Logged = None
    set_cookie_headers: Logged = None
    location_bytes: Logged = None


class AppLog(_AppAttrs):
    kind: Literal[FactKind.APP_LOG] = FactKind.APP_LOG
    rank: ClassVar[int] = 30
    level: Logged = None
    message: Logged = None
    logger: Logged = None
    response: dict[str, Any] | None = None


class HttpRate(MetricAttrs):
    kind: Literal[FactKind.HTTP_RATE] = FactKind.HTTP_RATE
    rank: ClassVar[int] = 7
    what: Literal["requests", "errors"] | None = None
    value: float | None = None  # per second
    status: str | None = None
    total: float | None = None
    peak: float | None = None
    peak_at: str | None = None
    started_at: str | None = None
    started_before_window: bool | None = None
    share: float | None = None
    ingress: str | None = None
    service: str | None = None
    namespace: str | None = None
    window_s: int | None = None
    min: float | None = None
    max: float | None = None
    # requests the client closed before the answer (nginx 499), beside a read of no errors
    client_closed: float | None = None
    # the service's own calls to this callee that failed (a mesh's source-side count)
    callee: str | None = None


class HttpLatency(MetricAttrs):
    kind: Literal[FactKind.HTTP_LATENCY] = FactKind.HTTP_LATENCY
    rank: ClassVar[int] = 50
    quantile: float | None = None
    value_seconds: float | None = None
    max_seconds: float | None = None
    max_at: str | None = None
    service: str | None = None
    namespace: str | None = None


class ReplicaSetState(BaseModel):
    """One live replica set of a Deployment: a rollout has two, each with its own image."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    revision: str | None = None
    ready: int = 0
    desired: int = 0
    images: list[str] = Field(default_factory=list)


class K8sWorkload(_Attrs):
    kind: Literal[FactKind.K8S_WORKLOAD] = FactKind.K8S_WORKLOAD
    rank: ClassVar[int] = 50
    # what its newest revision changed in the pod template (image, requests, limits, env)
    last_change: list[str] | None = None
    # its pods' labels and its namespace's: who a NetworkPolicy's rule admits
    pod_labels: dict[str, str] | None = None
    namespace_labels: dict[str, str] | None = None
    workload_kind: str | None = None  # Deployment, StatefulSet, ...
    name: str | None = None
    namespace: str | None = None
    ready: int | None = None
    desired: int | None = None
    image: str | None = None
    images: list[str] | None = None
    revision: str | None = None
    abnormal_conditions: list[Any] | None = None
    replicasets: list[str] | None = None
    live_replicasets: list[ReplicaSetState] | None = Field(
        default=None,
        description="replica sets with pods, newest revision last: what runs during a rollout",
    )


class K8sPod(_Attrs):
    kind: Literal[FactKind.K8S_POD] = FactKind.K8S_POD
    rank: ClassVar[int] = 14
    pod: str | None = None
    node: str | None = None
    phase: str | None = None
    ready: bool | None = None
    containers_ready: str | None = None
    restarts: int | None = None
    image: str | None = None
    images: list[str] | None = None
    scheduling: dict[str, Any] | None = None
    pod_reason: str | None = None  # Evicted, ...
    pod_message: str | None = None
    terminating: bool | None = None  # being deleted (a deletionTimestamp is set)


class K8sTermination(_Attrs):
    kind: Literal[FactKind.K8S_TERMINATION] = FactKind.K8S_TERMINATION
    rank: ClassVar[int] = 3
    pod: str | None = None
    container: str | None = None
    reason: str | None = None  # OOMKilled, Error, ...
    exit_code: int | None = None
    signal: int | None = None
    finished_at: str | None = None
    started_at: str | None = None
    restarts: int | None = None
    state: str | None = None  # last or current termination
    memory_limit: str | None = None  # the container's limit as the spec writes it ("512Mi")


class K8sWaiting(_Attrs):
    kind: Literal[FactKind.K8S_WAITING] = FactKind.K8S_WAITING
    rank: ClassVar[int] = 4
    pod: str | None = None
    container: str | None = None
    reason: str | None = None  # CrashLoopBackOff, ImagePullBackOff, ...
    message: str | None = None
    restarts: int | None = None
    image: str | None = None  # the image the waiting container runs
    pull_secrets: list[str] | None = None  # an image that does not pull: the secrets it uses


class K8sEvent(_Attrs):
    kind: Literal[FactKind.K8S_EVENT] = FactKind.K8S_EVENT
    rank: ClassVar[int] = 5
    reason: str | None = None  # FailedMount, FailedScheduling, BackOff, ...
    type: str | None = None
    object: str | None = None
    object_kind: str | None = None
    name: str | None = None
    namespace: str | None = None
    count: int | None = None
    message: str | None = None
    first_seen: str | None = None
    last_seen: str | None = None
    component: str | None = None


class K8sEndpoints(MetricAttrs):
    kind: Literal[FactKind.K8S_ENDPOINTS] = FactKind.K8S_ENDPOINTS
    rank: ClassVar[int] = 13
    service: str | None = None
    namespace: str | None = None
    ready: int | float | None = None
    not_ready: int | float | None = None
    ready_max: float | None = None
    ready_at_end: float | None = None
    not_ready_at_end: float | None = None
    ready_ips: list[str] | None = None
    not_ready_ips: list[str] | None = None
    first_not_ready_at: str | None = None
    no_ready_at: str | None = None
    covered_from: str | None = None
    covered_to: str | None = None
    endpoints: list[dict[str, Any]] | None = None
    ports: list[Any] | None = None
    service_found: bool | None = None
    # the Service's target ports no container of its pods declares, and those they declare
    unserved_ports: list[str] | None = None
    container_ports: list[str] | None = None


class K8sPlacement(_Attrs):
    kind: Literal[FactKind.K8S_PLACEMENT] = FactKind.K8S_PLACEMENT
    rank: ClassVar[int] = 50
    pod: str | None = None
    namespace: str | None = None
    node: str | None = None
    ip: str | None = None
    owner: str | None = None
    created: str | None = None
    created_after_moment: bool | None = None  # the pod holds the address only since later


class K8sNodeCondition(_Attrs):
    kind: Literal[FactKind.K8S_NODE_CONDITION] = FactKind.K8S_NODE_CONDITION
    rank: ClassVar[int] = 50
    node: str | None = None
    condition: str | None = None
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    abnormal: bool | None = None
    last_transition: str | None = None
    capacity: dict[str, Any] | None = None
    allocatable: dict[str, Any] | None = None
    taints: list[Any] | None = None
    unschedulable: bool | None = None
    pods: int | None = None


class K8sQuota(MetricAttrs):
    """From the API (`used`/`hard` as quantities, "27Gi") or from kube-state-metrics
    (numbers, with the peak of the window)."""

    kind: Literal[FactKind.K8S_QUOTA] = FactKind.K8S_QUOTA
    rank: ClassVar[int] = 11
    quota: str | None = None
    namespace: str | None = None
    resource: str | None = None
    used: str | float | None = None
    hard: str | float | None = None
    peak_used: float | None = None
    ratio: float | None = None
    near_limit: bool | None = None


class K8sAudit(_Attrs):
    kind: Literal[FactKind.K8S_AUDIT] = FactKind.K8S_AUDIT
    rank: ClassVar[int] = 10
    actor: str | None = None
    actor_type: str | None = None
    verb: str | None = None
    code: int | None = None
    resource: str | None = None
    name: str | None = None
    namespace: str | None = None
    subresource: str | None = None
    user_agent: str | None = None
    timestamp: str | None = None
    audit_id: str | None = None
    impersonated_user: str | None = None
    source_ips: list[str] | None = None
    images: list[str] | None = None
    ci_job_url: str | None = None
    ci_pipeline_url: str | None = None
    commit_sha: str | None = None
    # the workload whose pods mount (or take env from) the object changed: a ConfigMap or
    # Secret edit reaches the pods without any change to the workload itself
    mounted_by: str | None = None


class K8sLog(_Attrs):
    kind: Literal[FactKind.K8S_LOG] = FactKind.K8S_LOG
    rank: ClassVar[int] = 31
    line: Logged = None
    message: Logged = None
    level: Logged = None
    request_id: Logged = None
    pod: str | None = None
    container: str | None = None
    node: str | None = None
    previous: bool | None = None
    # the exception a stack trace ends with (a Python traceback's last line, a Java
    # "Caused by:"), whatever words it has: the line that says why the process died
    raised: bool | None = None


class K8sSweep(_Attrs):
    kind: Literal[FactKind.K8S_SWEEP] = FactKind.K8S_SWEEP
    rank: ClassVar[int] = 0  # what a sweep covered: said before what it found
    namespace: str | None = None  # None: every namespace
    pods: int | None = None
    namespaces: int | None = None
    nodes: int | None = None
    warning_events: int | None = None
    unhealthy_pods: int | None = None
    abnormal_nodes: int | None = None


class K8sAutoscaler(_Attrs):
    kind: Literal[FactKind.K8S_AUTOSCALER] = FactKind.K8S_AUTOSCALER
    rank: ClassVar[int] = 13
    name: str | None = None
    namespace: str | None = None
    target: str | None = None  # "Deployment <name>"
    current: int | None = None
    desired: int | None = None
    min_replicas: int | None = None
    max_replicas: int | None = None
    at_max: bool = False  # current replicas at maxReplicas: it cannot add more
    limited: bool = False  # ScalingLimited=True with reason TooManyReplicas
    over_target: bool = False  # some metric is above its target
    metrics: list[str] | None = None  # "cpu 138% of request (target 70%)"
    conditions: list[str] | None = None  # abnormal ones, "ScalingLimited=True (...)"
    last_scale_time: str | None = None


class K8sDependency(_Attrs):
    """An address a workload's configuration points its pods at (an env value, a key of
    a ConfigMap it reads or mounts): where its calls go when its log names none."""

    kind: Literal[FactKind.K8S_DEPENDENCY] = FactKind.K8S_DEPENDENCY
    rank: ClassVar[int] = 45
    workload: str | None = None
    namespace: str | None = None
    host: str | None = None
    port: int | None = None
    software: str | None = None  # policy/dependencies.yaml's name, when told
    setting: str | None = None  # where it is set: "env DATABASE_URL", "configmap x key y"


class PolicyPeer(BaseModel):
    """Who a NetworkPolicy rule admits (or lets its pods reach): pods by labels, in the
    policy's namespace unless namespaces are selected too; `any_namespace`: an empty
    namespaceSelector; an address block."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pod_labels: dict[str, str] | None = None
    namespace_labels: dict[str, str] | None = None
    any_namespace: bool = False
    ip_block: str | None = None


class K8sNetworkPolicy(_Attrs):
    """A NetworkPolicy whose podSelector selects a workload's pods, with who its rules
    admit (`ingress`) and where they let its pods go (`egress`); None: that direction is
    not restricted by it."""

    kind: Literal[FactKind.K8S_NETWORK_POLICY] = FactKind.K8S_NETWORK_POLICY
    rank: ClassVar[int] = 44
    name: str | None = None
    namespace: str | None = None
    workload: str | None = None
    created: str | None = None
    ingress: list[list[PolicyPeer]] | None = None  # per rule; [] in a rule: from anywhere
    egress: list[list[PolicyPeer]] | None = None


class LogTemplate(_Attrs):
    kind: Literal[FactKind.LOG_TEMPLATE] = FactKind.LOG_TEMPLATE
    rank: ClassVar[int] = 4  # an error repeated in the object's own log
    template: str | None = None  # the message with numbers, ids and addresses masked
    level: str | None = None  # as the lines state it; None: error-like by content
    count: int | None = None
    first_seen: str | None = None
    last_seen: str | None = None
    example: str | None = None
    origins: list[str] | None = None  # pod/container (or index) that wrote them
    service: str | None = None


class MetricsRestarts(MetricAttrs):
    kind: Literal[FactKind.METRICS_RESTARTS] = FactKind.METRICS_RESTARTS
    rank: ClassVar[int] = 15
    namespace: str | None = None
    pod: str | None = None
    container: str | None = None
    increase: float | None = None
    restarts_total: float | None = None
    last_reason: str | None = None
    first_increase_at: str | None = None
    containers: int | None = None  # several quiet containers said in one fact


class MetricsUsage(MetricAttrs):
    """Per container (`resource`, `usage` against `request`/`limit`) or summed over a
    scope (`cpu_used`, `memory_requested`, ...)."""

    kind: Literal[FactKind.METRICS_USAGE] = FactKind.METRICS_USAGE
    rank: ClassVar[int] = 12
    namespace: str | None = None
    pod: str | None = None
    container: str | None = None
    resource: Literal["cpu", "memory", "volume"] | None = None
    claim: str | None = None  # a volume's PersistentVolumeClaim (usage/limit: bytes)
    inodes_free: float | None = None
    inodes: float | None = None
    usage: float | None = None
    peak: float | None = None
    request: float | None = None
    limit: float | None = None
    scope: str | None = None
    containers: int | None = None
    # the share of CFS periods the container was held back in by its CPU limit
    throttled: float | None = None
    cpu_used: float | None = None
    cpu_requested: float | None = None
    memory_used: float | None = None
    memory_requested: float | None = None


class MetricsRank(MetricAttrs):
    """One place in a ranking: `position` (1 first) of `of` ranked, the pod or node
    `name`, its `value` of `measure` in the measure's unit (RankMeasure.unit)."""

    kind: Literal[FactKind.METRICS_RANK] = FactKind.METRICS_RANK
    rank: ClassVar[int] = 2
    subject: RankSubject
    measure: RankMeasure
    position: int
    of: int
    name: str
    namespace: str | None = None
    value: float


class MetricsValue(MetricAttrs):
    """A series' value, or their sum (`summed` series), of the metric `metric`."""

    kind: Literal[FactKind.METRICS_VALUE] = FactKind.METRICS_VALUE
    rank: ClassVar[int] = 50
    metric: str | None = None
    summed: int | None = None
    labels: dict[str, str] | None = None
    value: float | None = None
    min: float | None = None
    max: float | None = None


class NodeNetwork(MetricAttrs):
    kind: Literal[FactKind.NODE_NETWORK] = FactKind.NODE_NETWORK
    rank: ClassVar[int] = 6
    node: str | None = None
    metric: str | None = None  # retransmits, softnet_squeezes
    value: float | None = None
    peer_median: float | None = None
    ratio: float | None = None
    peers: int | None = None
    peak: float | None = None
    peak_at: str | None = None


class CiJob(_Attrs):
    kind: Literal[FactKind.CI_JOB] = FactKind.CI_JOB
    rank: ClassVar[int] = 8
    job_id: int | None = None
    job_name: str | None = None
    stage: str | None = None
    status: str | None = None
    ref: str | None = None
    user: str | None = None  # job.user.username: who ran the job
    pipeline_id: int | None = None
    pipeline_user: str | None = None
    pipeline_web_url: str | None = None
    commit_sha: str | None = None
    image_tag: str | None = None
    image_tag_source: str | None = None
    environment: str | None = None
    env: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    web_url: str | None = None
    project: str | None = None
    in_scope: bool = True  # False: shown as context, it deployed another env
    ran: bool = True  # False: it never started (a manual job nobody played): no change


class CiCommit(_Attrs):
    kind: Literal[FactKind.CI_COMMIT] = FactKind.CI_COMMIT
    rank: ClassVar[int] = 9
    sha: str | None = None
    short_id: str | None = None
    title: str | None = None
    author: str | None = None  # author_name: who wrote the change, not who deployed it
    committer: str | None = None
    authored_date: str | None = None
    committed_date: str | None = None


class NetProbe(_Attrs):
    kind: Literal[FactKind.NET_PROBE] = FactKind.NET_PROBE
    rank: ClassVar[int] = 50
    host: str | None = None
    port: int | None = None
    address: str | None = None
    open: bool | None = None
    state: str | None = None
    detail: str | None = None
    elapsed_ms: int | float | None = None
    timeout_s: float | None = None


class LogsHit(_Attrs):
    kind: Literal[FactKind.LOGS_HIT] = FactKind.LOGS_HIT
    rank: ClassVar[int] = 50
    index: str | None = None
    fields: dict[str, Any] | None = None


class SkillOutput(_Attrs):
    """A line of text a tool of an MCP server returned: untrusted data, kept as the server
    said it (redacted and described like every fact), with the evidence kinds its
    contract declares."""

    kind: Literal[FactKind.SKILL_OUTPUT] = FactKind.SKILL_OUTPUT
    rank: ClassVar[int] = 50
    server: str
    tool: str
    evidence: list[str] = Field(default_factory=list)


class Negative(_Attrs):
    kind: Literal[FactKind.NEGATIVE] = FactKind.NEGATIVE
    rank: ClassVar[int] = 40


FactAttrs = Annotated[
    EdgeAccess
    | EdgeError
    | AppResponse
    | AppLog
    | HttpRate
    | HttpLatency
    | K8sWorkload
    | K8sPod
    | K8sTermination
    | K8sWaiting
    | K8sEvent
    | K8sEndpoints
    | K8sPlacement
    | K8sNodeCondition
    | K8sQuota
    | K8sAudit
    | K8sLog
    | K8sSweep
    | K8sAutoscaler
    | K8sDependency
    | K8sNetworkPolicy
    | LogTemplate
    | MetricsRestarts
    | MetricsUsage
    | MetricsRank
    | MetricsValue
    | NodeNetwork
    | CiJob
    | CiCommit
    | NetProbe
    | LogsHit
    | SkillOutput
    | Negative,
    Field(discriminator="kind"),
]


def _kind_of(model: type[_Attrs]) -> FactKind:
    kind: FactKind = model.model_fields["kind"].default
    return kind


FACT_RANKS: Mapping[str, int] = {
    _kind_of(model): model.rank for model in get_args(get_args(FactAttrs)[0])
}
"""Each fact kind's `rank`, read from its model: the order the evidence packet and the
answer's facts start from."""
