"""The Elasticsearch simulator, driven by the official `elasticsearch` client over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from elasticsearch import (
    ApiError,
    AuthorizationException,
    BadRequestError,
    ConnectionTimeout,
    Elasticsearch,
    NotFoundError,
    SerializationError,
)

from evals.simulators.host import WorldSimulators
from evals.world import World, world_from_data

DOCS: dict[str, list[dict[str, Any]]] = {
    "app-x-2026.07.20": [
        {
            "_id": "d1",
            "@timestamp": "2026-07-20T11:00:00.000Z",
            "level": "INFO",
            "message": "request finished ok",
            "latency_ms": 12,
            "kubernetes": {"pod": "api-1", "namespace": "shop"},
            "http": {"status": 200},
        },
        {
            "_id": "d2",
            "@timestamp": "2026-07-20T11:01:30.000Z",
            "level": "ERROR",
            "message": "upstream sent too big header while reading response header",
            "latency_ms": 45,
            "kubernetes": {"pod": "api-2", "namespace": "shop"},
            "http.status": 502,
        },
        {
            "_id": "d3",
            "@timestamp": "2026-07-20T14:02:00+03:00",
            "level": "WARN",
            "message": "slow request",
            "latency_ms": 900,
            "tags": ["slow", "checkout"],
            "kubernetes": {"pod": "api-1", "namespace": "shop"},
            "http": {"status": 200},
        },
    ],
    "edge-x-2026.07.20": [
        {
            "_id": "d4",
            "@timestamp": "2026-07-20T11:03:00Z",
            "host": "pay.example.com",
            "status": 502,
            "upstream_status": "502",
            "request_id": "abc123",
        },
        {
            "_id": "d5",
            "@timestamp": "2026-07-20T11:05:00Z",
            "host": "shop.example.net",
            "status": 200,
        },
    ],
}


def _ms(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1000)


def make_world(faults: list[dict[str, Any]] | None = None, logs: Any = None) -> World:
    return world_from_data(
        {
            "environments": {"dc-a": ["logs"]},
            "logs": {"dc-a": logs if logs is not None else DOCS},
            "faults": faults or [],
        }
    )


@pytest.fixture(scope="module")
def sims() -> Iterator[WorldSimulators]:
    with WorldSimulators(make_world()) as running:
        yield running


@pytest.fixture
def es(sims: WorldSimulators) -> Elasticsearch:
    return Elasticsearch(sims.endpoints.envs["dc-a"].logs, request_timeout=5, max_retries=0)


def ids(resp: Any) -> set[str]:
    return {h["_id"] for h in resp["hits"]["hits"]}


def test_info_product_header_and_compat_media_type(sims: WorldSimulators, es: Elasticsearch):
    assert es.info()["version"]["number"].startswith("9.")
    base = sims.endpoints.envs["dc-a"].logs
    for version in (9, 8):
        resp = httpx.get(
            base + "/",
            headers={"Accept": f"application/vnd.elasticsearch+json; compatible-with={version}"},
        )
        assert resp.headers["X-Elastic-Product"] == "Elasticsearch"
        assert f"compatible-with={version}" in resp.headers["content-type"]
    plain = httpx.get(base + "/")
    assert plain.headers["content-type"].startswith("application/json")
    bad = httpx.get(
        base + "/_search",
        headers={"Accept": "application/vnd.elasticsearch+json; compatible-with=7"},
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["type"] == "media_type_header_exception"
    assert bad.headers["X-Elastic-Product"] == "Elasticsearch"
    missing = httpx.post(base + "/nope/_search")
    assert missing.status_code == 404 and missing.headers["X-Elastic-Product"] == "Elasticsearch"


QUERIES: list[tuple[str, dict[str, Any], set[str]]] = [
    ("match_all", {"match_all": {}}, {"d1", "d2", "d3", "d4", "d5"}),
    ("term nested path", {"term": {"kubernetes.pod": "api-1"}}, {"d1", "d3"}),
    ("term .keyword", {"term": {"kubernetes.pod.keyword": {"value": "api-2"}}}, {"d2"}),
    ("term literal dotted key", {"term": {"http.status": 502}}, {"d2"}),
    ("term number as string", {"term": {"http.status": "200"}}, {"d1", "d3"}),
    ("terms", {"terms": {"level": ["ERROR", "WARN"]}}, {"d2", "d3"}),
    ("match or", {"match": {"message": "header slow"}}, {"d2", "d3"}),
    ("match and", {"match": {"message": {"query": "too big header", "operator": "and"}}}, {"d2"}),
    ("match_phrase", {"match_phrase": {"message": "too big header"}}, {"d2"}),
    ("match_phrase order", {"match_phrase": {"message": "big too"}}, set()),
    (
        "range iso offsets",
        {
            "range": {
                "@timestamp": {"gte": "2026-07-20T14:01:00+03:00", "lt": "2026-07-20T11:03:00Z"}
            }
        },
        {"d2", "d3"},
    ),
    (
        "range epoch_millis",
        {
            "range": {
                "@timestamp": {"gte": _ms("2026-07-20T11:02:00+00:00"), "format": "epoch_millis"}
            }
        },
        {"d3", "d4", "d5"},
    ),
    ("range number", {"range": {"latency_ms": {"gt": 40}}}, {"d2", "d3"}),
    ("prefix", {"prefix": {"host": "pay."}}, {"d4"}),
    ("wildcard", {"wildcard": {"host": {"value": "*.example.*"}}}, {"d4", "d5"}),
    ("exists", {"exists": {"field": "upstream_status"}}, {"d4"}),
    (
        "bool filter + must_not",
        {
            "bool": {
                "filter": [{"term": {"kubernetes.namespace": "shop"}}],
                "must_not": [{"exists": {"field": "tags"}}],
            }
        },
        {"d1", "d2"},
    ),
    (
        "bool minimum_should_match",
        {
            "bool": {
                "should": [
                    {"term": {"level": "ERROR"}},
                    {"term": {"level": "WARN"}},
                    {"term": {"http.status": 200}},
                ],
                "minimum_should_match": 2,
            }
        },
        {"d3"},
    ),
    ("bool should alone needs one", {"bool": {"should": [{"term": {"status": 200}}]}}, {"d5"}),
    (
        "bool must + optional should",
        {"bool": {"must": [{"term": {"level": "INFO"}}], "should": [{"term": {"level": "nope"}}]}},
        {"d1"},
    ),
    (
        "query_string fields AND",
        {"query_string": {"query": "level:ERROR AND kubernetes.namespace:shop"}},
        {"d2"},
    ),
    ("query_string phrase any field", {"query_string": {"query": '"too big header"'}}, {"d2"}),
    ("query_string range", {"query_string": {"query": "status:>=500"}}, {"d4"}),
    (
        "query_string default AND",
        {"query_string": {"query": "slow checkout", "default_operator": "AND"}},
        {"d3"},
    ),
    ("query_string default OR", {"query_string": {"query": "slow abc123"}}, {"d3", "d4"}),
    (
        "query_string NOT",
        {"query_string": {"query": "NOT level:INFO AND kubernetes.pod:api-1"}},
        {"d3"},
    ),
    (
        "query_string brackets",
        {"query_string": {"query": "latency_ms:[10 TO 50] AND -level:ERROR"}},
        {"d1"},
    ),
]


@pytest.mark.parametrize(("name", "query", "expected"), QUERIES, ids=[q[0] for q in QUERIES])
def test_query_dsl(es: Elasticsearch, name: str, query: dict[str, Any], expected: set[str]):
    assert ids(es.search(index="*", query=query, size=50)) == expected


def test_index_expressions(es: Elasticsearch):
    assert ids(es.search(index="app-*,edge-*", size=50)) == {"d1", "d2", "d3", "d4", "d5"}
    assert ids(es.search(index="*,-app-*", size=50)) == {"d4", "d5"}
    assert ids(es.search(size=50)) == {"d1", "d2", "d3", "d4", "d5"}
    assert es.count(index="app-*", query={"term": {"level": "ERROR"}})["count"] == 1
    assert es.search(index="nope-*")["hits"]["total"] == {"value": 0, "relation": "eq"}
    with pytest.raises(NotFoundError) as exc:
        es.search(index="nope-*", allow_no_indices=False)
    assert exc.value.body["error"]["type"] == "index_not_found_exception"
    with pytest.raises(NotFoundError):
        es.search(index="app-x-2026.07.20,gone")
    ok = es.search(index="app-x-2026.07.20,gone", ignore_unavailable=True, size=50)
    assert ids(ok) == {"d1", "d2", "d3"}


def test_sort_size_from_and_sort_values(es: Elasticsearch):
    resp = es.search(index="*", sort=[{"@timestamp": "desc"}], size=5)
    assert [h["_id"] for h in resp["hits"]["hits"]] == ["d5", "d4", "d3", "d2", "d1"]
    assert resp["hits"]["hits"][0]["sort"] == [_ms("2026-07-20T11:05:00+00:00")]
    page = es.search(index="*", sort=[{"@timestamp": {"order": "asc"}}], size=2, from_=1)
    assert [h["_id"] for h in page["hits"]["hits"]] == ["d2", "d3"]
    latency = es.search(index="*", sort=[{"latency_ms": "desc"}], size=5)
    assert [h["_id"] for h in latency["hits"]["hits"]][:3] == ["d3", "d2", "d1"]
    assert latency["hits"]["hits"][-1]["sort"] == [None]  # missing values sort last


def test_search_after_pages_through_everything_once(es: Elasticsearch):
    seen: list[str] = []
    after = None
    sort = [{"@timestamp": "asc"}, {"_doc": "asc"}]
    while True:
        kwargs: dict[str, Any] = {"search_after": after} if after else {}
        resp = es.search(index="*", sort=sort, size=2, track_total_hits=True, **kwargs)
        hits = resp["hits"]["hits"]
        seen += [h["_id"] for h in hits]
        if len(hits) < 2:
            break
        after = hits[-1]["sort"]
    assert seen == ["d1", "d2", "d3", "d4", "d5"]
    with pytest.raises(BadRequestError):
        es.search(index="*", search_after=[1], size=2)  # search_after needs a sort


def test_track_total_hits(es: Elasticsearch):
    assert es.search(index="*", track_total_hits=True)["hits"]["total"] == {
        "value": 5,
        "relation": "eq",
    }
    assert es.search(index="*", track_total_hits=3)["hits"]["total"] == {
        "value": 3,
        "relation": "gte",
    }
    assert "total" not in es.search(index="*", track_total_hits=False)["hits"]


def test_default_track_total_hits_is_10000():
    docs = [{"@timestamp": "2026-07-20T11:00:00Z", "n": i} for i in range(10_005)]
    with WorldSimulators(make_world(logs={"big-1": docs})) as running:
        es = Elasticsearch(running.endpoints.envs["dc-a"].logs, request_timeout=10)
        total = es.search(index="big-*", size=0)["hits"]["total"]
        assert total == {"value": 10_000, "relation": "gte"}
        exact = es.search(index="big-*", size=0, track_total_hits=True)["hits"]["total"]
        assert exact == {"value": 10_005, "relation": "eq"}


def test_a_terms_aggregation_on_a_text_field_is_refused_as_elasticsearch_refuses_it(
    es: Elasticsearch,
):
    """Dynamic mapping makes a string `text` (with a `.keyword` sub-field), and a terms
    aggregation over text fails: a connector that counts by `host` must ask for the
    keyword."""
    with pytest.raises(BadRequestError) as err:
        es.search(index="app-*", size=0, aggs={"p": {"terms": {"field": "kubernetes.pod"}}})
    assert "Text fields are not optimised" in str(err.value)


def test_aggregations(es: Elasticsearch):
    resp = es.search(
        index="app-*",
        size=0,
        aggs={
            "pods": {"terms": {"field": "kubernetes.pod.keyword", "size": 1}},
            "levels": {
                "terms": {"field": "level.keyword"},
                "aggs": {
                    "per_min": {"date_histogram": {"field": "@timestamp", "fixed_interval": "1m"}}
                },
            },
        },
    )
    pods = resp["aggregations"]["pods"]
    assert pods["buckets"] == [{"key": "api-1", "doc_count": 2}]
    assert pods["sum_other_doc_count"] == 1
    error = next(b for b in resp["aggregations"]["levels"]["buckets"] if b["key"] == "ERROR")
    assert error["per_min"]["buckets"][0]["key_as_string"] == "2026-07-20T11:01:00.000Z"
    timeline = es.search(
        index="*",
        size=0,
        aggs={"t": {"date_histogram": {"field": "@timestamp", "fixed_interval": "1m"}}},
    )["aggregations"]["t"]["buckets"]
    assert [b["doc_count"] for b in timeline] == [1, 1, 1, 1, 0, 1]  # 11:04 empty, filled
    hourly = es.search(
        index="*",
        size=0,
        aggs={
            "h": {
                "date_histogram": {
                    "field": "@timestamp",
                    "calendar_interval": "hour",
                    "time_zone": "+03:00",
                }
            },
            "s": {"terms": {"field": "status"}},
        },
    )["aggregations"]
    assert hourly["h"]["buckets"] == [
        {
            "key_as_string": "2026-07-20T14:00:00.000+03:00",
            "key": _ms("2026-07-20T11:00:00+00:00"),
            "doc_count": 5,
        }
    ]
    assert {b["key"]: b["doc_count"] for b in hourly["s"]["buckets"]} == {502: 1, 200: 1}


def test_source_filtering(es: Elasticsearch):
    hit = es.search(
        index="app-*",
        query={"ids": {"values": ["d1"]}},
        source={"includes": ["kubernetes.pod", "level"]},
    )["hits"]["hits"][0]
    assert hit["_source"] == {"level": "INFO", "kubernetes": {"pod": "api-1"}}
    hit = es.search(
        index="app-*",
        query={"ids": {"values": ["d1"]}},
        source={"excludes": ["message", "kubernetes.*"]},
    )["hits"]["hits"][0]
    assert "message" not in hit["_source"] and hit["_source"]["kubernetes"] == {}
    hit = es.search(index="app-*", query={"ids": {"values": ["d1"]}}, source=False)
    assert "_source" not in hit["hits"]["hits"][0]


@pytest.mark.parametrize(
    "body",
    [
        {"query": {"fuzzy": {"message": "hedaer"}}},
        {"query": {"bool": {"filter": [], "boost_mode": 1}}},
        {"query": {"term": {"a": 1, "b": 2}}},
        {"aggs": {"x": {"geohash_grid": {"field": "loc"}}}},
        {"query": {"range": {"@timestamp": {"gte": "now-15m"}}}},
        {"collapse": {"field": "host"}},
    ],
)
def test_unsupported_clauses_are_400_with_an_es_error_body(es: Elasticsearch, body: dict):
    with pytest.raises(BadRequestError) as exc:
        es.search(index="*", body=body)
    error = exc.value.body
    assert error["status"] == 400
    assert error["error"]["type"] == "parsing_exception"
    assert error["error"]["root_cause"][0]["reason"] == error["error"]["reason"]


def test_query_log_records_every_request(sims: WorldSimulators, es: Elasticsearch):
    sims.query_log.clear()
    es.search(index="app-*", query={"term": {"level": "INFO"}}, size=3, ignore_unavailable=True)
    with pytest.raises(NotFoundError):
        es.search(index="nope-*", allow_no_indices=False)
    first, second = sims.query_log.matches(source="logs", env="dc-a")
    assert (first.method, first.path, first.status) == ("POST", "/app-*/_search", 200)
    assert first.params == {"ignore_unavailable": "true"}
    assert first.body == {"query": {"term": {"level": "INFO"}}, "size": 3}
    assert (second.path, second.status) == ("/nope-*/_search", 404)


# --- faults ---------------------------------------------------------------------------


def _faulty(fault: dict[str, Any]) -> WorldSimulators:
    return WorldSimulators(
        make_world([{"source": "logs", "env": "dc-a", **fault}]), stall_seconds=2
    )


def test_fault_timeout():
    with _faulty({"kind": "timeout"}) as running:
        es = Elasticsearch(running.endpoints.envs["dc-a"].logs, request_timeout=0.5, max_retries=0)
        with pytest.raises(ConnectionTimeout):
            es.search(index="app-*")
        assert [r.status for r in running.query_log.matches("logs", "dc-a")] == [504]


def test_fault_http_error():
    with _faulty({"kind": "http_error", "status": 503}) as running:
        es = Elasticsearch(running.endpoints.envs["dc-a"].logs, max_retries=0)
        with pytest.raises(ApiError) as exc:
            es.search(index="app-*")
        assert exc.value.meta.status == 503


def test_fault_malformed():
    with _faulty({"kind": "malformed"}) as running:
        es = Elasticsearch(running.endpoints.envs["dc-a"].logs, max_retries=0)
        with pytest.raises(SerializationError):
            es.search(index="app-*")


def test_fault_forbidden_only_on_its_index():
    with _faulty({"kind": "forbidden", "index": "edge-*"}) as running:
        es = Elasticsearch(running.endpoints.envs["dc-a"].logs, max_retries=0)
        with pytest.raises(AuthorizationException) as exc:
            es.search(index="edge-*")
        assert exc.value.body["error"]["type"] == "security_exception"
        assert exc.value.meta.headers["X-Elastic-Product"] == "Elasticsearch"
        assert ids(es.search(index="app-*")) == {"d1", "d2", "d3"}


def test_fault_unsupported():
    with _faulty({"kind": "unsupported", "index": "app-*"}) as running:
        es = Elasticsearch(running.endpoints.envs["dc-a"].logs, max_retries=0)
        with pytest.raises(NotFoundError) as exc:
            es.search(index="app-*")
        assert exc.value.body["error"]["type"] == "index_not_found_exception"


def test_fault_truncate_caps_the_whole_search():
    with _faulty({"kind": "truncate", "index": "app-*", "max_hits": 2}) as running:
        es = Elasticsearch(running.endpoints.envs["dc-a"].logs, max_retries=0)
        sort = [{"@timestamp": "asc"}, {"_doc": "asc"}]
        first = es.search(index="app-*", sort=sort, size=10, track_total_hits=True)
        assert first["hits"]["total"] == {"value": 2, "relation": "gte"}
        assert len(first["hits"]["hits"]) == 2
        after = first["hits"]["hits"][-1]["sort"]
        rest = es.search(index="app-*", sort=sort, size=10, search_after=after)
        assert rest["hits"]["hits"] == []
        assert len(es.search(index="edge-*", size=10)["hits"]["hits"]) == 2  # not capped


def test_fault_timeout_stalls_then_answers_504():
    world = make_world([{"source": "logs", "env": "dc-a", "kind": "timeout", "seconds": 0.2}])
    with WorldSimulators(world) as running:
        started = datetime.now(UTC)
        resp = httpx.post(running.endpoints.envs["dc-a"].logs + "/app-*/_search", timeout=5)
        assert resp.status_code == 504
        assert (datetime.now(UTC) - started).total_seconds() >= 0.2


def test_field_caps_reads_a_body_string_as_one_pattern_and_a_list_as_many(es: Elasticsearch):
    """The client sends `fields` in the body; Elasticsearch reads a string there as one
    pattern (only the query-string parameter is split on commas)."""
    joined = es.field_caps(index="app-*", fields="level,message")["fields"]
    assert joined == {}
    listed = es.field_caps(index="app-*", fields=["level", "message"])["fields"]
    assert {"level", "message"} <= set(listed)
