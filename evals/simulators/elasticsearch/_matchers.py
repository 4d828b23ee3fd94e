"""Leaf matchers: one predicate per leaf query (term, match, range, ...) over stored docs."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from evals.simulators.elasticsearch._errors import parsing_error
from evals.simulators.elasticsearch._fields import (
    as_number,
    field_values,
    leaf_values,
    looks_like_date,
    parse_date,
    term_equals,
    tokens,
    wildcard_regex,
)


@dataclass(frozen=True)
class StoredDoc:
    index: str
    id: str
    source: dict[str, Any]
    order: int  # position across the whole store: the `_doc` sort key
    timestamp_ms: int | None = None  # `@timestamp`, parsed once when stored (None: unknown)


Pred = Callable[[StoredDoc], bool]


def _flatten(node: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(node, dict):
        out: list[tuple[str, Any]] = []
        for key, value in node.items():
            out.extend(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(node, list):
        return [pair for item in node for pair in _flatten(item, prefix)]
    return [] if node is None else [(prefix, node)]


def values_of(doc: StoredDoc, field: str) -> list[Any]:
    if field in ("*", "_all"):
        return leaf_values(doc.source)
    if field == "_id":
        return [doc.id]
    if field == "_index":
        return [doc.index]
    if "*" in field:
        return [v for path, v in _flatten(doc.source) if fnmatch.fnmatchcase(path, field)]
    return field_values(doc.source, field)


def term(field: str, value: Any, *, case_insensitive: bool = False) -> Pred:
    return lambda doc: any(
        term_equals(v, value, case_insensitive=case_insensitive) for v in values_of(doc, field)
    )


def terms(field: str, values: list[Any]) -> Pred:
    return lambda doc: any(term_equals(v, q) for v in values_of(doc, field) for q in values)


def _phrase_in(needle: list[str], hay: list[str]) -> bool:
    size = len(needle)
    return any(hay[i : i + size] == needle for i in range(len(hay) - size + 1))


def match(field: str, text: Any, *, operator: str = "or") -> Pred:
    wanted = tokens(text)
    number = as_number(text)

    def pred(doc: StoredDoc) -> bool:
        values = values_of(doc, field)
        if number is not None and any(
            isinstance(v, int | float) and as_number(v) == number for v in values
        ):
            return True
        have = {t for v in values for t in tokens(v)}
        if not wanted:
            return False
        if operator == "and":
            return all(t in have for t in wanted)
        return any(t in have for t in wanted)

    return pred


def phrase(field: str, text: Any) -> Pred:
    wanted = tokens(text)

    def pred(doc: StoredDoc) -> bool:
        if not wanted:
            return False
        return any(_phrase_in(wanted, tokens(v)) for v in values_of(doc, field))

    return pred


def text_term(field: str, text: str) -> Pred:
    """An unquoted query_string term: equal to the whole value, or its tokens as a phrase."""
    wanted = tokens(text)
    return lambda doc: any(
        term_equals(v, text, case_insensitive=True)
        or (bool(wanted) and _phrase_in(wanted, tokens(v)))
        for v in values_of(doc, field)
    )


def prefix(field: str, value: str, *, case_insensitive: bool = False) -> Pred:
    want = value.lower() if case_insensitive else value

    def pred(doc: StoredDoc) -> bool:
        for v in values_of(doc, field):
            if isinstance(v, dict | list):
                continue
            text = str(v).lower() if case_insensitive else str(v)
            if text.startswith(want) or any(t.startswith(want.lower()) for t in tokens(v)):
                return True
        return False

    return pred


def wildcard(field: str, pattern: str, *, case_insensitive: bool = False) -> Pred:
    regex = wildcard_regex(pattern, case_insensitive=case_insensitive)
    lowered = wildcard_regex(pattern.lower())

    def pred(doc: StoredDoc) -> bool:
        for v in values_of(doc, field):
            if isinstance(v, dict | list):
                continue
            if regex.fullmatch(str(v)) or any(lowered.fullmatch(t) for t in tokens(v)):
                return True
        return False

    return pred


def regexp(field: str, pattern: str) -> Pred:
    """Lucene's regexp over a whole keyword value (or one token of a text field); the
    operators a query of ours may use (., *, +, ?, [...], (...), |) mean what Python's do."""
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise parsing_error(f"[regexp] invalid pattern [{pattern}]: {exc}") from None

    def pred(doc: StoredDoc) -> bool:
        for v in values_of(doc, field):
            if isinstance(v, dict | list):
                continue
            if regex.fullmatch(str(v)) or any(regex.fullmatch(t) for t in tokens(v)):
                return True
        return False

    return pred


