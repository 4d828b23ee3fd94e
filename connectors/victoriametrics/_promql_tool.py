"""Bounded raw PromQL for questions no templated tool covers.

Bounded three ways: the selector must name what it reads (no `{__name__=~".*"}` or
name-less selectors), at most `max_series` series and ~300 points per series come back,
and the window is capped like every other tool's.
"""

from __future__ import annotations

import re

from pydantic import Field

from connectors.victoriametrics._client import QueryRejected
from connectors.victoriametrics._common import Run
from policy.facts import MetricsValue
from policy.numbers import number_said
from policy.results import ResultFact, ToolResult
from policy.window import WindowArgs

MAX_FACTS = 20
_SELECTOR = re.compile(r"([A-Za-z_:][A-Za-z0-9_:]*)?\s*\{([^{}]*)\}")
_MATCHER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*(\"(?:[^\"\\]|\\.)*\")")
_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool"}
_PROBE_NAMES = ("up", "node_cpu_seconds_total", "kube_pod_info", "http_requests_total")


class PromqlArgs(WindowArgs):
    query: str = Field(min_length=1, max_length=2000, description="PromQL / MetricsQL expression")
    instant: bool = Field(
        default=False, description="true: one value per series at `end`; false: a range"
    )


def _too_broad(regex: str) -> bool:
    try:
        pattern = re.compile(regex)
    except re.error:
        return False  # the server will say what is wrong with it
    return sum(1 for name in _PROBE_NAMES if pattern.fullmatch(name)) >= 2


def unbounded_reason(query: str) -> str | None:
    """Why the query would read the whole database, or None."""
    for match in _SELECTOR.finditer(query):
        name, body = match.group(1), match.group(2)
        if name and name not in _KEYWORDS:
            continue
        matchers = _MATCHER.findall(body)
        by_name = [(op, value[1:-1]) for label, op, value in matchers if label == "__name__"]
        if not by_name:
            return f"selector {match.group(0).strip()!r} names no metric; add a metric name"
        for op, value in by_name:
            if op == "=" and value:
                break
            if op == "=~" and value and not _too_broad(value):
                break
        else:
            return f"selector {match.group(0).strip()!r} matches every metric name"
    return None


async def promql(run: Run, args: PromqlArgs) -> ToolResult:
    reason = unbounded_reason(args.query)
    if reason is not None:
        raise QueryRejected(args.query, f"refused as unbounded: {reason}")
    read = await (run.instant(args.query) if args.instant else run.range(args.query))
    facts: list[ResultFact] = []
    for series in read.series[:MAX_FACTS]:
        labels = ", ".join(f'{k}="{v}"' for k, v in sorted(series.labels.items()))
        name = f"{{{labels}}}"
        values = [v for _, v in series.points]
        if args.instant:
            text = f"{name} = {number_said(series.value)} at {run.time(series.at)} ({run.env})"
        else:
            text = (
                f"{name}: last {number_said(series.value)} at {run.time(series.at)}, min "
                f"{number_said(min(values))}, max {number_said(max(values))} {run.span()} "
                f"({run.env})"
            )
        facts.append(
            run.fact(
                text,
                MetricsValue(
                    labels=series.labels, value=series.value, min=min(values), max=max(values)
                ),
                args.query,
                series.at,
            )
        )
    warnings = (
        [f"{len(read.series) - MAX_FACTS} more series in raw, not shown as facts"]
        if len(read.series) > MAX_FACTS
        else []
    )
    return run.result(
        found=bool(read.series),
        exists=False,  # a raw query's emptiness proves nothing by itself
        facts=facts,
        warnings=warnings,
        note=None if read.series else "the query matched no series",
    )
