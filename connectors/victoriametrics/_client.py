"""A small async client for the Prometheus query API, mapping every failure to our errors.

See the package docstring for the error tree. A query the server refuses as bad
(`bad_data`, `execution`, VictoriaMetrics' `422`) raises `QueryRejected`: that is not a
source failure but a query the caller can fix, and the tool reports it naming the query.
"""

from __future__ import annotations

import asyncio
import functools
import math
import ssl
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import httpx
import structlog
from pydantic import SecretStr

from connectors.kit.unreachable import safe_url, unreachable_said
from connectors.victoriametrics._bodies import ApiBody, LabelsBody, QueryBody, SeriesBody
from connectors.victoriametrics._settings import MetricsTarget
from policy.errors import (
    SourceForbidden,
    SourceMalformed,
    SourceTimeout,
    SourceUnavailable,
    SourceUnsupported,
)

MAX_GET_CHARS = 2000  # longer queries are POSTed (proxies cap a request line near 8 KB)

log = structlog.get_logger(__name__)

_QUERY_ERROR_TYPES = {"bad_data", "execution", "422", "400"}


class QueryRejected(Exception):
    """The server refused the query itself (syntax, type or execution error)."""

    def __init__(self, expr: str, reason: str) -> None:
        self.expr = expr
        self.reason = reason
        super().__init__(f"{expr}: {reason}")


@dataclass(frozen=True)
class Series:
    labels: dict[str, str]
    points: list[tuple[datetime, float]]  # NaN samples dropped; one point for a vector

    @property
    def value(self) -> float:
        return self.points[-1][1]

    @property
    def at(self) -> datetime:
        return self.points[-1][0]


@dataclass(frozen=True)
class QueryResult:
    expr: str
    kind: str  # instant | range
    series: list[Series]
    total: int  # series the server returned (before our max_series cap)
    capped: bool  # we kept only max_series of them
    warnings: list[str] = field(default_factory=list)

    @property
    def truncated(self) -> bool:
        return self.capped or any("truncat" in w.lower() for w in self.warnings)

    def scalar(self, default: float | None = None) -> float | None:
        return self.series[0].value if self.series else default

    def as_raw(self) -> dict[str, Any]:
        return {
            "expr": self.expr,
            "kind": self.kind,
            "total": self.total,
            "warnings": self.warnings,
            "series": [
                {"labels": s.labels, "points": [[t.isoformat(), v] for t, v in s.points]}
                for s in self.series
            ],
        }


def _ts(value: Any) -> datetime:
    return datetime.fromtimestamp(float(value), tz=UTC)


