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

from evals.simulators.elasticsearch._fields import looks_like_date
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


def field_caps(docs: list[StoredDoc], names: list[str], fields: str | None) -> dict[str, Any]:
    found: dict[str, set[str]] = {}
    for doc in docs:
        _walk(doc.source, "", found)
    patterns = [p.strip() for p in (fields or "*").split(",") if p.strip()]
    caps = {
        name: {
            kind: {
                "type": kind,
                "metadata_field": False,
                "searchable": kind != "object",
                "aggregatable": kind not in ("text", "object"),
            }
            for kind in sorted(kinds)
        }
        for name, kinds in sorted(found.items())
        if any(fnmatch.fnmatchcase(name, p) for p in patterns)
    }
    return {"indices": names, "fields": caps}
