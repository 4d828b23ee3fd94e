"""Where each shipper's layout keeps a fact of an edge or application log line.

Class "a field named otherwise is no absence": the same fact (the HTTP status, the virtual
host, the request id) is `status` in a flat nginx JSON log, `http.response.status_code`
in ECS (Filebeat's nginx module, Elastic Agent), the string "504" in ingress-nginx's JSON
`log-format-upstream`, `nginx.ingress_controller.http.request.id` in Filebeat's ingress
controller fileset, and the raw line sits in `log` when Fluent Bit ships it. Queries and
readers name *logical* fields (`LogField`); an index's layout, read from its field
capabilities, says which physical names hold each one there and which of them can be
aggregated (a dynamically mapped string is `text`, counted by its `.keyword` sub-field).

A logical field an index has under none of its names keeps every known name in the query,
so the reader's field check refuses the query and its gap lists what was looked for: a
missing field is never a complete read that found nothing.

An operator's override (`ElasticsearchTarget.layouts`, keyed by index pattern) pins a
preset and/or puts their own names first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from connectors.elasticsearch._bodies import Aggs, Doc


def lookup(doc: Doc, *names: str) -> Any:
    """The first present value among dotted field names (nested objects or literal keys)."""
    for name in names:
        node: Any = doc
        if name in doc:
            node = doc[name]
        else:
            for part in name.split("."):
                node = node.get(part) if isinstance(node, dict) else None
        if node not in (None, "", "-"):
            return node
    return None


class LogField(StrEnum):
    """The facts of a log line the tools filter on, count by or read."""

    STATUS = "status"
    UPSTREAM_STATUS = "upstream_status"
    HOST = "host"
    PATH = "path"
    METHOD = "method"
    UPSTREAM = "upstream"  # "ip:port", "ip:port, ip:port" after a retry, or a list of them
    UPSTREAM_IP = "upstream_ip"  # the address alone
    UPSTREAM_NAME = "upstream_name"  # ingress-nginx's "<namespace>-<service>-<port>"
    SERVICE = "service"
    REQUEST_ID = "request_id"
    CONNECTION = "connection"
    EDGE_NODE = "edge_node"
    REQUEST_TIME = "request_time"
    MESSAGE = "message"
    LEVEL = "level"
    ERROR = "error"  # an exception logged beside the message: its type, text or stack
    LOG_FILE = "log_file"  # the file a line was read from (a per-vhost access log names it)


class Preset(StrEnum):
    NGINX = "nginx"  # flat JSON keys named after nginx's variables
    INGRESS_NGINX = "ingress-nginx"  # the controller's JSON log-format-upstream
    ECS = "ecs"  # Elastic Common Schema: Filebeat's nginx module, Elastic Agent
    FILEBEAT_INGRESS = "filebeat-ingress-controller"  # Filebeat nginx ingress_controller
    FLUENT_BIT = "fluent-bit"  # Fluent Bit's kubernetes filter, the raw line in `log`
    FLUENT_BIT_NGINX = "fluent-bit-nginx"  # Fluent Bit's stock `nginx` parser (combined)
    # applications' own JSON encoders: logstash-logback-encoder, pino, zap, structlog,
    # python-json-logger
    APP_JSON = "app-json"


F = LogField
PRESETS: dict[Preset, dict[LogField, tuple[str, ...]]] = {
    # a log_format's JSON, flat or grouped by what it describes ({"request": {"id",
    # "method", "uri"}, "response": {"status"}, "upstream": {"addr", "status"}})
    Preset.NGINX: {
        F.STATUS: ("status", "response.status"),
        F.UPSTREAM_STATUS: ("upstream_status", "upstream.status"),
        F.HOST: ("host", "http_host", "server_name"),
        F.PATH: ("path", "request_uri", "uri", "request.uri", "request.path"),
        F.METHOD: ("method", "request_method", "request.method"),
        F.UPSTREAM: ("upstream_addr", "upstream.addr", "upstream.address"),
        F.SERVICE: ("service", "upstream_name", "kubernetes.service"),
        F.REQUEST_ID: ("request_id", "x_request_id", "requestId", "request.id", "x-request-id"),
        F.CONNECTION: ("connection", "connection_id", "conn.id", "connection.id"),
        F.EDGE_NODE: ("edge_node", "hostname"),
        F.REQUEST_TIME: ("request_time",),
        F.MESSAGE: ("message",),
        F.LEVEL: ("level",),
    },
    Preset.INGRESS_NGINX: {
        F.STATUS: ("status",),
        F.UPSTREAM_STATUS: ("upstream_status",),
        F.HOST: ("vhost", "host"),
        F.PATH: ("path", "uri"),
        F.METHOD: ("method",),
        F.UPSTREAM: ("upstream_addr",),
        F.UPSTREAM_NAME: ("proxy_upstream_name",),
        F.SERVICE: ("service_name",),
        F.REQUEST_ID: ("req_id", "request_id"),
        F.EDGE_NODE: ("kubernetes.pod_name", "kubernetes.pod.name"),
        F.REQUEST_TIME: ("request_time",),
        F.MESSAGE: ("log", "message"),
    },
    Preset.ECS: {
        F.STATUS: ("http.response.status_code",),
        F.HOST: ("url.domain", "destination.domain"),
        F.PATH: ("url.path", "url.original"),
        F.METHOD: ("http.request.method",),
        F.SERVICE: ("service.name",),
        F.REQUEST_ID: ("http.request.id", "trace.id"),
        F.CONNECTION: ("nginx.error.connection_id",),
        F.EDGE_NODE: ("host.name", "host.hostname", "agent.hostname"),
        F.MESSAGE: ("message",),
        F.LEVEL: ("log.level",),
        F.ERROR: ("error.type", "error.message", "error.stack_trace"),
        F.LOG_FILE: ("log.file.path",),
    },
    Preset.FILEBEAT_INGRESS: {
        F.STATUS: ("http.response.status_code",),
        F.UPSTREAM_STATUS: ("nginx.ingress_controller.upstream.response.status_code",),
        F.PATH: ("url.original",),
        F.METHOD: ("http.request.method",),
        F.UPSTREAM: ("nginx.ingress_controller.upstream_address_list",),
        F.UPSTREAM_IP: ("nginx.ingress_controller.upstream.ip",),
        F.UPSTREAM_NAME: ("nginx.ingress_controller.upstream.name",),
        F.REQUEST_ID: ("nginx.ingress_controller.http.request.id",),
        F.REQUEST_TIME: ("nginx.ingress_controller.http.request.time",),
        F.EDGE_NODE: ("kubernetes.pod.name", "host.name"),
        F.MESSAGE: ("message",),
        F.LEVEL: ("log.level",),
    },
    Preset.FLUENT_BIT: {
        F.EDGE_NODE: ("kubernetes.pod_name",),
        F.MESSAGE: ("log", "message", "msg"),
        F.LEVEL: ("level", "severity"),
    },
    # its `host` is the ident column ("-"), not a virtual host
    Preset.FLUENT_BIT_NGINX: {
        F.STATUS: ("code",),
        F.PATH: ("path",),
        F.METHOD: ("method",),
        F.EDGE_NODE: ("hostname",),
        F.LOG_FILE: ("filename",),
    },
    Preset.APP_JSON: {
        F.MESSAGE: ("message", "msg", "event"),
        F.LEVEL: ("level", "severity", "lvl"),
        F.REQUEST_ID: ("requestId", "request_id", "traceId", "trace_id"),
        F.ERROR: ("stack_trace", "stacktrace", "exception", "exc_info", "err.stack", "error"),
    },
}
# the field whose presence says an index is written in a preset (what `doctor` reports)
_MARKS: dict[Preset, tuple[str, ...]] = {
    Preset.FILEBEAT_INGRESS: ("nginx.ingress_controller.upstream.name",),
    Preset.ECS: ("http.response.status_code", "nginx.error.connection_id", "ecs.version"),
    Preset.INGRESS_NGINX: ("proxy_upstream_name", "vhost", "req_id"),
    Preset.NGINX: ("upstream_addr", "request_id", "status"),
    Preset.FLUENT_BIT_NGINX: ("remote", "referer"),
    Preset.FLUENT_BIT: ("kubernetes.pod_name", "log"),
    Preset.APP_JSON: ("stack_trace", "logger_name", "msg"),
}


def _union(presets: list[Preset]) -> dict[LogField, tuple[str, ...]]:
    out: dict[LogField, tuple[str, ...]] = {}
    for preset in presets:
        for name, fields in PRESETS[preset].items():
            out[name] = tuple(dict.fromkeys([*out.get(name, ()), *fields]))
    return out


EVERY_NAME = _union(list(Preset))
_KNOWN = {n for names in EVERY_NAME.values() for n in names}
# the first part of a known dotted name is a schema's object, never a shipper's wrapper
_SCHEMA_HEADS = {n.split(".")[0] for n in _KNOWN if "." in n}


def merge_prefixes(fields: Iterable[str]) -> list[str]:
    """Objects a shipper wraps a parsed line in: Fluent Bit's Merge_Log_Key
    (`log_processed.status`), Filebeat's `json.*` without keys_under_root. A prefix is one
    under which at least two names some layout knows appear."""
    under: dict[str, set[str]] = {}
    for name in fields:
        head, _, rest = name.partition(".")
        if rest in _KNOWN and head not in _SCHEMA_HEADS:
            under.setdefault(head, set()).add(rest)
    return sorted(head for head, names in under.items() if len(names) >= 2)


def unwrapped(fields: Iterable[str]) -> set[str]:
    """The field names with a shipper's wrapper taken off as well."""
    names = set(fields)
    for prefix in merge_prefixes(names):
        names |= {n[len(prefix) + 1 :] for n in names if n.startswith(prefix + ".")}
    return names


