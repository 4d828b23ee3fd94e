"""Bounded, paged reads through the official client, with honest totals and mapped errors.

The `elasticsearch` package is imported when the first search is made, not with this
module: with its async half and aiohttp it is about half a second of every cold start,
and most questions never read a log.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import structlog

from connectors.elasticsearch._bodies import Aggs, Doc, Hit
from connectors.elasticsearch._discovery import WANTED, IndexRole, discover, fields_by_index
from connectors.elasticsearch._layout import EVERY_NAME, Layout, merge_prefixes, wrapped
from connectors.elasticsearch._needs import unmet, window_of
from connectors.elasticsearch._settings import ElasticsearchTarget, iso_utc
from connectors.kit.threads import SourceThreads
from connectors.kit.unreachable import safe_url, unreachable_said
from policy.errors import (
    SourceError,
    SourceForbidden,
    SourceMalformed,
    SourceTimeout,
    SourceUnavailable,
    SourceUnsupported,
)

if TYPE_CHECKING:
    from elasticsearch import ApiError, Elasticsearch

log = structlog.get_logger(__name__)

SOURCE = "elasticsearch"
POOL_SIZE = 8  # concurrent searches of one environment (the client keeps 10 connections)
FIELDS_TTL_S = 300.0  # how long an index pattern's field list is trusted
FIELDS_KEPT = 64  # field lists kept at once (per pattern and window)
DISCOVERY_TTL_S = 300.0  # how long the discovered index patterns are trusted
DISCOVERY_RETRY_S = 30.0  # how soon a failed discovery is tried again
DISCOVERY_TIMEOUT_S = 3.0  # discovery never holds a turn longer than this
# (field -> types in any index of the window, field -> types in every index of it)
Caps = tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]


@dataclass
class Read:
    """What one bounded search returned, and whether it saw everything that matched."""

    index: str
    hits: list[Hit] = field(default_factory=list)
    total: int | None = None
    exact: bool = True
    aggs: Aggs = field(default_factory=dict)
    # groups of alternative fields the query filters on that the index has none of: the
    # query was not run, and nothing it returns proves absence
    missing: list[list[str]] = field(default_factory=list)
    partly: bool = False  # missing in some of the window's indices only: those were searched

    @property
    def complete(self) -> bool:
        """Every matching doc was read: an exact total, and all of it in hand."""
        return (
            not self.missing
            and self.exact
            and self.total is not None
            and len(self.hits) >= self.total
        )

    @property
    def counted(self) -> bool:
        """The total (and so every aggregation) covers everything that matched."""
        return self.exact and self.total is not None

    def sources(self) -> list[Doc]:
        return [h.get("_source") or {} for h in self.hits]

    def describe(self) -> str:
        if self.missing:
            lacked = "; ".join(" or ".join(group) for group in self.missing)
            if self.partly:
                return (
                    f"read {len(self.hits)}, but some indices of {self.index} in the window have "
                    f"no field {lacked} that the query filters on: what they hold was not matched"
                )
            return (
                f"index {self.index} has no field {lacked} that the query filters on, so it "
                "was not searched: its documents name it otherwise (see the connector's layout)"
            )
        if self.total is None:
            return f"read {len(self.hits)} of an unknown total"
        bound = "" if self.exact else ">= "
        return f"read {len(self.hits)} of {bound}{self.total}"


def time_range(start: datetime, end: datetime, field_name: str = "@timestamp") -> dict[str, Any]:
    return {"range": {field_name: {"gte": iso_utc(start), "lte": iso_utc(end)}}}


def kw_term(field_name: str, value: Any) -> dict[str, Any]:
    """A term on a keyword field, whether mapped as `field` or as `field.keyword`."""
    if not isinstance(value, str):
        return {"term": {field_name: value}}
    return {
        "bool": {
            "should": [{"term": {field_name: value}}, {"term": {f"{field_name}.keyword": value}}],
            "minimum_should_match": 1,
        }
    }


def any_of(*clauses: dict[str, Any]) -> dict[str, Any]:
    return {"bool": {"should": list(clauses), "minimum_should_match": 1}}


def lacks_all(fields: tuple[str, ...]) -> dict[str, Any]:
    """Docs that carry none of these fields (so a filter on them cannot place them)."""
    return {"bool": {"must_not": [{"exists": {"field": f}} for f in fields]}}


def _reason(exc: ApiError) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error")
    if isinstance(error, dict):
        text = f"{error.get('type', 'error')}: {error.get('reason', '')}"
    else:
        text = str(error if error is not None else exc.message)
    return text[:300]


def _client_failure(exc: Exception) -> bool:
    """Every way the client itself fails: an answer it refused, or the transport."""
    from elasticsearch import ApiError, TransportError

    return isinstance(exc, ApiError | TransportError)


def map_error(exc: Exception, target: ElasticsearchTarget, index: str) -> SourceError:
    """Our error tree for every way the client can fail (see the package docstring)."""
    from elasticsearch import (
        ApiError,
        ConnectionError,
        ConnectionTimeout,
        SerializationError,
        TransportError,
        UnsupportedProductError,
    )

    where = f"{index} in {target.env}" if index else f"Elasticsearch in {target.env}"
    if isinstance(exc, UnsupportedProductError):
        return SourceMalformed(SOURCE, f"{where}: the server did not identify as Elasticsearch")
    if isinstance(exc, ApiError):
        status = exc.meta.status
        reason = _reason(exc)
        if status in (401, 403):
            return SourceForbidden(SOURCE, f"{where}: access denied ({status} {reason})")
        if status == 404:
            if "index_not_found" in reason:
                return SourceUnsupported(
                    SOURCE, f"index pattern {index} is not served in {target.env}"
                )
            return SourceUnsupported(SOURCE, f"{where}: not found ({reason})")
        if status == 400:
            return SourceUnsupported(SOURCE, f"{where}: the query was rejected ({reason})")
        if status == 429 or status >= 500:
            return SourceUnavailable(SOURCE, f"{where}: HTTP {status} ({reason})")
        return SourceUnavailable(SOURCE, f"{where}: unexpected HTTP {status} ({reason})")
    if isinstance(exc, ConnectionTimeout):
        return SourceTimeout(
            SOURCE, f"{where}: {safe_url(target.url)} gave no answer within {target.timeout_s:g} s"
        )
    if isinstance(exc, SerializationError):
        return SourceMalformed(SOURCE, f"{where}: the response is not valid JSON")
    if isinstance(exc, ConnectionError | TransportError):
        return SourceUnavailable(SOURCE, f"{where}: {unreachable_said(target.url, exc)}")
    return SourceMalformed(SOURCE, f"{where}: unexpected answer ({type(exc).__name__})")


class LogReader:
    """One environment's client. Sync SDK, so every call runs in a worker thread."""

    def __init__(self, target: ElasticsearchTarget) -> None:
        self.target = target
        self._es: Elasticsearch | None = None  # made by the first search
        self._lock = threading.Lock()
        self._threads = SourceThreads(f"es-{target.env}", max_workers=POOL_SIZE)
        self._field_cache: dict[tuple[str, tuple[str, str] | None], tuple[float, Caps]] = {}
        self._resolved: tuple[float, ElasticsearchTarget] | None = None
        # an index pattern whose field capabilities did not come in time: its search
        # would stall the same way, so it is not tried again for DISCOVERY_RETRY_S
        self._down: dict[str, tuple[float, SourceError]] = {}

    def _client(self) -> Elasticsearch:
        # imported before the lock is taken: the first import takes a good part of a
        # second, and the event loop takes the same lock to read the discovery cache
        from elasticsearch import Elasticsearch

        with self._lock:
            if self._es is None:
                target = self.target
                self._es = Elasticsearch(
                    target.url,
                    api_key=target.api_key.get_secret_value() if target.api_key else None,
                    basic_auth=(
                        (target.username, target.password.get_secret_value())
                        if target.username and target.password
                        else None
                    ),
                    request_timeout=target.timeout_s,
                    max_retries=0,
                    retry_on_timeout=False,
                )
            return self._es

    async def aclose(self) -> None:
        """Close the kept-alive connections; a later search makes a new client."""
        self._threads.close()
        with self._lock:
            es, self._es = self._es, None
        if es is not None:
            es.close()

    async def search(
        self,
        index: str,
        query: dict[str, Any],
        *,
        limit: int,
        order: str = "asc",
        aggs: dict[str, Any] | None = None,
    ) -> Read:
        """Up to `limit` docs by @timestamp (then index order), paged with search_after."""
        return await self._threads.run(self._search, index, query, limit, order, aggs)

    async def version(self) -> str:
        """ "Elasticsearch 9.1.0" (or what the server calls itself); a SourceError when it
        does not answer."""
        return await self._threads.run(self._version)

    def _version(self) -> str:
        try:
            body = self._client().options(request_timeout=self.target.timeout_s).info().body
        except Exception as exc:
            if not _client_failure(exc):
                raise
            raise map_error(exc, self.target, "") from exc
        version = (body.get("version") or {}) if isinstance(body, dict) else {}
        flavor = "OpenSearch" if version.get("distribution") == "opensearch" else "Elasticsearch"
        return f"{flavor} {version.get('number', '?')} at {self.target.url}"

    async def resolved(self) -> ElasticsearchTarget:
        """The target with every index field the operator left unset filled by discovery
        (kept DISCOVERY_TTL_S); a role discovery finds no index for keeps its default, so
        reading it says the pattern is not served."""
        unset = [r for r in IndexRole if not self.target.configured(r.value)]
        if not unset:
            return self.target
        now = time.monotonic()
        with self._lock:
            kept = self._resolved
        if kept is not None and now - kept[0] < DISCOVERY_TTL_S:
            return kept[1]
        found = await self._threads.run(self._discover)
        update: dict[str, Any] = {
            r.value: ",".join(found[r]) for r in unset if found is not None and found.get(r)
        }
        target = self.target.model_copy(update={**update, "discovered": frozenset(update)})
        # a failed discovery is tried again soon, not trusted for the whole TTL
        at = now if found is not None else now - DISCOVERY_TTL_S + DISCOVERY_RETRY_S
        with self._lock:
            self._resolved = (at, target)
        return target

    def _discover(self) -> dict[IndexRole, list[str]] | None:
        try:
            body = (
                self._client()
                .options(request_timeout=min(self.target.timeout_s, DISCOVERY_TIMEOUT_S))
                .field_caps(
                    index="*",
                    fields=list(WANTED),  # a list: a string in the body is one pattern
                    include_unmapped=True,
                    ignore_unavailable=True,
                    allow_no_indices=True,
                )
                .body
            )
        except Exception as exc:
            if not _client_failure(exc):
                raise
            # the defaults are read, and each read says what its own index answered
            log.info(
                "es.discovery_failed",
                env=self.target.env,
                kind=map_error(exc, self.target, "*").kind,
            )
            return None
        found = discover(fields_by_index(body if isinstance(body, dict) else {}))
        log.info("es.discovered", env=self.target.env, **{r.value: v for r, v in found.items()})
        return found

    async def layout(self, index: str, start: datetime, end: datetime) -> Layout:
        """Where this index pattern keeps each logical field in the window: the operator's
        override, else every preset's names narrowed to those the indices have."""
        try:
            caps = await self._threads.run(self._fields, index, (iso_utc(start), iso_utc(end)))
        except SourceError:
            caps = None  # the search on it fails the same way, and says so in its own read
        override = self.target.override(index)
        candidates = override.candidates() if override else EVERY_NAME
        pinned = override.preset if override else None
        if not caps or not caps[0]:  # unknown, or no document in the window: assume nothing
            return Layout(candidates=candidates, pinned=pinned)
        prefixes = merge_prefixes(caps[0])
        return Layout(candidates=wrapped(candidates, prefixes), types=caps[0], pinned=pinned)

    def _fields(self, index: str, window: tuple[str, str] | None) -> Caps | None:
        """(field -> types in any index the window covers, the same for the fields every
        such index has), from field capabilities, kept FIELDS_TTL_S per pattern and window;
        None when they cannot be had (then nothing is assumed missing)."""
        key = (index, window)
        now = time.monotonic()
        with self._lock:
            kept, down = self._field_cache.get(key), self._down.get(index)
        if down is not None and now - down[0] < DISCOVERY_RETRY_S:
            raise down[1]
        if kept is not None and now - kept[0] < FIELDS_TTL_S:
            return kept[1]
        extra: dict[str, Any] = {"include_unmapped": True}
        if window is not None:
            extra["index_filter"] = {"range": {"@timestamp": {"gte": window[0], "lte": window[1]}}}
        try:
            body = (
                self._client()
                .options(request_timeout=self.target.timeout_s)
                .field_caps(index=index, fields="*", ignore_unavailable=True, **extra)
                .body
            )
        except Exception as exc:
            if not _client_failure(exc):
                raise
            from elasticsearch import ApiError

            err = map_error(exc, self.target, index)
            log.info("es.field_caps_failed", env=self.target.env, index=index, kind=err.kind)
            # no answer in time, or no connection (an error the server answered is quick)
            if isinstance(err, SourceTimeout | SourceUnavailable) and not isinstance(exc, ApiError):
                with self._lock:
                    self._down[index] = (now, err)
                raise err from exc  # not answering: the search would wait the same again
            return None
        caps = body.get("fields") if isinstance(body, dict) else None
        if not isinstance(caps, dict):
            return None
        anywhere: dict[str, frozenset[str]] = {}
        everywhere: dict[str, frozenset[str]] = {}
        for name, by_type in caps.items():
            if not isinstance(by_type, dict):
                continue
            types = frozenset(str(t) for t in by_type if t != "unmapped")
            if types:
                anywhere[str(name)] = types
                if "unmapped" not in by_type:
                    everywhere[str(name)] = types
        found = (anywhere, everywhere)
        with self._lock:
            # windows move with the clock: drop the lists past their time, and keep at
            # most FIELDS_KEPT (the oldest go first), so a long-lived reader stays bounded
            for old in [k for k, (at, _) in self._field_cache.items() if now - at >= FIELDS_TTL_S]:
                del self._field_cache[old]
            while len(self._field_cache) >= FIELDS_KEPT:
                del self._field_cache[next(iter(self._field_cache))]
            self._field_cache[key] = (now, found)
        return found

    def _search(
        self,
        index: str,
        query: dict[str, Any],
        limit: int,
        order: str,
        aggs: dict[str, Any] | None,
    ) -> Read:
        read = Read(index=index)
        caps = self._fields(index, window_of(query))
        if caps is not None and not caps[0] and window_of(query) is not None:
            # nothing in the window, or nothing the window can find: documents dated by
            # another field (Vector writes `timestamp`) never match an @timestamp range
            every = self._fields(index, None)
            if every and every[0] and "@timestamp" not in every[0]:
                read.missing, read.total, read.exact = [["@timestamp"]], 0, False
                log.info("es.no_timestamp", env=self.target.env, index=index)
                return read
        if caps and caps[0]:  # no field at all: no documents in the window, the search says so
            anywhere, everywhere = caps
            read.missing = unmet(query, anywhere)
            if read.missing:
                # no index of the window can match: not searched, and no absence proven
                log.info("es.fields_missing", env=self.target.env, index=index, fields=read.missing)
                read.total, read.exact = 0, False
                return read
            read.missing = unmet(query, everywhere)
            read.partly = bool(read.missing)  # some indices name it otherwise: searched
        sort = [{"@timestamp": {"order": order}}, {"_doc": {"order": "asc"}}]
        after: list[Any] | None = None
        while True:
            size = min(self.target.page_size, max(limit - len(read.hits), 0))
            kwargs: dict[str, Any] = {
                "index": index,
                "query": query,
                "sort": sort,
                "size": size,
                "track_total_hits": True,
                "allow_no_indices": False,
                "ignore_unavailable": True,
            }
            if after is not None:
                kwargs["search_after"] = after
            if aggs and after is None:
                kwargs["aggs"] = aggs
            try:
                body = (
                    self._client()
                    .options(request_timeout=self.target.timeout_s)
                    .search(**kwargs)
                    .body
                )
            except Exception as exc:
                if not _client_failure(exc):
                    raise  # our own bug: loud, never dressed up as a source failure
                err = map_error(exc, self.target, index)
                log.info("es.search_failed", env=self.target.env, index=index, kind=err.kind)
                raise err from exc
            page = self._page(body, read, index, first=after is None)
            read.hits.extend(page)
            done = len(page) < size or len(read.hits) >= limit or size == 0
            if read.exact and read.total is not None and len(read.hits) >= read.total:
                done = True
            if done:
                break
            after = page[-1].get("sort")
            if not after:
                break
        log.debug(
            "es.search",
            env=self.target.env,
            index=index,
            read=len(read.hits),
            total=read.total,
            exact=read.exact,
        )
        return read

    def _page(self, body: Any, read: Read, index: str, *, first: bool) -> list[Hit]:
        hits_block = body.get("hits") if isinstance(body, dict) else None
        page = hits_block.get("hits") if isinstance(hits_block, dict) else None
        if not isinstance(page, list) or not all(isinstance(h, dict) for h in page):
            raise SourceMalformed(
                SOURCE, f"{index} in {self.target.env}: the answer has no hits list"
            )
        if first:
            assert isinstance(hits_block, dict)  # a list of hits came out of it
            total = hits_block.get("total")
            if isinstance(total, dict) and isinstance(total.get("value"), int):
                read.total = total["value"]
                read.exact = total.get("relation", "eq") == "eq"
            elif isinstance(total, int):
                read.total, read.exact = total, True
            else:
                read.total, read.exact = None, False
            aggs = body.get("aggregations")
            read.aggs = aggs if isinstance(aggs, dict) else {}
            shards = body.get("_shards") if isinstance(body.get("_shards"), dict) else {}
            if body.get("terminated_early") or body.get("timed_out") or shards.get("failed"):
                read.exact = False  # a capped, timed-out or shard-failed search saw less
        return page
