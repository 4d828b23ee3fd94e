"""Lost evidence: per-source budgets and the addressable workspace."""

from __future__ import annotations

from datetime import UTC, datetime

from planner.conclude.evidence import build_packet
from policy.results import Coverage, ResultFact, ToolResult
from policy.scope import Scope

T0 = datetime(2026, 7, 20, 11, 0, tzinfo=UTC)


def result(source: str, env: str, n: int, kind: str = "logs.hit") -> ToolResult:
    return ToolResult(
        tool=f"{source}.t",
        status="ok",
        scope=Scope(env=env),
        coverage=Coverage(source=source, complete_for_negative=True, returned=n),
        facts=[
            ResultFact(text=f"{source}/{env} fact {i}", kind=kind, source=source) for i in range(n)
        ],
    )


def test_a_large_source_cannot_push_out_a_small_one() -> None:
    results = [(f"c{i}", result("logs", "dc-a", 400)) for i in range(4)]
    results.append(("c5", result("metrics", "dc-b", 2)))
    packet = build_packet(results, per_source=12)
    texts = [e.fact.text for e in packet.entries]
    assert "metrics/dc-b fact 0" in texts and "metrics/dc-b fact 1" in texts
    assert sum(1 for t in texts if t.startswith("logs/dc-a")) == 12
    assert packet.dropped == {"logs/dc-a": 1588}


def test_each_environment_is_its_own_budget() -> None:
    packet = build_packet(
        [("a", result("logs", "dc-a", 50)), ("b", result("logs", "dc-b", 50))], per_source=5
    )
    envs = [e.env for e in packet.entries]
    assert envs.count("dc-a") == 5 and envs.count("dc-b") == 5


def test_priority_keeps_the_important_kinds_within_budget() -> None:
    noisy = result("logs", "dc-a", 30)
    noisy.facts.append(
        ResultFact(text="upstream sent too big header", kind="edge.error", source="logs")
    )
    packet = build_packet([("c1", noisy)], per_source=3, priority={"edge.error": 0})
    assert any("too big header" in e.fact.text for e in packet.entries)


def test_what_a_required_objective_read_is_kept_even_when_it_ranks_last() -> None:
    """Twelve request-rate facts rank before the latency facts; the latency was read for
    the question's required objective, so its best two stay in the answer (any other read
    keeps only its best one)."""
    rates = result("metrics", "dc-a", 12, kind="http.rate")
    latency = result("metrics", "dc-a", 2, kind="http.latency")
    latency.facts[0].text, latency.facts[1].text = "p99 latency 0.364 s", "p50 latency 0.05 s"
    plain = build_packet([("c1", rates), ("c2", latency)], per_source=12)
    assert [e.fact.text for e in plain.entries].count("p50 latency 0.05 s") == 0
    led = build_packet([("c1", rates), ("c2", latency)], per_source=12, lead=frozenset({"c2"}))
    kept = [e.fact.text for e in led.entries]
    assert "p99 latency 0.364 s" in kept and "p50 latency 0.05 s" in kept
    assert len(led.entries) == 12 and led.dropped == {"metrics/dc-a": 2}


def test_every_read_keeps_its_best_fact_in_a_busy_source() -> None:
    """Four pods' copies of one crash outrank the audit line; the audit line names the
    change that explains the crash, so its read is still represented."""
    crashes = result("kubernetes", "dc-a", 14, kind="k8s.termination")
    audit = result("kubernetes", "dc-a", 1, kind="k8s.audit")
    audit.facts[0].text = "User k.m patched configmap app-config"
    packet = build_packet([("c1", crashes), ("c2", audit)], per_source=12)
    kept = [e.fact.text for e in packet.entries]
    assert "User k.m patched configmap app-config" in kept and len(kept) == 12
