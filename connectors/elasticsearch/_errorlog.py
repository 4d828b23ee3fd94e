"""The edge proxy's logs: classify nginx / Angie error lines and tie them to a request.

The error log has no request_id. A line belongs to a request when it was written by the
same edge node, on the same connection (`*884213`), for the same host and path, within a
narrow window around the access record (about 2.5 s either side, stretched back by the
request's own duration). A line on the same host but another connection or path is a
decoy and is never attached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from connectors.elasticsearch._bodies import Doc
from connectors.elasticsearch._layout import (
    DEFAULT,
    EVERY_NAME,
    Layout,
    LogField,
    lookup,
    term_on,
)

CORRELATION_SLACK = timedelta(seconds=2.5)
MAX_REQUEST_SPAN = timedelta(seconds=300)

# Order matters: the first class whose marker appears wins (a TLS handshake can fail with
# "reset by peer", and then it is a TLS problem).
_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("too_big_header", ("upstream sent too big header",)),
    ("client_body_too_large", ("client intended to send too large body",)),
    ("no_live_upstreams", ("no live upstreams",)),
    (
        "upstream_tls",
        (
            "ssl_do_handshake() failed",
            "upstream ssl certificate verify error",
            "upstream ssl certificate does not match",
            "while ssl handshaking to upstream",
        ),
    ),
    # a timeout while *connecting* is not a slow backend: the address did not answer at all
    ("connect_timeout", ("timed out) while connecting to upstream",)),
    ("timeout", ("upstream timed out",)),
    ("connection_refused", ("(111: connection refused)", "connect() failed (111")),
    ("connection_reset", ("reset by peer", "recv() failed (104")),
    ("premature_close", ("upstream prematurely closed connection",)),
    ("invalid_header", ("upstream sent invalid header", "upstream sent no valid http")),
)

_LINE_RE = re.compile(
    r"^(?P<time>\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}) \[(?P<level>\w+)\] "
    r"(?P<pid>\d+)#\d+: (?:\*(?P<connection>\d+) )?(?P<text>.*)$",
    re.DOTALL,
)
_FIELD_RE = re.compile(
    r', (client|server|request|upstream|host|referrer|subrequest): ("(?:[^"\\]|\\.)*"|[^,]*)'
)


def edge_marks(layout: Layout) -> tuple[str, ...]:
    """Fields only a proxy's access record carries (an upstream, its status or name)."""
    marks = (LogField.UPSTREAM, LogField.UPSTREAM_NAME, LogField.UPSTREAM_STATUS)
    return tuple(n for f in marks if layout.has(f) for n in layout.names(f))


def shared(a: str, b: str) -> bool:
    """Two index settings read a pattern in common (one shipper, one index for all)."""
    return bool(set(a.split(",")) & set(b.split(",")))


def access_only(layout: Layout, with_apps: bool) -> list[dict[str, Any]]:
    """Where application logs share the access log's index, an access record is one
    with a field only a proxy logs: an application's own `status 502` line is not one."""
    marks = edge_marks(layout) if with_apps and layout.types is not None else ()
    return [{"bool": {"should": [{"exists": {"field": n}} for n in marks],
                      "minimum_should_match": 1}}] if marks else []  # fmt: skip


def error_only(layout: Layout) -> list[dict[str, Any]]:
    """Where access records share the error log's index (Filebeat writes both to one), an
    error line is a document with no HTTP status."""
    if not layout.types or not any(
        layout.types.get(n) for n in layout.candidates.get(LogField.STATUS, ())
    ):
        return []
    return [
        {"bool": {"must_not": [{"exists": {"field": n}} for n in layout.names(LogField.STATUS)]}}
    ]


