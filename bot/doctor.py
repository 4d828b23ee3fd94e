"""`infrabot doctor`: which configured sources answer, what layouts they hold, what is missing.

Every source is probed at once (each within its own timeout), through the same targets
the bot reads with, so what doctor says works is what a question will read.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Mapping
from datetime import datetime

from bot.mattermost._probe import probe as mattermost_probe
from bot.settings import InfrabotConfig, ModelSettings
from bot.wiring import build_mcp_servers, build_targets, model_client
from connectors import elasticsearch, gitlab, kubernetes, victoriametrics
from connectors import mcp as mcp_skills
from connectors.kit.unreachable import certificate_untrusted, unreachable_said
from policy.numbers import Nouns, count_said
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
    # each probe with the URL it reaches and the CA it verifies that URL with
    probes: list[tuple[Awaitable[Probe], str | None, str | None]] = []
    for k in targets.kubernetes:
        probe = _bounded("kubernetes", k.env, kubernetes.probe(k), k.timeout_s)
        probes.append((probe, k.url, k.ca_cert_path))
    for m in targets.metrics:
        probe = _bounded("metrics", m.env, victoriametrics.probe(m, now), m.timeout_s)
        probes.append((probe, m.url, m.ca_cert_path))
    for lg in targets.logs:
        # discovery, then a field check per role: a few reads in a row
        probe = _bounded("logs", lg.env, elasticsearch.probe(lg, now), lg.timeout_s * 4)
        probes.append((probe, lg.url, None))
    if targets.gitlab is not None:
        g = targets.gitlab
        probes.append((_bounded("gitlab", None, gitlab.probe(g), g.timeout_s * 2), g.url, None))
    for server in build_mcp_servers(config, environ):
        timeout = server.target.timeout_s
        probe = _bounded(server.source, None, mcp_skills.probe(server), timeout)
        probes.append((probe, server.target.url, None))
    models = (("planner", config.models.planner), ("finalizer", config.models.finalizer))
    for role, settings in models:
        if settings is not None:
            source = f"model/{role}"
            # the key from the process's environment, as the bot reads it
            probe = _bounded(source, None, probe_model(source, settings), settings.timeout_s)
            probes.append((probe, settings.base_url, None))
    if config.mattermost is not None:
        token = (environ if environ is not None else os.environ).get("INFRABOT_MM_TOKEN")
        routed = [r.channel for r in config.alerts.routes] if config.alerts else []
        checked = mattermost_probe(config.mattermost, token, routed)
        probe = _bounded("mattermost", None, checked, 40)
        probes.append((probe, config.mattermost.url, None))
    return list(await asyncio.gather(*(_with_tls(p, url, ca) for p, url, ca in probes)))


async def _with_tls(probe: Awaitable[Probe], url: str | None, ca: str | None) -> Probe:
    """A source that did not answer over https: whether the certificate it presents is
    one the configured CA (or the system's) verifies, and whose it is when not."""
    done = await probe
    if done.answered or not url:
        return done
    untrusted = await asyncio.to_thread(certificate_untrusted, url, ca)
    if untrusted is None:
        return done
    return done.model_copy(update={"missing": [*done.missing, f"TLS: {untrusted}"]})


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
        return Probe(source=source, answered=False, detail=unreachable_said(m.base_url, exc))
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
        f"{count_said(len(probes), Nouns.SOURCE)}: {len(probes) - failed - incomplete} ok, "
        f"{incomplete} incomplete, {failed} not answering"
    )
    return "\n".join(lines)
