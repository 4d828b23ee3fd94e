"""Which indices hold the edge access log, the edge error log, application logs and audit.

Class "a log nobody named is still a log": an operator who did not configure an index
pattern has the logs anyway, under the names their shipper gives them (`filebeat-8.14.3-
2026.07.20`, `logstash-2026.07.20`, data stream backing indices `.ds-logs-nginx.access-
default-2026.07.20-000001`, `k8s-audit-2026.07.20`). Discovery reads the field
capabilities of every index (only the fields the layouts name), groups daily and rollover
indices into the pattern an operator would write, and gives each pattern the roles its
fields say it plays: documents with an HTTP status and something only an edge proxy logs
(an upstream, a virtual host, a request time) are an access log; `nginx.error.*`, or an
"error" index of plain messages, an error log; Kubernetes pod metadata with a message,
application logs; an `auditID` with a `verb`, audit events. An access log whose documents
also carry messages holds the proxy's error lines too (Filebeat and Fluent Bit write them
beside the access records; a document without a status is read as one). A pattern the
operator configured is never second-guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from enum import StrEnum

from connectors.elasticsearch._facts import POD_FIELDS
from connectors.elasticsearch._layout import EVERY_NAME, LogField, unwrapped

_AUDIT = ("auditID", "verb", "objectRef.resource", "objectRef.name", "user.username")


class IndexRole(StrEnum):
    EDGE_ACCESS = "edge_access_index"
    EDGE_ERROR = "edge_error_index"
    APP = "app_index"
    AUDIT = "audit_index"


def _names(*fields: LogField) -> set[str]:
    return {n for f in fields for n in EVERY_NAME.get(f, ())}


_STATUS = _names(LogField.STATUS)
_MESSAGE = _names(LogField.MESSAGE)
_SERVICE = _names(LogField.SERVICE) - {"service"}
_METHOD = _names(LogField.METHOD)
_PATH = _names(LogField.PATH)
# how operators name a proxy's access log; read only beside a status field
_EDGE_NAME = re.compile(r"access|nginx|ingress|edge|proxy|haproxy|traefik|envoy")
# only an edge proxy logs these beside a status
_EDGE_MARKS = _names(
    LogField.UPSTREAM,
    LogField.UPSTREAM_IP,
    LogField.UPSTREAM_NAME,
    LogField.UPSTREAM_STATUS,
    LogField.REQUEST_TIME,
) | {"vhost", "http_host", "server_name", "url.domain", "edge_node"}
_WRAPPABLE = _STATUS | _MESSAGE | _EDGE_MARKS | _METHOD | _PATH
# every name the roles are read from, and the plain ones under any wrapper object
# (log_processed.status); the list stays short enough for a request line
WANTED = sorted(
    {n for names in EVERY_NAME.values() for n in names}
    | set(POD_FIELDS)
    | set(_AUDIT)
    | {"nginx.error.connection_id", "service", "kubernetes.namespace", "kubernetes.labels.app"}
    | {"@timestamp"}
    | {f"*.{n}" for n in _WRAPPABLE}
)

_DATED = re.compile(r"^(?P<base>.+?)[-_.]\d{4}[.\-_]?\d{2}[.\-_]?\d{2}(?:[-_.]\d+)?$")
_ROLLOVER = re.compile(r"^(?P<base>.+?)-\d{6}$")


def pattern_of(index: str) -> str:
    """The pattern an operator would write for an index: daily and rollover suffixes
    become `*`; a data stream's backing index is read through the stream's name."""
    if index.startswith(".ds-"):
        stream = _DATED.match(index[4:])
        return stream["base"] if stream else index[4:]
    for rule in (_DATED, _ROLLOVER):
        found = rule.match(index)
        if found:
            return f"{found['base']}-*"
    return index


def roles_of(pattern: str, fields: set[str]) -> set[IndexRole]:
    if "@timestamp" not in fields:
        return set()  # a window cannot be read from it: dated by another field
    fields = unwrapped(fields)
    roles: set[IndexRole] = set()
    name = pattern.lower()
    if {"auditID", "verb"} <= fields or {"objectRef.resource", "verb"} <= fields:
        return {IndexRole.AUDIT}
    has_status = bool(fields & _STATUS)
    has_pod = bool(fields & set(POD_FIELDS))
    request_line = bool(fields & _METHOD and fields & _PATH)
    if has_status and (
        fields & _EDGE_MARKS
        or _EDGE_NAME.search(name)
        # a request's method, path and status with no pod behind it: a proxy's log
        or (request_line and not has_pod)
    ):
        roles.add(IndexRole.EDGE_ACCESS)
    has_message = bool(fields & _MESSAGE)
    if (
        any(f.startswith("nginx.error.") for f in fields)
        or ("error" in name and has_message and not has_status)
        # the proxy's error lines beside its access records (one shipper, one index)
        or (IndexRole.EDGE_ACCESS in roles and has_message)
    ):
        roles.add(IndexRole.EDGE_ERROR)
    if has_message and (
        has_pod or (not roles and (fields & _SERVICE or "service" in fields or "app" in name))
    ):
        roles.add(IndexRole.APP)
    return roles


def discover(per_index: Mapping[str, Iterable[str]]) -> dict[IndexRole, list[str]]:
    """Role -> the patterns that play it, from each index's field names."""
    by_pattern: dict[str, set[str]] = {}
    for index, fields in per_index.items():
        if index.startswith(".") and not index.startswith(".ds-"):
            continue  # system and hidden indices
        by_pattern.setdefault(pattern_of(index), set()).update(fields)
    found: dict[IndexRole, list[str]] = {}
    for pattern in sorted(by_pattern):
        for role in roles_of(pattern, by_pattern[pattern]):
            found.setdefault(role, []).append(pattern)
    return found


def fields_by_index(caps: Mapping[str, object]) -> dict[str, set[str]]:
    """Each index's fields from a field-capabilities answer asked with include_unmapped
    (a field is in every index its `unmapped` entry does not name)."""
    indices = caps.get("indices")
    fields = caps.get("fields")
    if not isinstance(indices, list) or not isinstance(fields, dict):
        return {}
    out: dict[str, set[str]] = {str(i): set() for i in indices}
    for name, by_type in fields.items():
        if not isinstance(by_type, dict):
            continue
        unmapped = by_type.get("unmapped")
        lacking = set(unmapped.get("indices") or []) if isinstance(unmapped, dict) else set()
        if not set(by_type) - {"unmapped"}:
            continue
        for index in out:
            if index not in lacking:
                out[index].add(str(name))
    return out
