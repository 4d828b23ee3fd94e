"""Kubernetes connector: read-only tools over the official `kubernetes` client.

Tools: k8s.inventory, k8s.workload_status, k8s.events, k8s.endpoints, k8s.node_health,
k8s.pod_logs, k8s.quotas, k8s.audit_trail. One `ApiClient` per environment, built from a
`Configuration` of its own (URL and credentials, a kubeconfig context, or the pod's
ServiceAccount: see `_access`); never from the SDK's global default. Only GET requests are
ever sent.

Errors (policy.errors), each raised `from` the SDK exception; no SDK exception escapes:

    SourceTimeout       urllib3 connect/read timeout (`_request_timeout=target.timeout_s`
                        on every call; urllib3 retries off), or HTTP 504
    SourceUnavailable   connection refused, TLS failure, other transport errors; HTTP 429
                        and 5xx
    SourceForbidden     HTTP 401 / 403 (our token may not read this)
    SourceUnsupported   HTTP 404 for a resource type or API group the server does not serve
                        (for example the audit API `audit.infrabot.dev/v1` where no audit
                        backend is exposed); other 4xx (a rejected selector); an environment
                        without a configured API
    SourceMalformed     a body that is not JSON, a list without `items`, a log line without
                        the kubelet timestamp we asked for

Decisions:
- "Object not found" is not an error. A GET answered 404 with `details.name` equal to the
  name asked for means the object does not exist: the tool returns an `empty` result whose
  coverage is complete (absence of that object is proven) and a warning naming what was
  missing (and whether the namespace exists at all). A 404 without that detail means the
  resource type is not served -> SourceUnsupported (a gap).
- A list is read page by page (limit + continue). A list that cannot be read to its end (the
  continue token expired with 410, or the item cap was reached) makes the result partial:
  `coverage.truncated`, `complete_for_negative` false, and a warning.
- Pod logs use `sinceTime` (absolute), which the generated `read_namespaced_pod_log` lacks;
  that one request is built with the same client's `param_serialize` / `call_api`. A pod or
  container that has no such stream (400/404 with the server's reason) is a warning.
- Events expire (about an hour): `k8s.events` never proves absence.
"""

from connectors.kubernetes._probe import probe
from connectors.kubernetes._settings import (
    SERVICEACCOUNT_DIR,
    KubernetesTarget,
    ServiceAddress,
    in_cluster_address,
)
from connectors.kubernetes._tools import build_tools

__all__ = [
    "SERVICEACCOUNT_DIR",
    "KubernetesTarget",
    "ServiceAddress",
    "build_tools",
    "in_cluster_address",
    "probe",
]
