"""logs.edge_errors: edge 5xx and classified error-log lines in a window, without request_id."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from pydantic import Field

from connectors.elasticsearch._bodies import Aggs
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
    ErrorLine,
    RequestKey,
    access_only,
    belongs,
    error_line,
    error_only,
    host_in_error_line,
    parse_line,
    request_key,
    shared,
)
from connectors.elasticsearch._facts import SRC_ACCESS, SRC_ERROR, access_fact
from connectors.elasticsearch._layout import (
    PLACEHOLDERS,
    Layout,
    LogField,
    merged_buckets,
    status_range,
    term_on,
    terms_aggs,
)
from connectors.elasticsearch._reader import (
    SOURCE,
    LogReader,
    Read,
    any_of,
    lacks_all,
    time_range,
)
from connectors.elasticsearch._settings import ElasticsearchTarget, iso_utc
from policy.contracts import ToolContract
from policy.facts import EdgeAccess, EdgeError
from policy.findings import Findings
from policy.numbers import Noun, Nouns, count_said, integer_said, noun_for
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext, scope_of
from policy.vocabulary import ARGUMENT_NAMES
from policy.window import WindowArgs

OTHER_ERROR_LINES = Noun(
    "other edge error-log line",
    "other edge error-log lines",
    "другая строка лога ошибок edge",
    "другие строки лога ошибок edge",
    "других строк лога ошибок edge",
)

NAME = "logs.edge_errors"
_WITH_PORT = re.compile(r"^(\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]):\d+$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")


class EdgeErrorsArgs(WindowArgs):
    host: str | None = Field(
        default=None,
        max_length=253,
        # a virtual host is a name: a bare address is an upstream or a client, not a Host
        pattern=r"^\S*[A-Za-z_]\S*$",
        description="virtual host (Host header / server_name)",
    )
    service: str | None = Field(default=None, max_length=253, description=ARGUMENT_NAMES["service"])
    namespace: str | None = Field(
        default=None,
        max_length=63,
        pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        description=ARGUMENT_NAMES["namespace"] + " (places records by ingress-nginx's "
        "<namespace>-<service>-<port> upstream name)",
    )
    status: int | None = Field(
        default=None, ge=400, le=599, description="one HTTP status; default: every 5xx"
    )
    upstreams: list[Annotated[str, Field(pattern=r"^[0-9A-Fa-f.:\[\]]{3,64}$")]] | None = Field(
        default=None,
        max_length=20,
        description="upstream addresses of the service (pod IPs, optionally ip:port): edge "
        "records whose upstream_addr is one of them belong to the service even when the edge "
        "log does not name services",
    )
    limit: int = Field(default=10, ge=1, le=50, description="example records to return")


def contract(envs: list[str]) -> ToolContract:
    return ToolContract(
        name=NAME,
        description=(
            "Edge proxy errors in a time window without a request_id: 5xx access records "
            "counted by status, host and upstream address and per minute, with examples; and "
            "the edge error-log lines in the same window, classified (too_big_header, "
            "timeout, connection_refused, ...) and counted by class with a raw example. "
            "Use for an error spike, or to see whether several services failed together."
        ),
        args_model=EdgeErrorsArgs,
        agent=log_agent(["edge.access_log", "edge.error_log"], output_kind="table"),
        enums={"env": envs},
    )


def _interval(start: datetime, end: datetime) -> tuple[str, str]:
    span = end - start
    for limit, interval, word in (
        (timedelta(hours=2), "1m", "minute"),
        (timedelta(hours=12), "5m", "5 minutes"),
        (timedelta(days=2), "1h", "hour"),
    ):
        if span <= limit:
            return interval, word
    return "1d", "day"


def service_clauses(layout: Layout, service: str, namespace: str | None) -> list[dict[str, Any]]:
    """Records placed at a service: a field naming it, or ingress-nginx's upstream name
    `<namespace>-<service>-<port>`, read only with the namespace known: without it,
    `<a>-<b>-<port>` could be service `<b>` of namespace `<a>` or `<a>-<b>` of another,
    and a port may be named with dashes (`http-web`)."""
    clauses = [term_on(layout, LogField.SERVICE, service)]
    if namespace and _DNS_LABEL.match(service) and _DNS_LABEL.match(namespace):
        clauses += [
            {"regexp": {layout.exact(n): f"{namespace}-{service}-[a-z0-9].*"}}
            for n in layout.names(LogField.UPSTREAM_NAME)
        ]
    return clauses


def host_clause(layout: Layout, host: str) -> dict[str, Any]:
    """Records of one virtual host: a field naming it, or the per-host log file they were
    read from (/var/log/nginx/<host>-access.log, as a shipper records the path)."""
    files = [
        {"wildcard": {layout.exact(n): f"*/{host}{sep}*"}}
        for n in layout.names(LogField.LOG_FILE)
        for sep in ("-", ".", "_")
    ]
    return any_of(term_on(layout, LogField.HOST, host), *files)


def hostless(layout: Layout) -> dict[str, Any]:
    """Records that name no virtual host: none of its fields, or a placeholder ("-")."""
    return any_of(
        lacks_all(layout.names(LogField.HOST)),
        *(term_on(layout, LogField.HOST, p) for p in sorted(PLACEHOLDERS) if p),
    )


def service_names(layout: Layout, namespace: str | None) -> tuple[str, ...]:
    """The fields a record names its service by here (the upstream name only when it
    can be read: see service_clauses)."""
    upstream = layout.names(LogField.UPSTREAM_NAME) if namespace else ()
    return layout.names(LogField.SERVICE) + upstream


def _buckets(read_aggs: Aggs, name: str) -> list[tuple[Any, int]]:
    agg = read_aggs.get(name)
    buckets = agg.get("buckets") if isinstance(agg, dict) else None
    if not isinstance(buckets, list):
        return []
    return [(b.get("key_as_string", b.get("key")), int(b.get("doc_count", 0))) for b in buckets]


def _access_query(
    args: EdgeErrorsArgs, start: datetime, end: datetime, layout: Layout, with_apps: bool
) -> dict[str, Any]:
    filters: list[dict[str, Any]] = [time_range(start, end), *access_only(layout, with_apps)]
    if args.status is not None:
        filters.append(term_on(layout, LogField.STATUS, args.status))
    else:
        filters.append(status_range(layout, LogField.STATUS, 500, 599))
    if args.host:
        filters.append(host_clause(layout, args.host))
    placed: list[dict[str, Any]] = []
    if args.service:
        placed += service_clauses(layout, args.service, args.namespace)
    for addr in args.upstreams or []:
        # an upstream is "ip:port" (or "ip:port, ip:port" after a retry), or the ip alone
        # the address whole: alone, first, last or inside a list ("a:80, b:80"), never a
        # prefix of another (10.0.0.1:80 is not 10.0.0.1:8080, 10.0.0.1 not 10.0.0.12)
        if _WITH_PORT.match(addr):  # ip:port, [v6]:port
            patterns = [addr, f"* {addr}", f"{addr},*", f"* {addr},*"]
        else:  # the ip alone (a v6 one in brackets): any port, first or later in a list
            ip = f"[{addr}]" if ":" in addr and not addr.startswith("[") else addr
            patterns = [f"{ip}:*", f"* {ip}:*"]
        placed += [
            {"wildcard": {layout.exact(n): p}}
            for n in layout.names(LogField.UPSTREAM)
            for p in patterns
        ]
        if ":" not in addr and layout.has(LogField.UPSTREAM_IP):
            placed.append(term_on(layout, LogField.UPSTREAM_IP, addr))
    if placed:
        filters.append(any_of(*placed))
    return {"bool": {"filter": filters}}


def _access_facts(
    t: ElasticsearchTarget,
    args: EdgeErrorsArgs,
    read: Any,
    start: datetime,
    end: datetime,
    word: str,
    graph: Findings,
    layout: Layout,
) -> list[ResultFact]:
    span = f"{iso_utc(start)}..{iso_utc(end)}"
    what = f"status {args.status}" if args.status else "5xx"
    status_name = layout.names(LogField.STATUS)[0]
    query = f"{status_name}:{args.status}" if args.status else f"{status_name}:[500 TO 599]"
    if args.host:
        query += f' AND {layout.names(LogField.HOST)[0]}:"{args.host}"'
    link = t.discover_link(t.edge_access_index, query, start, end)
    last = (read.aggs.get("last_seen") or {}).get("value")
    last_seen = datetime.fromtimestamp(last / 1000, tz=UTC) if last else end
    facts = []
    for name, attr, label, field_of in (
        ("by_status", "status", "status", LogField.STATUS),
        ("by_host", "host", "host", LogField.HOST),
        ("by_upstream", "upstream_addr", "upstream", LogField.UPSTREAM),
        ("by_upstream_name", "upstream_name", "upstream name", LogField.UPSTREAM_NAME),
    ):
        # counted by the first of several names the window's indices use: the records
        # holding it under another name are not in this count
        exact = read.exact and layout.counts_all(field_of)
        for key, count in merged_buckets(read.aggs, name):
            # "3 status 502 responses with status 502" says the status twice
            said = "" if attr == "status" and args.status else f"{what} "
            facts.append(
                ResultFact(
                    text=f"edge access log {args.env} {span}: {'' if exact else 'at least '}"
                    f"{integer_said(count)} {said}{noun_for(count, Nouns.RESPONSE)} "
                    f"with {label} {key}",
                    source=SRC_ACCESS,
                    observed_at=last_seen,
                    link=link,
                    attrs=EdgeAccess.model_validate(
                        {
                            attr: key,
                            "count": count,
                            "count_is_exact": exact,
                            "window_start": iso_utc(start),
                            "window_end": iso_utc(end),
                        }
                    ),
                )
            )
    timeline = [(k, c) for k, c in _buckets(read.aggs, "timeline") if c]
    if timeline:
        shown = ", ".join(f"{k} {c}" for k, c in timeline[:30])
        facts.append(
            ResultFact(
                text=f"edge {what} responses per {word} in {args.env}: {shown}",
                source=SRC_ACCESS,
                observed_at=last_seen,
                link=link,
                attrs=EdgeAccess(
                    timeline=[{"at": k, "count": c} for k, c in timeline], interval=word
                ),
            )
        )
    facts.extend(access_fact(hit, link, graph, layout) for hit in read.hits[: args.limit])
    return facts


def _error_facts(
    t: ElasticsearchTarget,
    env: str,
    lines: list[tuple[ErrorLine, str | None]],
    exact: bool,
    start: datetime,
    end: datetime,
    what: str,
) -> list[ResultFact]:
    by_class = Counter(line.error_class for line, _ in lines)
    bound = "" if exact else "at least "
    facts = []
    for error_class, count in by_class.most_common():
        group = [(line, idx) for line, idx in lines if line.error_class == error_class]
        example, index = group[0]
        upstreams = Counter(line.upstream for line, _ in group if line.upstream)
        hosts = Counter(line.host for line, _ in group if line.host)
        core = str(parse_line(example.message).get("text") or example.message)
        phrase = core.split(" while ")[0].split(" (")[0].replace('"', "")[:80]
        link = t.discover_link(t.edge_error_index, f'message:"{phrase}"', start, end)
        where = ", ".join(f"{h} ({n})" for h, n in hosts.most_common(5)) or "no host"
        facts.append(
            ResultFact(
                text=f"edge error log {env} {iso_utc(start)}..{iso_utc(end)}: {bound}"
                f"{count_said(count, Nouns.LINE)} of class {error_class} {what}, on {where}; e.g. "
                f"{example.message}",
                source=SRC_ERROR,
                observed_at=max((ln.time for ln, _ in group if ln.time), default=None),
                link=link,
                attrs=EdgeError(
                    error_class=error_class,
                    count=count,
                    count_is_exact=exact,
                    message=example.message,
                    connection=example.connection,
                    host=example.host,
                    upstream=example.upstream,
                    upstreams=dict(upstreams.most_common(10)),
                    hosts=dict(hosts),
                    index=index,
                ),
            )
        )
    return facts


def _tie_lines(
    access: Read, errors: Read, layouts: tuple[Layout, Layout]
) -> tuple[list[tuple[ErrorLine, str | None]], int]:
    """Error lines that belong to one of the matching access records, and how many did not."""
    keys_by_conn: dict[str | None, list[RequestKey]] = {}
    for source in access.sources():
        key = request_key(source, layouts[0])
        if key is not None:
            keys_by_conn.setdefault(key.connection, []).append(key)
    tied, loose = [], 0
    for hit in errors.hits:
        line = error_line(hit.get("_source") or {}, layouts[1])
        candidates = keys_by_conn.get(line.connection, []) + keys_by_conn.get(None, [])
        if line.connection is None:
            candidates = [k for group in keys_by_conn.values() for k in group]
        if any(belongs(key, line)[0] for key in candidates):
            tied.append((line, hit.get("_index")))
        else:
            loose += 1
    return tied, loose


async def edge_errors(
    readers: dict[str, LogReader], args: EdgeErrorsArgs, ctx: CallContext
) -> ToolResult:
    reader = reader_for(readers, args.env)
    t = await reader.resolved()
    start, end = window(args, ctx)
    interval, word = _interval(start, end)
    # With a filter (host, service, status) only the error lines of the matching requests
    # count, tied to them like request_trace does; without one, the whole window's lines.
    tied_mode = bool(args.host or args.service or args.status or args.upstreams)
    error_start = start - MAX_REQUEST_SPAN - CORRELATION_SLACK if tied_mode else start
    access_layout, error_layout = await asyncio.gather(
        reader.layout(t.edge_access_index, start, end),
        reader.layout(t.edge_error_index, error_start, end + CORRELATION_SLACK),
    )
    with_apps = shared(t.edge_access_index, t.app_index)
    apps_in_errors = shared(t.edge_error_index, t.app_index)
    aggs = {
        **terms_aggs(access_layout, LogField.STATUS, "by_status", 10),
        **terms_aggs(access_layout, LogField.HOST, "by_host", 10),
        **terms_aggs(access_layout, LogField.UPSTREAM, "by_upstream", 10),
        **terms_aggs(access_layout, LogField.UPSTREAM_NAME, "by_upstream_name", 10),
        "last_seen": {"max": {"field": "@timestamp"}},
        "timeline": {
            "date_histogram": {
                "field": "@timestamp",
                "fixed_interval": interval,
                "min_doc_count": 1,
            }
        },
    }
    error_filters: list[dict[str, Any]] = [
        time_range(error_start, end + CORRELATION_SLACK),
        *error_only(error_layout),
    ]
    if args.host:
        error_filters.append(host_in_error_line(error_layout, args.host))
    (access, access_err), (errors, errors_err) = await attempt_all(
        reader.search(
            t.edge_access_index,
            _access_query(args, start, end, access_layout, with_apps),
            limit=t.max_hits if tied_mode else args.limit,
            aggs=aggs,
        ),
        reader.search(t.edge_error_index, {"bool": {"filter": error_filters}}, limit=t.max_hits),
    )
    graph = Findings(SOURCE, env=args.env)
    facts: list[ResultFact] = []
    warnings: list[str] = []
    access_sub = SubRead(
        "edge.access_log",
        f"edge access log ({t.where('edge_access_index')})",
        access,
        access_err,
        found=bool(access and access.total),
        complete_override=access.counted if access else None,
    )
    if access is not None:
        facts.extend(_access_facts(t, args, access, start, end, word, graph, access_layout))
        if access.total and args.limit < access.total:
            warnings.append(
                f"counts cover all {access.total} matching access records; "
                f"{min(args.limit, len(access.hits))} are shown as examples"
            )
    names = [k for k, _ in merged_buckets(access.aggs, "by_upstream_name")] if access else []
    if args.service and len(names) > 1:
        warnings.append(
            f"the records placed at service {args.service} carry {len(names)} upstream names "
            f"({', '.join(map(str, names[:5]))}): a similarly named service may be counted in"
        )

    async def unplaced(dropped: str, lacking: dict[str, Any]) -> int | str | None:
        """How many records the same filters minus `dropped` match that name no value of
        it at all (None: none, so the zero stands)."""
        probe = _access_query(
            args.model_copy(update={dropped: None}), start, end, access_layout, with_apps
        )
        probe["bool"]["filter"].append(lacking)
        ((read, _err),) = await attempt_all(reader.search(t.edge_access_index, probe, limit=0))
        if read is not None and not read.total:
            return None
        access_sub.complete_override = False
        return read.total if read is not None and read.total else "some"

    zero = access is not None and not access.total
    if args.service and not args.upstreams and zero:
        lacking = lacks_all(service_names(access_layout, args.namespace))
        if (count := await unplaced("service", lacking)) is not None:
            warnings.append(
                f"no edge record names service {args.service}, but {count} matching edge "
                "records in the window carry no service field at all, so absence is not "
                "proven: the edge log may not name services; filter by host instead"
            )
    if args.host and zero and (count := await unplaced("host", hostless(access_layout))):
        warnings.append(
            f"no edge record names host {args.host}, but {count} matching edge records in "
            "the window name no host at all (the field is missing or '-'), so absence is "
            "not proven: the edge log may not record the virtual host"
        )
    error_sub = SubRead(
        "edge.error_log", f"edge error log ({t.where('edge_error_index')})", errors, errors_err
    )
    lines: list[tuple[ErrorLine, str | None]] = []
    if errors is not None and not tied_mode:
        lines = [
            (error_line(h.get("_source") or {}, error_layout), h.get("_index")) for h in errors.hits
        ]
        if apps_in_errors:  # applications log into the same index: nginx's lines only
            lines = [(line, index) for line, index in lines if line.nginx]
    elif errors is not None and access is not None:
        lines, loose = _tie_lines(access, errors, (access_layout, error_layout))
        if apps_in_errors:
            lines = [(line, index) for line, index in lines if line.nginx]
        error_sub.complete_override = errors.complete and access.complete and access_sub.complete
        if loose:
            warnings.append(
                f"{count_said(loose, OTHER_ERROR_LINES)} in the window "
                f"{'belongs' if loose == 1 else 'belong'} to other requests and "
                f"{'was' if loose == 1 else 'were'} not counted"
            )
    elif errors is not None:
        error_sub.skipped = "the access records could not be read to tie error lines to"
    if errors is not None:
        what = "tied to the matching requests" if tied_mode else "in the window"
        complete = bool(error_sub.complete)
        facts.extend(_error_facts(t, args.env, lines, complete, start, end, what))
    error_sub.found = bool(lines)
    return build_result(
        NAME,
        scope_of(args, ctx),
        [access_sub, error_sub],
        facts,
        graph=graph,
        warnings=warnings,
        limit=t.max_hits,
        raw={
            "window": [iso_utc(start), iso_utc(end)],
            "access": {
                "total": access.total if access else None,
                "aggregations": access.aggs if access else None,
                "hits": access.hits if access else [],
            },
            "errors": errors.hits if errors else [],
        },
    )
