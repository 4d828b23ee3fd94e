"""`infrabot doctor`: which configured sources answer, what layouts they hold, what is missing.

Every source is probed at once (each within its own timeout), through the same targets
the bot reads with, so what doctor says works is what a question will read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping
from datetime import datetime

from bot.settings import InfrabotConfig, ModelSettings
from bot.wiring import build_mcp_servers, build_targets, model_client
from connectors import elasticsearch, gitlab, kubernetes, victoriametrics
from connectors import mcp as mcp_skills
from policy.probe import Probe, ProbeStatus

GRACE_S = 5.0  # beyond a source's own timeout, before doctor gives up on it


async def _bounded(
    source: str, env: str | None, probe: Awaitable[Probe], timeout_s: float
) -> Probe:
    try:
        return await asyncio.wait_for(probe, timeout_s + GRACE_S)
    except TimeoutError:
        return Probe(
            source=source,
            env=env,
            answered=False,
            detail=f"no answer within {timeout_s + GRACE_S:g} s",
        )


async def diagnose(
    config: InfrabotConfig, now: datetime, environ: Mapping[str, str] | None = None
) -> list[Probe]:
    targets = build_targets(config, environ)
    probes: list[Awaitable[Probe]] = []
    for k in targets.kubernetes:
        probes.append(_bounded("kubernetes", k.env, kubernetes.probe(k), k.timeout_s))
    for m in targets.metrics:
        probes.append(_bounded("metrics", m.env, victoriametrics.probe(m, now), m.timeout_s))
    for lg in targets.logs:
        # discovery, then a field check per role: a few reads in a row
        probes.append(_bounded("logs", lg.env, elasticsearch.probe(lg, now), lg.timeout_s * 4))
    if targets.gitlab is not None:
        g = targets.gitlab
        probes.append(_bounded("gitlab", None, gitlab.probe(g), g.timeout_s * 2))
    for server in build_mcp_servers(config, environ):
        timeout = server.target.timeout_s
        probes.append(_bounded(server.source, None, mcp_skills.probe(server), timeout))
    models = (("planner", config.models.planner), ("finalizer", config.models.finalizer))
    for role, settings in models:
        if settings is not None:
            source = f"model/{role}"
            # the key from the process's environment, as the bot reads it
            probe = probe_model(source, settings)
            probes.append(_bounded(source, None, probe, settings.timeout_s))
    return list(await asyncio.gather(*probes))


async def probe_model(
    source: str, m: ModelSettings, environ: Mapping[str, str] | None = None
) -> Probe:
    """Whether the model server answers and lists the configured model (GET /models, what
    vLLM, Ollama and llama.cpp serve). A server that lists nothing is not a failure: the
    first chat request then tells."""
    import openai

    client = model_client(m, environ)
    try:
        listed = await client.served(m.timeout_s)
    except openai.APIStatusError as exc:
        return Probe(
            source=source,
            answered=True,
            detail=f"{m.base_url} lists no models (HTTP {exc.status_code}); {m.model} unverified",
        )
    except (openai.APIError, ValueError, TypeError) as exc:
        return Probe(source=source, answered=False, detail=f"{m.base_url}: {type(exc).__name__}")
    finally:
        await client.aclose()
    there = m.model in listed
    return Probe(
        source=source,
        answered=True,
        detail=f"{m.base_url} serves {len(listed)} model(s)",
        found=[m.model] if there else [],
        missing=[] if there else [f"model {m.model} (listed: {', '.join(listed[:5]) or 'none'})"],
    )


def render(probes: list[Probe], config: InfrabotConfig) -> str:
    """Per environment, each source: its status, what it is, what the tools will read and
    what was looked for and is missing."""
    lines: list[str] = []
    by_env: dict[str | None, list[Probe]] = {}
    for p in probes:
        by_env.setdefault(p.env, []).append(p)
    for env in [*config.environments, None]:
        got = by_env.get(env, [])
        if env is not None:
            lines.append(env)
        indent = "  " if env is not None else ""
        for p in got:
            lines.append(f"{indent}{p.source:<11} {p.status.value:<10} {p.detail}")
            lines += [f"{indent}{'':<11} + {item}" for item in p.found]
            lines += [f"{indent}{'':<11} - {item}" for item in p.missing]
        if env is not None:
            configured = {p.source for p in got}
            for source in ("kubernetes", "metrics", "logs"):
                if source not in configured:
                    lines.append(f"  {source:<11} {'-':<10} not configured")
    failed = sum(p.status is ProbeStatus.FAILED for p in probes)
    incomplete = sum(p.status is ProbeStatus.INCOMPLETE for p in probes)
    lines.append(
        f"{len(probes)} source(s): {len(probes) - failed - incomplete} ok, "
        f"{incomplete} incomplete, {failed} not answering"
    )
    return "\n".join(lines)
