"""The query DSL subset the simulator understands, compiled to a predicate over docs.

Anything else is answered with a 400 `parsing_exception`, as Elasticsearch does for an
unknown query, so a connector relying on an unsupported clause fails loudly in tests.
"""

from __future__ import annotations

from typing import Any

from evals.simulators.elasticsearch import _matchers as m
from evals.simulators.elasticsearch._errors import parsing_error
from evals.simulators.elasticsearch._querystring import compile_query_string

_BOOL_KEYS = {"must", "filter", "should", "must_not", "minimum_should_match", "boost", "_name"}


def compile_query(query: Any) -> m.Pred:
    if query is None:
        return lambda doc: True
    if not isinstance(query, dict) or len(query) != 1:
        raise parsing_error("query malformed, must start with start_object and hold one query")
    ((name, spec),) = query.items()
    builder = _BUILDERS.get(name)
    if builder is None:
        raise parsing_error(f"unknown query [{name}]")
    return builder(spec)


def _field_spec(name: str, spec: Any) -> tuple[str, Any]:
    if not isinstance(spec, dict):
        raise parsing_error(f"[{name}] query malformed, no start_object after query name")
    fields = [k for k in spec if k not in ("boost", "_name")]
    if len(fields) != 1:
        raise parsing_error(f"[{name}] query doesn't support multiple fields, found {fields}")
    return fields[0], spec[fields[0]]


def _options(name: str, value: Any, main: str, allowed: set[str]) -> tuple[Any, dict[str, Any]]:
    """The short form `{"field": v}` or the long form `{"field": {main: v, ...}}`."""
    if not isinstance(value, dict):
        return value, {}
    unknown = set(value) - allowed - {main, "boost", "_name"}
    if unknown:
        raise parsing_error(f"[{name}] query does not support [{sorted(unknown)[0]}]")
    if main not in value:
        raise parsing_error(f"[{name}] query needs [{main}]")
    return value[main], value


def _bool(spec: Any) -> m.Pred:
    if not isinstance(spec, dict):
        raise parsing_error("[bool] query malformed, no start_object after query name")
    unknown = set(spec) - _BOOL_KEYS
    if unknown:
        raise parsing_error(f"[bool] query does not support [{sorted(unknown)[0]}]")

    def clauses(key: str) -> list[m.Pred]:
        value = spec.get(key) or []
        items = value if isinstance(value, list) else [value]
        return [compile_query(item) for item in items]

    required = clauses("must") + clauses("filter")
    should = clauses("should")
    must_not = clauses("must_not")
    needed = _minimum_should_match(spec.get("minimum_should_match"), len(should), bool(required))

    def pred(doc: m.StoredDoc) -> bool:
        if not all(p(doc) for p in required) or any(p(doc) for p in must_not):
            return False
        return needed == 0 or sum(1 for p in should if p(doc)) >= needed

    return pred


def _minimum_should_match(value: Any, count: int, has_required: bool) -> int:
    if value is None:
        return 0 if has_required or count == 0 else 1
    text = str(value).strip()
    try:
        if text.endswith("%"):
            pct = int(text[:-1])
            n = count * abs(pct) // 100
            need = n if pct >= 0 else count - n
        else:
            n = int(text)
            need = n if n >= 0 else count + n
    except ValueError:
        raise parsing_error(f"[bool] minimum_should_match [{value}] is not supported") from None
    return max(0, min(need, count))


def _term(spec: Any) -> m.Pred:
    field, raw = _field_spec("term", spec)
    value, opts = _options("term", raw, "value", {"case_insensitive"})
    if isinstance(value, dict | list):
        raise parsing_error("[term] query does not support array of values")
    return m.term(field, value, case_insensitive=bool(opts.get("case_insensitive")))


def _terms(spec: Any) -> m.Pred:
    field, values = _field_spec("terms", spec)
    if not isinstance(values, list):
        raise parsing_error("[terms] query: a terms lookup is not supported by the simulator")
    return m.terms(field, values)


