"""The shared words between tool contracts and the planner.

Objectives (planner/objectives.yaml) ask for *evidence kinds*; tools declare which kinds
they can close in `x-agent.evidence`. Deterministic routes bind a tool's arguments from
the question's scope by *argument name*, so every connector uses these names for the same
meaning. What a fact observes, and its attributes, are typed in policy/facts.py.
"""

from __future__ import annotations

from enum import StrEnum


class Facet(StrEnum):
    """What side of an object an evidence kind shows. The baseline every object in scope
    gets when the question asks for a cause is asked by facet (planner/objectives.yaml),
    so a new source whose tool declares a kind of one of these facets is read with no
    change to any plan."""

    STATE = "state"  # what the object is now: replicas, pods, endpoints, its autoscaler
    EVENTS = "events"  # what the cluster said about it
    LOGS = "logs"  # what its programs wrote
    CHANGES = "changes"  # who changed it, or what it uses, and when
    SYMPTOM = "symptom"  # how it serves: errors, latency, traffic
    RESOURCES = "resources"  # what it uses of its machines and quotas
    PLACEMENT = "placement"  # where it runs: pods, nodes, addresses, the network
    ENVIRONMENT = "environment"  # a whole environment at once, not one object
    LOOKUP = "lookup"  # reads that answer a query given, not an object


EVIDENCE_KINDS: dict[str, str] = {
    "inventory": "names of namespaces and workloads (used to recognise names in questions)",
    "edge.access_log": "edge proxy access record(s): status, upstream status, request_id",
    "edge.error_log": "edge proxy error log lines tied to the request, with an error class",
    "app.log": "application log lines for a request_id or a window",
    "http.error_rate": "5xx / error responses rate by ingress or service over time",
    "http.request_rate": "request rate (RPS) by ingress or service",
    "http.latency": "latency quantiles by ingress or service",
    "k8s.workload_status": "deployment -> replica sets -> pods: images, restarts, last termination",
    "k8s.events": "Kubernetes events for an object or namespace in a window",
    "k8s.ready_endpoints": "ready / not-ready endpoints of a service",
    "k8s.node_health": "node conditions and the pods placed on a node",
    "k8s.placement": "which pod and node are behind a pod IP or pod name",
    "k8s.pod_logs": "container logs (current or previous) in a window",
    "logs.error_templates": "error-like log lines of an object grouped by message template: "
    "count, first and last time, who wrote them, an example",
    "k8s.quota": "resource quotas: hard vs used",
    "k8s.audit": "audit trail of an object: actor, verb, response code, time",
    "k8s.health_sweep": "what is unhealthy in a whole environment: pods not running and ready, "
    "nodes with abnormal conditions, Warning events by reason",
    "metrics.restarts": "container restart counters over time",
    "metrics.resource_usage": "CPU / memory usage vs requests and limits",
    "node.network": "node TCP retransmits and softnet squeezes, compared with peers",
    "ci.release_timeline": "pipelines and jobs that deployed a service: job user, commit author",
    "net.reachability": "TCP connect to host:port",
    "logs.search": "bounded generic log search",
    "metrics.query": "bounded raw PromQL",
    "metrics.discovered": "the series whose labels name something the question names, read as "
    "values (gauges), rates (counters) or quantiles (histograms)",
    "metrics.ranking": "the pods or nodes of an environment (or a namespace) ranked by a measure: "
    "memory, CPU, restarts, memory against the limit, CPU against the request, TCP retransmits",
}

KIND_FACETS: dict[str, Facet] = {
    "inventory": Facet.LOOKUP,
    "edge.access_log": Facet.SYMPTOM,
    "edge.error_log": Facet.SYMPTOM,
    "app.log": Facet.LOGS,
    "http.error_rate": Facet.SYMPTOM,
    "http.request_rate": Facet.SYMPTOM,
    "http.latency": Facet.SYMPTOM,
    "k8s.workload_status": Facet.STATE,
    "k8s.events": Facet.EVENTS,
    "k8s.ready_endpoints": Facet.STATE,
    "k8s.node_health": Facet.PLACEMENT,
    "k8s.placement": Facet.PLACEMENT,
    "k8s.pod_logs": Facet.LOGS,
    "logs.error_templates": Facet.LOGS,
    "k8s.quota": Facet.RESOURCES,
    "k8s.audit": Facet.CHANGES,
    "k8s.health_sweep": Facet.ENVIRONMENT,
    "metrics.restarts": Facet.STATE,
    "metrics.resource_usage": Facet.RESOURCES,
    "node.network": Facet.PLACEMENT,
    "ci.release_timeline": Facet.CHANGES,
    "net.reachability": Facet.LOOKUP,
    "logs.search": Facet.LOOKUP,
    "metrics.query": Facet.LOOKUP,
    "metrics.discovered": Facet.LOOKUP,
    "metrics.ranking": Facet.ENVIRONMENT,
}


ARGUMENT_NAMES: dict[str, str] = {
    "env": "environment name from configuration (enum filled at run time)",
    "namespace": "Kubernetes namespace",
    "service": "workload / service / ingress name (the question's object)",
    "pod": "pod name",
    "container": "container name",
    "node": "node name",
    "start": "ISO-8601 datetime with offset, start of the window read",
    "end": "ISO-8601 datetime with offset, end of the window read",
    "request_id": "request id as logged by the edge proxy",
    "status": "HTTP status code",
    "project": "GitLab project path (group/name) or name",
    "query": "raw query text for bounded generic tools",
    "limit": "most items to return",
    "terms": "names the question gives (an object, a consumer group, a queue, a pool)",
    "subject": "what is ranked: pods or nodes",
    "measure": "what they are ranked by",
}


class RankSubject(StrEnum):
    """What a ranking orders."""

    POD = "pod"
    NODE = "node"


class RankMeasure(StrEnum):
    """What a ranking orders them by; each has one unit (RankMeasure.unit)."""

    MEMORY = "memory"  # working set, bytes
    CPU = "cpu"  # cores used
    RESTARTS = "restarts"  # container restarts
    MEMORY_OF_LIMIT = "memory_of_limit"  # working set as a share of the memory limit
    CPU_OF_REQUEST = "cpu_of_request"  # cores used as a share of the CPU request
    RETRANSMITS = "retransmits"  # TCP segments retransmitted per second (nodes)

    @property
    def unit(self) -> str:
        return _UNITS[self]


_UNITS: dict[RankMeasure, str] = {
    RankMeasure.MEMORY: "bytes",
    RankMeasure.CPU: "cores",
    RankMeasure.RESTARTS: "restarts",
    RankMeasure.MEMORY_OF_LIMIT: "share",
    RankMeasure.CPU_OF_REQUEST: "share",
    RankMeasure.RETRANSMITS: "per_second",
}

EDGE_ERROR_CLASSES: tuple[str, ...] = (
    "too_big_header",
    "timeout",
    "connect_timeout",
    "connection_refused",
    "connection_reset",
    "premature_close",
    "invalid_header",
    "upstream_tls",
    "no_live_upstreams",
    "client_body_too_large",
    "other",
)
