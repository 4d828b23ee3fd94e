"""The HTTP face: routes, media types, the product header, faults and the query log."""

from __future__ import annotations

import json
import re
from typing import Any

import structlog
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from evals.simulators.elasticsearch._errors import (
    EsError,
    index_not_found,
    parsing_error,
    security_exception,
)
from evals.simulators.elasticsearch._fieldcaps import field_caps
from evals.simulators.elasticsearch._search import execute
from evals.simulators.elasticsearch._store import Store
from evals.simulators.faults import FaultPlan
from evals.simulators.querylog import QueryLog, QueryRecord
from evals.world import World

logger = structlog.get_logger(__name__)

VERSION = "9.1.0"
_COMPAT_RE = re.compile(r"application/vnd\.elasticsearch\+json\s*;\s*compatible-with\s*=\s*(\d+)")
_SEARCH_PARAMS = {
    "q",
    "df",
    "default_operator",
    "size",
    "from",
    "sort",
    "_source",
    "_source_includes",
    "_source_excludes",
    "track_total_hits",
    "rest_total_hits_as_int",
    "typed_keys",
    "ignore_unavailable",
    "allow_no_indices",
    "expand_wildcards",
    "timeout",
    "request_cache",
    "preference",
    "routing",
    "search_type",
    "pretty",
    "human",
    "error_trace",
    "ccs_minimize_roundtrips",
    "batched_reduce_size",
    "max_concurrent_shard_requests",
    "pre_filter_shard_size",
    "allow_partial_search_results",
    "ignore_throttled",
}


def _compat_version(request: Request) -> int | None:
    """The `compatible-with` version the client asked for; 400 for one we do not speak."""
    versions = set()
    for header in ("accept", "content-type"):
        match = _COMPAT_RE.search(request.headers.get(header, ""))
        if match:
            versions.add(int(match.group(1)))
    if not versions:
        return None
    if len(versions) > 1 or not versions <= {8, 9}:
        raise EsError(
            400,
            "media_type_header_exception",
            "Invalid media-type value on headers [Accept, Content-Type]",
            caused_by={
                "type": "status_exception",
                "reason": f"Accept version must be either version 9 or 8, but found "
                f"{sorted(versions)}",
            },
        )
    return versions.pop()


def _json(body: Any, status: int, compat: int | None) -> Response:
    media = (
        f"application/vnd.elasticsearch+json;compatible-with={compat}"
        if compat
        else "application/json"
    )
    return Response(json.dumps(body), status_code=status, media_type=media)


def build_app(world: World, env: str, faults: FaultPlan, log: QueryLog) -> Starlette:
    """The Elasticsearch search API over `world.logs[env]`, mounted at /logs/<env>."""
    store = Store(world.logs.get(env, {}), audit=world.audit.get(env, []))

    def relative_path(request: Request) -> str:
        path: str = request.scope.get("path", "")
        root: str = request.scope.get("root_path", "")
        return path[len(root) :] if root and path.startswith(root) else path

    async def handle(request: Request) -> Response:
        path = relative_path(request)
        params = dict(request.query_params)
        raw = await request.body()
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")

        def record(status: int) -> None:
            log.add(QueryRecord("logs", env, request.method, path, params, body, status))

        compat: int | None = None
        try:
            compat = _compat_version(request)
            index = request.path_params.get("index")
            fault = faults.find(
                "logs",
                env,
                index=index
                if index is not None
                else ("*" if path.endswith(("_search", "_count")) else None),
            )
            if fault is not None:
                response = await _fault_response(fault, faults, index, record)
                if response is not None:
                    response.headers["X-Elastic-Product"] = "Elasticsearch"
                    return response
            if not isinstance(body, dict | type(None)):
                raise parsing_error("request body is required to be a JSON object")
            result = _dispatch(
                request.method,
                path,
                index,
                params,
                body or {},
                store,
                env,
                max_hits=fault.max_hits if fault is not None and fault.kind == "truncate" else None,
            )
            status = 200
        except EsError as exc:
            result, status = exc.body(), exc.status
        record(status)
        logger.debug("sim.logs.request", env=env, method=request.method, path=path, status=status)
        response = _json(result, status, compat)
        if request.method == "HEAD":
            response = Response(status_code=status)
        response.headers["X-Elastic-Product"] = "Elasticsearch"
        return response

    routes = [
        Route("/", handle, methods=["GET", "HEAD"]),
        Route("/_search", handle, methods=["GET", "POST"]),
        Route("/_count", handle, methods=["GET", "POST"]),
        Route("/{index}/_search", handle, methods=["GET", "POST"]),
        Route("/{index}/_count", handle, methods=["GET", "POST"]),
        Route("/{index}/_field_caps", handle, methods=["GET", "POST"]),
        Route("/{rest:path}", handle, methods=["GET", "POST", "PUT", "DELETE", "HEAD"]),
    ]
    return Starlette(routes=routes)