def wrapped(
    candidates: Mapping[LogField, tuple[str, ...]], prefixes: list[str]
) -> dict[LogField, tuple[str, ...]]:
    """Every field's names, then the same under each wrapper."""
    return {
        name: (*names, *(f"{p}.{n}" for p in prefixes for n in names))
        for name, names in candidates.items()
    }


class LayoutOverride(BaseModel):
    """An operator's word on one index pattern: a preset, and/or their own field names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: Preset | None = Field(
        default=None, description="read only this preset's names (default: every preset's)"
    )
    fields: dict[LogField, list[str]] = Field(
        default_factory=dict,
        description="logical field -> the names this index uses, tried before the preset's",
    )

    def candidates(self) -> dict[LogField, tuple[str, ...]]:
        base = dict(PRESETS[self.preset]) if self.preset else dict(EVERY_NAME)
        for name, mine in self.fields.items():
            base[name] = tuple(dict.fromkeys([*mine, *base.get(name, ())]))
        return base


Types = Mapping[str, frozenset[str]]


@dataclass(frozen=True)
class Layout:
    """The names one index pattern holds each logical field under (within a window)."""

    candidates: Mapping[LogField, tuple[str, ...]] = field(default_factory=lambda: EVERY_NAME)
    types: Types | None = None  # field -> mapped types; None: the fields could not be read
    pinned: Preset | None = None

    def names(self, name: LogField) -> tuple[str, ...]:
        """The names to filter on: those the index has; every known one when it has none
        (the field check then says what was looked for) or when its fields are unknown."""
        known = self.candidates.get(name, ())
        if self.types is None:
            return known
        present = tuple(n for n in known if self._holds(n))
        return present or known

    def has(self, name: LogField) -> bool:
        return self.types is None or any(self._holds(n) for n in self.candidates.get(name, ()))

    def _holds(self, name: str) -> bool:
        assert self.types is not None
        kinds = self.types.get(name)
        return bool(kinds and kinds - {"object", "nested"})

    def exact(self, name: str) -> str:
        """The name an exact match (wildcard, prefix, aggregation) reads: a text field's
        `.keyword` sub-field when it has one."""
        if self.types is None:
            return name
        kinds = self.types.get(name, frozenset())
        if "text" in kinds and f"{name}.keyword" in self.types:
            return f"{name}.keyword"
        return name

    def held_exact(self, name: str) -> str | None:
        """A physical field's exact name when the index holds it as a value, else None."""
        if self.types is None or not self._holds(name):
            return None
        return self.exact(name)

    def agg_fields(self, name: LogField) -> list[str]:
        """Names a terms aggregation can count this field by (text without a keyword
        sub-field cannot be aggregated, so it is left out)."""
        if self.types is None:
            return [self.candidates.get(name, (str(name),))[0]]
        out = []
        for n in self.candidates.get(name, ()):
            if not self._holds(n):
                continue
            exact = self.exact(n)
            if exact != n or "text" not in self.types.get(n, frozenset()):
                out.append(exact)
        return out

    def counts_all(self, name: LogField) -> bool:
        """A terms aggregation by this field counts every record: one name holds it, and
        that name is mapped one way (a `long` in one daily index and `text` in the next
        is counted by neither spelling alone)."""
        fields = self.agg_fields(name)
        if self.types is None or len(fields) != 1:
            return len(fields) <= 1
        base = fields[0].removesuffix(".keyword")
        kinds = self.types.get(base, frozenset()) - {"object", "nested"}
        return not (kinds & {"text", "keyword"} and kinds - {"text", "keyword"})

    def numeric(self, name: str) -> bool:
        """Mapped only as a number here (pino's level 50): a word cannot be a term on it."""
        kinds = (self.types or {}).get(name, frozenset()) - {"object", "nested"}
        return bool(kinds) and not kinds & {"text", "keyword"}

    def value(self, doc: Doc, name: LogField) -> Any:
        """The first scalar the document holds under one of the field's names; a list of
        scalars (Filebeat's address lists) reads as its items joined by ", "."""
        for n in self.candidates.get(name, ()):
            found = lookup(doc, n)
            if isinstance(found, list):
                items = [str(v) for v in found if not isinstance(v, dict | list) and v != ""]
                found = ", ".join(items) if items else None
            if found is not None and not isinstance(found, dict):
                return found
        return None

    def preset(self, among: tuple[Preset, ...] = tuple(Preset)) -> Preset | None:
        """The preset the index is written in, by the field that marks it (only `among`
        those that describe its role: an application log is not an nginx layout because
        it logs a status)."""
        if self.pinned is not None:
            return self.pinned
        if self.types is None:
            return None
        names = unwrapped(self.types)  # Fluent Bit's log_processed.vhost is still vhost
        for preset, marks in _MARKS.items():
            if preset in among and any(m in names for m in marks):
                return preset
        return None

    def lacking(self, wanted: tuple[LogField, ...]) -> list[LogField]:
        return [name for name in wanted if not self.has(name)]


