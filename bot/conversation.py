"""The conversation path every surface uses: Turn -> context -> investigation -> Answer.

Mattermost, the web chat, the CLI and the evaluation runner all call
`Conversation.answer(turn)`, so a scenario exercises exactly what users get.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import structlog

from bot.knowledge import KnowledgeBase, knowledge_facts
from bot.memory import MemoryEntry, Observation, WorkingMemory
from bot.settings import InfrabotConfig
from planner.answer import Answer, Gap
from planner.context import ContextState, InventoryItem, build_context, names_not_listed
from planner.inventory_cache import InventoryCache
from planner.investigation import Investigation, InvestigationSettings, investigate
from planner.model import ModelClient
from planner.turn import Turn
from policy.gate import PolicyGate
from policy.redaction import redact, redact_obj
from policy.results import ToolResult
from policy.scope import Scope
from policy.toolset import CallContext, failure_result

log = structlog.get_logger(__name__)


@dataclass
class TurnOutcome:
    answer: Answer
    context: ContextState
    investigation: Investigation | None
    inventory_calls: list[dict]


class Conversation:
    def __init__(
        self,
        *,
        config: InfrabotConfig,
        gate: PolicyGate,
        memory: WorkingMemory,
        model: ModelClient | None = None,
        knowledge: KnowledgeBase | None = None,
    ) -> None:
        self.config = config
        self.model = model
        self.knowledge = knowledge
        self.gate = gate
        self.memory = memory
        self.inventory_cache = InventoryCache(timedelta(seconds=config.limits.inventory_ttl_s))
        self.tz = ZoneInfo(config.timezone)
        self.settings = InvestigationSettings(
            timezone=self.tz,
            source_timeouts=self._timeouts(config),
            max_rounds=config.limits.max_rounds,
            turn_deadline_s=config.limits.turn_deadline_s,
            facts_per_source=config.limits.facts_per_source,
            keep_query_hosts=_own_hosts(config),
        )

    async def aclose(self) -> None:
        """Close the connectors' keep-alive clients; call it on the loop that answered."""
        await self.gate.aclose()

    @staticmethod
    def _timeouts(config: InfrabotConfig) -> dict[str, float]:
        out: dict[str, float] = {}
        for env in config.environments.values():
            for name in ("kubernetes", "metrics", "logs"):
                src = getattr(env, name)
                if src is not None:
                    # the executor's guard is a little above the client's own timeout, so
                    # the client's error (with its reason) normally wins
                    out[name] = max(out.get(name, 0.0), src.timeout_s * 2 + 1)
        if config.gitlab is not None:
            out["gitlab"] = config.gitlab.timeout_s * 2 + 1
        return out

    async def _inventory(
        self, turn: Turn, *, fresh: bool = False
    ) -> tuple[list[InventoryItem], list[dict], dict[tuple[str, str | None], str]]:
        """Names known in each env, the calls made, and the sources that failed (those stay
        unavailable for the rest of the turn, so the answer says why, not "no service")."""
        ctx = CallContext(
            user=turn.user,
            role=turn.role,
            scope=Scope(),
            now=turn.now,
            timezone=self.config.timezone,
        )
        tools = [c for c in self.gate.contracts(ctx) if "inventory" in c.agent.evidence]
        calls = []
        for contract in tools:
            for env in contract.enums.get("env", [None]):
                args = {"env": env} if env else {}
                calls.append((contract.name, env, args, contract.agent.sources[0]))
        reads = await asyncio.gather(
            *(
                self._inventory_read(name, env, args, source, ctx, fresh=fresh)
                for name, env, args, source in calls
            )
        )
        items: list[InventoryItem] = []
        records = []
        failures: dict[tuple[str, str | None], str] = {}
        for (_, env, _, _), (result, record) in zip(calls, reads, strict=True):
            if result.status in ("error", "denied"):
                source = result.coverage.source.split("/")[0]
                failures[(source, env)] = f"{source} in {env}: {result.error}"
            records.append(record)
            for ent in result.entities:
                items.append(
                    InventoryItem(
                        env=ent.env or env or "",
                        namespace=ent.namespace,
                        name=ent.name,
                        kind=ent.kind,
                    )
                )
        return items, records, failures

    async def _inventory_read(
        self,
        name: str,
        env: str | None,
        args: dict,
        source: str,
        ctx: CallContext,
        *,
        fresh: bool = False,
    ) -> tuple[ToolResult, dict]:
        """One inventory read, or the same read kept from a turn moments ago (its record
        says so, with the time it was observed); `fresh` always reads."""
        record: dict = {"tool": name, "arguments": args, "purpose": "inventory"}
        kept = None if fresh else self.inventory_cache.get(name, env, ctx.now)
        if kept is not None:
            record |= {
                "status": kept.result.status,
                "duration_ms": 0,
                "cached": True,
                "observed_at": kept.observed_at.isoformat(),
            }
            return kept.result, record
        began = time.perf_counter()
        result = await self._guarded(name, args, source, ctx)
        self.inventory_cache.put(name, env, result, ctx.now)
        record |= {
            "status": result.status,
            "duration_ms": round((time.perf_counter() - began) * 1000),
        }
        return result, record

    async def _guarded(self, name: str, args: dict, source: str, ctx: CallContext) -> ToolResult:
        """An inventory read with the source's timeout; a hang or a bug becomes a failed
        read (and so a gap), never a hung or crashed turn."""
        timeout = self.settings.source_timeouts.get(source, self.settings.default_timeout)
        try:
            return await asyncio.wait_for(self.gate.call(name, args, ctx), timeout)
        except TimeoutError:
            return failure_result(
                name, ctx.scope, source, "error", f"no answer within {timeout:g} s", "timeout"
            )
        except Exception as exc:
            log.exception("inventory.failed", tool=name)
            return failure_result(
                name,
                ctx.scope,
                source,
                "error",
                f"internal error: {type(exc).__name__}",
                "internal_error",
            )

    async def answer(self, turn: Turn) -> TurnOutcome:
        log.info("turn.start", user=turn.user, channel=turn.channel, root=turn.root_id)
        previous = self.memory.last_context(turn.channel, turn.root_id)
        inventory, inv_calls, failed = await self._inventory(turn)
        envs = list(self.config.environments)
        aliases = {name: env.aliases for name, env in self.config.environments.items()}
        if any(c.get("cached") for c in inv_calls) and names_not_listed(
            turn.question, inventory=inventory, envs=envs, env_aliases=aliases
        ):
            # the question names something the kept lists do not have: perhaps deployed
            # since they were read, so list again rather than answer about something else
            inventory, inv_calls, failed = await self._inventory(turn, fresh=True)
        context = build_context(
            turn.question,
            envs=envs,
            inventory=inventory,
            now=turn.now,
            tz=self.tz,
            previous=previous,
            env_aliases=aliases,
            guess_names=bool(failed),
        )
        if context.unknown_envs and "env" not in context.explicit:
            answer = _unknown_env_answer(turn, context, envs)
            return TurnOutcome(answer, context, None, inv_calls)
        start, _ = context.scope.time.bounds(turn.now)
        if start > turn.now:
            # nothing can have been observed yet: reading would only produce empty
            # "complete" reads that look like proof of absence
            return TurnOutcome(_future_answer(turn, context, start), context, None, inv_calls)
        investigation = await investigate(
            turn,
            context,
            self.gate,
            self.settings,
            model=self.model,
            unavailable_sources=failed,
        )
        # a source that failed in this turn is listed afresh next time
        self.inventory_cache.invalidate(
            [
                (r.call.source, r.call.env)
                for r in investigation.records
                if r.result.status == "error"
            ]
        )
        answer = investigation.answer
        answer.tool_calls = inv_calls + answer.tool_calls
        # confirmed knowledge, with its provenance, after the live facts (supported_by
        # indexes stay valid) and never stored in memory as something observed
        answer.facts.extend(knowledge_facts(self.knowledge, turn.question, context.scope))
        # the question and the calls' arguments and errors may carry what the user pasted
        answer.question = redact(answer.question)
        answer.tool_calls = redact_obj(answer.tool_calls)
        self.memory.remember(
            turn.channel,
            turn.root_id,
            MemoryEntry(
                at=turn.now,
                question=turn.question,
                context=context,
                observations=[
                    Observation.from_fact(f, subject=context.intent)
                    for f in answer.facts[:20]
                    if not f.knowledge
                ],
            ),
        )
        return TurnOutcome(answer, context, investigation, inv_calls)


