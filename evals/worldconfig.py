"""Configuration that points every environment of a world at its simulators."""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from bot.settings import InfrabotConfig, parse_config
from evals.simulators.elasticsearch._store import AUDIT_PATTERN
from evals.simulators.host import WorldEndpoints
from evals.world import SourceName, World


def _index_patterns(indices: dict[str, Any]) -> list[str]:
    """The world's indices as an operator would configure them: daily indices by pattern
    (syslog-2026.07.22 -> syslog-*)."""
    fixed = {"edge-access-*", "edge-error-*", "app-*"}
    out = []
    for name in indices:
        pattern = re.sub(r"-\d{4}[.-]\d{2}[.-]\d{2}$", "-*", name)
        if pattern.startswith("app-"):
            continue  # covered by app-*
        if pattern not in fixed and pattern not in out:
            out.append(pattern)
    return out


def _audit_served(world: World, env: str) -> bool:
    """The env's log simulator holds Kubernetes audit events, so its configuration names
    the audit index (as an operator whose shipper indexes the audit log would): the world's
    `audit:` events, filed by the store as daily indices, or an audit index it writes."""
    return bool(world.audit.get(env)) or any(
        fnmatch.fnmatchcase(name, AUDIT_PATTERN) for name in world.logs.get(env, {})
    )


# A source no fault stalls gets the product's own default timeout: the simulators share
# the process (and its interpreter lock) with the bot under test, so on a loaded two-core
# runner a turn of forty parallel reads can keep a healthy answer waiting past a second.
# A short timeout there would turn load into a gap the world never holds.
HEALTHY_TIMEOUT_S = 10.0


def _stalled(world: World, source: SourceName, env: str | None) -> bool:
    """A `timeout` fault stalls this source in this environment (or in every one)."""
    return any(
        f.kind == "timeout" and f.source == source and (f.env is None or f.env == env)
        for f in world.faults
    )


def config_for_world(
    world: World,
    endpoints: WorldEndpoints,
    *,
    timezone: str = "UTC",
    timeout_s: float = 3.0,
    admins: list[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> InfrabotConfig:
    """`timeout_s` is the timeout of a source a fault stalls: short, so a fault scenario
    does not wait long for its gap; every other source waits as long as the product does."""

    def timeout(source: SourceName, env: str | None) -> float:
        return timeout_s if _stalled(world, source, env) else max(timeout_s, HEALTHY_TIMEOUT_S)

    envs: dict[str, Any] = {}
    for env in world.environments:
        ep = endpoints.envs.get(env)
        entry: dict[str, Any] = {}
        if ep is not None:
            if ep.kubernetes:
                entry["kubernetes"] = {
                    "url": ep.kubernetes,
                    "timeout_s": timeout("kubernetes", env),
                }
            if ep.metrics:
                entry["metrics"] = {"url": ep.metrics, "timeout_s": timeout("metrics", env)}
            if ep.logs:
                entry["logs"] = {
                    "url": ep.logs,
                    "timeout_s": timeout("logs", env),
                    "search_indices": _index_patterns(world.logs.get(env, {})),
                }
                if _audit_served(world, env):
                    entry["logs"]["audit_index"] = AUDIT_PATTERN
        envs[env] = entry
    data: dict[str, Any] = {
        "timezone": timezone,
        "environments": envs,
        "admins": admins or [],
        "allowed_link_hosts": ["gitlab.example.com", "wiki.example.com", "grafana.example.com"],
        "limits": {"turn_deadline_s": 60},
    }
    if endpoints.gitlab:
        data["gitlab"] = {"url": endpoints.gitlab, "timeout_s": timeout("gitlab", None)}
    if extra:
        data.update(extra)
    return parse_config(data, "world config")
