"""Aggregations: terms and date_histogram (with nested aggs), plus simple metrics."""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from evals.simulators.elasticsearch._errors import illegal_argument, parsing_error
from evals.simulators.elasticsearch._fields import (
    as_number,
    format_millis,
    looks_like_date,
    parse_date,
    to_millis,
)
from evals.simulators.elasticsearch._matchers import StoredDoc, parse_time_zone, values_of

_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_CALENDAR = {
    "minute": "minute",
    "1m": "minute",
    "hour": "hour",
    "1h": "hour",
    "day": "day",
    "1d": "day",
    "week": "week",
    "1w": "week",
    "month": "month",
    "1M": "month",
    "quarter": "quarter",
    "1q": "quarter",
    "year": "year",
    "1y": "year",
}
_METRICS = {"min", "max", "avg", "sum", "value_count", "cardinality"}


def run_aggs(spec: Any, docs: list[StoredDoc], *, typed_keys: bool = False) -> dict[str, Any]:
    if not isinstance(spec, dict):
        raise parsing_error("aggregations must be an object")
    out: dict[str, Any] = {}
    for name, body in spec.items():
        if not isinstance(body, dict):
            raise parsing_error(f"Expected [START_OBJECT] under [{name}]")
        sub = body.get("aggs", body.get("aggregations"))
        kinds = [k for k in body if k not in ("aggs", "aggregations", "meta")]
        if len(kinds) != 1:
            raise parsing_error(f"Expected exactly one aggregation type under [{name}]")
        kind = kinds[0]
        if kind == "terms":
            result, prefix = _terms(body[kind], docs, sub, typed_keys)
        elif kind == "date_histogram":
            result, prefix = _date_histogram(body[kind], docs, sub, typed_keys), "date_histogram"
        elif kind in _METRICS:
            result, prefix = _metric(kind, body[kind], docs), kind
        else:
            raise parsing_error(f"Unknown aggregation type [{kind}]")
        out[f"{prefix}#{name}" if typed_keys else name] = result
    return out


def _field(kind: str, spec: Any) -> str:
    if not isinstance(spec, dict) or not isinstance(spec.get("field"), str):
        raise parsing_error(f"[{kind}] aggregation needs a [field]")
    field: str = spec["field"]
    return field


