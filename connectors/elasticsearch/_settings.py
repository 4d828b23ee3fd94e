"""Settings of one Elasticsearch (or OpenSearch-compatible) log source per environment."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import quote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from connectors.elasticsearch._layout import LayoutOverride

DEFAULT_DISCOVER_URL_TEMPLATE = (
    "{kibana_url}/app/discover#/?_g=(time:(from:'{start}',to:'{end}'))"
    "&_a=(index:'{index}',query:(language:lucene,query:'{query}'))"
)
"""A Kibana Discover link; OpenSearch Dashboards reads the same shape under
`/app/data-explorer/discover`. Placeholders: kibana_url, url, env, index, query, start, end
(index and query arrive URL-encoded, start and end as ISO-8601 UTC)."""


def iso_utc(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ElasticsearchTarget(BaseModel):
    """Where one environment's logs live and how to read them."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    env: str = Field(min_length=1)
    url: str = Field(description="Elasticsearch base URL, e.g. https://es.dc-a.example:9200")
    api_key: SecretStr | None = None
    username: str | None = Field(default=None, description="basic auth user (with password)")
    password: SecretStr | None = None
    edge_access_index: str = "edge-access-*"
    edge_error_index: str = "edge-error-*"
    app_index: str = "app-*"
    audit_index: str | None = Field(
        default=None,
        description="Kubernetes audit events (audit.k8s.io/v1 as the log backend writes them)",
    )
    discover_url_template: str = DEFAULT_DISCOVER_URL_TEMPLATE
    kibana_url: str | None = Field(
        default=None, description="base of Kibana / OpenSearch Dashboards; default: url"
    )
    timeout_s: float = Field(default=10.0, gt=0, le=300)
    max_hits: int = Field(default=500, ge=1, le=10_000, description="most docs read per search")
    page_size: int = Field(default=500, ge=1, le=10_000, description="docs per search_after page")

    @field_validator("url", "kibana_url")
    @classmethod
    def _http(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        if value is not None and urlsplit(value).netloc.rpartition("@")[1]:
            raise ValueError("put credentials in username/password or api_key, not in the URL")
        return value.rstrip("/") if value else value

    @model_validator(mode="after")
    def _template(self) -> ElasticsearchTarget:
        if (self.username is None) != (self.password is None):
            raise ValueError("username and password: give both for basic auth, or neither")
        if self.username is not None and self.api_key is not None:
            raise ValueError("api_key and username: give one way to authenticate, not both")
        try:
            self.discover_link("x", "y", datetime.now(UTC), datetime.now(UTC))
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"discover_url_template: unknown placeholder {exc}") from None
        return self

    layouts: dict[str, LayoutOverride] = Field(
        default_factory=dict,
        description="index pattern (configured or discovered) -> its layout: a preset "
        "and/or field names; default: detected from the index's fields",
    )
    search_indices: list[str] = Field(
        default_factory=list,
        description="more index patterns the generic logs.search may read (syslog-*, audit-*)",
    )

    discovered: frozenset[str] = Field(
        default_factory=frozenset,
        description="set by the reader, never configured: the index fields it found by "
        "discovery because they were left unset",
    )

    def configured(self, role: str) -> bool:
        """The operator set this index field (discovery never second-guesses it)."""
        return role in self.model_fields_set and role not in self.discovered

    def where(self, role: str) -> str:
        """An index setting as a read's label says it: the pattern, and whether it was
        found by its fields rather than configured."""
        pattern = str(getattr(self, role))
        return f"{pattern}, found by its fields" if role in self.discovered else pattern

    def override(self, index: str) -> LayoutOverride | None:
        """The operator's layout for an index pattern, or for one of the patterns of a
        comma-joined (discovered) list."""
        if index in self.layouts:
            return self.layouts[index]
        return next((self.layouts[p] for p in index.split(",") if p in self.layouts), None)

    def patterns(self) -> list[str]:
        fixed = [self.edge_access_index, self.edge_error_index, self.app_index]
        fixed += [self.audit_index] if self.audit_index else []
        return list(dict.fromkeys([*fixed, *self.search_indices]))

    def discover_link(self, index: str, query: str, start: datetime, end: datetime) -> str:
        return self.discover_url_template.format(
            kibana_url=self.kibana_url or self.url,
            url=self.url,
            env=self.env,
            index=quote(index, safe="*,"),
            query=quote(query, safe=""),
            start=iso_utc(start),
            end=iso_utc(end),
        )
