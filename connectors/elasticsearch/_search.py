"""logs.search: a bounded generic query_string search over one configured index pattern."""

from __future__ import annotations

import json
import re

from pydantic import Field

from connectors.elasticsearch._bodies import Doc
from connectors.elasticsearch._common import (
    SubRead,
    attempt_all,
    build_result,
    log_agent,
    reader_for,
    window,
)
from connectors.elasticsearch._errorlog import parse_time
from connectors.elasticsearch._layout import lookup
from connectors.elasticsearch._reader import SOURCE, LogReader, time_range
from connectors.elasticsearch._settings import iso_utc
from policy.contracts import ToolContract
from policy.errors import SourceUnsupported
from policy.facts import LogsHit
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext, scope_of
from policy.vocabulary import ARGUMENT_NAMES
from policy.window import WindowArgs

NAME = "logs.search"
MAX_TEXT = 400


class LogSearchArgs(WindowArgs):
    index: str = Field(description="one of the configured index patterns")
    query: str = Field(
        min_length=1,
        max_length=500,
        description=ARGUMENT_NAMES["query"]
        + ": Lucene query_string syntax, terms joined by AND unless told otherwise",
    )
    limit: int = Field(default=50, ge=1, le=200, description=ARGUMENT_NAMES["limit"])


_BARE_WORD = re.compile(r"^[A-Za-z][\w.-]{2,80}$")


def _widen(query: str) -> str:
    """A bare word ("OutOfMemoryError") is also looked for inside longer tokens
    ("java.lang.OutOfMemoryError:"), which the analyzer keeps whole."""
    q = query.strip()
    return f"({q} OR *{q}*)" if _BARE_WORD.match(q) else q


def contract(envs: list[str], patterns: list[str]) -> ToolContract:
    return ToolContract(
        name=NAME,
        description=(
            "Bounded generic log search: a Lucene query_string over one configured index "
            "pattern in a time window, newest first, at most 200 hits. Use when no "
            "dedicated log tool fits."
        ),
        args_model=LogSearchArgs,
        # any index, any query: it can surface data outside the question's scope
        agent=log_agent(["logs.search"], admin_only=True),
        enums={"env": envs, "index": patterns},
    )


_ORIGIN = (
    ("host", "host.name"),
    ("host", "hostname"),
    ("pod", "kubernetes.pod"),
    ("pod", "kubernetes.pod.name"),
    ("service", "service"),
    ("service", "service.name"),
    ("level", "log.level"),
    ("level", "level"),
)


def _summary(source: Doc) -> str:
    message = lookup(source, "message")
    if message is not None:
        # where the line came from: the host, pod or service a reader needs to act
        origin = [
            f"{label} {value}"
            for label, path in _ORIGIN
            if (value := lookup(source, path)) is not None and not isinstance(value, dict | list)
        ]
        text = (f"[{', '.join(origin[:3])}] " if origin else "") + str(message)
    else:
        text = json.dumps(
            {k: v for k, v in source.items() if k != "@timestamp"}, ensure_ascii=False, default=str
        )
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "..."


async def log_search(
    readers: dict[str, LogReader], args: LogSearchArgs, ctx: CallContext
) -> ToolResult:
    reader = reader_for(readers, args.env)
    t = reader.target
    if args.index not in t.patterns():
        raise SourceUnsupported(
            SOURCE,
            f"index pattern {args.index} is not configured for {args.env} "
            f"(configured: {', '.join(t.patterns())})",
        )
    start, end = window(args, ctx)
    query = {
        "bool": {
            "filter": [
                {"query_string": {"query": _widen(args.query), "default_operator": "AND"}},
                time_range(start, end),
            ]
        }
    }
    limit = min(args.limit, t.max_hits)
    ((read, err),) = await attempt_all(reader.search(args.index, query, limit=limit, order="desc"))
    link = t.discover_link(args.index, args.query, start, end)
    hits = read.hits if read else []
    facts = [
        ResultFact(
            text=f"{(h.get('_source') or {}).get('@timestamp')} {h.get('_index')}: "
            f"{_summary(h.get('_source') or {})}",
            source=f"{SOURCE}/{h.get('_index')}",
            observed_at=parse_time((h.get("_source") or {}).get("@timestamp")),
            link=link,
            attrs=LogsHit(index=h.get("_index"), fields=h.get("_source") or {}),
        )
        for h in hits
    ]
    warnings = []
    if read is not None and not read.complete:
        warnings.append(f"showing the newest {len(hits)} hits; {read.describe()}")
    return build_result(
        NAME,
        scope_of(args, ctx),
        [SubRead("logs.search", f"log search ({args.index})", read, err, found=bool(hits))],
        facts,
        warnings=warnings,
        limit=limit,
        raw={"window": [iso_utc(start), iso_utc(end)], "query": args.query, "hits": hits},
    )