def _own_hosts(config: InfrabotConfig) -> frozenset[str]:
    """Hosts whose links keep their query strings: our configured sources and dashboards
    (a Grafana or Kibana link without its query is useless); everything else is redacted."""
    from urllib.parse import urlsplit

    urls: list[str] = []
    for env in config.environments.values():
        for src in (env.kubernetes, env.metrics, env.logs):
            if src is not None:
                urls.append(src.url)
                urls += [
                    getattr(src, a) or ""
                    for a in ("grafana_url", "discover_url_template", "kibana_url", "link_template")
                    if hasattr(src, a)
                ]
    if config.gitlab is not None:
        urls.append(config.gitlab.url)
    hosts = {urlsplit(u).hostname for u in urls if u}
    return frozenset(h for h in hosts if h) | frozenset(config.allowed_link_hosts)


def _future_answer(turn: Turn, context: ContextState, start: datetime) -> Answer:
    text = (
        f"The time asked about starts at {start.isoformat(timespec='minutes')}, after the "
        f"current time {turn.now.isoformat(timespec='minutes')}: nothing can be observed yet."
    )
    return Answer(
        question=redact(turn.question),
        scope=context.scope,
        summary=text,
        gaps=[Gap(objective="scope.time", reason=text)],
        final=True,
    )


def _unknown_env_answer(turn: Turn, context: ContextState, envs: list[str]) -> Answer:
    unknown = ", ".join(context.unknown_envs)
    configured = ", ".join(envs)
    text = (
        f"Environment {unknown} is not configured, so nothing there can be read. "
        f"Configured environments: {configured}."
    )
    return Answer(
        question=turn.question,
        scope=context.scope.model_copy(update={"env": None}),
        summary=text,
        gaps=[Gap(objective="scope.env", reason=text)],
        final=True,
    )
