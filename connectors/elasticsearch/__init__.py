"""Elasticsearch logs: edge access and error logs, application logs.

Tools: `logs.request_trace`, `logs.edge_errors`, `logs.app_logs`, `logs.search`, and
`k8s.audit_log` (Kubernetes audit events) for a target that names its `audit_index`.
Reads go through the official synchronous client (`elasticsearch` 9.x) in a worker
thread, with `request_timeout` on every call, no retries, `track_total_hits: true`, and
search_after paging up to the target's `max_hits`. A read is complete for a negative only when
`hits.total.relation` is `eq` and every hit was read; a capped read says "read N of >= M".

Error tree (no SDK exception leaves this package; each is raised `from` the original):

    ApiError 401, 403                    -> SourceForbidden
    ApiError 404 index_not_found         -> SourceUnsupported ("index pattern X is not
                                            served in ENV"; wildcards are sent with
                                            allow_no_indices=false, so a pattern that
                                            matches nothing is reported, not read as empty)
    ApiError 404 (other)                 -> SourceUnsupported
    ApiError 400 (query rejected)        -> SourceUnsupported, with the server's reason
    ApiError 429, 5xx                    -> SourceUnavailable
    ConnectionTimeout                    -> SourceTimeout
    ConnectionError, other TransportError-> SourceUnavailable
    SerializationError, no hits list,
    UnsupportedProductError              -> SourceMalformed
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from connectors.elasticsearch import (
    _apperrors,
    _applogs,
    _audit,
    _edge,
    _inventory,
    _search,
    _trace,
)
from connectors.elasticsearch._discovery import IndexRole
from connectors.elasticsearch._layout import LayoutOverride, Preset
from connectors.elasticsearch._probe import probe
from connectors.elasticsearch._reader import LogReader
from connectors.elasticsearch._settings import DEFAULT_DISCOVER_URL_TEMPLATE, ElasticsearchTarget
from policy.errors import ConfigError
from policy.toolset import CallContext, FunctionTool, Tool

__all__ = [
    "DEFAULT_DISCOVER_URL_TEMPLATE",
    "ElasticsearchTarget",
    "IndexRole",
    "LayoutOverride",
    "Preset",
    "build_tools",
    "probe",
]


def build_tools(targets: Sequence[ElasticsearchTarget]) -> list[Tool]:
    """The log tools over one target per environment."""
    envs = [t.env for t in targets]
    if len(set(envs)) != len(envs):
        raise ConfigError(f"elasticsearch: more than one target for an environment: {envs}")
    if not targets:
        return []
    readers = {t.env: LogReader(t) for t in targets}
    patterns = sorted({p for t in targets for p in t.patterns()})

    def bind(fn: Any) -> Any:
        async def run(args: Any, ctx: CallContext) -> Any:
            return await fn(readers, args, ctx)

        return run

    held = tuple(readers.values())
    # Kubernetes audit events only where the operator says which index holds them
    audited = [t.env for t in targets if t.audit_index]
    audit = (
        [FunctionTool(_audit.contract(audited), bind(_audit.audit_log), resources=held)]
        if audited
        else []
    )
    return [
        FunctionTool(_trace.contract(envs), bind(_trace.request_trace), resources=held),
        FunctionTool(_edge.contract(envs), bind(_edge.edge_errors), resources=held),
        FunctionTool(_applogs.contract(envs), bind(_applogs.app_logs), resources=held),
        FunctionTool(_apperrors.contract(envs), bind(_apperrors.app_errors), resources=held),
        FunctionTool(_search.contract(envs, patterns), bind(_search.log_search), resources=held),
        FunctionTool(_inventory.contract(envs), bind(_inventory.inventory), resources=held),
        *audit,
    ]
