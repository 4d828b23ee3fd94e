"""logs.app_errors: the error lines an application logged in a window, by template.

The same generic log evidence as `k8s.log_errors` (connectors/kit/logtemplates.py), from the
shipped application log: the lines that state an error level, or state none and say they
failed, of a namespace / service, the newest MAX_READ of them grouped by message
template with a count, first and last time, the pods that wrote them and an example. A
traceback joined into one document by the shipper is read as one record.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from connectors.elasticsearch._applogs import AppLogsArgs, app_filters
from connectors.elasticsearch._common import (
    SubRead,
    attempt_all,
    build_result,
    log_agent,
    reader_for,
    window,
)
from connectors.elasticsearch._errorlog import parse_time, scalar
from connectors.elasticsearch._facts import POD_FIELDS, error_detail
from connectors.elasticsearch._layout import Layout, LogField
from connectors.elasticsearch._reader import SOURCE, LogReader, time_range
from connectors.elasticsearch._settings import iso_utc
from connectors.kit.logtemplates import error_templates, level_name, shipped_records, template_fact
from policy.contracts import ToolContract
from policy.findings import Findings
from policy.numbers import Nouns, count_said
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext, scope_of

NAME = "logs.app_errors"
_KINDS = ("logs.error_templates",)
MAX_READ = 500
MAX_TEMPLATES = 5
_LEVEL_FIELDS = ("level", "log.level", "severity")
_BELOW_WARN = sorted(
    {
        v
        for n in ("trace", "debug", "info", "notice", "verbose")
        for v in (n, n.upper(), n.capitalize())
    }
)


class AppErrorsArgs(AppLogsArgs):
    pass


def contract(envs: list[str]) -> ToolContract:
    return ToolContract(
        name=NAME,
        description=(
            "Error lines of an application's shipped log in a time window (by namespace / "
            "service), grouped by message template: count, first and last time, pods, an "
            "example; by the level a line states, or by its words when it states none."
        ),
        args_model=AppErrorsArgs,
        agent=log_agent(list(_KINDS)),
        enums={"env": envs},
    )


def _error_filter(layout: Layout) -> dict[str, Any]:
    """Every line but those whose stated level is a word below WARN: the template rules
    decide the rest (a numeric level, a line with no level, a warning), so the filter
    never drops an error the rules would see. A level mapped as a number (pino, bunyan)
    takes no word: there the lines below WARN (under 40) are left out by range."""
    names = dict.fromkeys([*_LEVEL_FIELDS, *layout.names(LogField.LEVEL)])
    return {
        "bool": {
            "must_not": [
                {"range": {f: {"lt": 40}}} if layout.numeric(f) else {"terms": {f: _BELOW_WARN}}
                for f in names
            ]
        }
    }


async def app_errors(
    readers: dict[str, LogReader], args: AppErrorsArgs, ctx: CallContext
) -> ToolResult:
    reader = reader_for(readers, args.env)
    t = await reader.resolved()
    start, end = window(args, ctx)
    layout = await reader.layout(t.app_index, start, end)
    filters, lucene = app_filters(args, layout)
    query = {"bool": {"filter": [*filters, _error_filter(layout), time_range(start, end)]}}
    limit = min(MAX_READ, t.max_hits)
    ((read, err),) = await attempt_all(reader.search(t.app_index, query, limit=limit, order="desc"))
    docs: list[tuple[datetime, str, str]] = []
    undated = 0
    for src in read.sources() if read else []:
        at = parse_time(src.get("@timestamp"))
        if at is None:
            undated += 1  # not placed in time: said, and the read is not complete
            continue
        origin = str(scalar(src, *POD_FIELDS) or t.app_index)
        level = level_name(layout.value(src, LogField.LEVEL) or scalar(src, *_LEVEL_FIELDS))
        text = str(layout.value(src, LogField.MESSAGE) or "")
        raised = error_detail(src, layout)
        text = f"{text}\n{raised}" if raised and raised not in text else text
        # the stated level leads the record, as the program meant it
        docs.append((at, origin, f"{level} {text}" if level else text))
    templates, records, errors = error_templates([], records=shipped_records(docs))
    link = t.discover_link(t.app_index, " AND ".join(lucene) or "*", start, end)
    facts: list[ResultFact] = []
    subject = args.service or args.namespace or "the application"
    facts = [
        template_fact(tpl, subject, source=SOURCE, link=link, service=args.service)
        for tpl in templates[:MAX_TEMPLATES]
    ]
    where = t.where("app_index")
    label = (
        f"application error lines ({where}): {count_said(records, Nouns.RECORD)}, "
        f"{errors} error-like"
    )
    if undated:
        label += (
            f"; {count_said(undated, Nouns.DOCUMENT)} with no time this reader understands "
            f"{'was' if undated == 1 else 'were'} left out"
        )
    subs = [
        SubRead(
            kind, label, read, err, found=bool(facts), complete_override=False if undated else None
        )
        for kind in _KINDS
    ]
    return build_result(
        NAME,
        scope_of(args, ctx),
        subs,
        facts,
        graph=Findings(SOURCE, env=args.env),
        warnings=[],
        limit=limit,
        raw={"window": [iso_utc(start), iso_utc(end)], "templates": len(templates)},
    )
