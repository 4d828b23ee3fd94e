"""Settings of one metrics source (one environment) and the links its facts carry."""

from __future__ import annotations

import json
import os
import ssl
import string
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

LINK_PLACEHOLDERS = ("query", "start_ms", "end_ms", "env", "left")


class MetricsTarget(BaseModel):
    """Where the Prometheus query API of one environment lives.

    `url` is the API base (`<url>/api/v1/query` is called). `grafana_url` is a link template
    with the placeholders {query} (URL-encoded PromQL), {start_ms}, {end_ms}, {env} and
    {left} (URL-encoded Grafana Explore state); literal braces are written `{{` `}}`.
    Without it, links point at the VictoriaMetrics UI (vmui) under `url`.

    Authentication is one of: basic auth (`username` + `password`, as vmauth or a proxy in
    front asks) or a `bearer_token`; neither for an open API. `ca_cert_path` is the CA bundle
    an https server's certificate is verified with (default: the system's); `verify_tls:
    false` verifies nothing. Secrets are `SecretStr` and the URL may not carry credentials,
    so none of them reaches a repr, a log, a link or a validation error.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    env: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://")
    grafana_url: str | None = None
    timeout_s: float = Field(default=10.0, gt=0, le=300)
    max_series: int = Field(default=200, ge=1, le=10_000)
    max_points: int = Field(
        default=300, ge=10, le=11_000, description="most points per series in a range read"
    )
    bearer_token: SecretStr | None = Field(default=None, description="Authorization: Bearer")
    username: str | None = Field(default=None, min_length=1, description="basic auth user")
    password: SecretStr | None = Field(default=None, description="basic auth password")
    ca_cert_path: str | None = Field(default=None, description="CA bundle (PEM) for https")
    verify_tls: bool = True

    @field_validator("url")
    @classmethod
    def _no_credentials(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.username is not None or parts.password is not None:
            raise ValueError("put credentials in username/password or bearer_token, not in the URL")
        return value

    @field_validator("ca_cert_path")
    @classmethod
    def _ca_file(cls, value: str | None) -> str | None:
        if value is None:
            return None
        path = Path(value).expanduser()
        if not path.is_file():
            raise ValueError(f"no such file: {path}")
        if not os.access(path, os.R_OK):
            raise ValueError(f"cannot read {path}")
        try:
            ssl.create_default_context(cafile=str(path))
        except (ssl.SSLError, ValueError) as exc:
            raise ValueError(f"{path} is not a PEM CA bundle ({type(exc).__name__})") from None
        return str(path)

    @model_validator(mode="after")
    def _one_way_to_authenticate(self) -> MetricsTarget:
        if (self.username is None) != (self.password is None):
            raise ValueError("username and password: give both for basic auth, or neither")
        if self.username is not None and self.bearer_token is not None:
            raise ValueError(
                "bearer_token and username/password: give one way to authenticate, not both"
            )
        if self.ca_cert_path is not None and not self.verify_tls:
            raise ValueError(
                "ca_cert_path with verify_tls: false: a CA bundle is used only to verify"
            )
        return self

    @field_validator("grafana_url")
    @classmethod
    def _template(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            names = {f for _, f, _, _ in string.Formatter().parse(value) if f is not None}
        except ValueError as exc:
            raise ValueError(f"not a link template: {exc}") from None
        unknown = sorted(n for n in names if n not in LINK_PLACEHOLDERS)
        if unknown:
            raise ValueError(
                f"unknown placeholder(s) {unknown}; allowed: {list(LINK_PLACEHOLDERS)}"
            )
        return value

    def link(self, query: str, start: datetime, end: datetime) -> str:
        """A URL a human can open to see `query` over [start, end]."""
        start_ms = int(start.timestamp() * 1000)
        end_ms = int(end.timestamp() * 1000)
        if self.grafana_url is None:
            seconds = max(1, (end_ms - start_ms) // 1000)
            end_text = end.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
            return (
                f"{self.url.rstrip('/')}/vmui/#/?g0.expr={quote(query, safe='')}"
                f"&g0.range_input={seconds}s&g0.end_input={end_text}&g0.tab=0"
            )
        left = json.dumps(
            {
                "queries": [{"refId": "A", "expr": query}],
                "range": {"from": str(start_ms), "to": str(end_ms)},
            },
            separators=(",", ":"),
        )
        return self.grafana_url.format(
            query=quote(query, safe=""),
            start_ms=start_ms,
            end_ms=end_ms,
            env=quote(self.env, safe=""),
            left=quote(left, safe=""),
        )
