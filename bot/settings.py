"""Configuration: one YAML file, validated once at start-up; secrets only from the
environment.

A bad file stops start-up with the exact key and reason (`ConfigFileError`). Secrets are
referenced by environment variable *name* in the file (`token_env: INFRABOT_K8S_DC_A`)
and read here, in `bot`, the composition layer; nothing below `bot` reads os.environ.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from ipaddress import IPv4Network, IPv6Network
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.alerts.matchers import parse_matcher
from bot.config_errors import ConfigFileError, config_error, dotted, key_lines, nearest_line
from bot.strict_yaml import DuplicateKeyError, load_strict
from connectors.elasticsearch import LayoutOverride
from planner import Planning
from policy.contracts import name_part
from policy.language import Language
from policy.toolset import Role


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


_HOST_PORT = re.compile(r"[\w.\-\[\]:]+:\d+(?:/.*)?", re.ASCII)


def _check_url(
    value: str, *, schemes: Sequence[str], secret: str, template: Sequence[str] = ()
) -> str:
    """`value` if it is an absolute URL with one of `schemes`, a host and no credentials.

    A link template (`template` names the placeholders it may start with, such as
    "{kibana_url}") is checked the same way unless it starts with one of those. The
    messages never repeat the URL: it may hold a password."""
    if any(value.startswith(f"{{{name}}}") for name in template):
        return value
    use = " or ".join(schemes)
    if value != value.strip() or any(ch.isspace() or not ch.isprintable() for ch in value):
        raise ValueError("has spaces or control characters; write the URL without them")
    try:
        parts = urlsplit(value)
    except ValueError as exc:  # an unclosed [ of an IPv6 address
        raise ValueError(f"not a URL ({exc})") from None
    if not parts.scheme or _HOST_PORT.fullmatch(value):
        starts = " or ".join(f"{scheme}://" for scheme in schemes)
        raise ValueError(f"no scheme; write the whole URL, starting with {starts}")
    if parts.scheme.lower() not in schemes:
        raise ValueError(f"scheme {parts.scheme.lower()!r} is not allowed; use {use}")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"credentials in the URL are not allowed; {secret}")
    if not parts.hostname:
        raise ValueError(f"no host; write it as {parts.scheme.lower()}://host[:port]")
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when it is read
    except ValueError:
        raise ValueError("the port is not a number from 1 to 65535") from None
    return parts.scheme.lower() + value[len(parts.scheme) :]  # HTTPS:// reads as https://


def _url(secret: str, *schemes: str, template: Sequence[str] = ()) -> AfterValidator:
    """A URL setting: `schemes` (default http and https) and, for credentials written into
    it, `secret`: where they go instead."""
    allowed = schemes or ("http", "https")
    return AfterValidator(
        lambda v: _check_url(v, schemes=allowed, secret=secret, template=template)
    )


_LINK = "a link is shown to users: leave credentials out"
# the variable a model's key is read from unless the file names another: a local server
# (llama.cpp, Ollama) takes none, so this one unset sends no key
DEFAULT_MODEL_KEY_ENV = "INFRABOT_LLM_API_KEY"
_TOKEN = "put the token in the variable token_env names"
_BASIC_OR = "use username with password_env, or {}, for the secret"
_TokenUrl = Annotated[str, _url(_TOKEN)]
_LinkUrl = Annotated[str, _url(_LINK)]
_DiscoverTemplate = Annotated[str, _url(_LINK, template=["kibana_url", "url"])]
# a dashboard link, or like the default k8s://{env}/{namespace}/{kind}/{name}
_ObjectLinkTemplate = Annotated[str, _url(_LINK, "http", "https", "k8s", template=["url"])]


def _at(*key: str | int, message: str) -> PydanticCustomError:
    """A check of a whole section that blames one key below it: the error's key path
    gets `key` added (see `config_error`)."""
    return PydanticCustomError("config_key", "{message}", {"key": key, "message": message})


class KubernetesSourceSettings(_Strict):
    """One way to reach the API server: `url` (+ token, CA, client certificate), a
    kubeconfig `context`, or `in_cluster` (the pod's ServiceAccount)."""

    url: _TokenUrl | None = Field(
        default=None,
        description="the API server's address (https://k8s.example:6443); with it, a token "
        "(`token_env`) and/or a client certificate",
    )
    token_env: str | None = Field(
        default=None,
        description="the variable holding a bearer token (a ServiceAccount token) for `url`",
    )
    verify_tls: bool = Field(
        default=True, description="false: the API server's certificate is not checked (not advised)"
    )
    ca_cert_path: str | None = Field(
        default=None,
        description="CA bundle (PEM) the API server's certificate is verified with; "
        "default: the system's",
    )
    client_cert_path: str | None = Field(
        default=None, description="client certificate (PEM), with `client_key_path`"
    )
    client_key_path: str | None = Field(
        default=None, description="the client certificate's private key (PEM)"
    )
    kubeconfig_path: str | None = Field(
        default=None,
        description="a kubeconfig file: server, CA and credentials of `context` are read from it",
    )
    context: str | None = Field(
        default=None,
        description="the kubeconfig context to use; default: its current-context",
    )
    in_cluster: bool = Field(
        default=False,
        description="true: the pod's own ServiceAccount (token, CA and the "
        "KUBERNETES_SERVICE_HOST/PORT address the kubelet gives every pod)",
    )
    serviceaccount_dir: str | None = Field(
        default=None,
        description="with `in_cluster`: where the token, ca.crt and namespace are mounted; "
        "default: /var/run/secrets/kubernetes.io/serviceaccount",
    )
    timeout_s: float = Field(default=10.0, gt=0, le=120, description="one API request, in seconds")
    link_template: _ObjectLinkTemplate | None = Field(
        default=None,
        description="the link an answer gives for an object, such as "
        '"https://dashboard.example/#/{kind}/{namespace}/{name}?cluster={env}" (placeholders: '
        "url, env, namespace, kind, name; namespace is - for cluster-scoped objects); "
        "default: k8s://{env}/{namespace}/{kind}/{name}, shown as a kubectl line",
    )

    @model_validator(mode="after")
    def _one_way(self) -> KubernetesSourceSettings:
        ways = [self.url is not None, self.kubeconfig_path is not None, self.in_cluster]
        if sum(ways) != 1:
            raise ValueError("give exactly one of url, kubeconfig_path (with context), in_cluster")
        return self


class MetricsSourceSettings(_Strict):
    """The Prometheus query API of VictoriaMetrics (single-node, or vmselect's
    `/select/<tenant>/prometheus`), Prometheus or a proxy in front of them; open, basic
    auth or a bearer token."""

    url: Annotated[str, _url(_BASIC_OR.format("bearer_token_env"))] = Field(
        description="the API base: `<url>/api/v1/query` is called "
        "(http://vm:8428, http://vmselect:8481/select/0/prometheus, http://prometheus:9090)"
    )
    grafana_url: _LinkUrl | None = Field(
        default=None,
        description="the link an answer gives for a query, a template with {query} "
        "(URL-encoded PromQL), {start_ms}, {end_ms}, {env} and {left} (Grafana Explore "
        "state); default: the VictoriaMetrics UI (vmui) under `url`",
    )
    timeout_s: float = Field(default=10.0, gt=0, le=120, description="one query, in seconds")
    username: str | None = Field(
        default=None,
        description="basic auth user (vmauth, a proxy), with the password in `password_env`",
    )
    password_env: str | None = Field(
        default=None, description="the variable holding the basic auth password"
    )
    bearer_token_env: str | None = Field(
        default=None, description="the variable holding a bearer token (instead of basic auth)"
    )
    ca_cert_path: str | None = Field(
        default=None,
        description="CA bundle (PEM) an https server's certificate is verified with; "
        "default: the system's",
    )
    verify_tls: bool = Field(
        default=True, description="false: the server's certificate is not checked (not advised)"
    )

    @model_validator(mode="after")
    def _one_auth(self) -> MetricsSourceSettings:
        if (self.username is None) != (self.password_env is None):
            raise ValueError("username and password_env: give both for basic auth, or neither")
        if self.username is not None and self.bearer_token_env is not None:
            raise ValueError("bearer_token_env and username: give one way to authenticate")
        return self


class LogsSourceSettings(_Strict):
    """Elasticsearch: its URL, one way to authenticate (an API key, basic auth or none),
    the index pattern of each log role (one left out is found by its fields,
    docs/connecting.md) and the links answers give."""

    url: Annotated[str, _url(_BASIC_OR.format("api_key_env"))] = Field(
        description="the Elasticsearch base URL (https://es.example:9200)"
    )
    api_key_env: str | None = Field(
        default=None,
        description="the variable holding an API key (the `encoded` value Elasticsearch "
        "returns; docs/deploy.md gives the least role)",
    )
    username: str | None = Field(
        default=None, description="basic auth user, with the password in `password_env`"
    )
    password_env: str | None = Field(
        default=None, description="the variable holding the basic auth password"
    )
    # index patterns; one left out is found by its fields (see docs/connecting.md)
    edge_access_index: str = Field(
        default="edge-access-*",
        description="index pattern of the edge (nginx, ingress) access log: one line per "
        "request with its status; left out: found by its fields",
    )
    edge_error_index: str = Field(
        default="edge-error-*",
        description="index pattern of the edge error log (upstream timeouts, refused "
        "connections); left out: found by its fields",
    )
    app_index: str = Field(
        default="app-*",
        description="index pattern of the applications' own logs; left out: found by its fields",
    )
    audit_index: str | None = Field(
        default=None,
        description="index pattern of Kubernetes audit events shipped to Elasticsearch "
        "(who changed what); left out: found by its fields, or none",
    )
    # index pattern -> {preset: NAME} and/or {fields: {LOGICAL: [names]}} (docs/connecting.md)
    layouts: dict[str, LayoutOverride] = Field(
        default_factory=dict,
        description="index pattern -> its layout (a preset and/or field names) when the "
        "detected one is wrong; default: detected from the index's fields",
    )
    discover_url_template: _DiscoverTemplate | None = Field(
        default=None,
        description="the link an answer gives for a log read; placeholders kibana_url, url, "
        "env, index, query, start, end; default: a Kibana Discover link under `kibana_url` "
        "(OpenSearch Dashboards: its /app/data-explorer/discover)",
    )
    kibana_url: _LinkUrl | None = Field(
        default=None,
        description="base URL of Kibana (or OpenSearch Dashboards) for Discover links; "
        "default: `url`",
    )
    search_indices: list[str] = Field(
        default_factory=list,
        description="more index patterns the admin-only `logs.search` may read "
        "(syslog-*), besides the ones above",
    )
    timeout_s: float = Field(default=10.0, gt=0, le=120, description="one request, in seconds")
    max_hits: int = Field(
        default=500,
        ge=1,
        le=10000,
        description="most documents one search reads (paged); a read cut here is said as "
        "partial, never as complete",
    )

    @model_validator(mode="after")
    def _one_auth(self) -> LogsSourceSettings:
        if (self.username is None) != (self.password_env is None):
            raise ValueError("username and password_env: give both for basic auth, or neither")
        if self.username is not None and self.api_key_env is not None:
            raise ValueError("api_key_env and username: give one way to authenticate")
        return self


class EnvironmentSettings(_Strict):
    """One environment (a data centre, a cluster): its sources; any may be left out."""

    aliases: list[str] = Field(
        default_factory=list, description='other names people use for it ("msk", "прод")'
    )
    kubernetes: KubernetesSourceSettings | None = Field(default=None, description="its API server")
    metrics: MetricsSourceSettings | None = Field(
        default=None, description="its VictoriaMetrics or Prometheus query API"
    )
    logs: LogsSourceSettings | None = Field(default=None, description="its Elasticsearch")


class GitLabSettings(_Strict):
    """One GitLab instance (API v4): deploy jobs, pipelines and commits, for "who deployed"
    and "what changed"."""

    url: _TokenUrl = Field(description="the instance's base URL (https://gitlab.example.com)")
    token_env: str | None = Field(
        default=None,
        description="the variable holding an access token with the read_api scope",
    )
    timeout_s: float = Field(default=10.0, gt=0, le=120, description="one API request, in seconds")
    ssl_verify: bool = Field(
        default=True,
        description="false only for a self-signed instance you trust: its certificate is "
        "not checked",
    )
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
    """One skill server: reached at `url` (streamable HTTP), or started as `command` (stdio,
    a process per listing or call) with the variables `pass_env` names."""

    name: str = Field(description="its tools are named mcp.<name>.<tool>")
    url: _TokenUrl | None = Field(
        default=None, description="the server's streamable HTTP endpoint (https://host/mcp)"
    )
    token_env: str | None = Field(
        default=None,
        description="the variable holding a bearer token sent to `url` (an HTTP server only)",
    )
    command: list[str] | None = Field(
        default=None, min_length=1, description="program and arguments of a stdio server"
    )
    pass_env: list[str] = Field(
        default_factory=list, description="variables of the bot's environment a stdio server gets"
    )
    timeout_s: float = Field(default=10.0, gt=0, le=120, description="one listing or call")

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.url is None) == (self.command is None):
            raise ValueError("give exactly one of url (streamable HTTP) and command (stdio)")
        if self.command is not None and self.token_env is not None:
            raise _at("token_env", message="a stdio server gets secrets by pass_env, not a token")
        if self.url is not None and self.pass_env:
            raise _at("pass_env", message="only a stdio server (command) is given variables")
        if self.command is not None and not self.command[0].strip():
            raise _at("command", 0, message="the program to start is empty")
        return self

    @property
    def tool_prefix(self) -> str:
        """The name as it appears in its tools' names."""
        return name_part(self.name)


