"""Settings of one metrics source (one environment) and the links its facts carry."""

from __future__ import annotations

import json
import string
from datetime import UTC, datetime
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

LINK_PLACEHOLDERS = ("query", "start_ms", "end_ms", "env", "left")


class MetricsTarget(BaseModel):
    """Where the Prometheus query API of one environment lives.

    `url` is the API base (`<url>/api/v1/query` is called). `grafana_url` is a link template
    with the placeholders {query} (URL-encoded PromQL), {start_ms}, {end_ms}, {env} and
    {left} (URL-encoded Grafana Explore state); literal braces are written `{{` `}}`.
    Without it, links point at the VictoriaMetrics UI (vmui) under `url`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    env: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://")
    grafana_url: str | None = None
    timeout_s: float = Field(default=10.0, gt=0, le=300)
    max_series: int = Field(default=200, ge=1, le=10_000)
    max_points: int = Field(
        default=300, ge=10, le=11_000, description="most points per series in a range read"
    )
    bearer_token: SecretStr | None = None
    username: str | None = None
    password: SecretStr | None = None
    verify_tls: bool = True

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
