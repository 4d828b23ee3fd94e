"""logs.app_logs: application log lines in a window, by namespace / service / request_id."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from connectors.elasticsearch._common import (
    SubRead,
    attempt_all,
    build_result,
    log_agent,
    reader_for,
    window,
)
from connectors.elasticsearch._facts import NAMESPACE_FIELDS, POD_FIELDS, SERVICE_FIELDS, app_facts
from connectors.elasticsearch._layout import DEFAULT, Layout, LogField, term_on
from connectors.elasticsearch._reader import (
    SOURCE,
    LogReader,
    any_of,
    kw_term,
    lacks_all,
    time_range,
)
from connectors.elasticsearch._settings import iso_utc
from policy.contracts import ToolContract
from policy.findings import Findings
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext, scope_of
from policy.vocabulary import ARGUMENT_NAMES
from policy.window import WindowArgs

NAME = "logs.app_logs"
Level = Literal["debug", "info", "warn", "warning", "error", "fatal", "critical"]
# "error" keeps what is worse too: a question for the errors wants the fatal lines as well
_LEVELS: dict[str, list[str]] = {
    "warn": ["warn", "warning"],
    "warning": ["warn", "warning"],
    "error": ["error", "err", "fatal", "critical", "crit", "panic", "emerg", "alert"],
}
# pino's and bunyan's numeric levels
_PINO = {"trace": 10, "debug": 20, "info": 30, "warn": 40, "warning": 40, "error": 50,
         "fatal": 60, "critical": 60}  # fmt: skip


class AppLogsArgs(WindowArgs):
    namespace: str | None = Field(
        default=None, max_length=253, description=ARGUMENT_NAMES["namespace"]
    )
    service: str | None = Field(default=None, max_length=253, description=ARGUMENT_NAMES["service"])
    request_id: str | None = Field(
        default=None,
        min_length=6,
        max_length=128,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$",
        description=ARGUMENT_NAMES["request_id"],
    )
    level: Level | None = Field(
        default=None, description="log level to keep (error keeps fatal and critical too)"
    )
    text: str | None = Field(
        default=None, min_length=2, max_length=200, description="a phrase the message must contain"
    )
    limit: int = Field(default=50, ge=1, le=200, description=ARGUMENT_NAMES["limit"])


def contract(envs: list[str]) -> ToolContract:
    return ToolContract(
        name=NAME,
        description=(
            "Application log lines (shipped container logs) in a time window, filtered by "
            "namespace, service, request_id, level or a phrase in the message; with pod and "
            "node of each line and the response status where the line has one."
        ),
        args_model=AppLogsArgs,
        agent=log_agent(["app.log"]),
        enums={"env": envs},
    )


def app_filters(
    args: AppLogsArgs, layout: Layout = DEFAULT
) -> tuple[list[dict[str, Any]], list[str]]:
    """Filters, and the same in Lucene syntax for the Discover link."""
    filters: list[dict[str, Any]] = []
    lucene: list[str] = []
    if args.namespace:
        filters.append(any_of(*(kw_term(f, args.namespace) for f in NAMESPACE_FIELDS)))
        lucene.append(f'kubernetes.namespace:"{args.namespace}"')
    if args.service:
        # a line with no service field is placed by its pod's name (service-<hash>-<id>)
        by_pod = {
            "bool": {
                "filter": [any_of(*({"prefix": {f: f"{args.service}-"}} for f in POD_FIELDS))],
                "must_not": lacks_all(SERVICE_FIELDS)["bool"]["must_not"],
            }
        }
        filters.append(any_of(*(kw_term(f, args.service) for f in SERVICE_FIELDS), by_pod))
        lucene.append(f'service:"{args.service}"')
    if args.request_id:
        filters.append(term_on(layout, LogField.REQUEST_ID, args.request_id))
        lucene.append(f'request_id:"{args.request_id}"')
    if args.level and not layout.has(LogField.LEVEL) and layout.has(LogField.MESSAGE):
        # no level field (logfmt or plain text shipped raw): the level's words in the line
        names = _LEVELS.get(args.level, [args.level])
        filters.append(
            any_of(*({"match": {n: " ".join(names)}} for n in layout.names(LogField.MESSAGE)))
        )
        lucene.append(f"message:({' OR '.join(names)})")
    elif args.level:
        names = _LEVELS.get(args.level, [args.level])
        spelled = sorted({v for n in names for v in (n, n.upper(), n.capitalize())})
        numbers = sorted({_PINO[n] for n in names if n in _PINO})
        filters.append(
            any_of(
                *(
                    {"terms": {n: numbers}} if layout.numeric(n) else {"terms": {n: spelled}}
                    for n in layout.names(LogField.LEVEL)
                    if numbers or not layout.numeric(n)
                )
            )
        )
        lucene.append(f"level:({' OR '.join(names)})" if len(names) > 1 else f"level:{args.level}")
    if args.text:
        # the phrase may be in the line or in the exception logged beside it (ECS
        # `error.message`, a logback encoder's `stack_trace`): both are what was written
        text = args.text
        fields = [*layout.names(LogField.MESSAGE), *layout.names(LogField.ERROR)]
        filters.append(any_of(*({"match_phrase": {n: text}} for n in dict.fromkeys(fields))))
        lucene.append(f'"{args.text}"')
    return filters, lucene


async def app_logs(
    readers: dict[str, LogReader], args: AppLogsArgs, ctx: CallContext
) -> ToolResult:
    reader = reader_for(readers, args.env)
    t = await reader.resolved()
    start, end = window(args, ctx)
    layout = await reader.layout(t.app_index, start, end)
    filters, lucene = app_filters(args, layout)
    query = {"bool": {"filter": [*filters, time_range(start, end)]}}
    limit = min(args.limit, t.max_hits)
    ((read, err),) = await attempt_all(reader.search(t.app_index, query, limit=limit))
    graph = Findings(SOURCE, env=args.env)
    facts: list[ResultFact] = []
    link = t.discover_link(t.app_index, " AND ".join(lucene) or "*", start, end)
    hits = read.hits if read else []
    for hit in hits:
        facts.extend(app_facts(hit, link, graph, layout))
    warnings = []
    if read is not None and not read.complete:
        warnings.append(f"showing the first {len(hits)} lines in time order; {read.describe()}")
    sub = SubRead(
        "app.log", f"application log ({t.where('app_index')})", read, err, found=bool(hits)
    )
    if args.service and read is not None and not hits:
        others, _ = app_filters(args.model_copy(update={"service": None}), layout)
        probe = {"bool": {"filter": [*others, time_range(start, end), lacks_all(SERVICE_FIELDS)]}}
        ((unplaced, _err),) = await attempt_all(reader.search(t.app_index, probe, limit=0))
        if unplaced is None or unplaced.total:
            sub.complete_override = False
            count = unplaced.total if unplaced is not None else "some"
            warnings.append(
                f"no line names service {args.service}, but {count} lines in the window carry "
                "no service field, so absence is not proven"
            )
    return build_result(
        NAME,
        scope_of(args, ctx),
        [sub],
        facts,
        graph=graph,
        warnings=warnings,
        limit=limit,
        raw={"window": [iso_utc(start), iso_utc(end)], "hits": hits},
    )