class ModelSettings(_Strict):
    """One model on an OpenAI-compatible server (vLLM, Ollama, llama.cpp, a hosted API)."""

    base_url: Annotated[str, _url("put the key in the variable api_key_env names")] = Field(
        description="the server's OpenAI-compatible base, ending in /v1 (http://vllm:8000/v1)"
    )
    model: str = Field(description="the model name the server lists under /v1/models")
    api_key_env: str | None = Field(
        default=DEFAULT_MODEL_KEY_ENV,
        description="the variable holding the server's API key; when the default one is "
        "unset no key is sent (a local server takes none), when another named one is unset "
        "start-up stops",
    )
    timeout_s: float = Field(default=30.0, gt=0, le=600, description="one call, one attempt")
    max_tokens: int = Field(default=1024, ge=16, le=32768, description="of one completion")


class ModelsSettings(_Strict):
    """The planner model picks tools for what deterministic routes leave open; the
    finalizer model writes the answer's prose and takes over planning when the planner
    fails. One of them alone does both roles."""

    planner: ModelSettings | None = Field(
        default=None, description="the model that plans reads the deterministic routes leave open"
    )
    finalizer: ModelSettings | None = Field(
        default=None,
        description="the model that writes the answer's prose (and plans when the planner fails)",
    )
    max_tool_schemas: int = Field(
        default=8, ge=2, le=64, description="tool schemas in one request, at most"
    )
    rerank: bool = Field(default=True, description="the model orders the prefiltered tools")
    planning: Planning = Field(
        default=Planning.AUTO,
        description="auto: deterministic plans first, the model plans what they leave open "
        "or do not cover; free: the model plans every objective (the plan is its todo list)",
    )
    synthesis_reserve_s: float = Field(
        default=10.0,
        ge=0,
        le=600,
        description="seconds of the turn deadline kept for writing the answer",
    )