async def _fault_response(
    fault: Any, faults: FaultPlan, index: str | None, record: Any
) -> Response | None:
    if fault.kind == "timeout":
        record(504)  # logged before the stall: the client has given up by the time it ends
        return await faults.generic_response(fault)
    if fault.kind in ("http_error", "malformed"):
        response = await faults.generic_response(fault)
        if response is not None:
            record(response.status_code)
        return response
    if fault.kind == "forbidden":
        error = security_exception(index or "_all")
    elif fault.kind == "unsupported":
        error = index_not_found(index or "_all")
    else:
        return None  # truncate: served by the search itself
    record(error.status)
    return _json(error.body(), error.status, None)


def _field_patterns(param: str | None, body: Any) -> list[str]:
    """As Elasticsearch reads them: the query-string parameter is split on commas; the
    body's `fields` is a string array, and a single string is one pattern, never split."""
    if param:
        return [p.strip() for p in param.split(",") if p.strip()]
    if isinstance(body, list):
        return [str(p) for p in body]
    return [str(body)] if body else ["*"]


def _dispatch(
    method: str,
    path: str,
    index: str | None,
    params: dict[str, str],
    body: dict[str, Any],
    store: Store,
    env: str,
    *,
    max_hits: int | None,
) -> dict[str, Any]:
    if path in ("", "/"):
        return {
            "name": f"sim-{env}",
            "cluster_name": f"infrabot-sim-{env}",
            "cluster_uuid": "sim0000000000000000000",
            "version": {
                "number": VERSION,
                "build_flavor": "default",
                "build_type": "docker",
                "build_hash": "simulated",
                "build_date": "2026-01-01T00:00:00.000Z",
                "build_snapshot": False,
                "lucene_version": "10.2.2",
                "minimum_wire_compatibility_version": "8.19.0",
                "minimum_index_compatibility_version": "8.0.0",
            },
            "tagline": "You Know, for Search",
        }
    endpoint = path.rsplit("/", 1)[-1]
    if endpoint == "_field_caps":
        names = store.resolve(
            index,
            ignore_unavailable=str(params.get("ignore_unavailable", "false")).lower() == "true",
            allow_no_indices=str(params.get("allow_no_indices", "true")).lower() != "false",
        )
        return field_caps(
            store.docs(names),
            names,
            _field_patterns(params.get("fields"), body.get("fields")),
            index_filter=body.get("index_filter"),
            include_unmapped=str(params.get("include_unmapped", "false")).lower() == "true",
        )
    if endpoint not in ("_search", "_count"):
        raise EsError(
            400,
            "illegal_argument_exception",
            f"no handler found for uri [{path}] and method [{method}]",
        )
    unknown = set(params) - _SEARCH_PARAMS
    if unknown:
        raise EsError(
            400,
            "illegal_argument_exception",
            f"request [{path}] contains unrecognized parameter: [{sorted(unknown)[0]}] "
            "(or one the simulator does not serve)",
        )
    flags = {
        key: str(params.get(key, default)).lower() != "false"
        for key, default in (("ignore_unavailable", "false"), ("allow_no_indices", "true"))
    }
    names = store.resolve(
        index,
        ignore_unavailable=flags["ignore_unavailable"],
        allow_no_indices=flags["allow_no_indices"],
    )
    return execute(
        store.docs(names),
        len(names),
        body,
        params,
        max_hits=max_hits,
        count_only=endpoint == "_count",
    )