def exists(field: str) -> Pred:
    return lambda doc: bool(values_of(doc, field))


_RANGE_KEYS = {"gte", "gt", "lte", "lt", "format", "time_zone", "boost", "relation", "_name"}
_KNOWN_FORMATS = {
    "epoch_millis",
    "epoch_second",
    "strict_date_optional_time",
    "date_optional_time",
    "strict_date_optional_time_nanos",
    "strict_date_time",
    "date_time",
}


def parse_time_zone(name: str | None) -> tzinfo:
    if name is None or name in ("Z", "UTC", "utc", "GMT"):
        return UTC
    sign = name[:1]
    if sign in "+-" and len(name) in (3, 5, 6):
        digits = name[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:] or 0)
        delta = timedelta(hours=hours, minutes=minutes)
        return timezone(-delta if sign == "-" else delta)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise parsing_error(f"failed to parse time_zone [{name}]") from None


def range_(field: str, spec: Any) -> Pred:
    if not isinstance(spec, dict):
        raise parsing_error(f"[range] query malformed, no start_object after field [{field}]")
    spec = dict(spec)
    if "from" in spec or "to" in spec:  # the legacy form
        low_key = "gte" if spec.pop("include_lower", True) else "gt"
        high_key = "lte" if spec.pop("include_upper", True) else "lt"
        if spec.get("from") is not None:
            spec[low_key] = spec["from"]
        if spec.get("to") is not None:
            spec[high_key] = spec["to"]
        spec.pop("from", None)
        spec.pop("to", None)
    unknown = set(spec) - _RANGE_KEYS
    if unknown:
        raise parsing_error(f"[range] query does not support [{sorted(unknown)[0]}]")
    formats = set(str(spec.get("format", "strict_date_optional_time||epoch_millis")).split("||"))
    if formats - _KNOWN_FORMATS:
        raise parsing_error(f"date format [{spec['format']}] is not supported by the simulator")
    tz = parse_time_zone(spec.get("time_zone"))
    bounds = {op: spec[op] for op in ("gte", "gt", "lte", "lt") if spec.get(op) is not None}
    for op, bound in bounds.items():
        if isinstance(bound, str) and ("now" in bound or "||" in bound):
            raise parsing_error(
                f"[range] {op} [{bound}]: date math is not supported by the simulator; "
                "send absolute times"
            )

    def as_date(bound: Any) -> datetime | None:
        if isinstance(bound, int | float) and not isinstance(bound, bool):
            seconds = "epoch_second" in formats and "epoch_millis" not in formats
            return datetime.fromtimestamp(bound if seconds else bound / 1000, tz=UTC)
        moment = parse_date(bound)
        if moment is not None and isinstance(bound, str) and _naive(bound):
            moment = moment.replace(tzinfo=tz)
        return moment

    bound_dates: dict[str, datetime | None] = {}  # each bound parsed once, when first needed

    def bound_date(op: str, bound: Any) -> datetime | None:
        if op not in bound_dates:
            bound_dates[op] = as_date(bound)
        return bound_dates[op]

    def compare(value: Any, op: str, bound: Any) -> bool:
        left: Any
        right: Any
        if looks_like_date(value):
            left, right = parse_date(value), bound_date(op, bound)
        elif as_number(value) is not None and as_number(bound) is not None:
            left, right = as_number(value), as_number(bound)
        else:
            left, right = str(value), str(bound)
        if left is None or right is None:
            return False
        verdict: bool = {
            "gte": left >= right,
            "gt": left > right,
            "lte": left <= right,
            "lt": left < right,
        }[op]
        return verdict

    def pred(doc: StoredDoc) -> bool:
        return any(
            all(compare(v, op, b) for op, b in bounds.items())
            for v in values_of(doc, field)
            if not isinstance(v, dict | list)
        )

    return pred


def _naive(text: str) -> bool:
    tail = text.strip()[10:]
    return not (tail.endswith(("Z", "z")) or "+" in tail or tail.count("-") > 0)