class MemorySettings(_Strict):
    """Working memory per thread (lost on restart on purpose) and the knowledge file."""

    ttl_minutes: int = Field(
        default=90, ge=1, le=24 * 60, description="how long a thread's working memory is kept"
    )
    max_entries: int = Field(
        default=20, ge=1, le=1000, description="entries kept per thread, the oldest dropped"
    )
    max_prompt_bytes: int = Field(
        default=12 * 1024,
        ge=512,
        le=1024 * 1024,
        description="most bytes of a thread's memory given to a model in one prompt",
    )
    knowledge_path: Path = Field(
        default=Path("infrabot-knowledge.jsonl"),
        description='the JSONL file confirmed knowledge ("remember this") is saved to '
        "(the chart sets it on its volume)",
    )


class LeaseSettings(_Strict):
    """Where the shares' Leases (coordination.k8s.io/v1) live: the bot's own cluster, by
    its ServiceAccount unless a URL is given (the chart grants get, create and update on
    leases in its namespace)."""

    namespace: str | None = Field(
        default=None,
        description="the Leases' namespace (default: the ServiceAccount's own namespace)",
    )
    duration_s: int = Field(
        default=15,
        ge=3,
        le=300,
        description="how long a share stays with a replica that stopped renewing it: the "
        "longest a dead replica's threads wait for another to take them over",
    )
    prefix: str = Field(
        default="infrabot-share", description="the Leases are named <prefix>-<share>"
    )
    url: _TokenUrl | None = Field(
        default=None,
        description="the API server, when not the one the pod runs in (with token_env)",
    )
    token_env: str | None = Field(
        default=None, description="the variable holding the token for `url`"
    )
    verify_tls: bool = Field(default=True, description="verify the API server's certificate")