def _snippet(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


class PromClient:
    """Reads one environment's Prometheus API; `source` names it in errors and coverage."""

    def __init__(self, target: MetricsTarget, http: httpx.AsyncClient) -> None:
        self.target = target
        self.source = f"victoriametrics/{target.env}"
        self.http = http

    async def instant(self, expr: str, at: datetime) -> QueryResult:
        params = {"query": expr, "time": f"{at.timestamp():.3f}"}
        payload = cast(QueryBody, await self._get("/api/v1/query", params, expr))
        return self._result(payload, expr, "instant")

    async def range(self, expr: str, start: datetime, end: datetime, step_s: int) -> QueryResult:
        params = {
            "query": expr,
            "start": f"{start.timestamp():.3f}",
            "end": f"{end.timestamp():.3f}",
            "step": f"{step_s}s",
        }
        payload = cast(QueryBody, await self._get("/api/v1/query_range", params, expr))
        return self._result(payload, expr, "range")

    async def label_names(self, start: datetime, end: datetime) -> list[str]:
        """The label names of the series in [start, end] (`/api/v1/labels`)."""
        params = {"start": f"{start.timestamp():.3f}", "end": f"{end.timestamp():.3f}"}
        payload = cast(LabelsBody, await self._get("/api/v1/labels", params, "labels"))
        data = payload.get("data")
        if not isinstance(data, list):
            raise SourceMalformed(
                self.source, f"VictoriaMetrics in {self.target.env} listed labels in a bad shape"
            )
        return [str(name) for name in data]

    async def _get(self, path: str, params: dict[str, str], expr: str) -> ApiBody:
        env = self.target.env
        began = time.monotonic()
        try:
            # a long query goes in a form body: a request line has a length limit too
            long = sum(len(v) for v in params.values()) > MAX_GET_CHARS
            resp = await (
                self.http.post(path, data=params) if long else self.http.get(path, params=params)
            )
        except httpx.TimeoutException as exc:
            raise SourceTimeout(
                self.source,
                f"VictoriaMetrics in {env} ({safe_url(self.target.url)}) did not answer "
                f"within {self.target.timeout_s:g} s",
            ) from exc
        except httpx.HTTPError as exc:
            raise SourceUnavailable(
                self.source,
                f"VictoriaMetrics in {env}: {unreachable_said(self.target.url, exc)}",
            ) from exc
        log.debug(
            "metrics.read",
            env=env,
            path=path,
            status=resp.status_code,
            ms=round((time.monotonic() - began) * 1000),
        )
        return self._check(resp, expr)

    def _check(self, resp: httpx.Response, expr: str) -> ApiBody:
        """The envelope of a successful answer; every other answer raised as ours. Its
        `data` is read as the endpoint's (QueryBody, LabelsBody) by the caller."""
        env, code = self.target.env, resp.status_code
        try:
            payload = resp.json()
        except ValueError:
            payload = None
        body: ApiBody = cast(ApiBody, payload) if isinstance(payload, dict) else {}
        error_type = str(body.get("errorType") or "")
        message = _snippet(str(body.get("error") or resp.text or ""))
        if code in (401, 403):
            raise SourceForbidden(
                self.source, f"VictoriaMetrics in {env} refused the read (HTTP {code}): {message}"
            )
        if code == 404:
            raise SourceUnsupported(
                self.source, f"VictoriaMetrics in {env} does not serve this API (HTTP 404)"
            )
        if code in (400, 422) or (code < 300 and error_type in _QUERY_ERROR_TYPES):
            raise QueryRejected(expr, message or f"HTTP {code}")
        if code == 504 or (code == 503 and error_type == "timeout"):
            raise SourceTimeout(self.source, f"VictoriaMetrics in {env} timed out (HTTP {code})")
        if code >= 500 or code == 429:
            raise SourceUnavailable(
                self.source, f"VictoriaMetrics in {env} failed (HTTP {code}): {message}"
            )
        if code >= 300:
            raise SourceMalformed(
                self.source, f"VictoriaMetrics in {env} answered HTTP {code}: {message}"
            )
        if payload is None:
            raise SourceMalformed(
                self.source, f"VictoriaMetrics in {env} answered with a body that is not JSON"
            )
        if body.get("status") != "success":
            raise SourceMalformed(
                self.source,
                f"VictoriaMetrics in {env} answered status {body.get('status')!r}: {message}",
            )
        return body

    def _result(self, payload: QueryBody, expr: str, kind: str) -> QueryResult:
        try:
            data = payload["data"]
            items: list[SeriesBody]
            if data["resultType"] == "scalar" or data["resultType"] == "string":
                items = [{"metric": {}, "value": data["result"]}]
            else:
                items = data["result"]
            series: list[Series] = []
            for item in items:
                pairs = item["values"] if "values" in item else [item["value"]]
                points = [(_ts(t), float(v)) for t, v in pairs]
                points = [(t, v) for t, v in points if not math.isnan(v)]
                labels = {str(k): str(v) for k, v in item["metric"].items()}
                if points:
                    series.append(Series(labels, points))
            warnings = [str(w) for w in payload.get("warnings") or []]
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise SourceMalformed(
                self.source,
                f"VictoriaMetrics in {self.target.env} answered with an unexpected shape "
                f"({type(exc).__name__})",
            ) from exc
        limit = self.target.max_series
        return QueryResult(
            expr=expr,
            kind=kind,
            series=series[:limit],
            total=len(series),
            capped=len(series) > limit,
            warnings=warnings,
        )


class ClientPool:
    """Keep-alive clients: one `PromClient` per target and event loop, made on first use.

    A client per tool call cost a TCP connect (and against HTTPS a TLS handshake) for every
    read. An httpx client belongs to the loop it first ran on, and a process may run more
    than one (the CLI, the web chat, a test each), so clients are kept per loop. `aclose`
    closes the current loop's clients; those of a loop that was closed without it are
    dropped on the next use (their sockets close with them). An injected transport stays
    open: the caller owns it.
    """

    def __init__(
        self, targets: dict[str, MetricsTarget], transport: httpx.AsyncBaseTransport | None
    ) -> None:
        self._targets = targets
        self._transport = transport
        self._by_loop: dict[asyncio.AbstractEventLoop, dict[str, PromClient]] = {}

    def client(self, target: MetricsTarget) -> PromClient:
        for gone in [loop for loop in self._by_loop if loop.is_closed()]:
            del self._by_loop[gone]
        clients = self._by_loop.setdefault(asyncio.get_running_loop(), {})
        found = clients.get(target.env)
        if found is None or found.http.is_closed:
            found = clients[target.env] = PromClient(target, _http_client(target, self._transport))
        return found

    async def aclose(self) -> None:
        try:
            clients = self._by_loop.pop(asyncio.get_running_loop(), {})
        except RuntimeError:  # no running loop: nothing of ours can be open here
            return
        if self._transport is None:
            await asyncio.gather(*(c.http.aclose() for c in clients.values()))


class BearerAuth(httpx.Auth):
    """`Authorization: Bearer <token>` on every request; the token stays a SecretStr until
    the header is written, so no repr of the client or its settings shows it."""

    def __init__(self, token: SecretStr) -> None:
        self._token = token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self._token.get_secret_value()}"
        yield request


def _auth(target: MetricsTarget) -> httpx.Auth | None:
    if target.bearer_token is not None:
        return BearerAuth(target.bearer_token)
    if target.username is not None and target.password is not None:
        return httpx.BasicAuth(target.username, target.password.get_secret_value())
    return None


def _http_client(
    target: MetricsTarget, transport: httpx.AsyncBaseTransport | None
) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=target.url.rstrip("/"),
        timeout=target.timeout_s,
        headers={"Accept": "application/json"},
        auth=_auth(target),
        verify=_tls(target),
        transport=transport,
    )


def _tls(target: MetricsTarget) -> ssl.SSLContext | bool:
    """What httpx verifies with. httpx builds a TLS context (loading the CA bundle, 20-40
    ms) for every client, even a plain-HTTP one that never uses it: for an http:// target
    none is built. Redirects are not followed, so a plain target cannot turn into TLS."""
    if httpx.URL(target.url).scheme != "https" or not target.verify_tls:
        return False
    if target.ca_cert_path is not None:
        return _ca_context(target.ca_cert_path)
    return _verified_context()


@functools.cache
def _verified_context() -> ssl.SSLContext:
    """httpx's own default (certifi, or SSL_CERT_FILE), loaded once per process: a
    context is safe to share between clients."""
    return httpx.create_ssl_context()


@functools.cache
def _ca_context(path: str) -> ssl.SSLContext:
    """A context that trusts this CA bundle only (a private CA), loaded once per path."""
    return ssl.create_default_context(cafile=path)
