"""The shared words between tool contracts and the planner.

Objectives (planner/objectives.yaml) ask for *evidence kinds*; tools declare which kinds
they can close in `x-agent.evidence`. Deterministic routes bind a tool's arguments from
the question's scope by *argument name*, so every connector uses these names for the same
meaning. Fact `kind` tags let the finalizer reason over facts without parsing prose.
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
    "metrics.restarts": "container restart counters over time",
    "metrics.resource_usage": "CPU / memory usage vs requests and limits",
    "node.network": "node TCP retransmits and softnet squeezes, compared with peers",
    "ci.release_timeline": "pipelines and jobs that deployed a service: job user, commit author",
    "net.reachability": "TCP connect to host:port",
    "logs.search": "bounded generic log search",
    "metrics.query": "bounded raw PromQL",
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
}

# Fact kinds and the attrs the finalizer reads (others may be present).
FACT_KINDS: dict[str, str] = {
    "edge.access": "attrs: request_id, status, upstream_status, host, path, upstream_addr, "
    "connection",
    "edge.error": "attrs: error_class, message, connection, host, upstream",
    "app.response": "attrs: request_id, status, pod, node",
    "app.log": "attrs: level, request_id, message",
    "http.rate": "attrs: value (per second), what (requests|errors), status",
    "http.latency": "attrs: quantile, value_seconds",
    "k8s.workload": "attrs: ready, desired, image",
    "k8s.pod": "attrs: pod, node, phase, ready, restarts, image",
    "k8s.termination": "attrs: pod, container, reason (OOMKilled, Error), exit_code, finished_at",
    "k8s.waiting": "attrs: pod, container, reason (CrashLoopBackOff, ImagePullBackOff, ...), "
    "message",
    "k8s.event": "attrs: reason (FailedMount, FailedScheduling, BackOff, ...), type, object, count",
    "k8s.endpoints": "attrs: service, ready, not_ready",
    "k8s.placement": "attrs: pod, namespace, node, ip, owner, created, created_after_moment",
    "k8s.node_condition": "attrs: node, condition, status, reason",
    "k8s.quota": "attrs: quota, resource, used, hard, ratio",
    "k8s.audit": "attrs: actor, verb, code, resource, name, user_agent",
    "k8s.log": "attrs: line, message, level, request_id, pod, container, node, previous",
    "metrics.restarts": "attrs: pod, container, increase",
    "metrics.usage": "attrs: pod, resource (cpu|memory), usage, request, limit",
    "node.network": "attrs: node, metric (retransmits|softnet_squeezes), value, peer_median",
    "ci.job": "attrs: job_id, job_name, status, ref, user (job.user.username), pipeline_id, "
    "commit_sha, image_tag, environment",
    "ci.commit": "attrs: sha, author (author_name), committer",
    "net.probe": "attrs: host, port, address, open",
    "logs.hit": "attrs: index, fields",
    "metrics.value": "attrs: labels, value",
    "knowledge": "confirmed operational knowledge: attrs author, thread, saved_at, hash",
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