class AlertPostChannelSettings(_Strict):
    """A channel where Alertmanager (or Grafana) already posts alerts through an incoming
    webhook: each firing alert posted there is investigated in the post's own thread."""

    channel: str = Field(description="the channel's name (as in its URL) in mattermost.team")
    language: Language = Field(default=Language.EN, description="the threads' language")


class MattermostSettings(_Strict):
    """The Mattermost server and the bot account's team and channels (empty `channels`:
    every channel the bot is a member of; direct messages are always answered)."""

    url: Annotated[str, _url("the bot's token is read from INFRABOT_MM_TOKEN")] = Field(
        description="the server's address (https://mm.example.com); the bot's token is "
        "read from INFRABOT_MM_TOKEN"
    )
    team: str = Field(description="the team's name (as in its URL) the channels belong to")
    channels: list[str] = Field(
        default_factory=list,
        description="channel names (as in their URLs) where @mentions are answered; the bot "
        "must be a member of each; empty: every channel it is a member of",
    )
    bot_username: str = Field(
        default="infrabot",
        description="the name an @mention uses, when the server does not say the bot "
        "account's own at login",
    )
    catch_up_s: float = Field(
        default=600,
        ge=0,
        le=24 * 3600,
        description="at start, questions asked in `channels` this long before and not "
        "answered by the bot yet are answered (a restart loses none); 0: none",
    )
    replicas: int = Field(
        default=1,
        ge=1,
        le=64,
        description="processes sharing this bot account; each answers its own threads "
        "(INFRABOT_REPLICA_INDEX or a StatefulSet ordinal says which it is)",
    )
    alert_post_channels: list[AlertPostChannelSettings] = Field(
        default_factory=list,
        description="opt-in per channel: alerts posted there by an incoming webhook "
        "(Alertmanager's slack_configs) are investigated in their own thread; a repeat of "
        "the same alert within an hour is not",
    )
    leases: LeaseSettings | None = Field(
        default=None,
        description="hold each replica's share of the threads as a Kubernetes Lease, so "
        "that a live replica takes a dead one's share over (null: each share stays with "
        "its replica)",
    )


