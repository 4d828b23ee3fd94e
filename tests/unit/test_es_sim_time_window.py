"""The Elasticsearch simulator narrows a search to its time window before matching: the
hits must be exactly those a full scan finds, whatever form the timestamps take."""

from __future__ import annotations

from typing import Any

import pytest

from evals.simulators.elasticsearch._query import compile_query
from evals.simulators.elasticsearch._search import execute, time_window
from evals.simulators.elasticsearch._store import Store

STAMPS = [
    "2026-07-20T11:03:29.999Z",  # just before the window
    "2026-07-20T11:03:30.000Z",  # its first millisecond
    "2026-07-20T14:10:00+03:00",  # inside, another offset
    "2026-07-20T11:12:41.075123456Z",  # inside, nanoseconds
    "2026-07-20T11:18:30.000Z",  # its last millisecond
    "2026-07-20T11:18:30.001Z",  # just after
    "2026-07-20T11:10:00",  # no offset: UTC
    1784545800000,  # epoch millis (11:10Z): compared differently, never narrowed out
    ["2026-07-20T11:10:00Z"],  # several values
    "not a date",
]


def _store() -> Store:
    docs = [{"@timestamp": s, "n": i} for i, s in enumerate(STAMPS)]
    return Store({"edge-access-1": docs})


def _hits(query: dict[str, Any]) -> list[int]:
    store = _store()
    body = {"query": query, "size": 100, "sort": [{"_doc": "asc"}]}
    result = execute(store.docs(["edge-access-1"]), 1, body, {})
    return [h["_source"]["n"] for h in result["hits"]["hits"]]


def _scan(query: dict[str, Any]) -> list[int]:
    pred = compile_query(query)
    return [d.source["n"] for d in _store().docs(["edge-access-1"]) if pred(d)]


WINDOW = {
    "range": {"@timestamp": {"gte": "2026-07-20T11:03:30.000Z", "lte": "2026-07-20T11:18:30.000Z"}}
}


@pytest.mark.parametrize(
    "query",
    [
        WINDOW,
        {"bool": {"filter": [WINDOW, {"exists": {"field": "n"}}]}},
        {"bool": {"must": [{"bool": {"filter": WINDOW}}]}},
        {"bool": {"should": [WINDOW], "minimum_should_match": 1}},  # not required: no window
        {
            "range": {
                "@timestamp": {"gt": "2026-07-20T14:03:30+03:00", "lt": "2026-07-20T11:18:30Z"}
            }
        },
        {"range": {"@timestamp": {"gte": "2026-07-20T11:03:30", "lte": "2026-07-20T11:18:30"}}},
    ],
)
def test_narrowed_search_finds_exactly_what_a_full_scan_finds(query: dict[str, Any]) -> None:
    assert _hits(query) == _scan(query)


def test_only_a_required_absolute_range_narrows() -> None:
    assert time_window(WINDOW) is not None
    assert time_window({"bool": {"filter": [WINDOW]}}) is not None
    assert time_window({"bool": {"should": [WINDOW]}}) is None
    assert time_window({"bool": {"must_not": [WINDOW]}}) is None
    naive = {"range": {"@timestamp": {"gte": "2026-07-20T11:03:30"}}}
    assert time_window(naive) is None  # a time_zone may apply: left to the full match


def test_a_numeric_range_far_beyond_any_date_is_still_a_number() -> None:
    big = {"range": {"n": {"gte": 10**15}}}
    assert _hits(big) == _scan(big) == []
