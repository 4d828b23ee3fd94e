"""Our own simulator of the Elasticsearch search API over `world.logs[env]`.

The official `elasticsearch` 9.x client works against it unchanged (base URL
`<base>/logs/<env>`): the root info endpoint, `X-Elastic-Product: Elasticsearch` on every
response, the client's compatibility media type (`compatible-with=9` or `=8`) accepted and
echoed, `_search` / `_count` on index expressions (`*`, comma lists, `-exclusions`,
`ignore_unavailable`, `allow_no_indices`), a query DSL subset (bool, term(s), match,
match_phrase, range, prefix, wildcard, exists, ids, query_string, match_all), sort,
from/size, search_after, track_total_hits, terms / date_histogram aggregations and
`_source` filtering. Unsupported clauses get a 400 `parsing_exception`, as the real API.

Faults (source `logs`, matched by index glob): timeout, http_error and malformed come from
`FaultPlan.generic_response`; forbidden is a 403 `security_exception`; unsupported a 404
`index_not_found_exception`; truncate caps a search at `max_hits` hits in total and reports
`hits.total` as a lower bound (`relation: gte`). Every request lands in the `QueryLog`.
"""

from evals.simulators.elasticsearch._app import build_app

__all__ = ["build_app"]