class WebIdentityMode(StrEnum):
    """Who the web chat under `serve` takes the asker to be."""

    NONE = "none"  # nobody: the chat answers no question (Mattermost only)
    PROXY = "proxy"  # the name an authenticating proxy in front of it sends


class WebIdentitySettings(_Strict):
    """Who is asking in the web chat: from the deployment, never from the request body."""

    mode: WebIdentityMode = Field(
        default=WebIdentityMode.NONE,
        description='"proxy": an authenticating proxy in front of the chat (oauth2-proxy, '
        "an ingress's auth) sends the user's name in `user_header`, trusted only from "
        '`trusted_proxies`; "none": the web chat answers no question (the probes and '
        "/metrics still answer)",
    )
    trusted_proxies: list[IPv4Network | IPv6Network] = Field(
        default_factory=list,
        description="the addresses (CIDR) the proxy connects from; a request from any "
        "other address is refused, whatever headers it sends",
    )
    user_header: str = Field(
        default="X-Forwarded-User",
        pattern=r"^[A-Za-z0-9-]{1,64}$",
        description="the header holding the user's name (oauth2-proxy: X-Forwarded-User "
        "or X-Forwarded-Preferred-Username)",
    )
    groups_header: str = Field(
        default="X-Forwarded-Groups",
        pattern=r"^[A-Za-z0-9-]{1,64}$",
        description="the header holding the user's groups, comma-separated",
    )
    admin_groups: list[str] = Field(
        default_factory=list,
        description="groups whose members are admins (besides the names in `admins`)",
    )

    @model_validator(mode="after")
    def _proxies_named(self) -> WebIdentitySettings:
        if self.mode is WebIdentityMode.PROXY and not self.trusted_proxies:
            raise PydanticCustomError(
                "proxies",
                "trusted_proxies: name the addresses the proxy connects from "
                '(e.g. ["10.0.0.0/8"]); without them any client could send the header',
            )
        return self


