"""The evidence packet: compact facts per source, each source with its own budget.

A shared head/tail cut once dropped a whole data centre; here every (source, env) gets
the same number of slots first, so the tenth result can never push out the fifth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from policy.results import ResultFact, ToolResult

# The order a reader needs, and what a per-source budget keeps first: the symptom and its
# direct cause, then context. Unknown kinds rank 50.
FACT_ORDER: dict[str, int] = {
    "edge.error": 0,
    "edge.access": 1,
    "app.response": 2,
    "k8s.termination": 3,
    "k8s.waiting": 4,
    "k8s.event": 5,
    "node.network": 6,
    "http.rate": 7,
    "ci.job": 8,
    "ci.commit": 9,
    "k8s.audit": 10,
    "k8s.quota": 11,
    "metrics.usage": 12,
    "k8s.endpoints": 13,
    "k8s.pod": 14,
    "metrics.restarts": 15,
    "app.log": 30,
    "k8s.log": 31,
    "negative": 40,
}


_SEVERE = {"ERROR", "FATAL", "CRITICAL", "PANIC", "EMERG", "ALERT"}
# a line with no level field that still says it failed ("error: Dirty database version")
_SEVERE_WORDS = re.compile(r"\b(?:error|fatal|panic|exception|traceback|failed)\b", re.I)


def fact_rank(fact: ResultFact, order: dict[str, int] | None = None) -> int:
    """How early a fact is kept and shown: by kind; an error line from a log ranks with the
    failure it explains; an abnormal observation ranks before a normal one."""
    rank = (FACT_ORDER if order is None else order).get(fact.kind, 50)
    if fact.kind in ("k8s.log", "app.log"):
        level = str(fact.attrs.get("level") or "").upper()
        if level in _SEVERE or (not level and _SEVERE_WORDS.search(fact.text)):
            rank = min(rank, 4)
    if fact.attrs.get("abnormal") is True:
        rank = min(rank, 5)
    return rank


@dataclass
class PacketEntry:
    call_id: str
    tool: str
    env: str | None
    fact: ResultFact


@dataclass
class EvidencePacket:
    entries: list[PacketEntry] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)  # "source/env" -> facts left out

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
    priority: dict[str, int] | None = None,
) -> EvidencePacket:
    """Group facts by (source, env); keep the `per_source` most important of each."""
    prio = FACT_ORDER if priority is None else priority
    groups: dict[str, list[PacketEntry]] = {}
    for call_id, result in results:
        for fact in result.facts:
            key = f"{fact.source}/{result.scope.env or '-'}"
            groups.setdefault(key, []).append(
                PacketEntry(call_id, result.tool, result.scope.env, fact)
            )
    packet = EvidencePacket()
    for key, entries in groups.items():
        ranked = sorted(enumerate(entries), key=lambda ie: (fact_rank(ie[1].fact, prio), ie[0]))
        kept = [e for _, e in ranked[:per_source]]
        # keep the original order inside the budget: it is the order the source gave
        kept.sort(key=lambda e: entries.index(e))
        packet.entries.extend(kept)
        if len(entries) > per_source:
            packet.dropped[key] = len(entries) - per_source
    return packet