DEFAULT = Layout()
EDGE_PRESETS = (
    Preset.FILEBEAT_INGRESS,
    Preset.ECS,
    Preset.INGRESS_NGINX,
    Preset.FLUENT_BIT_NGINX,
    Preset.NGINX,
)
APP_PRESETS = (Preset.ECS, Preset.FLUENT_BIT, Preset.APP_JSON)


def any_name(layout: Layout, name: LogField, build: Any) -> dict[str, Any]:
    """`build(field_name)` for every name the field may have here, one of them enough."""
    clauses = [build(n) for n in layout.names(name)]
    if len(clauses) == 1:
        return dict(clauses[0])
    return {"bool": {"should": clauses, "minimum_should_match": 1}}


def term_on(layout: Layout, name: LogField, value: Any) -> dict[str, Any]:
    """An exact value under any of the field's names, mapped as keyword, text or number
    (a status logged as the string "504" is the same status as 504)."""

    def build(n: str) -> dict[str, Any]:
        if isinstance(value, int) and not isinstance(value, bool):
            return {
                "bool": {
                    "should": [{"term": {n: value}}, {"term": {f"{n}.keyword": str(value)}}],
                    "minimum_should_match": 1,
                }
            }
        if not isinstance(value, str):
            return {"term": {n: value}}
        return {
            "bool": {
                "should": [{"term": {n: value}}, {"term": {f"{n}.keyword": value}}],
                "minimum_should_match": 1,
            }
        }

    return any_name(layout, name, build)