class WebSettings(_Strict):
    """The web chat, /healthz, /readyz, /metrics and the slash command's port."""

    host: str = Field(
        default="127.0.0.1",
        description="the address the web chat and probes listen on (the chart: 0.0.0.0)",
    )
    port: int = Field(default=8080, ge=0, le=65535, description="their port (0: any free port)")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description='the Host names the web chat and its API answer ("chat.example.com", '
        '"*.example.com"; a port is ignored); a page that points another name at this '
        "address (DNS rebinding) is refused. Empty: any name. /healthz, /readyz and "
        "/metrics answer any name (probes use the pod's address)",
    )
    identity: WebIdentitySettings = Field(
        default_factory=WebIdentitySettings,
        description="who is asking in the web chat (below); default: nobody, the chat "
        "answers no question",
    )
    metrics_port: int | None = Field(
        default=None,
        ge=0,
        le=65535,
        description="serve /metrics on this port of the same host instead of the chat's "
        "(then the chat's port has no /metrics)",
    )


def _matcher(value: str) -> str:
    parse_matcher(value)  # raises ValueError naming what is wrong
    return value


class AlertRouteSettings(_Strict):
    """Which alerts are investigated where: the first route whose matchers all match an
    alert group's labels takes it (none matches: the group is not investigated)."""

    matchers: list[Annotated[str, AfterValidator(_matcher)]] = Field(
        default_factory=list,
        description='label matchers as Alertmanager\'s routes write them: name="value", '
        'name!="value", name=~"regex", name!~"regex"; all must match; empty: every alert',
    )
    channel: str = Field(
        description="the channel (its name in mattermost.team) the alert's thread is posted in"
    )
    language: Language = Field(
        default=Language.EN, description="the language of the thread: en or ru"
    )


class AlertAuthSettings(_Strict):
    """How Alertmanager's `http_config` (or Grafana's contact point) authenticates: a
    bearer token, or basic auth."""

    token_env: str | None = Field(
        default=None,
        description="the variable holding the bearer token the sender sends "
        "(Alertmanager: http_config.authorization.credentials)",
    )
    username: str | None = Field(
        default=None, description="basic auth user name (with password_env)"
    )
    password_env: str | None = Field(
        default=None, description="the variable holding the basic auth password"
    )

    @model_validator(mode="after")
    def _one_way(self) -> AlertAuthSettings:
        if self.token_env is None and self.password_env is None:
            raise _at(
                "token_env", message="set token_env (a bearer token) or username with password_env"
            )
        if self.token_env is not None and self.password_env is not None:
            raise _at("password_env", message="use either token_env or basic auth, not both")
        if (self.username is None) != (self.password_env is None):
            raise _at("username", message="basic auth needs both username and password_env")
        return self


class AlertLimitSettings(_Strict):
    """Safety valves: what a flood of alerts may cost (each counted in /metrics)."""

    concurrent: int = Field(
        default=2, ge=1, le=32, description="investigations of alerts running at once"
    )
    queued: int = Field(
        default=20,
        ge=0,
        le=1000,
        description="investigations waiting for a free slot; one more is not run (its thread "
        "says so)",
    )
    per_group_per_hour: int = Field(
        default=3,
        ge=1,
        le=60,
        description="investigations of one alert group in an hour (new alerts of the group "
        "beyond it are listed, not investigated)",
    )
    storm_groups: int = Field(
        default=10,
        ge=1,
        le=1000,
        description="new alert groups in storm_window_s that get threads of their own; more "
        "are listed in one storm summary post per channel",
    )
    storm_window_s: float = Field(
        default=300, gt=0, le=3600, description="the window storm_groups counts in"
    )


