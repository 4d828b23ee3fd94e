"""Wire configured connectors into one gated tool set.

The only place that turns configuration (with secrets read from the environment) into
connector targets. Connectors never see the YAML or os.environ.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

import structlog
from pydantic import SecretStr, ValidationError

from bot.config_errors import ConfigFileError, config_error, dotted
from bot.settings import InfrabotConfig, ModelSettings, secret_from_env
from connectors import elasticsearch, gitlab, kubernetes, netcheck, victoriametrics
from connectors import mcp as mcp_skills
from planner import (
    ModelRole,
    ModelSet,
    OpenAICompatibleModel,
    ProviderSettings,
    RoleLimits,
    trimmed_spec,
)
from policy.errors import ConfigError
from policy.gate import PolicyGate
from policy.toolset import Tool, ToolSet

log = structlog.get_logger(__name__)

_INDEX_FIELDS = tuple(role.value for role in elasticsearch.IndexRole)
T = TypeVar("T")
P = ParamSpec("P")

# a target's field -> the configuration key it is read from, where the two differ
_KEYS = {
    "kubernetes": {
        "token": "token_env",
        "service_host": "in_cluster",
        "service_port": "in_cluster",
    },
    "metrics": {"password": "password_env", "bearer_token": "bearer_token_env"},
    "logs": {"api_key": "api_key_env", "password": "password_env"},
    "gitlab": {"token": "token_env"},
    "mcp_servers": {"token": "token_env", "env": "pass_env"},
}


def _make(
    config: InfrabotConfig,
    at: tuple[str | int, ...],
    make: Callable[P, T],
    /,
    *args: P.args,
    **fields: P.kwargs,
) -> T:
    """`make(**fields)`, a connector's target built from the settings at key path `at`;
    its own checks (a CA file that is not there, a kubeconfig context it lacks, in_cluster
    outside a pod) fail as configuration errors naming the file, line and key path."""
    try:
        return make(*args, **fields)
    except ValidationError as exc:
        # the section's name: the last key, or the list's name before an index
        rename = _KEYS.get(next((k for k in reversed(at) if isinstance(k, str)), ""), {})
        raise config_error(
            exc, config.source, root=InfrabotConfig, at=at, rename=rename, lines=config.key_lines
        ) from None
    except ConfigError as exc:
        raise _key_error(config, (*at, "in_cluster"), str(exc)) from None


def _key_error(config: InfrabotConfig, key: tuple[str | int, ...], message: str) -> ConfigFileError:
    line = config.key_line(key)
    where = f"{config.source}:{line}" if line else config.source
    return ConfigFileError(f"{where}: {dotted(key)}: {message}")


def secret_at(
    config: InfrabotConfig,
    key: tuple[str | int, ...],
    var: str | None,
    environ: dict[str, str] | None,
) -> SecretStr | None:
    """The secret in the variable a `*_env` key names. A key the file gives whose variable
    is unset or empty stops start-up naming both: requests sent without it would come back
    only as "401 Unauthorized" gaps. A key the file leaves out sends none."""
    secret = secret_from_env(var, environ)
    if var and secret is None:
        raise _key_error(config, key, f"the variable {var} is not set or is empty")
    return secret


@dataclass(frozen=True)
class Targets:
    """Every configured source as its connector's target, secrets resolved."""

    kubernetes: list[kubernetes.KubernetesTarget]
    metrics: list[victoriametrics.MetricsTarget]
    logs: list[elasticsearch.ElasticsearchTarget]
    gitlab: gitlab.GitLabTarget | None


def build_targets(config: InfrabotConfig, environ: Mapping[str, str] | None = None) -> Targets:
    env_vars = dict(environ) if environ is not None else None
    k8s_targets = []
    metric_targets = []
    log_targets = []
    for name, env in config.environments.items():
        if env.kubernetes is not None:
            k = env.kubernetes
            at = ("environments", name, "kubernetes")
            address = (
                _make(
                    config,
                    at,
                    kubernetes.in_cluster_address,
                    environ=env_vars if env_vars is not None else os.environ,
                )
                if k.in_cluster
                else None
            )
            k8s_targets.append(
                _make(
                    config,
                    at,
                    kubernetes.KubernetesTarget,
                    env=name,
                    url=k.url,
                    token=secret_at(config, (*at, "token_env"), k.token_env, env_vars),
                    verify_tls=k.verify_tls,
                    ca_cert_path=k.ca_cert_path,
                    client_cert_path=k.client_cert_path,
                    client_key_path=k.client_key_path,
                    kubeconfig_path=k.kubeconfig_path,
                    context=k.context,
                    in_cluster=k.in_cluster,
                    **(address._asdict() if address is not None else {}),
                    **(
                        {"serviceaccount_dir": k.serviceaccount_dir} if k.serviceaccount_dir else {}
                    ),
                    timeout_s=k.timeout_s,
                    link_template=k.link_template,
                )
            )
        if env.metrics is not None:
            m = env.metrics
            at = ("environments", name, "metrics")
            metric_targets.append(
                _make(
                    config,
                    at,
                    victoriametrics.MetricsTarget,
                    env=name,
                    url=m.url,
                    grafana_url=m.grafana_url,
                    timeout_s=m.timeout_s,
                    username=m.username,
                    password=secret_at(config, (*at, "password_env"), m.password_env, env_vars),
                    bearer_token=secret_at(
                        config, (*at, "bearer_token_env"), m.bearer_token_env, env_vars
                    ),
                    ca_cert_path=m.ca_cert_path,
                    verify_tls=m.verify_tls,
                )
            )
        if env.logs is not None:
            lg = env.logs
            at = ("environments", name, "logs")
            log_targets.append(
                _make(
                    config,
                    at,
                    elasticsearch.ElasticsearchTarget,
                    env=name,
                    url=lg.url,
                    api_key=secret_at(config, (*at, "api_key_env"), lg.api_key_env, env_vars),
                    username=lg.username,
                    password=secret_at(config, (*at, "password_env"), lg.password_env, env_vars),
                    # an index left out of the config is found by discovery
                    **{
                        role: getattr(lg, role)
                        for role in _INDEX_FIELDS
                        if role in lg.model_fields_set
                    },
                    timeout_s=lg.timeout_s,
                    max_hits=lg.max_hits,
                    kibana_url=lg.kibana_url,
                    search_indices=lg.search_indices,
                    layouts=lg.layouts,
                    **(
                        {"discover_url_template": lg.discover_url_template}
                        if lg.discover_url_template
                        else {}
                    ),
                )
            )
    gitlab_target = None
    if config.gitlab is not None:
        g = config.gitlab
        gitlab_target = _make(
            config,
            ("gitlab",),
            gitlab.GitLabTarget,
            url=g.url,
            token=secret_at(config, ("gitlab", "token_env"), g.token_env, env_vars),
            timeout_s=g.timeout_s,
            ssl_verify=g.ssl_verify,
            max_projects=g.max_projects,
            env_job_pattern=g.env_job_pattern,
            projects=g.projects,
        )
    return Targets(k8s_targets, metric_targets, log_targets, gitlab_target)


