"""Configuration: one YAML file, validated once at start-up; secrets only from the
environment.

A bad file stops start-up with the exact key and reason (`ConfigFileError`). Secrets are
referenced by environment variable *name* in the file (`token_env: INFRABOT_K8S_DC_A`)
and read here, in `bot`, the composition layer; nothing below `bot` reads os.environ.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.strict_yaml import DuplicateKeyError, load_strict
from connectors.elasticsearch import LayoutOverride


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KubernetesSourceSettings(_Strict):
    """One way to reach the API server: `url` (+ token, CA, client certificate), a
    kubeconfig `context`, or `in_cluster` (the pod's ServiceAccount)."""

    url: str | None = None
    token_env: str | None = None
    verify_tls: bool = True
    ca_cert_path: str | None = None
    client_cert_path: str | None = None
    client_key_path: str | None = None
    kubeconfig_path: str | None = None
    context: str | None = None
    in_cluster: bool = False
    serviceaccount_dir: str | None = None  # default: where the kubelet mounts it
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    link_template: str | None = None

    @model_validator(mode="after")
    def _one_way(self) -> KubernetesSourceSettings:
        ways = [self.url is not None, self.kubeconfig_path is not None, self.in_cluster]
        if sum(ways) != 1:
            raise ValueError("give exactly one of url, kubeconfig_path (with context), in_cluster")
        return self


class MetricsSourceSettings(_Strict):
    url: str
    grafana_url: str | None = None
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    username: str | None = None  # basic auth, with the password read from password_env
    password_env: str | None = None
    bearer_token_env: str | None = None
    ca_cert_path: str | None = None
    verify_tls: bool = True

    @model_validator(mode="after")
    def _one_auth(self) -> MetricsSourceSettings:
        if (self.username is None) != (self.password_env is None):
            raise ValueError("username and password_env: give both for basic auth, or neither")
        if self.username is not None and self.bearer_token_env is not None:
            raise ValueError("bearer_token_env and username: give one way to authenticate")
        return self


class LogsSourceSettings(_Strict):
    url: str
    api_key_env: str | None = None
    username: str | None = None  # basic auth, with the password read from password_env
    password_env: str | None = None
    # index patterns; one left out is found by its fields (see docs/connecting.md)
    edge_access_index: str = "edge-access-*"
    edge_error_index: str = "edge-error-*"
    app_index: str = "app-*"
    audit_index: str | None = None  # Kubernetes audit events shipped to Elasticsearch
    # index pattern -> {preset: NAME} and/or {fields: {LOGICAL: [names]}} (docs/connecting.md)
    layouts: dict[str, LayoutOverride] = Field(default_factory=dict)
    discover_url_template: str | None = None
    kibana_url: str | None = None  # Kibana / OpenSearch Dashboards base for Discover links
    search_indices: list[str] = Field(default_factory=list)  # more patterns for logs.search
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    max_hits: int = Field(default=500, ge=1, le=10000)

    @model_validator(mode="after")
    def _one_auth(self) -> LogsSourceSettings:
        if (self.username is None) != (self.password_env is None):
            raise ValueError("username and password_env: give both for basic auth, or neither")
        if self.username is not None and self.api_key_env is not None:
            raise ValueError("api_key_env and username: give one way to authenticate")
        return self


class EnvironmentSettings(_Strict):
    aliases: list[str] = Field(default_factory=list)
    kubernetes: KubernetesSourceSettings | None = None
    metrics: MetricsSourceSettings | None = None
    logs: LogsSourceSettings | None = None


class GitLabSettings(_Strict):
    url: str
    token_env: str | None = None
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    ssl_verify: bool = True  # false only for a self-signed instance you trust
    max_projects: int = Field(
        default=20, ge=1, le=100, description="most recently active projects read for a whole env"
    )
    env_job_pattern: str = Field(
        default="{env}",
        description="how an environment appears in a deploy job name: '{env}', 'deploy:{env}'",
    )
    projects: dict[str, str] = Field(
        default_factory=dict,
        description="service -> GitLab project path; others are found by a name search",
    )


class McpServerSettings(_Strict):
    name: str
    url: str
    token_env: str | None = None


class ModelSettings(_Strict):
    base_url: str
    model: str
    api_key_env: str | None = "INFRABOT_LLM_API_KEY"
    timeout_s: float = Field(default=30.0, gt=0, le=600)


class ModelsSettings(_Strict):
    planner: ModelSettings | None = None
    finalizer: ModelSettings | None = None


class MemorySettings(_Strict):
    ttl_minutes: int = Field(default=90, ge=1, le=24 * 60)
    max_entries: int = Field(default=20, ge=1, le=1000)
    max_prompt_bytes: int = Field(default=12 * 1024, ge=512, le=1024 * 1024)
    knowledge_path: Path = Path("infrabot-knowledge.jsonl")


class MattermostSettings(_Strict):
    url: str
    team: str
    channels: list[str] = Field(default_factory=list)
    bot_username: str = "infrabot"


class WebSettings(_Strict):
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=0, le=65535)


