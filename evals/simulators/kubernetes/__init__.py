"""A read-only Kubernetes API server for one environment of a world.

Mounted at /kubernetes/<env>; the official `kubernetes` client works unchanged with
`Configuration.host = "<base>/kubernetes/<env>"`. It serves `world.kubernetes[env]`,
`world.pod_logs[env]` and `world.audit[env]` at the real API paths:

- discovery: /version, /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>;
- list and get of every built-in kind the connector reads (pods, services, endpoints,
  events, nodes, namespaces, resourcequotas, ... apps/v1 deployments, replicasets,
  statefulsets, daemonsets, discovery.k8s.io/v1 endpointslices, ...) and of any other
  kind the world contains, namespaced (/namespaces/{ns}/...) and across namespaces;
  Namespace objects are synthesised from the namespaces in use when the world has none;
- lists are real `XxxList` documents (apiVersion, kind, metadata.resourceVersion), with
  label selectors (=, ==, !=, in, notin, exists, !exists), the field selectors the real
  server accepts for the kind (metadata.name, metadata.namespace, spec.nodeName,
  status.phase, involvedObject.name/kind, ...; any other field is a 400), and
  `limit` + `continue` pagination with `remainingItemCount`;
- pod logs at /api/v1/namespaces/{ns}/pods/{pod}/log (container, previous, sinceTime,
  sinceSeconds, tailLines, timestamps, limitBytes; see `_logs`);
- errors as `Status` bodies (kind Status, reason NotFound / Forbidden / BadRequest /
  Expired, code); the server is read-only, every other verb is 405.

Audit events. Kubernetes has no API to read its audit log; a cluster operator ships it to
a backend. We model that backend as a read-only aggregated API, `audit.infrabot.dev/v1`,
resource `auditevents`: GET /apis/audit.infrabot.dev/v1/auditevents and
/apis/audit.infrabot.dev/v1/namespaces/{ns}/auditevents return an `AuditEventList` whose
items are the `audit.k8s.io/v1` Event objects as stored (filtered by namespace through
`objectRef.namespace`), so the connector reads them with the official client's
`CustomObjectsApi`. In production the operator exposes their audit backend the same way.
The API exists only for an environment that has an `audit.<env>` list in the world (even
an empty one); elsewhere it is not served (404), which the connector reports as a gap
rather than as "nobody changed anything".

Faults (source "kubernetes", `resource` = the plural resource name: pods, events,
endpointslices, auditevents, ..., or `log` for pod logs; a fault without `resource`
hits every request, discovery included): timeout, http_error and malformed are answered
by `FaultPlan.generic_response`; forbidden is a 403 Forbidden `Status`; unsupported is a
404 `Status` for that resource type; truncate makes a list return at most `max_hits`
items with a continue token, and continuing that list answers 410 Expired, so a reader
that follows the token learns that the list was cut. Every request is recorded in the
query log (source "kubernetes", env, path relative to the API root, query parameters,
response status).
"""

from evals.simulators.kubernetes._app import build_app

__all__ = ["build_app"]
