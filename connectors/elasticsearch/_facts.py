"""Facts, entities and relations from log documents: sentences with the values in them."""

from __future__ import annotations

from typing import Any

from connectors.elasticsearch._bodies import Doc, Hit
from connectors.elasticsearch._errorlog import (
    ErrorLine,
    parse_time,
    path_only,
    request_id_of,
    scalar,
)
from connectors.elasticsearch._layout import DEFAULT, Layout, LogField, lookup
from connectors.elasticsearch._settings import iso_utc
from policy.facts import AppLog, AppResponse, EdgeAccess, EdgeError
from policy.findings import Findings
from policy.results import ResultFact

SRC_ACCESS = "elasticsearch/edge-access"
SRC_ERROR = "elasticsearch/edge-error"
SRC_APP = "elasticsearch/app"

_RESPONSE_WORDS = {
    "location_bytes": "Location header {} bytes",
    "set_cookie_headers": "{} Set-Cookie headers",
    "header_bytes": "response headers {} bytes",
    "headers_bytes": "response headers {} bytes",
}


def _num(value: Any) -> Any:
    """502 and "502" both as 502; anything else as logged."""
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return value


def _join(parts: list[str | None]) -> str:
    return ", ".join(p for p in parts if p)


def access_attrs(src: Doc, layout: Layout = DEFAULT) -> dict[str, Any]:
    """An access record's facts, read through its index's layout."""

    def get(name: LogField) -> Any:
        return layout.value(src, name)

    attrs = {
        "request_id": get(LogField.REQUEST_ID) or request_id_of(src),
        "status": _num(get(LogField.STATUS)),
        "upstream_status": get(LogField.UPSTREAM_STATUS),
        "host": get(LogField.HOST),
        "path": path_only(get(LogField.PATH)),
        "method": get(LogField.METHOD),
        "upstream_addr": get(LogField.UPSTREAM) or get(LogField.UPSTREAM_IP),
        "upstream_name": get(LogField.UPSTREAM_NAME),
        "connection": get(LogField.CONNECTION),
        "edge_node": get(LogField.EDGE_NODE),
        "request_time": get(LogField.REQUEST_TIME),
    }
    return {k: v for k, v in attrs.items() if v is not None}


def access_fact(hit: Hit, link: str, graph: Findings, layout: Layout = DEFAULT) -> ResultFact:
    src = hit.get("_source") or {}
    a = access_attrs(src, layout)
    when = parse_time(src.get("@timestamp"))
    detail = _join(
        [
            f"upstream_status {a['upstream_status']}" if "upstream_status" in a else None,
            f"upstream {a['upstream_addr']}" if "upstream_addr" in a else None,
            f"request_time {a['request_time']} s" if "request_time" in a else None,
            f"connection {a['connection']}" if "connection" in a else None,
        ]
    )
    request = " ".join(
        str(p) for p in (a.get("method"), f"{a.get('host', '')}{a.get('path', '')}") if p
    )
    text = (
        f"{a.get('edge_node', 'edge')} access log {src.get('@timestamp')}: edge status "
        f"{a.get('status', '?')} for {request}" + (f" ({detail})" if detail else "")
    )
    if "request_id" in a:
        text += f"; request_id {a['request_id']}"
    graph.entity("host", a.get("host"))
    graph.entity("edge_node", a.get("edge_node"))
    graph.entity("endpoint", a.get("upstream_addr"))
    graph.relate(f"host/{a.get('host')}", "served_by", f"edge_node/{a.get('edge_node')}", when)
    graph.relate(
        f"edge_node/{a.get('edge_node')}", "routes_to", f"endpoint/{a.get('upstream_addr')}", when
    )
    return ResultFact(
        text=text,
        source=SRC_ACCESS,
        observed_at=when,
        link=link,
        attrs=EdgeAccess(**a, index=hit.get("_index")),
    )


def error_fact(
    line: ErrorLine, index: str | None, link: str, *, request_id: str | None, tied: list[str]
) -> ResultFact:
    where = _join(
        [
            f"connection {line.connection}" if line.connection else None,
            line.request,
            f"host {line.host}" if line.host else None,
        ]
    )
    text = (
        f"{line.edge_node or 'edge'} error log {iso_utc(line.time) if line.time else ''} "
        f"({where}): error class {line.error_class}: {line.message}"
    )
    if request_id:
        text += f" [tied to request_id {request_id} by {', '.join(tied)}]"
    attrs = {
        "error_class": line.error_class,
        "message": line.message,
        "connection": _num(line.connection),
        "host": line.host,
        "upstream": line.upstream,
        "edge_node": line.edge_node,
        "request": line.request,
        "client": line.client,
        "level": line.level,
        "request_id": request_id,
        "correlated_by": tied or None,
        "index": index,
    }
    return ResultFact(
        text=text,
        source=SRC_ERROR,
        observed_at=line.time,
        link=link,
        attrs=EdgeError.model_validate({k: v for k, v in attrs.items() if v is not None}),
    )


def _response_details(src: Doc) -> tuple[list[str], dict[str, Any]]:
    response = src.get("response")
    if not isinstance(response, dict):
        response = {k[len("response.") :]: v for k, v in src.items() if k.startswith("response.")}
    words, attrs = [], {}
    for key, value in response.items():
        if isinstance(value, dict | list):
            continue
        attrs[key] = value
        template = _RESPONSE_WORDS.get(key)
        words.append(template.format(value) if template else f"response.{key}={value}")
    return words, attrs