def _match(spec: Any) -> m.Pred:
    field, raw = _field_spec("match", spec)
    text, opts = _options("match", raw, "query", {"operator", "lenient", "analyzer"})
    operator = str(opts.get("operator", "or")).lower()
    if operator not in ("and", "or"):
        raise parsing_error(f"[match] query does not support operator [{operator}]")
    return m.match(field, text, operator=operator)


def _match_phrase(spec: Any) -> m.Pred:
    field, raw = _field_spec("match_phrase", spec)
    text, _opts = _options("match_phrase", raw, "query", {"analyzer"})
    return m.phrase(field, text)


def _range(spec: Any) -> m.Pred:
    field, raw = _field_spec("range", spec)
    return m.range_(field, raw)


def _prefix(spec: Any) -> m.Pred:
    field, raw = _field_spec("prefix", spec)
    value, opts = _options("prefix", raw, "value", {"case_insensitive", "rewrite"})
    return m.prefix(field, str(value), case_insensitive=bool(opts.get("case_insensitive")))


def _wildcard(spec: Any) -> m.Pred:
    field, raw = _field_spec("wildcard", spec)
    if isinstance(raw, dict) and "wildcard" in raw and "value" not in raw:
        raw = {**raw, "value": raw["wildcard"]}
        raw.pop("wildcard")
    value, opts = _options("wildcard", raw, "value", {"case_insensitive", "rewrite"})
    return m.wildcard(field, str(value), case_insensitive=bool(opts.get("case_insensitive")))


def _regexp(spec: Any) -> m.Pred:
    field, raw = _field_spec("regexp", spec)
    value, _opts = _options("regexp", raw, "value", {"flags", "case_insensitive", "rewrite"})
    return m.regexp(field, str(value))


def _exists(spec: Any) -> m.Pred:
    if not isinstance(spec, dict) or not isinstance(spec.get("field"), str):
        raise parsing_error("[exists] must be provided with a [field]")
    return m.exists(spec["field"])


def _ids(spec: Any) -> m.Pred:
    if not isinstance(spec, dict) or not isinstance(spec.get("values"), list):
        raise parsing_error("[ids] query needs [values]")
    wanted = {str(v) for v in spec["values"]}
    return lambda doc: doc.id in wanted


def _query_string(spec: Any) -> m.Pred:
    allowed = {
        "query",
        "default_field",
        "fields",
        "default_operator",
        "analyze_wildcard",
        "allow_leading_wildcard",
        "lenient",
        "boost",
        "_name",
    }
    if not isinstance(spec, dict) or "query" not in spec:
        raise parsing_error("[query_string] must be provided with a [query]")
    unknown = set(spec) - allowed
    if unknown:
        raise parsing_error(f"[query_string] query does not support [{sorted(unknown)[0]}]")
    fields = spec.get("fields") or ([spec["default_field"]] if spec.get("default_field") else None)
    fields = [f.split("^")[0] for f in fields] if fields else None
    return compile_query_string(
        spec["query"], fields=fields, default_operator=spec.get("default_operator", "or")
    )


def _match_all(spec: Any) -> m.Pred:
    return lambda doc: True


def _match_none(spec: Any) -> m.Pred:
    return lambda doc: False


def _constant_score(spec: Any) -> m.Pred:
    if not isinstance(spec, dict) or "filter" not in spec:
        raise parsing_error("[constant_score] requires a 'filter' element")
    return compile_query(spec["filter"])


_BUILDERS = {
    "bool": _bool,
    "term": _term,
    "terms": _terms,
    "match": _match,
    "match_phrase": _match_phrase,
    "range": _range,
    "prefix": _prefix,
    "wildcard": _wildcard,
    "regexp": _regexp,
    "exists": _exists,
    "ids": _ids,
    "query_string": _query_string,
    "match_all": _match_all,
    "match_none": _match_none,
    "constant_score": _constant_score,
}
