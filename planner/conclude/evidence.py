"""The evidence packet: compact facts per source, each source with its own budget.

A shared head/tail cut once dropped a whole data centre; here every (source, env) gets
the same number of slots first, so the tenth result can never push out the fifth.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from policy.facts import FACT_RANKS, AppLog, K8sLog, K8sNodeCondition
from policy.results import ResultFact, ToolResult

LEAD_KEPT = 2

_SEVERE = {"ERROR", "FATAL", "CRITICAL", "PANIC", "EMERG", "ALERT"}
# a line with no level field that still says it failed ("error: Dirty database version")
_SEVERE_WORDS = re.compile(r"\b(?:error|fatal|panic|exception|traceback|failed)\b", re.I)


def fact_rank(fact: ResultFact, order: Mapping[str, int] | None = None) -> int:
    """How early a fact is kept and shown: by kind (its model's `rank`, unless `order`
    says otherwise: the value asked for first); an error line from a log ranks with the
    failure it explains; an abnormal observation ranks before a normal one."""
    rank = (FACT_RANKS if order is None else order).get(fact.kind, fact.attrs.rank)
    attrs = fact.attrs
    if isinstance(attrs, K8sLog | AppLog):
        level = str(attrs.level or "").upper()
        raised = isinstance(attrs, K8sLog) and attrs.raised
        if raised or level in _SEVERE or (not level and _SEVERE_WORDS.search(fact.text)):
            rank = min(rank, 4)
    if isinstance(attrs, K8sNodeCondition) and attrs.abnormal is True:
        rank = min(rank, 5)
    return rank


@dataclass
class PacketEntry:
    call_id: str
    tool: str
    env: str | None
    fact: ResultFact
    lead: bool = False  # read for a required objective: what the question asks


@dataclass
class EvidencePacket:
    entries: list[PacketEntry] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)  # "source/env" -> facts left out
    # the fact order the packet was cut by: the answer shows its facts in the same order
    priority: Mapping[str, int] = field(default_factory=lambda: FACT_RANKS)

    def render(self) -> str:
        lines = [
            f"[{e.call_id} {e.fact.source} {e.env or '-'} {e.fact.observed_at or '-'}] "
            f"{e.fact.text}"
            for e in self.entries
        ]
        lines += [f"[{k}] {n} more facts in the workspace" for k, n in self.dropped.items()]
        return "\n".join(lines)


def build_packet(
    results: list[tuple[str, ToolResult]],
    *,
    per_source: int = 12,
    priority: Mapping[str, int] | None = None,
    lead: frozenset[str] = frozenset(),
    links: Callable[[ResultFact], bool] | None = None,
) -> EvidencePacket:
    """Group facts by (source, env); keep the `per_source` most important of each.

    `lead`: the calls read for a required objective. The best `LEAD_KEPT` facts of each
    are kept before the budget is filled by rank: a p99 asked for must not be pushed out
    by the request rates read beside it, nor a crash's log line by the pod list. Then
    every other read keeps its best fact, then the rest by rank. `links`: facts the turn
    followed the evidence through (the setting that named the dependency read next),
    kept first: the chain the answer tells cites them."""
    prio = FACT_RANKS if priority is None else priority
    groups: dict[str, list[PacketEntry]] = {}
    for call_id, result in results:
        for fact in result.facts:
            key = f"{fact.source}/{result.scope.env or '-'}"
            groups.setdefault(key, []).append(
                PacketEntry(call_id, result.tool, result.scope.env, fact, call_id in lead)
            )
    packet = EvidencePacket(priority=prio)
    for key, entries in groups.items():
        ranked = sorted(range(len(entries)), key=lambda i: (fact_rank(entries[i].fact, prio), i))
        reserved = [i for i in ranked if links is not None and links(entries[i].fact)]
        for call_id in dict.fromkeys(entries[i].call_id for i in ranked if entries[i].lead):
            reserved += [i for i in ranked if entries[i].call_id == call_id][:LEAD_KEPT]
        # then the best fact of every other read: the audit line that names the change
        # must not be pushed out by the fourth pod's copy of the same crash
        for call_id in dict.fromkeys(entries[i].call_id for i in ranked):
            if not any(entries[i].call_id == call_id for i in reserved):
                reserved += [next(i for i in ranked if entries[i].call_id == call_id)]
        chosen = set(reserved[:per_source])
        chosen.update([i for i in ranked if i not in chosen][: per_source - len(chosen)])
        # keep the original order inside the budget: it is the order the source gave
        kept = [entries[i] for i in sorted(chosen)]
        packet.entries.extend(kept)
        if len(entries) > per_source:
            packet.dropped[key] = len(entries) - per_source
    return packet
