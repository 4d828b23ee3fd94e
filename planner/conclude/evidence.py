"""The evidence packet: compact facts per source, each source with its own budget.

A shared head/tail cut once dropped a whole data centre; here every (source, env) gets
the same number of slots first, so the tenth result can never push out the fifth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from policy.facts import AppLog, FactKind, K8sLog, K8sNodeCondition
from policy.results import ResultFact, ToolResult

# The order a reader needs, and what a per-source budget keeps first: the symptom and its
# direct cause, then context. Kinds not listed rank 50.
FACT_ORDER: dict[str, int] = {
    FactKind.K8S_SWEEP: 0,  # what a sweep covered: said before what it found
    FactKind.EDGE_ERROR: 0,
    FactKind.EDGE_ACCESS: 1,
    FactKind.APP_RESPONSE: 2,
    FactKind.K8S_TERMINATION: 3,
    FactKind.LOG_TEMPLATE: 4,  # an error repeated in the object's own log
    FactKind.K8S_WAITING: 4,
    FactKind.K8S_EVENT: 5,
    FactKind.NODE_NETWORK: 6,
    FactKind.HTTP_RATE: 7,
    FactKind.CI_JOB: 8,
    FactKind.CI_COMMIT: 9,
    FactKind.K8S_AUDIT: 10,
    FactKind.K8S_QUOTA: 11,
    FactKind.METRICS_USAGE: 12,
    FactKind.K8S_ENDPOINTS: 13,
    FactKind.K8S_AUTOSCALER: 13,
    FactKind.K8S_POD: 14,
    FactKind.METRICS_RESTARTS: 15,
    FactKind.APP_LOG: 30,
    FactKind.K8S_LOG: 31,
    FactKind.NEGATIVE: 40,
}


LEAD_KEPT = 2

_SEVERE = {"ERROR", "FATAL", "CRITICAL", "PANIC", "EMERG", "ALERT"}
# a line with no level field that still says it failed ("error: Dirty database version")
_SEVERE_WORDS = re.compile(r"\b(?:error|fatal|panic|exception|traceback|failed)\b", re.I)


def fact_rank(fact: ResultFact, order: dict[str, int] | None = None) -> int:
    """How early a fact is kept and shown: by kind; an error line from a log ranks with the
    failure it explains; an abnormal observation ranks before a normal one."""
    rank = (FACT_ORDER if order is None else order).get(fact.kind, 50)
    attrs = fact.attrs
    if isinstance(attrs, K8sLog | AppLog):
        level = str(attrs.level or "").upper()
        if level in _SEVERE or (not level and _SEVERE_WORDS.search(fact.text)):
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
    lead: frozenset[str] = frozenset(),
) -> EvidencePacket:
    """Group facts by (source, env); keep the `per_source` most important of each.

    `lead`: the calls read for a required objective. The best `LEAD_KEPT` facts of each
    are kept before the budget is filled by rank: a p99 asked for must not be pushed out
    by the request rates read beside it, nor a crash's log line by the pod list. Then
    every other read keeps its best fact, then the rest by rank."""
    prio = FACT_ORDER if priority is None else priority
    groups: dict[str, list[PacketEntry]] = {}
    for call_id, result in results:
        for fact in result.facts:
            key = f"{fact.source}/{result.scope.env or '-'}"
            groups.setdefault(key, []).append(
                PacketEntry(call_id, result.tool, result.scope.env, fact, call_id in lead)
            )
    packet = EvidencePacket()
    for key, entries in groups.items():
        ranked = sorted(range(len(entries)), key=lambda i: (fact_rank(entries[i].fact, prio), i))
        reserved: list[int] = []
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
