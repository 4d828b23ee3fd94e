"""logs.request_trace: one request through the edge proxy and the application."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import Field

from connectors.elasticsearch._bodies import Hit
from connectors.elasticsearch._common import (
    SubRead,
    attempt_all,
    build_result,
    log_agent,
    reader_for,
    window,
)
from connectors.elasticsearch._errorlog import (
    CORRELATION_SLACK,
    MAX_REQUEST_SPAN,
    REQUEST_ID_FIELDS,
    RequestKey,
    access_only,
    belongs,
    error_line,
    error_only,
    request_id_of,
    request_key,
    shared,
)
from connectors.elasticsearch._facts import access_fact, app_facts, error_fact
from connectors.elasticsearch._layout import Layout, LogField, term_on
from connectors.elasticsearch._reader import (
    SOURCE,
    LogReader,
    any_of,
    kw_term,
    lacks_all,
    time_range,
)
from connectors.elasticsearch._settings import ElasticsearchTarget, iso_utc
from policy.contracts import ToolContract
from policy.findings import Findings
from policy.numbers import Noun, count_said
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext, scope_of
from policy.vocabulary import ARGUMENT_NAMES
from policy.window import WindowArgs

OTHER_LINES = Noun("other line", "other lines", "другая строка", "другие строки", "других строк")

NAME = "logs.request_trace"
MAX_ACCESS = 10  # access records read for one request_id (a prefix may match several)
MAX_CORRELATED = 5  # access records whose error-log lines are looked up
MAX_APP = 200


class RequestTraceArgs(WindowArgs):
    request_id: str = Field(
        min_length=6,
        max_length=128,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$",
        description=ARGUMENT_NAMES["request_id"]
        + "; fewer than 32 characters are searched as a prefix",
    )


def contract(envs: list[str]) -> ToolContract:
    return ToolContract(
        name=NAME,
        description=(
            "Trace one request by its request_id through the edge proxy and the application: "
            "the edge access record (status, upstream status and address, connection, edge "
            "node); the edge error-log line tied to it by edge node, connection id, host, path "
            "and a window of about 2.5 s (the error log has no request_id), with its raw "
            "message and error class (too_big_header, timeout, connection_refused, "
            "connection_reset, premature_close, invalid_header, upstream_tls, "
            "no_live_upstreams, client_body_too_large); and the application's log lines and "
            "response status for the same request_id. Use for 'why did request X get a 502'."
        ),
        args_model=RequestTraceArgs,
        agent=log_agent(["edge.access_log", "edge.error_log", "app.log"]),
        enums={"env": envs},
    )


def _rid_query(request_id: str, layout: Layout) -> tuple[dict[str, Any], str]:
    """The id in any field the index's layout keeps it under (request_id, req_id,
    http.request.id, a wrapped log_processed.requestId...)."""
    names = tuple(dict.fromkeys([*layout.names(LogField.REQUEST_ID), *REQUEST_ID_FIELDS]))
    if layout.types is not None and layout.has(LogField.REQUEST_ID):
        names = layout.names(LogField.REQUEST_ID)
    if len(request_id) >= 32:
        return any_of(*(kw_term(f, request_id) for f in names)), f'"{request_id}"'
    prefix = any_of(
        *({"prefix": {name: request_id}} for f in names for name in (f, f"{f}.keyword"))
    )
    return prefix, f"{request_id}*"


def _error_query(key: RequestKey, layout: Layout) -> dict[str, Any]:
    start, end = key.window()
    filters: list[dict[str, Any]] = [time_range(start, end), *error_only(layout)]
    if key.edge_node:
        names = layout.names(LogField.EDGE_NODE)
        no_node = lacks_all(names)
        filters.append(any_of(term_on(layout, LogField.EDGE_NODE, key.edge_node), no_node))
    return {"bool": {"filter": filters}}


def _describe(key: RequestKey) -> str:
    start, end = key.window()
    parts = [
        f"edge node {key.edge_node}" if key.edge_node else None,
        f"connection {key.connection}" if key.connection else None,
        f"host {key.host}" if key.host else None,
        f"path {key.path}" if key.path else None,
        f"{iso_utc(start)}..{iso_utc(end)}",
    ]
    return ", ".join(p for p in parts if p)


def _failed_request(status: Any) -> bool:
    try:
        return int(status) >= 400
    except (TypeError, ValueError):
        return True


def _tie_errors(
    t: ElasticsearchTarget,
    hit: Hit,
    key: RequestKey,
    sub: SubRead,
    facts: list[ResultFact],
    warnings: list[str],
    raw: dict[str, Any],
    layouts: tuple[Layout, Layout],
) -> None:
    """Attach the error lines of one request; say so when none belongs to it."""
    apps_too = shared(t.edge_error_index, t.app_index)
    source = hit.get("_source") or {}
    status = layouts[0].value(source, LogField.STATUS)
    rid = layouts[0].value(source, LogField.REQUEST_ID) or request_id_of(source)
    unexplained = f"; the error log does not establish the cause of its {status}"
    if not _failed_request(status):
        unexplained = ""
    if sub.read is None:
        warnings.append(f"the edge error log could not be read for request {rid}{unexplained}")
        return
    w_start, w_end = key.window()
    conn_q = " AND ".join(
        p
        for p in (
            f"connection:{key.connection}" if key.connection else "",
            f'edge_node:"{key.edge_node}"' if key.edge_node else "",
        )
        if p
    )
    link = t.discover_link(t.edge_error_index, conn_q or "*", w_start, w_end)
    matched, others = [], 0
    for ehit in sub.read.hits:
        line = error_line(ehit.get("_source") or {}, layouts[1])
        if apps_too and not line.nginx:
            continue  # an application's line in the same index
        ok, tied = belongs(key, line)
        if ok:
            matched.append(ehit.get("_id"))
            facts.append(error_fact(line, ehit.get("_index"), link, request_id=rid, tied=tied))
        else:
            others += 1
    sub.found = bool(matched)
    raw["errors"].append(
        {
            "request_id": rid,
            "window": [iso_utc(w_start), iso_utc(w_end)],
            "hits": sub.read.hits,
            "matched": matched,
        }
    )
    decoys = (
        f"{count_said(others, OTHER_LINES)} in that window "
        f"{'belongs' if others == 1 else 'belong'} to other connections or paths and "
        f"{'was' if others == 1 else 'were'} not attached"
        if others
        else ""
    )
    if not matched:
        partly = "" if sub.read.complete else " (and the window was not read completely)"
        warnings.append(
            f"no edge error-log line matched request {rid} ({_describe(key)}){partly}"
            + (f"; {decoys}" if decoys else "")
            + unexplained
        )
    elif decoys:
        warnings.append(f"request {rid}: {decoys}")


async def request_trace(
    readers: dict[str, LogReader], args: RequestTraceArgs, ctx: CallContext
) -> ToolResult:
    reader = reader_for(readers, args.env)
    t = await reader.resolved()
    start, end = window(args, ctx)
    access_layout, error_layout, app_layout = await asyncio.gather(
        reader.layout(t.edge_access_index, start, end),
        reader.layout(
            t.edge_error_index,
            start - MAX_REQUEST_SPAN - CORRELATION_SLACK,
            end + CORRELATION_SLACK,
        ),
        reader.layout(t.app_index, start, end),
    )
    layouts = (access_layout, error_layout)
    rid_query, rid_lucene = _rid_query(args.request_id, access_layout)
    # an application's own line with the same request id is not an access record
    only = access_only(access_layout, shared(t.edge_access_index, t.app_index))
    scoped = {"bool": {"filter": [rid_query, time_range(start, end), *only]}}
    app_rid, _ = _rid_query(args.request_id, app_layout)
    app_scoped = {"bool": {"filter": [app_rid, time_range(start, end)]}}
    (access, access_err), (app, app_err) = await attempt_all(
        reader.search(t.edge_access_index, scoped, limit=MAX_ACCESS),
        reader.search(t.app_index, app_scoped, limit=min(t.max_hits, MAX_APP)),
    )
    graph = Findings(SOURCE, env=args.env)
    facts: list[ResultFact] = []
    warnings: list[str] = []
    raw: dict[str, Any] = {"window": [iso_utc(start), iso_utc(end)], "errors": []}

    access_hits = access.hits if access else []
    access_sub = SubRead(
        "edge.access_log",
        f"edge access log ({t.where('edge_access_index')})",
        access,
        access_err,
        found=bool(access_hits),
    )
    access_link = t.discover_link(t.edge_access_index, rid_lucene, start, end)
    facts.extend(access_fact(hit, access_link, graph, access_layout) for hit in access_hits)
    raw["access"] = access_hits
    ids = {
        str(access_layout.value(h.get("_source") or {}, LogField.REQUEST_ID)) for h in access_hits
    }
    if len(ids) > 1:
        warnings.append(
            f"request_id prefix {args.request_id} matched {len(ids)} requests: "
            f"{', '.join(sorted(ids))}"
        )

    subs = [access_sub]
    found = [
        (h, request_key(h.get("_source") or {}, access_layout))
        for h in access_hits[:MAX_CORRELATED]
    ]
    keyed = [(h, k) for h, k in found if k is not None]
    label = f"edge error log ({t.where('edge_error_index')})"
    if access_err is not None:
        subs.append(
            SubRead(
                "edge.error_log",
                label,
                skipped="the access record could not be read to tie lines to",
            )
        )
    elif not keyed:
        warnings.append(
            f"no edge access record for request_id {args.request_id} in "
            f"{iso_utc(start)}..{iso_utc(end)}: the edge error log cannot be tied to it"
        )
        subs.append(
            SubRead(
                "edge.error_log",
                label,
                skipped="no access record for this "
                "request_id in the window, so no error line can be tied to it",
                in_coverage=False,
            )
        )
    else:
        reads = await attempt_all(
            *(
                reader.search(t.edge_error_index, _error_query(k, error_layout), limit=t.max_hits)
                for _, k in keyed
            )
        )
        for (hit, key), (read, err) in zip(keyed, reads, strict=True):
            sub = SubRead("edge.error_log", f"{label} around {iso_utc(key.time)}", read, err)
            subs.append(sub)
            _tie_errors(t, hit, key, sub, facts, warnings, raw, layouts)

    app_hits = app.hits if app else []
    app_link = t.discover_link(t.app_index, rid_lucene, start, end)
    for hit in app_hits:
        facts.extend(app_facts(hit, app_link, graph, app_layout))
    subs.append(
        SubRead(
            "app.log",
            f"application log ({t.where('app_index')})",
            app,
            app_err,
            found=bool(app_hits),
        )
    )
    raw["app"] = app_hits
    return build_result(
        NAME,
        scope_of(args, ctx),
        subs,
        facts,
        graph=graph,
        warnings=warnings,
        limit=t.max_hits,
        raw=raw,
    )