def host_in_error_line(layout: Layout, host: str) -> dict[str, Any]:
    """Lines of one virtual host: a field naming it, or the line's own `host: "..."` (and
    `server: ...`) part, where a shipper left the line whole."""
    phrases = [
        {"match_phrase": {n: f'{key}: "{host}"' if key == "host" else f"{key}: {host}"}}
        for n in layout.names(LogField.MESSAGE)
        for key in ("host", "server")
    ]
    fields = [term_on(layout, LogField.HOST, host)]
    fields += [{"term": {"server": host}}, {"term": {"server.keyword": host}}]
    return {"bool": {"should": [*fields, *phrases], "minimum_should_match": 1}}


def classify(message: str) -> str:
    """One of policy.vocabulary.EDGE_ERROR_CLASSES."""
    lowered = message.lower()
    for name, markers in _MARKERS:
        if any(marker in lowered for marker in markers):
            return name
    return "other"


def parse_line(message: str) -> dict[str, Any]:
    """Fields of an nginx error line: level, pid, connection, text, client, request, ..."""
    match = _LINE_RE.match(message.strip())
    if not match:
        # a shipper that parsed the header off (Filebeat's nginx error fileset) leaves the
        # text and its ", client: ..., host: ..." parts
        text = message.strip()
        first = _FIELD_RE.search(text)
        out: dict[str, Any] = {"text": text[: first.start()] if first else text}
        for name, value in _FIELD_RE.findall(text):
            out[name] = value[1:-1] if value.startswith('"') else value
        return out
    out = {
        "level": match["level"],
        "pid": int(match["pid"]),
        "connection": int(match["connection"]) if match["connection"] else None,
    }
    rest = match["text"]
    first = _FIELD_RE.search(rest)
    out["text"] = rest[: first.start()] if first else rest
    for name, value in _FIELD_RE.findall(rest):
        out[name] = value[1:-1] if value.startswith('"') else value
    return out


# Where shippers put a request id: every layout's name for it (nginx/Angie $request_id,
# ingress-nginx req_id, ECS http.request.id, Filebeat's ingress controller fileset...) and
# the common trace names applications log.
REQUEST_ID_FIELDS = tuple(dict.fromkeys([*EVERY_NAME[LogField.REQUEST_ID], "trace_id"]))


def scalar(doc: Doc, *names: str) -> Any:
    """The first present *scalar* among the names: ECS nests `service: {name: ...}`, so
    `service` itself is an object and `service.name` is the value."""
    for name in names:
        value = lookup(doc, name)
        if value is not None and not isinstance(value, dict | list):
            return value
    return None


def request_id_of(doc: Doc) -> Any:
    return lookup(doc, *REQUEST_ID_FIELDS)


def split_request(line: str | None) -> tuple[str | None, str | None]:
    """'POST /checkout/confirm?x=1 HTTP/1.1' -> ('POST', '/checkout/confirm')."""
    if not line:
        return None, None
    parts = str(line).split()
    if len(parts) >= 2:
        return parts[0], path_only(parts[1])
    return None, path_only(parts[0]) if parts else None


def path_only(uri: Any) -> str | None:
    if uri in (None, ""):
        return None
    return str(uri).split("?", 1)[0]