# Where the shippers put a container's Kubernetes metadata: flat (kubernetes.pod),
# Filebeat / ECS (kubernetes.pod.name, kubernetes.namespace), Fluent Bit's kubernetes
# filter (kubernetes.pod_name, kubernetes.namespace_name, labels with or without dots)
# Vector's kubernetes_logs source (kubernetes.pod_namespace, pod_node_name, pod_labels)
POD_FIELDS = ("kubernetes.pod.name", "kubernetes.pod", "kubernetes.pod_name", "pod")
NODE_FIELDS = (
    "kubernetes.node.name",
    "kubernetes.node",
    "kubernetes.host",
    "kubernetes.pod_node_name",
    "node",
)
NAMESPACE_FIELDS = (
    "kubernetes.namespace",
    "kubernetes.namespace_name",
    "kubernetes.namespace.name",
    "kubernetes.pod_namespace",
    "namespace",
)
SERVICE_FIELDS = (
    "service.name",
    "service",
    "kubernetes.labels.app",
    "kubernetes.labels.app_kubernetes_io/name",
    "kubernetes.labels.app.kubernetes.io/name",
    "kubernetes.pod_labels.app",
    "kubernetes.pod_labels.app.kubernetes.io/name",
    "kubernetes.deployment.name",
)


def error_detail(src: Doc, layout: Layout = DEFAULT) -> str | None:
    """The exception an application logged beside its message (ECS error.type and
    error.message, a JSON encoder's stack_trace, pino's err.stack), as lines of text: the
    cause is often there and not in the message."""
    parts: list[str] = []
    for name in layout.candidates.get(LogField.ERROR, ()):
        value = lookup(src, name)
        if isinstance(value, dict):  # {type, message, stack_trace} under one object
            value = " ".join(str(value[k]) for k in ("type", "message") if value.get(k))
        if value and not isinstance(value, list) and str(value) not in " ".join(parts):
            parts.append(str(value))
    if not parts:
        return None
    # ECS splits the exception: "type: message", then the stack
    if len(parts) >= 2 and "\n" not in parts[0] and "\n" not in parts[1]:
        parts[:2] = [f"{parts[0]}: {parts[1]}"]
    return "\n".join(parts)


def app_facts(hit: Hit, link: str, graph: Findings, layout: Layout = DEFAULT) -> list[ResultFact]:
    """An app.log fact per line; an app.response fact too when the line has a status."""
    src = hit.get("_source") or {}
    when = parse_time(src.get("@timestamp"))
    pod = scalar(src, *POD_FIELDS)
    node = scalar(src, *NODE_FIELDS)
    namespace = scalar(src, *NAMESPACE_FIELDS)
    service = scalar(src, *SERVICE_FIELDS)
    rid = layout.value(src, LogField.REQUEST_ID) or request_id_of(src)
    level = layout.value(src, LogField.LEVEL)
    message = str(layout.value(src, LogField.MESSAGE) or "")
    raised = error_detail(src, layout)
    if raised:  # the first line of a stack and its root cause say what failed
        lines = raised.splitlines()
        causes = [x.strip() for x in lines if x.strip().startswith("Caused by:")]
        message += " | " + " / ".join(dict.fromkeys([lines[0].strip(), *causes[-1:]]))
    status = _num(lookup(src, "http.status", "http.response.status_code", "status"))
    words, response = _response_details(src)
    where = _join([f"pod {pod}" if pod else None, f"node {node}" if node else None])
    base = {
        "request_id": rid,
        "pod": pod,
        "node": node,
        "namespace": namespace,
        "service": service,
        "index": hit.get("_index"),
    }
    base = {k: v for k, v in base.items() if v is not None}
    extra = f"; {', '.join(words)}" if words else ""
    facts = [
        ResultFact(
            text=f"{src.get('@timestamp')} {level or ''} {service or 'app'}"
            f"{f' ({where})' if where else ''}: {message}{extra}".replace("  ", " "),
            source=SRC_APP,
            observed_at=when,
            link=link,
            attrs=AppLog(
                **base,
                level=level,
                message=message,
                logger=lookup(src, "logger"),
                **{"response": response} if response else {},
            ),
        )
    ]
    if isinstance(status, int):
        method = lookup(src, "http.method", "http.request.method")
        path = lookup(src, "http.path", "url.path")
        duration = lookup(src, "duration_ms")
        facts.append(
            ResultFact(
                text=f"application {service or ''} ({where or 'pod unknown'}) answered "
                f"{method or ''} {path or ''} with {status}"
                + (f" in {duration} ms" if duration is not None else "")
                + (f" for request_id {rid}" if rid else "")
                + extra,
                source=SRC_APP,
                observed_at=when,
                link=link,
                attrs=AppResponse(
                    **base,
                    status=status,
                    method=method,
                    path=path,
                    duration_ms=duration,
                    **response,
                ),
            )
        )
    graph.entity("service", service, namespace=namespace)
    graph.entity("pod", pod, namespace=namespace)
    graph.entity("node", node)
    graph.relate(f"service/{service}", "selects", f"pod/{pod}", when)
    graph.relate(f"pod/{pod}", "runs_on", f"node/{node}", when)
    return facts