class AlertsSettings(_Strict):
    """The alert receiver under `serve`: Alertmanager's webhook at /alerts/alertmanager and
    Grafana's webhook contact point at /alerts/grafana; each alert group investigated in a
    Mattermost thread of its own."""

    auth: AlertAuthSettings = Field(description="how the senders authenticate")
    routes: list[AlertRouteSettings] = Field(
        min_length=1, description="which alerts are investigated, where, in which language"
    )
    env_label: str = Field(
        default="cluster",
        description="the alert label that names the environment (its value is an "
        "environment's name or alias, or a key of env_values)",
    )
    env_values: dict[str, str] = Field(
        default_factory=dict,
        description="env_label values that are not an environment's name: value -> environment",
    )
    max_body_bytes: int = Field(
        default=1_048_576,
        ge=1024,
        le=64 * 1_048_576,
        description="a larger notification is refused with 413",
    )
    limits: AlertLimitSettings = Field(
        default_factory=AlertLimitSettings, description="safety valves (below)"
    )


class InvestigationLimits(_Strict):
    """Bounds on one turn's work."""

    max_rounds: int = Field(
        default=4,
        ge=1,
        le=10,
        description="rounds of reads in one turn (each may follow what the last one found)",
    )
    turn_deadline_s: float = Field(
        default=90.0,
        gt=0,
        le=1800,
        description="seconds a turn may take; what was not read by then is a gap",
    )
    facts_per_source: int = Field(
        default=12,
        ge=1,
        le=200,
        description="facts one source contributes to the evidence an answer is written from",
    )
    inventory_ttl_s: float = Field(
        default=60.0,
        ge=0,
        le=3600,
        description="how long the names listed in an environment are reused (0: every turn)",
    )