def status_range(layout: Layout, name: LogField, low: int, high: int) -> dict[str, Any]:
    """Statuses low..high whether mapped as numbers or (ingress-nginx's JSON) as strings:
    three-digit codes order the same as text."""

    def build(n: str) -> dict[str, Any]:
        kinds = (layout.types or {}).get(n, frozenset())
        textual = kinds & {"text", "keyword"}
        clauses: list[dict[str, Any]] = []
        if not textual or kinds - textual:  # a number in some index (or unknown)
            clauses.append({"range": {n: {"gte": low, "lte": high}}})
        if textual:  # a string in some index: its keyword, three digits ordered as text
            clauses.append({"range": {layout.exact(n): {"gte": str(low), "lte": str(high)}}})
        if len(clauses) == 1:
            return clauses[0]
        return {"bool": {"should": clauses, "minimum_should_match": 1}}

    return any_name(layout, name, build)


PLACEHOLDERS = frozenset({"-", ""})  # what a log writes for a value it does not have


def terms_aggs(layout: Layout, name: LogField, label: str, size: int) -> dict[str, Any]:
    """Counts by the field's first aggregatable name: a document holding it under two
    names (ECS `url.domain` and `destination.domain`) is counted once."""
    fields = layout.agg_fields(name)[:1]
    return {f"{label}__{i}": {"terms": {"field": n, "size": size}} for i, n in enumerate(fields)}


def merged_buckets(aggs: Aggs, label: str) -> list[tuple[Any, int]]:
    """The buckets of every `label__i` aggregation, counts added by key, largest first."""
    counts: dict[Any, int] = {}
    for agg_name, agg in aggs.items():
        if not agg_name.startswith(f"{label}__") or not isinstance(agg, dict):
            continue
        for bucket in agg.get("buckets") or []:
            key = bucket.get("key_as_string", bucket.get("key"))
            key = int(key) if isinstance(key, str) and key.isdigit() else key
            if key in PLACEHOLDERS:
                continue
            counts[key] = counts.get(key, 0) + int(bucket.get("doc_count", 0))
    return sorted(counts.items(), key=lambda kv: -kv[1])
