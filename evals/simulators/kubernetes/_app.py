"""Routing, faults and the query log of the simulated Kubernetes API server."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from evals.simulators.faults import FaultPlan
from evals.simulators.kubernetes import _resources as res
from evals.simulators.kubernetes._logs import LogRequestError, read_log
from evals.simulators.kubernetes._select import (
    SelectorError,
    decode_continue,
    encode_continue,
    field_matcher,
    label_matcher,
)
from evals.simulators.querylog import QueryLog, QueryRecord
from evals.world import Fault, World

SOURCE = "kubernetes"


@dataclass
class Target:
    """What one request path addresses."""

    rtype: res.ResourceType
    namespace: str | None = None  # None: every namespace (or cluster-scoped)
    name: str | None = None
    subresource: str | None = None

    @property
    def fault_resource(self) -> str:
        return "log" if self.subresource == "log" else self.rtype.plural


class Store:
    """The objects of one environment, by resource type, sorted as etcd returns them."""

    def __init__(self, world: World, env: str) -> None:
        objects = [dict(o) for o in world.kubernetes.get(env, [])]
        self.audit_served = env in world.audit
        self.types = res.catalogue(objects, self.audit_served)
        self.pod_logs = world.pod_logs.get(env, {})
        self._by_type: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
        for obj in objects:
            group, version = res.split_api_version(str(obj.get("apiVersion", "")))
            rtype = self.find_kind(group, version, str(obj.get("kind", "")))
            if rtype is not None:
                self._by_type.setdefault(self._key(rtype), []).append(obj)
        if not self._by_type.get(("", "v1", "namespaces")):
            self._by_type[("", "v1", "namespaces")] = self._namespaces(world, env, objects)
        for items in self._by_type.values():
            items.sort(key=lambda o: (self.namespace_of(o), (o.get("metadata") or {})["name"]))
        if self.audit_served:
            self._by_type[self._key(res.AUDIT)] = list(world.audit[env])
        versions = [
            int(rv)
            for o in objects
            if str(rv := (o.get("metadata") or {}).get("resourceVersion", "")).isdigit()
        ]
        self.resource_version = str(max(versions, default=1))

    @staticmethod
    def _key(rtype: res.ResourceType) -> tuple[str, str, str]:
        return (rtype.group, rtype.version, rtype.plural)

    @staticmethod
    def namespace_of(obj: dict[str, Any]) -> str:
        if obj.get("apiVersion") == "audit.k8s.io/v1":
            return str((obj.get("objectRef") or {}).get("namespace") or "")
        return str((obj.get("metadata") or {}).get("namespace") or "")

    def _namespaces(
        self, world: World, env: str, objects: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        names = {self.namespace_of(o) for o in objects + list(world.audit.get(env, []))}
        return [
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {
                    "name": name,
                    "uid": hashlib.sha1(f"{env}/{name}".encode()).hexdigest()[:32],
                    "resourceVersion": "1",
                    "labels": {"kubernetes.io/metadata.name": name},
                },
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Active"},
            }
            for name in sorted(n for n in names if n)
        ]

    def find_kind(self, group: str, version: str, kind: str) -> res.ResourceType | None:
        return next(
            (t for t in self.types if (t.group, t.version, t.kind) == (group, version, kind)),
            None,
        )

    def find_plural(self, group: str, version: str, plural: str) -> res.ResourceType | None:
        return next(
            (t for t in self.types if (t.group, t.version, t.plural) == (group, version, plural)),
            None,
        )

    def items(self, rtype: res.ResourceType) -> list[dict[str, Any]]:
        return self._by_type.get(self._key(rtype), [])

    def get(
        self, rtype: res.ResourceType, namespace: str | None, name: str
    ) -> dict[str, Any] | None:
        for obj in self.items(rtype):
            meta = obj.get("metadata") or {}
            if meta.get("name") == name and (
                not rtype.namespaced or self.namespace_of(obj) == namespace
            ):
                return obj
        return None


def _json(body: Any, code: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=code)


def _status(body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(body, status_code=int(body["code"]))


def _parse_target(store: Store, path: str) -> Target | Response:
    """Resolve /api/v1/... and /apis/<group>/<version>/... to a resource, or answer
    discovery directly."""
    parts = [p for p in path.strip("/").split("/") if p]
    if not parts:
        return _json({"paths": ["/api", "/api/v1", "/apis", "/version"]})
    if parts == ["version"]:
        return _json(res.version_info())
    if parts[0] == "api":
        if len(parts) == 1:
            return _json(res.api_versions())
        group, version, rest = "", parts[1], parts[2:]
    elif parts[0] == "apis":
        if len(parts) == 1:
            return _json(res.api_group_list(store.types))
        if len(parts) == 2:
            doc = res.api_group(store.types, parts[1])
            return _json(doc) if doc else _status(res.no_such_resource())
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return _status(res.no_such_resource())
    if not rest:
        doc = res.resource_list(store.types, group, version)
        return _json(doc) if doc else _status(res.no_such_resource())
    namespace: str | None = None
    if rest[0] == "namespaces" and len(rest) >= 3:
        namespace, rest = rest[1], rest[2:]
    rtype = store.find_plural(group, version, rest[0])
    if rtype is None or (namespace is not None and not rtype.namespaced) or len(rest) > 3:
        return _status(res.no_such_resource())
    name = rest[1] if len(rest) >= 2 else None
    sub = rest[2] if len(rest) == 3 else None
    if sub is not None and sub not in ("status", "log"):
        return _status(res.no_such_resource())
    if sub == "log" and rtype.plural != "pods":
        return _status(res.no_such_resource())
    if name is not None and rtype.namespaced and namespace is None:
        return _status(res.no_such_resource())
    return Target(rtype, namespace, name, sub)


def _list(store: Store, target: Target, params: dict[str, str], fault: Fault | None) -> Response:
    rtype = target.rtype
    try:
        by_label = label_matcher(params.get("labelSelector"))
        by_field = field_matcher(params.get("fieldSelector"), rtype.plural, store.namespace_of)
    except SelectorError as exc:
        return _status(res.status(400, "BadRequest", str(exc)))
    items = [
        o
        for o in store.items(rtype)
        if (target.namespace is None or store.namespace_of(o) == target.namespace)
        and by_label(o)
        and by_field(o)
    ]
    query_key = hashlib.sha1(
        json.dumps(
            [target.namespace, params.get("labelSelector"), params.get("fieldSelector")]
        ).encode()
    ).hexdigest()[:12]
    limit = params.get("limit", "")
    page = int(limit) if limit.isdigit() and int(limit) > 0 else None
    truncating = fault is not None and fault.kind == "truncate"
    if params.get("continue"):
        if truncating:
            # The cut list cannot be continued: the token "expired", as a busy etcd does.
            return _status(
                res.status(
                    410,
                    "Expired",
                    "The provided continue parameter is too old to display a consistent list "
                    "result. You can start a new list without the continue parameter.",
                )
            )
        try:
            offset = decode_continue(params["continue"], query_key)
        except SelectorError as exc:
            return _status(res.status(400, "BadRequest", str(exc)))
    else:
        offset = 0
    if truncating:
        cap = max(fault.max_hits or 0, 0) if fault is not None else 0
        page = cap if page is None else min(page, cap)
    chunk = items[offset:] if page is None else items[offset : offset + page]
    metadata: dict[str, Any] = {"resourceVersion": store.resource_version}
    end = offset + len(chunk)
    if end < len(items):
        metadata["continue"] = encode_continue(end, query_key)
        metadata["remainingItemCount"] = len(items) - end
    return _json(
        {
            "apiVersion": rtype.api_version,
            "kind": f"{rtype.kind}List",
            "metadata": metadata,
            "items": chunk,
        }
    )


def _get(store: Store, target: Target, params: dict[str, str]) -> Response:
    assert target.name is not None
    obj = store.get(target.rtype, target.namespace, target.name)
    if target.subresource == "log":
        try:
            text = read_log(obj, store.pod_logs, target.namespace or "", target.name, params)
        except LogRequestError as exc:
            if exc.code == 404:
                return _status(res.not_found(target.rtype, target.name))
            return _status(res.status(exc.code, "BadRequest", str(exc)))
        return PlainTextResponse(text)
    if obj is None:
        return _status(res.not_found(target.rtype, target.name))
    return _json(obj)


def _fault_response(target: Target, fault: Fault, verb: str) -> Response | None:
    if fault.kind == "forbidden":
        plural = "pods/log" if target.subresource == "log" else target.rtype.plural
        return _status(
            res.forbidden(plural, target.rtype.group, verb, target.namespace, target.name or "")
        )
    if fault.kind == "unsupported":
        return _status(res.no_such_resource())
    return None


def build_app(world: World, env: str, faults: FaultPlan, log: QueryLog) -> Starlette:
    store = Store(world, env)

    async def handle(request: Request) -> Response:
        path = "/" + request.path_params.get("path", "")
        params = dict(request.query_params)

        def record(code: int) -> None:
            log.add(QueryRecord(SOURCE, env, request.method, path, params, None, code))

        if request.method != "GET":
            response: Response = _status(
                res.status(405, "MethodNotAllowed", "the simulated API server is read-only")
            )
            record(response.status_code)
            return response
        parsed = _parse_target(store, path)
        fault_resource = parsed.fault_resource if isinstance(parsed, Target) else None
        fault = faults.find(SOURCE, env, resource=fault_resource)
        if fault is not None and fault.kind == "timeout":
            record(504)
            return await faults.generic_response(fault) or Response(status_code=504)
        if fault is not None and (generic := await faults.generic_response(fault)) is not None:
            record(generic.status_code)
            return generic
        if not isinstance(parsed, Target):
            record(parsed.status_code)
            return parsed
        verb = "get" if parsed.name else "list"
        if fault is not None and (answer := _fault_response(parsed, fault, verb)) is not None:
            response = answer
        elif parsed.name is None:
            response = _list(store, parsed, params, fault)
        else:
            response = _get(store, parsed, params)
        record(response.status_code)
        return response

    methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    return Starlette(routes=[Route("/{path:path}", handle, methods=methods)])
