"""One `_search` (or `_count`): match, sort, page, count, aggregate, filter `_source`."""

from __future__ import annotations

import fnmatch
from functools import cmp_to_key
from typing import Any

from evals.simulators.elasticsearch._aggs import run_aggs
from evals.simulators.elasticsearch._errors import illegal_argument, parsing_error
from evals.simulators.elasticsearch._fields import parse_date, sort_value, sortable, to_millis
from evals.simulators.elasticsearch._matchers import StoredDoc, values_of
from evals.simulators.elasticsearch._query import compile_query
from evals.simulators.elasticsearch._querystring import compile_query_string

BODY_KEYS = {
    "query",
    "size",
    "from",
    "sort",
    "search_after",
    "track_total_hits",
    "_source",
    "aggs",
    "aggregations",
    "timeout",
    "track_scores",
    "terminate_after",
}
MAX_RESULT_WINDOW = 10_000
DEFAULT_TRACK_TOTAL = 10_000


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).lower()
    if text in ("true", ""):
        return True
    if text == "false":
        return False
    raise illegal_argument(
        f"Failed to parse value [{value}] as only [true] or [false] are allowed for [{name}]"
    )


def _int(value: Any, name: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise illegal_argument(
            f"Failed to parse int parameter [{name}] with value [{value}]"
        ) from None


def _sort_spec(raw: Any) -> list[tuple[str, str, str]]:
    """[(field, order, missing)] from any of the accepted sort forms."""
    if raw is None:
        return []
    if isinstance(raw, str):
        raw = [part for part in raw.split(",") if part]
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for item in items:
        if isinstance(item, str):
            field, _, order = item.partition(":")
            order = order or ("desc" if field == "_score" else "asc")
            out.append((field, order, "_last"))
            continue
        if not isinstance(item, dict) or len(item) != 1:
            raise parsing_error(f"malformed sort [{item}]")
        ((field, opts),) = item.items()
        if isinstance(opts, str):
            out.append((field, opts, "_last"))
            continue
        if not isinstance(opts, dict):
            raise parsing_error(f"malformed sort for [{field}]")
        unknown = set(opts) - {
            "order",
            "missing",
            "unmapped_type",
            "format",
            "mode",
            "numeric_type",
        }
        if unknown:
            raise parsing_error(f"[field_sort] unknown field [{sorted(unknown)[0]}]")
        default = "desc" if field == "_score" else "asc"
        out.append((field, str(opts.get("order", default)), str(opts.get("missing", "_last"))))
    for field, order, missing in out:
        if order not in ("asc", "desc"):
            raise parsing_error(f"[{field}] unknown sort order [{order}]")
        if missing not in ("_last", "_first"):
            raise parsing_error(f"[{field}] missing [{missing}] is not supported by the simulator")
    return out


def _doc_sort_values(doc: StoredDoc, spec: list[tuple[str, str, str]]) -> list[Any]:
    out: list[Any] = []
    for field, order, _missing in spec:
        if field == "_doc":
            out.append(doc.order)
        elif field == "_score":
            out.append(1.0)
        else:
            values = [v for v in values_of(doc, field) if not isinstance(v, dict | list)]
            if not values:
                out.append(None)
                continue
            keys = sorted(values, key=sortable)
            out.append(sort_value(keys[0] if order == "asc" else keys[-1]))
    return out


def _compare(a: list[Any], b: list[Any], spec: list[tuple[str, str, str]]) -> int:
    for left, right, (_field, order, missing) in zip(a, b, spec, strict=True):
        if left is None or right is None:
            if left is None and right is None:
                continue
            first = missing == "_first"
            return (-1 if first else 1) if left is None else (1 if first else -1)
        lk, rk = sortable(left), sortable(right)
        if lk == rk:
            continue
        result = -1 if lk < rk else 1
        return result if order == "asc" else -result
    return 0


def _source_filter(raw: Any, includes: Any, excludes: Any) -> tuple[bool, list[str], list[str]]:
    incl: list[str] = []
    excl: list[str] = []
    if raw is False or str(raw).lower() == "false":
        return False, [], []
    if isinstance(raw, str) and raw.lower() != "true":
        incl = raw.split(",")
    elif isinstance(raw, list):
        incl = [str(x) for x in raw]
    elif isinstance(raw, dict):
        incl = list(raw.get("includes", raw.get("include", [])) or [])
        excl = list(raw.get("excludes", raw.get("exclude", [])) or [])
    incl += [p for p in str(includes or "").split(",") if p]
    excl += [p for p in str(excludes or "").split(",") if p]
    return True, incl, excl


def _filter_source(node: Any, incl: list[str], excl: list[str], path: str = "") -> Any:
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        full = f"{path}.{key}" if path else key
        if any(fnmatch.fnmatchcase(full, p) for p in excl):
            continue
        if not incl or any(fnmatch.fnmatchcase(full, p) for p in incl):
            out[key] = _filter_source(value, [], excl, full)
        elif any(
            p.startswith(full + ".") or fnmatch.fnmatchcase(full, p.split(".")[0]) for p in incl
        ) and isinstance(value, dict):
            inner = _filter_source(value, incl, excl, full)
            if inner:
                out[key] = inner
    return out


def time_window(query: Any) -> tuple[int, int] | None:
    """[low, high] in epoch ms that every match's `@timestamp` must lie in, when the query
    requires a `range` on `@timestamp` with absolute bounds (a bool's filter or must);
    None when it cannot be told safely. Inclusive at both ends: only ever wider than the
    range itself, so a doc left out could not have matched."""
    if not isinstance(query, dict) or len(query) != 1:
        return None
    ((name, spec),) = query.items()
    if name == "bool" and isinstance(spec, dict):
        required: list[Any] = []
        for key in ("filter", "must"):
            part = spec.get(key)
            required += part if isinstance(part, list) else [part] if part else []
        for clause in required:
            found = time_window(clause)
            if found is not None:
                return found
        return None
    if name != "range" or not isinstance(spec, dict) or set(spec) != {"@timestamp"}:
        return None
    bounds = spec["@timestamp"]
    if not isinstance(bounds, dict) or set(bounds) - {"gte", "gt", "lte", "lt", "format"}:
        return None
    if bounds.get("format") not in (None, "strict_date_optional_time"):
        return None
    low, high = -(2**63), 2**63
    for op, value in bounds.items():
        if op == "format":
            continue
        if not isinstance(value, str) or "now" in value or not _explicit_offset(value):
            return None
        moment = parse_date(value)
        if moment is None:
            return None
        if op in ("gte", "gt"):
            low = max(low, to_millis(moment) - 1)
        else:
            high = min(high, to_millis(moment) + 1)
    return low, high


def _explicit_offset(text: str) -> bool:
    tail = text.strip()[10:]
    return tail.endswith(("Z", "z")) or "+" in tail or "-" in tail


def execute(
    docs: list[StoredDoc],
    n_indices: int,
    body: dict[str, Any],
    params: dict[str, str],
    *,
    max_hits: int | None = None,
    count_only: bool = False,
) -> dict[str, Any]:
    """Run a search over `docs`; `max_hits` (a truncate fault) caps what can be found."""
    unknown = set(body) - (BODY_KEYS if not count_only else {"query"})
    if unknown:
        raise parsing_error(f"Unknown key for a START_OBJECT in [{sorted(unknown)[0]}].")
    if "q" in params and "query" in body:
        raise illegal_argument("request [_search] contains both [q] and a body [query]")
    if "q" in params:
        pred = compile_query_string(
            params["q"],
            fields=[params["df"]] if params.get("df") else None,
            default_operator=params.get("default_operator", "or"),
        )
    else:
        pred = compile_query(body.get("query"))
        window = time_window(body.get("query"))
        if window is not None:  # narrow first on the parsed @timestamp; pred still decides
            low, high = window
            docs = [d for d in docs if d.timestamp_ms is None or low <= d.timestamp_ms <= high]
    matched = [doc for doc in docs if pred(doc)]
    shards = {"total": n_indices, "successful": n_indices, "skipped": 0, "failed": 0}
    if count_only:
        return {"count": len(matched), "_shards": shards}

    spec = _sort_spec(body.get("sort", params.get("sort")))
    keyed: list[tuple[StoredDoc, list[Any]]]
    if spec:
        keyed = [(d, _doc_sort_values(d, spec)) for d in matched]

        def by_sort_values(x: tuple[StoredDoc, list[Any]], y: tuple[StoredDoc, list[Any]]) -> int:
            return _compare(x[1], y[1], spec)

        keyed.sort(key=cmp_to_key(by_sort_values))
    else:
        keyed = [(d, []) for d in matched]
    # A capped backend (the truncate fault) cannot tell how many more there were: it
    # reports what it collected as a lower bound, whether or not the cap was reached.
    capped = max_hits is not None
    if max_hits is not None:
        keyed = keyed[:max_hits]
    visible = [d for d, _ in keyed]

    size = _int(body.get("size", params.get("size", 10)), "size")
    start = _int(body.get("from", params.get("from", 0)), "from")
    if size < 0 or start < 0:
        raise illegal_argument("[from] and [size] must be >= 0")
    if start + size > MAX_RESULT_WINDOW:
        raise illegal_argument(
            f"Result window is too large, from + size must be less than or equal to: "
            f"[{MAX_RESULT_WINDOW}] but was [{start + size}]."
        )
    after = body.get("search_after")
    if after is not None:
        if not spec:
            raise illegal_argument("Sort must contain at least one field.")
        if not isinstance(after, list) or len(after) != len(spec):
            raise illegal_argument(
                f"search_after has {len(after) if isinstance(after, list) else 0} value(s) "
                f"but sort has {len(spec)}."
            )
        if start > 0:
            raise illegal_argument("`from` parameter must be set to 0 when `search_after` is used.")
        keyed = [(d, v) for d, v in keyed if _compare(v, after, spec) > 0]
    page = keyed[start : start + size]

    include, incl, excl = _source_filter(
        body.get("_source", params.get("_source", True)),
        params.get("_source_includes"),
        params.get("_source_excludes"),
    )
    hits = []
    for doc, values in page:
        hit: dict[str, Any] = {"_index": doc.index, "_id": doc.id, "_score": None if spec else 1.0}
        if include:
            hit["_source"] = _filter_source(doc.source, incl, excl) if incl or excl else doc.source
        if spec:
            hit["sort"] = values
        hits.append(hit)

    hits_block: dict[str, Any] = {"max_score": None if spec or not hits else 1.0, "hits": hits}
    track = body.get("track_total_hits", params.get("track_total_hits", DEFAULT_TRACK_TOTAL))
    if not isinstance(track, bool) and str(track).lower() in ("true", "false"):
        track = str(track).lower() == "true"
    total = len(visible)
    if track is not False:
        limit = None if track is True else _int(track, "track_total_hits")
        if capped:
            hits_block["total"] = {"value": total, "relation": "gte"}
        elif limit is not None and total > limit:
            hits_block["total"] = {"value": limit, "relation": "gte"}
        else:
            hits_block["total"] = {"value": total, "relation": "eq"}
        if _flag(params.get("rest_total_hits_as_int", False), "rest_total_hits_as_int"):
            hits_block["total"] = hits_block["total"]["value"]
    result: dict[str, Any] = {"took": 1, "timed_out": False}
    if capped:
        result["terminated_early"] = True
    result["_shards"] = shards
    result["hits"] = {"total": hits_block.pop("total")} if "total" in hits_block else {}
    result["hits"].update(hits_block)
    aggs = body.get("aggs", body.get("aggregations"))
    if aggs:
        typed = _flag(params.get("typed_keys", False), "typed_keys")
        result["aggregations"] = run_aggs(aggs, visible, typed_keys=typed)
    return result
