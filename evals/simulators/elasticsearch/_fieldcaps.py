"""`GET /<index>/_field_caps`: the fields an index has, as dynamic mapping makes them.

Derived from the stored documents the way Elasticsearch maps a first document: a string is
`text` with a `.keyword` sub-field (or `date` when it reads as one), an integer `long`, a
fractional number `float`, a boolean `boolean`, an object `object` with its own fields;
a literal dotted key is the same path as nested objects. Only what the documents hold is
served: a field no document has is not a field of the index.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from evals.simulators.elasticsearch._fields import looks_like_date, parse_date, to_millis
from evals.simulators.elasticsearch._matchers import StoredDoc


def _type_of(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "date" if looks_like_date(value) else "text"
    if isinstance(value, dict):
        return "object"
    return None


def _walk(node: Any, prefix: str, out: dict[str, set[str]]) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item, prefix, out)
        return
    kind = _type_of(node)
    if kind is None or not prefix:
        if isinstance(node, dict):
            for key, value in node.items():
                _walk(value, f"{prefix}.{key}" if prefix else str(key), out)
        return
    out.setdefault(prefix, set()).add(kind)
    if kind == "text":
        out.setdefault(f"{prefix}.keyword", set()).add("keyword")
    if isinstance(node, dict):
        for key, value in node.items():
            _walk(value, f"{prefix}.{key}", out)


def field_caps(
    docs: list[StoredDoc],
    names: list[str],
    fields: list[str],
    *,
    index_filter: dict[str, Any] | None = None,
    include_unmapped: bool = False,
) -> dict[str, Any]:
    """As Elasticsearch answers: the indices an `index_filter` range on @timestamp keeps
    (those with a document in it), each field's types across them, and with
    `include_unmapped` an `unmapped` entry naming the indices that lack a field."""
    low, high = _range_of(index_filter)
    per_index: dict[str, dict[str, set[str]]] = {}
    for doc in docs:
        at = doc.timestamp_ms
        if (low is not None or high is not None) and at is None:
            continue
        if (low is not None and at is not None and at < low) or (
            high is not None and at is not None and at > high
        ):
            continue
        _walk(doc.source, "", per_index.setdefault(doc.index, {}))
    kept = sorted(per_index) if index_filter else names
    patterns = fields or ["*"]
    every = sorted({f for found in per_index.values() for f in found})
    caps: dict[str, Any] = {}
    for name in every:
        if not any(fnmatch.fnmatchcase(name, p) for p in patterns):
            continue
        kinds = sorted({k for found in per_index.values() for k in found.get(name, set())})
        entry: dict[str, Any] = {
            kind: {
                "type": kind,
                "metadata_field": False,
                "searchable": kind != "object",
                "aggregatable": kind not in ("text", "object"),
            }
            for kind in kinds
        }
        lacking = [i for i in kept if name not in per_index.get(i, {})]
        if include_unmapped and lacking:
            entry["unmapped"] = {
                "type": "unmapped",
                "metadata_field": False,
                "searchable": False,
                "aggregatable": False,
                "indices": lacking,
            }
        caps[name] = entry
    return {"indices": kept, "fields": caps}


def _range_of(index_filter: dict[str, Any] | None) -> tuple[int | None, int | None]:
    rng = ((index_filter or {}).get("range") or {}).get("@timestamp") or {}
    return _millis(rng.get("gte")), _millis(rng.get("lte"))


def _millis(value: Any) -> int | None:
    moment = parse_date(value) if value is not None else None
    return to_millis(moment) if moment is not None else None
