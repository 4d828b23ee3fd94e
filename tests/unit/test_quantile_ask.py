"""The latency quantile asked is the one read: p50, p95, p99.9, percentiles and the median,
in English and Russian; a P1 incident or a version is no quantile."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from planner.question.context import build_context
from planner.question.quantile import quantile_asked


@pytest.mark.parametrize(
    ("question", "quantile"),
    [
        ("what is the p95 latency of service-a in dc-a right now?", 0.95),
        ("какая p50 латентность у catalog-api в dc-b?", 0.5),
        ("p99.9 of checkout-web over the last hour", 0.999),
        ("95th percentile latency of search-api", 0.95),
        ("95-й перцентиль задержки search-api", 0.95),
        ("медиана времени ответа auth-api", 0.5),
        ("median response time of auth-api", 0.5),
    ],
)
def test_the_quantile_named_is_read(question: str, quantile: float) -> None:
    assert quantile_asked(question) == quantile


@pytest.mark.parametrize(
    "question",
    ["latency of service-a", "P1 incident on service-a", "is http2 on?", "service-a v2.95 rollout"],
)
def test_no_quantile_is_read_where_none_is_named(question: str) -> None:
    assert quantile_asked(question) is None


def test_a_follow_up_keeps_the_quantile_it_asked_before() -> None:
    now = datetime(2026, 7, 20, 11, 40, tzinfo=UTC)
    first = build_context(
        "p95 latency of service-a in dc-a?", envs=["dc-a", "dc-b"], inventory=[], now=now, tz=UTC
    )
    again = build_context(
        "and in dc-b?", envs=["dc-a", "dc-b"], inventory=[], now=now, tz=UTC, previous=first
    )
    assert first.quantile == 0.95 and again.quantile == 0.95