class InfrabotConfig(_Strict):
    """The whole configuration file."""

    timezone: str = Field(
        default="UTC", description="the zone times are read and shown in (an IANA name)"
    )
    environments: dict[str, EnvironmentSettings] = Field(
        description="by name: what each environment's sources are"
    )
    gitlab: GitLabSettings | None = Field(default=None, description="releases and commits")
    mcp_servers: list[McpServerSettings] = Field(
        default_factory=list, description="MCP skill servers whose read tools are admitted"
    )
    admins: list[str] = Field(
        default_factory=list, description="Mattermost usernames that may confirm knowledge"
    )
    allowed_link_hosts: list[str] = Field(
        default_factory=list, description="hosts a saved knowledge entry may link to"
    )
    models: ModelsSettings = Field(
        default_factory=ModelsSettings,
        description="optional model servers; everything works without one",
    )
    memory: MemorySettings = Field(
        default_factory=MemorySettings, description="working memory and confirmed knowledge"
    )
    mattermost: MattermostSettings | None = Field(
        default=None, description="the chat the bot answers in under `serve`"
    )
    web: WebSettings = Field(
        default_factory=WebSettings, description="the web chat, probes and /metrics"
    )
    limits: InvestigationLimits = Field(
        default_factory=InvestigationLimits, description="bounds on one turn's work"
    )
    alerts: AlertsSettings | None = Field(
        default=None,
        description="investigate the alerts Alertmanager or Grafana send to `serve` "
        "(needs mattermost)",
    )
    _source: str = PrivateAttr(default="config")
    _lines: dict[tuple[str, ...], int] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _alerts_need_mattermost(self) -> InfrabotConfig:
        if self.alerts is not None and self.mattermost is None:
            raise _at("alerts", message="alerts are posted in Mattermost: configure mattermost")
        if self.alerts is not None:
            envs = {n.casefold() for n in self.environments} | {
                a.casefold() for e in self.environments.values() for a in e.aliases
            }
            for value, env in self.alerts.env_values.items():
                if env.casefold() not in envs:
                    raise _at("alerts", "env_values", value, message=f"{env!r} is no environment")
        return self

    @field_validator("timezone")
    @classmethod
    def _tz(cls, value: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: "Europe", a long name
            raise ValueError(
                f"unknown timezone {value!r} (use an IANA name like Europe/Moscow)"
            ) from None
        return value

    @field_validator("mcp_servers")
    @classmethod
    def _mcp_names(cls, value: list[McpServerSettings]) -> list[McpServerSettings]:
        seen: dict[str, str] = {}
        for n, server in enumerate(value):
            prefix = server.tool_prefix
            if not prefix:
                raise _at(n, "name", message=f"{server.name!r} has no letter or digit")
            if (other := seen.setdefault(prefix, server.name)) != server.name or (
                sum(1 for s in value if s.name == server.name) > 1
            ):
                raise _at(
                    n,
                    "name",
                    message=f"{server.name!r} names its tools mcp.{prefix}.* like {other!r}",
                )
        return value

    @field_validator("environments")
    @classmethod
    def _envs(cls, value: dict[str, EnvironmentSettings]) -> dict[str, EnvironmentSettings]:
        if not value:
            raise ValueError("at least one environment is needed")
        owner: dict[str, str] = {}  # a name or alias, casefolded -> the environment it names
        for name in value:
            if not name or not all(ch.isalnum() or ch in "-_" for ch in name):
                raise _at(name, message=f"environment name {name!r}: use letters, digits, - and _")
            if (other := owner.setdefault(name.casefold(), name)) != name:
                raise _at(name, message=f"the same environment as {other!r}: give it once")
        for name, env in value.items():
            for alias in env.aliases:
                other = owner.setdefault(alias.casefold(), name)
                if other != name:
                    raise _at(
                        name,
                        "aliases",
                        message=f"{alias!r} already names environment {other!r}",
                    )
        return value

    @property
    def source(self) -> str:
        """The file this configuration was read from (for errors found after loading)."""
        return self._source

    @property
    def key_lines(self) -> Mapping[tuple[str, ...], int]:
        """Each key path of the file -> the line that sets it (empty when not from a file)."""
        return self._lines

    def key_line(self, key: Sequence[str | int]) -> int | None:
        """The line of the file that sets `key` (or the nearest key above it)."""
        return nearest_line(self._lines, key)

    def role_of(self, user: str) -> Role:
        return "admin" if user in self.admins else "engineer"


class Secrets(BaseSettings):
    """Secrets from the environment (INFRABOT_MM_TOKEN, INFRABOT_LLM_API_KEY, ...)."""

    model_config = SettingsConfigDict(env_prefix="INFRABOT_", extra="ignore")

    mm_token: SecretStr | None = Field(
        default=None, description="the Mattermost bot account's access token"
    )
    mm_command_token: SecretStr | None = Field(
        default=None,
        description="the token Mattermost sends with each `/infrabot` slash command "
        "(Integrations > Slash Commands shows it); unset: the command's route is not served",
    )
    llm_api_key: SecretStr | None = Field(
        default=None, description="the model endpoint's API key (model mode)"
    )


def parse_config(
    data: object, name: str = "config", lines: Mapping[tuple[str, ...], int] | None = None
) -> InfrabotConfig:
    """Validate the data of a configuration; `name` (the file) and `lines` (its key
    lines) go into every error, now and when the sources are built from it."""
    if data is None:
        raise ConfigFileError(f"{name}: (top level): the configuration is empty")
    try:
        config = InfrabotConfig.model_validate(data)
    except ValidationError as exc:
        raise config_error(exc, name, root=InfrabotConfig, lines=lines) from None
    config._source = name
    config._lines = dict(lines or {})
    return config


def load_config(path: Path) -> InfrabotConfig:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigFileError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = load_strict(text)
    except DuplicateKeyError as exc:
        twice = key_lines(text).twice
        if not twice:
            raise ConfigFileError(f"{path}: {exc}") from None
        key, line, first = twice[0]
        raise ConfigFileError(
            f"{path}:{line}: {dotted(key)}: duplicate key {key[-1]!r} at line {line} "
            f"(first at line {first})"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigFileError(f"{where}: invalid YAML: {problem}") from None
    return parse_config(data, str(path), key_lines(text).lines)


def secret_from_env(var: str | None, environ: dict[str, str] | None = None) -> SecretStr | None:
    if not var:
        return None
    value = (environ if environ is not None else os.environ).get(var)
    return SecretStr(value) if value else None