def _bucket_key(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _terms(spec: Any, docs: list[StoredDoc], sub: Any, typed: bool) -> tuple[dict[str, Any], str]:
    field = _field("terms", spec)
    allowed = {"field", "size", "min_doc_count", "order", "missing", "shard_size"}
    unknown = set(spec) - allowed
    if unknown:
        raise parsing_error(f"[terms] aggregation does not support [{sorted(unknown)[0]}]")
    if not field.endswith(".keyword") and any(
        isinstance(v, str) and not looks_like_date(v) for d in docs for v in values_of(d, field)
    ):
        # dynamic mapping made the strings `text` (the simulator judges by the matched docs)
        raise illegal_argument(
            "Text fields are not optimised for operations that require per-document field "
            "data like aggregations and sorting, so these operations are disabled by default. "
            f"Please use a keyword field instead. Alternatively, set fielddata=true on [{field}] "
            "in order to load field data by uninverting the inverted index. Note that this can "
            "however use significant memory."
        )
    size = int(spec.get("size", 10))
    min_count = int(spec.get("min_doc_count", 1))
    counts: Counter[Any] = Counter()
    members: dict[Any, list[StoredDoc]] = {}
    for doc in docs:
        values = values_of(doc, field) or ([spec["missing"]] if "missing" in spec else [])
        for key in {_bucket_key(v) for v in values if not isinstance(v, dict | list)}:
            counts[key] += 1
            members.setdefault(key, []).append(doc)
    order = spec.get("order", {"_count": "desc"})
    order = order[0] if isinstance(order, list) and order else order
    ((order_key, direction),) = dict(order).items()
    if order_key not in ("_count", "_key") or direction not in ("asc", "desc"):
        raise parsing_error(f"[terms] order [{order}] is not supported by the simulator")

    def key_sort(k: Any) -> tuple[int, Any]:
        return (0, k) if isinstance(k, int | float) else (1, str(k))

    keys = sorted(counts, key=key_sort)
    if order_key == "_count":
        keys.sort(key=lambda k: counts[k], reverse=direction == "desc")
    elif direction == "desc":
        keys.reverse()
    keys = [k for k in keys if counts[k] >= min_count]
    shown = keys[:size]
    buckets = []
    for key in shown:
        bucket: dict[str, Any] = {"key": key, "doc_count": counts[key]}
        if isinstance(key, str) and looks_like_date(key):
            moment = parse_date(key)
            if moment is not None:
                bucket = {"key": to_millis(moment), "key_as_string": key, "doc_count": counts[key]}
        if sub:
            bucket.update(run_aggs(sub, members[key], typed_keys=typed))
        buckets.append(bucket)
    other = sum(counts[k] for k in keys[size:])
    prefix = "sterms" if any(isinstance(k, str) for k in shown) else "lterms"
    result = {"doc_count_error_upper_bound": 0, "sum_other_doc_count": other, "buckets": buckets}
    return result, prefix


def _parse_fixed(text: str) -> int:
    match = re.fullmatch(r"(\d+)(ms|s|m|h|d)", str(text))
    if not match or int(match.group(1)) == 0:
        raise illegal_argument(
            f"failed to parse setting [date_histogram.fixedInterval] with "
            f"value [{text}] as a time value"
        )
    return int(match.group(1)) * _UNITS[match.group(2)]


def _floor_calendar(moment: datetime, unit: str) -> datetime:
    base = moment.replace(second=0, microsecond=0)
    if unit == "minute":
        return base
    base = base.replace(minute=0)
    if unit == "hour":
        return base
    base = base.replace(hour=0)
    if unit == "day":
        return base
    if unit == "week":
        return base - timedelta(days=base.weekday())
    if unit == "month":
        return base.replace(day=1)
    if unit == "quarter":
        return base.replace(day=1, month=(base.month - 1) // 3 * 3 + 1)
    return base.replace(day=1, month=1)


def _next_calendar(moment: datetime, unit: str) -> datetime:
    steps = {
        "minute": timedelta(minutes=1),
        "hour": timedelta(hours=1),
        "day": timedelta(days=1),
        "week": timedelta(days=7),
    }
    if unit in steps:
        return (moment.replace(tzinfo=None) + steps[unit]).replace(tzinfo=moment.tzinfo)
    months = {"month": 1, "quarter": 3, "year": 12}[unit]
    total = moment.year * 12 + moment.month - 1 + months
    return moment.replace(year=total // 12, month=total % 12 + 1)


def _date_histogram(spec: Any, docs: list[StoredDoc], sub: Any, typed: bool) -> dict[str, Any]:
    field = _field("date_histogram", spec)
    allowed = {
        "field",
        "fixed_interval",
        "calendar_interval",
        "time_zone",
        "min_doc_count",
        "extended_bounds",
        "format",
        "keyed",
    }
    unknown = set(spec) - allowed
    if unknown:
        raise parsing_error(f"[date_histogram] does not support [{sorted(unknown)[0]}]")
    if ("fixed_interval" in spec) == ("calendar_interval" in spec):
        raise illegal_argument(
            "date_histogram needs exactly one of [fixed_interval, calendar_interval]"
        )
    tz = parse_time_zone(spec.get("time_zone"))
    if "fixed_interval" in spec:
        width = _parse_fixed(spec["fixed_interval"])

        def floor(ms: int) -> int:
            offset = _offset_ms(ms, tz)
            return (ms + offset) // width * width - offset

        def step(ms: int) -> int:
            return floor(ms + width)
    else:
        unit = _CALENDAR.get(str(spec["calendar_interval"]))
        if unit is None:
            raise illegal_argument(
                f"The supplied interval [{spec['calendar_interval']}] could "
                "not be parsed as a calendar interval."
            )

        def floor(ms: int) -> int:
            local = datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone(tz)
            return to_millis(_floor_calendar(local, unit))

        def step(ms: int) -> int:
            local = datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone(tz)
            return to_millis(_next_calendar(local, unit))

    members: dict[int, list[StoredDoc]] = {}
    for doc in docs:
        doc_keys: set[int] = set()
        for value in values_of(doc, field):
            moment = parse_date(value)
            if moment is not None:
                doc_keys.add(floor(to_millis(moment)))
        for key in doc_keys:
            members.setdefault(key, []).append(doc)
    min_count = int(spec.get("min_doc_count", 0))
    keys = sorted(members)
    bounds = spec.get("extended_bounds") or {}
    if min_count == 0 and (keys or bounds):
        low_candidates = [*keys[:1], _bound(bounds.get("min"), floor)]
        high_candidates = [*keys[-1:], _bound(bounds.get("max"), floor)]
        low = min(k for k in low_candidates if k is not None)
        high = max(k for k in high_candidates if k is not None)
        keys, cursor = [], low  # every bucket between, empty ones included
        while cursor <= high and len(keys) < 65_536:
            keys.append(cursor)
            cursor = step(cursor)
    buckets = []
    for key in keys:
        group = members.get(key, [])
        if len(group) < min_count:
            continue
        bucket: dict[str, Any] = {
            "key_as_string": format_millis(key, tz),
            "key": key,
            "doc_count": len(group),
        }
        if sub:
            bucket.update(run_aggs(sub, group, typed_keys=typed))
        buckets.append(bucket)
    return {"buckets": buckets}


def _bound(value: Any, floor: Any) -> int | None:
    if value is None:
        return None
    moment = parse_date(value)
    if moment is None:
        raise parsing_error(f"[extended_bounds] cannot parse [{value}]")
    bound: int = floor(to_millis(moment))
    return bound


def _offset_ms(ms: int, tz: tzinfo) -> int:
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone(tz)
    offset = moment.utcoffset()
    return int(offset.total_seconds() * 1000) if offset else 0


def _metric(kind: str, spec: Any, docs: list[StoredDoc]) -> dict[str, Any]:
    field = _field(kind, spec)
    values = [v for doc in docs for v in values_of(doc, field) if not isinstance(v, dict | list)]
    if kind == "value_count":
        return {"value": len(values)}
    if kind == "cardinality":
        return {"value": len({str(v) for v in values})}
    numbers = []
    for value in values:
        number = as_number(value)
        if number is None and looks_like_date(value):
            moment = parse_date(value)
            number = float(to_millis(moment)) if moment else None
        if number is not None:
            numbers.append(number)
    if kind == "sum":
        return {"value": sum(numbers)}
    if not numbers:
        return {"value": None}
    value = {"min": min, "max": max}.get(kind, lambda xs: sum(xs) / len(xs))(numbers)
    return {"value": value}
