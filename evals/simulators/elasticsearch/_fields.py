"""Field access and value coercion, the way Elasticsearch's dynamic mapping sees a document.

Dotted paths reach into objects (`kubernetes.pod`) and also match literal dotted keys
(`"http.status": 502`); an array matches when any element does; the `.keyword` sub-field
of a dynamically mapped string is the same value; ISO-8601 strings are dates, compared as
instants (epoch milliseconds), and numeric strings compare as numbers against numbers.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

_DATE_RE = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)?(?:Z|z|[+-]\d{2}:?\d{2})?$"
)
_NUMBER_RE = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")  # one digit split
_TOKEN_RE = re.compile(r"\w+(?:\.\w+)*")


def field_values(source: dict[str, Any], field: str) -> list[Any]:
    """Every non-null leaf value at `field` (arrays flattened)."""
    if field.endswith(".keyword"):
        field = field[: -len(".keyword")]
    out: list[Any] = []
    _collect(source, field.split("."), out)
    return out


def _collect(node: Any, parts: list[str], out: list[Any]) -> None:
    if isinstance(node, list):
        for item in node:
            _collect(item, parts, out)
        return
    if not parts:
        if node is not None:
            out.append(node)
        return
    if not isinstance(node, dict):
        return
    for i in range(len(parts), 0, -1):
        key = ".".join(parts[:i])
        if key in node:
            _collect(node[key], parts[i:], out)


def leaf_values(node: Any) -> list[Any]:
    """All scalar leaves of a document, for a query without a field (`*`)."""
    if isinstance(node, dict):
        return [v for value in node.values() for v in leaf_values(value)]
    if isinstance(node, list):
        return [v for value in node for v in leaf_values(value)]
    return [] if node is None else [node]


def tokens(value: Any) -> list[str]:
    """A small stand-in for the standard analyzer: lower-cased word tokens."""
    if isinstance(value, bool):
        return [str(value).lower()]
    return _TOKEN_RE.findall(str(value).lower())


def as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _NUMBER_RE.match(value.strip()):
        return float(value)
    return None


def looks_like_date(value: Any) -> bool:
    return isinstance(value, str) and bool(_DATE_RE.match(value.strip()))


def parse_date(value: Any, *, epoch_millis: bool = True) -> datetime | None:
    """An ISO-8601 string (offset or Z; no offset means UTC) or epoch milliseconds."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / 1000, tz=UTC) if epoch_millis else None
    if not isinstance(value, str):
        return None
    return _parse_date_text(value, epoch_millis)


@lru_cache(maxsize=65536)
def _parse_date_text(value: str, epoch_millis: bool) -> datetime | None:
    """A search compares the same stored timestamps again and again: parsed once each."""
    text = value.strip()
    if epoch_millis and re.fullmatch(r"-?\d{10,}", text):
        return datetime.fromtimestamp(int(text) / 1000, tz=UTC)
    if not _DATE_RE.match(text):
        return None
    text = text.replace(",", ".")
    match = re.search(r"\.(\d+)", text)
    if match and len(match.group(1)) > 6:  # nanoseconds: Python keeps microseconds
        text = text.replace(match.group(0), "." + match.group(1)[:6])
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def to_millis(moment: datetime) -> int:
    return math.floor(moment.timestamp() * 1000 + 0.5)


def format_millis(millis: int, tz: Any = UTC) -> str:
    """`strict_date_optional_time` as Elasticsearch renders bucket keys."""
    moment = datetime.fromtimestamp(millis / 1000, tz=UTC).astimezone(tz)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"
    offset = moment.strftime("%z")
    if offset in ("+0000", ""):
        return text + "Z"
    return text + offset[:3] + ":" + offset[3:]


def sortable(value: Any) -> tuple[int, Any]:
    """A key that orders mixed values: numbers and dates as numbers, then strings."""
    if isinstance(value, bool):
        return (0, int(value))
    if isinstance(value, int | float):
        return (0, value)
    if looks_like_date(value):
        moment = parse_date(value)
        if moment is not None:
            return (0, to_millis(moment))
    return (1, str(value))


def sort_value(value: Any) -> Any:
    """The value shown in a hit's `sort` array: dates as epoch millis, like the real API."""
    kind, key = sortable(value)
    if kind == 0 and isinstance(key, float) and key.is_integer():
        return int(key)
    return key


def term_equals(doc_value: Any, query_value: Any, *, case_insensitive: bool = False) -> bool:
    """`term` semantics on a keyword-ish field, with numeric and date coercion."""
    if isinstance(doc_value, dict | list) or isinstance(query_value, dict | list):
        return False
    if isinstance(doc_value, bool) or isinstance(query_value, bool):
        return str(doc_value).lower() == str(query_value).lower()
    if isinstance(doc_value, int | float) or isinstance(query_value, int | float):
        left, right = as_number(doc_value), as_number(query_value)
        if left is not None and right is not None:
            return left == right
    if looks_like_date(doc_value) and (looks_like_date(query_value)):
        left_d, right_d = parse_date(doc_value), parse_date(query_value)
        if left_d is not None and right_d is not None:
            return left_d == right_d
    left_s, right_s = str(doc_value), str(query_value)
    if case_insensitive:
        return left_s.lower() == right_s.lower()
    return left_s == right_s


def wildcard_regex(pattern: str, *, case_insensitive: bool = False) -> re.Pattern[str]:
    """`*` and `?` as in the wildcard query; everything else literal (`\\` escapes)."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if char == "*" else "." if char == "?" else re.escape(char))
        i += 1
    return re.compile("".join(out), re.DOTALL | (re.IGNORECASE if case_insensitive else 0))