def build_mcp_servers(
    config: InfrabotConfig, environ: Mapping[str, str] | None = None
) -> list[mcp_skills.McpServer]:
    """The configured MCP skill servers, not listed yet (`build_tools` lists them)."""
    env_vars = dict(environ) if environ is not None else None
    return [
        mcp_skills.McpServer(
            _make(
                config,
                ("mcp_servers", i),
                mcp_skills.McpTarget,
                name=s.name,
                url=s.url,
                token=secret_at(config, ("mcp_servers", i, "token_env"), s.token_env, env_vars),
                command=tuple(s.command) if s.command else None,
                env={
                    var: value
                    for var in s.pass_env
                    if (value := secret_from_env(var, env_vars)) is not None
                },
                timeout_s=s.timeout_s,
            )
        )
        for i, s in enumerate(config.mcp_servers)
    ]


def build_tools(
    config: InfrabotConfig,
    environ: Mapping[str, str] | None = None,
    mcp_servers: list[mcp_skills.McpServer] | None = None,
) -> list[Tool]:
    """Every configured tool. The MCP servers are listed here (each once): pass
    `mcp_servers` to keep them, and so their catalogue and health, for a report."""
    t = build_targets(config, environ)
    tools: list[Tool] = []
    tools += kubernetes.build_tools(t.kubernetes) if t.kubernetes else []
    tools += victoriametrics.build_tools(t.metrics) if t.metrics else []
    tools += elasticsearch.build_tools(t.logs) if t.logs else []
    tools += gitlab.build_tools(t.gitlab, list(config.environments)) if t.gitlab else []
    tools += netcheck.build_tools()
    if config.mcp_servers:
        servers = mcp_servers if mcp_servers is not None else build_mcp_servers(config, environ)
        tools += mcp_skills.build_tools(servers)
    return tools


RERANK_TIMEOUT_S = 5.0


def model_client(
    m: ModelSettings, environ: Mapping[str, str] | None = None
) -> OpenAICompatibleModel:
    """The client of one configured model, its key from the variable the config names."""
    env_vars = dict(environ) if environ is not None else None
    return OpenAICompatibleModel(
        ProviderSettings(
            base_url=m.base_url, model=m.model, api_key=secret_from_env(m.api_key_env, env_vars)
        ),
        spec=trimmed_spec,
    )


def build_models(
    config: InfrabotConfig, environ: Mapping[str, str] | None = None
) -> ModelSet | None:
    """The configured models, or None: everything works without one. With one model it
    does every role; with both, each is the other's fallback."""
    ms = config.models
    if ms.planner is None and ms.finalizer is None:
        return None

    env_vars = dict(environ) if environ is not None else None
    for role, m in (("planner", ms.planner), ("finalizer", ms.finalizer)):
        if m is not None and secret_from_env(m.api_key_env, env_vars) is None:
            if "api_key_env" in m.model_fields_set:
                raise _key_error(
                    config,
                    ("models", role, "api_key_env"),
                    f"the variable {m.api_key_env} is not set or is empty",
                )
            # the default variable, unset: a local server (llama.cpp, Ollama) takes no key
            log.info("model.no_api_key", role=role, variable=m.api_key_env, url=m.base_url)

    def client(m: ModelSettings) -> OpenAICompatibleModel:
        return model_client(m, environ)

    planner_settings = ms.planner or ms.finalizer
    assert planner_settings is not None
    planner = client(planner_settings)
    finalizer = (
        client(ms.finalizer) if ms.finalizer is not None and ms.planner is not None else None
    )
    final_settings = ms.finalizer or planner_settings
    return ModelSet(
        planner=planner,
        finalizer=finalizer,
        limits={
            ModelRole.PLANNER: RoleLimits(planner_settings.timeout_s, planner_settings.max_tokens),
            # a head start only: short, or planning waits on it
            ModelRole.RERANK: RoleLimits(min(planner_settings.timeout_s, RERANK_TIMEOUT_S), 256),
            ModelRole.FINALIZER: RoleLimits(final_settings.timeout_s, final_settings.max_tokens),
        },
        max_tool_schemas=ms.max_tool_schemas,
        rerank=ms.rerank,
        synthesis_reserve_s=ms.synthesis_reserve_s,
    )


def build_gate(config: InfrabotConfig, environ: Mapping[str, str] | None = None) -> PolicyGate:
    return PolicyGate(ToolSet(build_tools(config, environ)))
