"""The quantile a question asks for: "p95", "p99.9", "95th percentile", "95-й перцентиль",
"median" / "медиана". Class "p95 asked, p99 given": the quantile asked is the one read,
and a question that names none leaves the tool's own default (p99), said in the answer.
"""

from __future__ import annotations

import re

_P = re.compile(r"(?<![\w.])p(\d{2}(?:\.\d{1,3})?)(?![\w.])", re.I)  # p50, p99.9; not "P1"
_PERCENTILE = re.compile(
    r"(?<![\w.])(\d{1,2}(?:\.\d{1,3})?)\s*(?:th|st|nd|rd|-?[йяго]{1,2})?[\s-]*"
    r"(?:percentile|pctl|перцентил\w{0,3}|процентил\w{0,3}|квантил\w{0,3})",
    re.I,
)
_MEDIAN = re.compile(r"\bmedian\b|медиан\w{0,3}", re.I)


def quantile_asked(message: str) -> float | None:
    """The quantile the message names, as a fraction (0.95), or None."""
    if _MEDIAN.search(message):
        return 0.5
    for rx in (_P, _PERCENTILE):
        found = rx.search(message)
        if found is not None:
            value = round(float(found.group(1)) / 100, 6)
            if 0 < value < 1:
                return value
    return None
