"""Which fields a query needs, and which of them an index lacks.

Class "a query over a missing field is no complete read": a filter on `status` over an
index whose documents call it `http.response.status_code` matches nothing, and an exact
total of zero then looks like proof that nothing happened. Before a search relies on a
field, the reader knows the index's fields (field capabilities); a query whose filter
cannot be met by them is not run and its read is not complete, with the field named.

The walk follows the query's logic: every clause of `filter`/`must` must be met, one of a
`should` (minimum_should_match >= 1) is enough, `must_not` needs nothing; a leaf needs its
field (a `.keyword` sub-field counts as its parent, an object as any of its fields).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_LEAVES = frozenset(
    {"term", "terms", "match", "match_phrase", "prefix", "wildcard", "regexp", "range", "exists"}
)


def _has(field: str, fields: Mapping[str, frozenset[str]], kind: str) -> bool:
    """The index has the field as something a `kind` query can match: an object (a path
    with fields under it) answers only `exists`."""
    base = field.removesuffix(".keyword")
    for name in (field, base):
        types = fields.get(name)
        if types and (types - {"object", "nested"} or kind == "exists"):
            return True
    return kind == "exists" and any(f.startswith(base + ".") for f in fields)


def _leaf_fields(kind: str, body: Any) -> list[str]:
    if kind == "exists" and isinstance(body, dict):
        return [str(body.get("field"))] if body.get("field") else []
    if isinstance(body, dict):
        return [str(k) for k in body if not str(k).startswith("_") and k != "boost"]
    return []


def unmet(query: Any, fields: Mapping[str, frozenset[str]]) -> list[list[str]]:
    """Groups of alternative fields the query needs and the index has none of."""
    if not isinstance(query, dict):
        return []
    missing: list[list[str]] = []
    for kind, body in query.items():
        if kind == "bool" and isinstance(body, dict):
            for part in ("filter", "must"):
                clauses = body.get(part) or []
                for clause in clauses if isinstance(clauses, list) else [clauses]:
                    missing += unmet(clause, fields)
            should = body.get("should") or []
            should = should if isinstance(should, list) else [should]
            wanted = body.get(
                "minimum_should_match", 0 if (body.get("filter") or body.get("must")) else 1
            )
            if should and wanted:
                groups = [unmet(clause, fields) for clause in should]
                if all(groups):  # not one alternative can be met
                    alternatives = {
                        f.removesuffix(".keyword") for g in groups for x in g for f in x
                    }
                    missing.append(sorted(alternatives))
        elif kind in _LEAVES:
            names = _leaf_fields(kind, body)
            if names and not any(_has(n, fields, kind) for n in names):
                missing.append(sorted({n.removesuffix(".keyword") for n in names}))
    return missing


def window_of(query: Any) -> tuple[str, str] | None:
    """The @timestamp range a query's top-level filter reads, as the query states it."""
    clauses = ((query or {}).get("bool") or {}).get("filter") or []
    for clause in clauses if isinstance(clauses, list) else [clauses]:
        rng = (
            ((clause or {}).get("range") or {}).get("@timestamp")
            if isinstance(clause, dict)
            else None
        )
        if isinstance(rng, dict) and rng.get("gte") and rng.get("lte"):
            return str(rng["gte"]), str(rng["lte"])
    return None
