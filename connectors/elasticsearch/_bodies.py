"""The Elasticsearch search API's answer, typed where it enters the connector (_reader):
a hit, and the aggregation results with their buckets.

A hit's `_source` stays a mapping of field name to value (`Doc`): its fields are the
operator's log layout, read through `_layout.Layout`, not a shape the API fixes. A
bucket's sub-aggregations sit under names the query chose; `sub_agg` reads one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, cast

Doc = dict[str, Any]


class Hit(TypedDict, total=False):
    _index: str
    _id: str
    _source: Doc
    sort: list[Any]  # the search_after key of the next page


class Bucket(TypedDict, total=False):
    key: str | int | float
    key_as_string: str
    doc_count: int


class AggResult(TypedDict, total=False):
    """A bucket aggregation's `buckets`, or a metric aggregation's `value`."""

    buckets: list[Bucket]
    value: float | None
    value_as_string: str


Aggs = dict[str, AggResult]


def sub_agg(bucket: Bucket, name: str) -> AggResult:
    """The sub-aggregation `name` of a bucket (empty when the answer has none)."""
    fields: Mapping[str, object] = bucket  # the name is the query's, not a fixed key
    found = fields.get(name)
    return cast(AggResult, found) if isinstance(found, dict) else {}
