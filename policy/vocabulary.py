"""The shared words between tool contracts and the planner.

Objectives (planner/objectives.yaml) ask for *evidence kinds*; tools declare which kinds
they can close in `x-agent.evidence`. Deterministic routes bind a tool's arguments from
the question's scope by *argument name*, so every connector uses these names for the same
meaning. What a fact observes, and its attributes, are typed in policy/facts.py.
"""

from __future__ import annotations

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
