"""metrics.discover: the series about what a question names, found by their labels.

For the metrics no built-in tool names (a consumer group's lag, a pool's usage, a queue's
depth): the label names of the window are listed, one query finds the metric names whose
series carry a label value containing one of the terms (an object, a consumer group, a
queue), and each metric found is read the way its kind reads: a gauge as its last value
(and the sum over its series), a counter (`_total`, `_count`, `_sum`) as a rate, a
histogram (`_bucket`) as its p99. Bounded: a few metrics, a few series each; engineers
may use it (it reads only series that name what the question names), unlike raw PromQL.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Annotated

from pydantic import Field

from connectors.victoriametrics._client import QueryResult, Series
from connectors.victoriametrics._common import Run, gather, quote
from policy.facts import MetricsValue
from policy.numbers import number_said
from policy.results import ResultFact, ToolResult
from policy.window import WindowArgs

MAX_METRICS = 6
MAX_SERIES_SHOWN = 4
MAX_LABELS = 60
# labels that carry no names of things (bucket bounds, quantiles, the env tag we add)
_NOT_NAMES = {"__name__", "le", "quantile", "env", "prometheus", "prometheus_replica"}
_TERM = r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{2,99}$"


class DiscoverArgs(WindowArgs):
    terms: list[Annotated[str, Field(pattern=_TERM)]] = Field(
        min_length=1,
        max_length=5,
        description="names the question gives: an object, a consumer group, a queue, a pool",
    )


def _kind(name: str, family: set[str]) -> str:
    """How a metric reads, from the naming conventions: `_bucket` is a histogram, `_total`
    a counter, and `_sum` / `_count` a counter only beside its histogram or summary
    siblings (an exporter may name a plain gauge `..._sum`)."""
    if name.endswith("_bucket"):
        return "histogram"
    if name.endswith("_total"):
        return "counter"
    base = name.rsplit("_", 1)[0]
    siblings = {f"{base}_bucket", f"{base}_count", f"{base}_sum"} - {name}
    if name.endswith(("_count", "_sum")) and siblings & family:
        return "counter"
    return "gauge"


def _any_label(labels: list[str], terms: list[str]) -> str:
    """A selector set: every series with a name-like label value containing a term."""
    alternatives = "|".join(re.escape(t) for t in terms)
    value = quote(f"(?i).*({alternatives}).*")
    return " or ".join(f"{{{label}=~{value}}}" for label in labels)


async def discover(run: Run, args: DiscoverArgs) -> ToolResult:
    names = await run.client.label_names(run.window.start, run.window.end)
    labels = sorted(n for n in names if n not in _NOT_NAMES)[:MAX_LABELS]
    if not labels:
        return run.result(found=False, exists=False, note="the window has no labelled series")
    seconds = run.window.seconds
    selectors = _any_label(labels, args.terms)
    found = await run.instant(
        f"count by (__name__) (last_over_time(({selectors})[{seconds}s]) keep_metric_names)"
    )
    family = {s.labels["__name__"] for s in found.series if s.labels.get("__name__")}
    metrics = sorted(family, key=lambda n: (_kind(n, family) != "gauge", n))
    shown = metrics[:MAX_METRICS]
    kinds = [_kind(name, family) for name in shown]
    # a gauge is read as it was at the moment asked (its last sample up to then); rates
    # and quantiles over the whole window
    at = run.moment
    step = min(run.window.step_s, 60)  # the window's step is never under 15 s
    before = max(60, int((at - run.window.start).total_seconds()))
    reads = await gather(
        *(
            run.instant(_expr(n, k, selectors, before, step), at)
            if k == "gauge"
            else run.instant(_expr(n, k, selectors, seconds, step))
            for n, k in zip(shown, kinds, strict=True)
        )
    )
    facts = [
        fact
        for name, kind, read in zip(shown, kinds, reads, strict=True)
        for fact in _facts(run, name, kind, read)
    ]
    warnings = []
    if len(metrics) > len(shown):
        warnings.append(
            f"{len(metrics)} metrics name {', '.join(args.terms)}; read {len(shown)}: "
            + ", ".join(shown)
        )
    return run.result(
        found=bool(facts),
        exists=False,  # what no label names may still be measured under another name
        partial=len(metrics) > len(shown),
        facts=facts,
        warnings=warnings,
        note=None if metrics else f"no series in the window has a label naming {args.terms}",
    )


def _expr(name: str, kind: str, selectors: str, seconds: int, step_s: int) -> str:
    """The read of one metric. The series are selected by an expression (a name and any of
    the labels), so each is a subquery: its resolution is the window's step, not the
    server's default (five minutes in VictoriaMetrics, which read a 14:08 value at 14:05)."""
    scoped = f"({selectors})" if " or " in selectors else selectors
    named = f"{{__name__={quote(name)}}} and {scoped}"
    over = f"[{seconds}s:{step_s}s]"
    match kind:
        case "histogram":
            return f"histogram_quantile(0.99, sum by (le) (increase(({named}){over})))"
        case "counter":
            return f"rate(({named}){over})"
        case _:
            return f"last_over_time(({named}){over})"


def _facts(run: Run, name: str, kind: str, read: QueryResult) -> list[ResultFact]:
    expr = read.expr
    series = sorted(read.series, key=lambda s: -s.value)
    if not series:
        return []
    what = {"histogram": "p99", "counter": "per second", "gauge": "last value"}[kind]
    out: list[ResultFact] = []
    if len(series) > 1 and kind == "gauge":
        total = sum(s.value for s in series)
        out.append(
            run.fact(
                f"{name} in {run.env}: {number_said(total)} summed over {len(series)} series "
                f"({_common_labels(series)}) at {run.time(max(s.at for s in series))}",
                MetricsValue(metric=name, summed=len(series), labels=_shared(series), value=total),
                expr,
                max(s.at for s in series),
            )
        )
    for s in series[:MAX_SERIES_SHOWN]:
        labels = ", ".join(
            f'{k}="{v}"' for k, v in sorted(s.labels.items()) if k not in ("__name__", "env")
        )
        out.append(
            run.fact(
                f"{name}{{{labels}}} in {run.env}: {what} {number_said(s.value)} "
                f"at {run.time(s.at)}",
                MetricsValue(metric=name, labels=s.labels, value=s.value),
                expr,
                s.at,
            )
        )
    return out


def _shared(series: list[Series]) -> dict[str, str]:
    """The labels every series has with the same value."""
    common: dict[str, set[str]] = defaultdict(set)
    for s in series:
        for k, v in s.labels.items():
            common[k].add(v)
    return {
        k: next(iter(vs))
        for k, vs in common.items()
        if len(vs) == 1 and all(k in s.labels for s in series) and k != "env"
    }


def _common_labels(series: list[Series]) -> str:
    shared = _shared(series)
    return ", ".join(f'{k}="{v}"' for k, v in sorted(shared.items()) if k != "__name__") or "-"
