"""The conversation every surface uses: working memory and knowledge around one turn.

Mattermost, the web chat, the CLI and the evaluation runner all call
`Conversation.answer(turn)`, so a scenario exercises exactly what users get. The turn
itself (inventory, context, early exits, investigation, the one redaction at the exit)
is `planner.turn.conduct.answer_turn`; this class holds what lives longer than a turn: the
working memory, the kept inventory, the knowledge base and the gated tools.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from zoneinfo import ZoneInfo

import structlog

from bot.knowledge import KnowledgeBase, knowledge_facts
from bot.memory import MemoryEntry, Observation, WorkingMemory
from bot.settings import InfrabotConfig
from bot.telemetry import Telemetry
from planner import (
    InventoryCache,
    InvestigationSettings,
    ModelSet,
    ProgressSink,
    Turn,
    TurnOutcome,
    TurnSettings,
    answer_turn,
)
from policy.gaps import GapReason
from policy.gate import PolicyGate

log = structlog.get_logger(__name__)

__all__ = ["Conversation", "TurnOutcome"]


class Conversation:
    def __init__(
        self,
        *,
        config: InfrabotConfig,
        gate: PolicyGate,
        memory: WorkingMemory,
        models: ModelSet | None = None,
        knowledge: KnowledgeBase | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        self.config = config
        self.telemetry = telemetry
        self.models = models
        self.knowledge = knowledge
        self.gate = gate
        self.memory = memory
        self.inventory_cache = InventoryCache(timedelta(seconds=config.limits.inventory_ttl_s))
        self.turn_settings = TurnSettings(
            investigation=InvestigationSettings(
                timezone=ZoneInfo(config.timezone),
                planning=config.models.planning,
                source_timeouts=self._timeouts(config),
                max_rounds=config.limits.max_rounds,
                turn_deadline_s=config.limits.turn_deadline_s,
                facts_per_source=config.limits.facts_per_source,
                keep_query_hosts=_own_hosts(config),
            ),
            envs=list(config.environments),
            env_aliases={name: env.aliases for name, env in config.environments.items()},
            timezone=config.timezone,
        )

    async def aclose(self) -> None:
        """Close the connectors' keep-alive clients; call it on the loop that answered."""
        await self.gate.aclose()
        if self.models is not None:
            await self.models.aclose()

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

    def pending_question(self, channel: str, root: str) -> str | None:
        """The question this thread was last asked back about ("which environment?"),
        while that is the thread's last word: a reply to it needs no @mention."""
        entries = self.memory.entries(channel, root)
        return entries[-1].question if entries and entries[-1].asked_back else None

    async def answer(self, turn: Turn, progress: ProgressSink | None = None) -> TurnOutcome:
        """Answer `turn`; `progress` is told of each read while the turn runs. Every log
        line of the turn carries its `request_id`."""
        with structlog.contextvars.bound_contextvars(request_id=uuid.uuid4().hex[:16]):
            if self.telemetry is not None:
                self.telemetry.asked()
            try:
                outcome = await self._answer(turn, progress)
            except Exception:
                if self.telemetry is not None:
                    self.telemetry.failed()
                raise
            if self.telemetry is not None:
                self.telemetry.answered(outcome.answer, turn.now)
            log.info("turn.done", final=outcome.answer.final, gaps=len(outcome.answer.gaps))
            return outcome

    async def _answer(self, turn: Turn, progress: ProgressSink | None) -> TurnOutcome:
        log.info("turn.start", user=turn.user, channel=turn.channel, root=turn.root_id)
        # "<env>, <service>" after "which environment do you mean?": the question it
        # answers (the first one asked, never a join of replies) may be completed by it
        pending = self.pending_question(turn.channel, turn.root_id)
        outcome = await answer_turn(
            turn,
            previous=self.memory.last_context(turn.channel, turn.root_id),
            gate=self.gate,
            settings=self.turn_settings,
            inventory_cache=self.inventory_cache,
            models=self.models,
            knowledge=lambda question, scope: knowledge_facts(self.knowledge, question, scope),
            progress=progress,
            pending=pending,
        )
        asked_back = any(g.kind is GapReason.NO_SCOPE for g in outcome.answer.gaps)
        if asked_back:
            self.memory.remember(
                turn.channel,
                turn.root_id,
                MemoryEntry(
                    at=turn.now,
                    question=pending or turn.question,
                    context=outcome.context,
                    asked_back=True,
                ),
            )
        elif outcome.investigation is not None:
            context = outcome.context
            self.memory.remember(
                turn.channel,
                turn.root_id,
                MemoryEntry(
                    at=turn.now,
                    question=turn.question,
                    context=context,
                    observations=[
                        Observation.from_fact(f, subject=context.intent)
                        for f in outcome.answer.facts[:20]
                        if not f.knowledge
                    ],
                ),
            )
        return outcome


def _own_hosts(config: InfrabotConfig) -> frozenset[str]:
    """Hosts whose links keep their query strings: our configured sources and dashboards
    (a Grafana or Kibana link without its query is useless); everything else is redacted."""
    from urllib.parse import urlsplit

    urls: list[str] = []
    for env in config.environments.values():
        for src in (env.kubernetes, env.metrics, env.logs):
            if src is not None:
                urls.append(src.url or "")
                urls += [
                    getattr(src, a) or ""
                    for a in ("grafana_url", "discover_url_template", "kibana_url", "link_template")
                    if hasattr(src, a)
                ]
    if config.gitlab is not None:
        urls.append(config.gitlab.url)
    hosts = {urlsplit(u).hostname for u in urls if u}
    return frozenset(h for h in hosts if h) | frozenset(config.allowed_link_hosts)
