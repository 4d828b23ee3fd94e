"""Wire configured connectors into one gated tool set.

The only place that turns configuration (with secrets read from the environment) into
connector targets. Connectors never see the YAML or os.environ.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from bot.settings import InfrabotConfig, secret_from_env
from connectors import elasticsearch, gitlab, kubernetes, netcheck, victoriametrics
from planner.model import ModelClient, OpenAICompatibleModel, ProviderSettings
from policy.gate import PolicyGate
from policy.toolset import Tool, ToolSet

_INDEX_FIELDS = tuple(role.value for role in elasticsearch.IndexRole)


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
            address = (
                kubernetes.in_cluster_address(env_vars if env_vars is not None else os.environ)
                if k.in_cluster
                else None
            )
            k8s_targets.append(
                kubernetes.KubernetesTarget(
                    env=name,
                    url=k.url,
                    token=secret_from_env(k.token_env, env_vars),
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
            metric_targets.append(
                victoriametrics.MetricsTarget(
                    env=name,
                    url=m.url,
                    grafana_url=m.grafana_url,
                    timeout_s=m.timeout_s,
                    username=m.username,
                    password=secret_from_env(m.password_env, env_vars),
                    bearer_token=secret_from_env(m.bearer_token_env, env_vars),
                    ca_cert_path=m.ca_cert_path,
                    verify_tls=m.verify_tls,
                )
            )
        if env.logs is not None:
            lg = env.logs
            log_targets.append(
                elasticsearch.ElasticsearchTarget(
                    env=name,
                    url=lg.url,
                    api_key=secret_from_env(lg.api_key_env, env_vars),
                    username=lg.username,
                    password=secret_from_env(lg.password_env, env_vars),
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
        gitlab_target = gitlab.GitLabTarget(
            url=g.url,
            token=secret_from_env(g.token_env, env_vars),
            timeout_s=g.timeout_s,
            ssl_verify=g.ssl_verify,
            max_projects=g.max_projects,
            env_job_pattern=g.env_job_pattern,
            projects=g.projects,
        )
    return Targets(k8s_targets, metric_targets, log_targets, gitlab_target)


def build_tools(config: InfrabotConfig, environ: Mapping[str, str] | None = None) -> list[Tool]:
    t = build_targets(config, environ)
    tools: list[Tool] = []
    tools += kubernetes.build_tools(t.kubernetes) if t.kubernetes else []
    tools += victoriametrics.build_tools(t.metrics) if t.metrics else []
    tools += elasticsearch.build_tools(t.logs) if t.logs else []
    tools += gitlab.build_tools(t.gitlab, list(config.environments)) if t.gitlab else []
    tools += netcheck.build_tools()
    return tools


def build_model(
    config: InfrabotConfig, environ: Mapping[str, str] | None = None
) -> ModelClient | None:
    """The planner model from configuration, or None: everything works without one."""
    m = config.models.planner
    if m is None:
        return None
    env_vars = dict(environ) if environ is not None else None
    return OpenAICompatibleModel(
        ProviderSettings(
            base_url=m.base_url, model=m.model, api_key=secret_from_env(m.api_key_env, env_vars)
        )
    )


def build_gate(config: InfrabotConfig, environ: Mapping[str, str] | None = None) -> PolicyGate:
    return PolicyGate(ToolSet(build_tools(config, environ)))