def parse_time(value: Any) -> datetime | None:
    """An ISO-8601 time, or epoch milliseconds (a date field's other default format)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value / 1000, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)  # as ES reads it


@dataclass(frozen=True)
class RequestKey:
    """What the access record says about where and when its request ran."""

    time: datetime
    duration: timedelta
    edge_node: str | None
    connection: str | None
    host: str | None
    method: str | None
    path: str | None
    upstreams: frozenset[str] = frozenset()  # the ip:port the edge sent it to (retries too)

    def window(self) -> tuple[datetime, datetime]:
        span = min(self.duration, MAX_REQUEST_SPAN)
        return self.time - span - CORRELATION_SLACK, self.time + CORRELATION_SLACK


def request_key(access: Doc, layout: Layout = DEFAULT) -> RequestKey | None:
    moment = parse_time(access.get("@timestamp"))
    if moment is None:
        return None
    method, path = split_request(lookup(access, "request"))
    try:
        seconds = float(layout.value(access, LogField.REQUEST_TIME) or 0)
    except (TypeError, ValueError):
        seconds = 0.0
    conn = layout.value(access, LogField.CONNECTION)
    return RequestKey(
        time=moment,
        duration=timedelta(seconds=max(seconds, 0.0)),
        edge_node=_str(layout.value(access, LogField.EDGE_NODE)),
        connection=None if conn is None else str(conn),
        host=_str(layout.value(access, LogField.HOST)),
        method=_str(layout.value(access, LogField.METHOD)) or method,
        path=path_only(layout.value(access, LogField.PATH)) or path,
        upstreams=addresses(layout.value(access, LogField.UPSTREAM)),
    )


# an address starts where a run of its characters starts (or at its "["): a start inside
# the run would scan the same run again, quadratic on a long one
_ADDRESS_RE = re.compile(r"(?:\[|(?<![0-9A-Fa-f.:]))[0-9A-Fa-f.:]+\]?:\d+")


def addresses(value: Any) -> frozenset[str]:
    """The ip:port addresses in an upstream field or an error line's upstream URL."""
    return frozenset(_ADDRESS_RE.findall(str(value))) if value else frozenset()


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class ErrorLine:
    time: datetime | None
    message: str
    error_class: str
    edge_node: str | None
    connection: str | None
    host: str | None
    method: str | None
    path: str | None
    request: str | None
    upstream: str | None
    client: str | None
    level: str | None
    # written by nginx: its error-line header, its ", client: ..., server: ..." parts, or a
    # shipper's nginx.error fields (an application's line in a shared index is not)
    nginx: bool = False


def error_line(doc: Doc, layout: Layout = DEFAULT) -> ErrorLine:
    message = str(layout.value(doc, LogField.MESSAGE) or "")
    parsed = parse_line(message)
    request = _str(lookup(doc, "request") or parsed.get("request"))
    method, path = split_request(request)
    conn = layout.value(doc, LogField.CONNECTION)
    conn = conn if conn is not None else parsed.get("connection")
    host = layout.value(doc, LogField.HOST) or scalar(doc, "server")
    return ErrorLine(
        time=parse_time(doc.get("@timestamp")),
        message=message,
        error_class=classify(message),
        edge_node=_str(layout.value(doc, LogField.EDGE_NODE)),
        connection=None if conn is None else str(conn),
        host=_str(host or parsed.get("host") or parsed.get("server")),
        method=method,
        path=path,
        request=request,
        upstream=_str(lookup(doc, "upstream") or parsed.get("upstream")),
        client=_str(lookup(doc, "client") or parsed.get("client")),
        level=_str(layout.value(doc, LogField.LEVEL) or parsed.get("level")),
        nginx="pid" in parsed
        or {"client", "server"} <= set(parsed)
        or lookup(doc, "nginx.error") is not None,
    )


def belongs(key: RequestKey, line: ErrorLine) -> tuple[bool, list[str]]:
    """Whether an error line belongs to the request, and the keys that tied it."""
    start, end = key.window()
    if line.time is None or not start <= line.time <= end:
        return False, []
    tied = ["time"]
    theirs = addresses(line.upstream)
    if key.upstreams and theirs:
        if not key.upstreams & theirs:
            return False, []  # another upstream: another request
        tied.append("upstream")
    for name in ("edge_node", "connection", "host", "path"):
        mine, theirs = getattr(key, name), getattr(line, name)
        if mine is None or theirs is None:
            continue
        same = mine.lower() == theirs.lower() if name in ("host", "edge_node") else mine == theirs
        if not same:
            return False, []
        tied.append(name)
    if "connection" not in tied and not (
        {"host", "path"} <= set(tied) or {"edge_node", "path", "upstream"} <= set(tied)
    ):
        # without a connection id, host and path must both agree, or (a layout that logs
        # no host) the same edge sent the same path to the same upstream address
        return False, []
    return True, tied