class InvestigationLimits(_Strict):
    max_rounds: int = Field(default=4, ge=1, le=10)
    turn_deadline_s: float = Field(default=90.0, gt=0, le=1800)
    facts_per_source: int = Field(default=12, ge=1, le=200)
    inventory_ttl_s: float = Field(
        default=60.0,
        ge=0,
        le=3600,
        description="how long the names listed in an environment are reused (0: every turn)",
    )


class InfrabotConfig(_Strict):
    timezone: str = "UTC"
    environments: dict[str, EnvironmentSettings]
    gitlab: GitLabSettings | None = None
    mcp_servers: list[McpServerSettings] = Field(default_factory=list)
    admins: list[str] = Field(default_factory=list)
    allowed_link_hosts: list[str] = Field(default_factory=list)
    models: ModelsSettings = Field(default_factory=ModelsSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    mattermost: MattermostSettings | None = None
    web: WebSettings = Field(default_factory=WebSettings)
    limits: InvestigationLimits = Field(default_factory=InvestigationLimits)

    @field_validator("timezone")
    @classmethod
    def _tz(cls, value: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"unknown timezone {value!r} (use an IANA name like Europe/Moscow)"
            ) from None
        return value

    @field_validator("environments")
    @classmethod
    def _envs(cls, value: dict[str, EnvironmentSettings]) -> dict[str, EnvironmentSettings]:
        if not value:
            raise ValueError("at least one environment is needed")
        for name in value:
            if not name or not all(ch.isalnum() or ch in "-_" for ch in name):
                raise ValueError(f"environment name {name!r}: use letters, digits, - and _")
        return value

    def role_of(self, user: str) -> Literal["engineer", "admin"]:
        return "admin" if user in self.admins else "engineer"


class Secrets(BaseSettings):
    """Secrets from the environment (INFRABOT_MM_TOKEN, INFRABOT_LLM_API_KEY, ...)."""

    model_config = SettingsConfigDict(env_prefix="INFRABOT_", extra="ignore")

    mm_token: SecretStr | None = None
    llm_api_key: SecretStr | None = None


class ConfigFileError(Exception):
    """The configuration could not be used; the message names the key and the reason."""


def _format(exc: ValidationError, name: str) -> str:
    lines = [f"{name}: invalid configuration"]
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        lines.append(f"  {key}: {err['msg']}")
    return "\n".join(lines)


def parse_config(data: object, name: str = "config") -> InfrabotConfig:
    try:
        return InfrabotConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigFileError(_format(exc, name)) from None


def load_config(path: Path) -> InfrabotConfig:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigFileError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = load_strict(text)
    except DuplicateKeyError as exc:
        raise ConfigFileError(f"{path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigFileError(f"{path}: invalid YAML: {exc}") from None
    return parse_config(data, str(path))


def secret_from_env(var: str | None, environ: dict[str, str] | None = None) -> SecretStr | None:
    if not var:
        return None
    value = (environ if environ is not None else os.environ).get(var)
    return SecretStr(value) if value else None
