"""Working memory: per thread, 90 min TTL, <= 20 entries, <= 12 KB in a prompt; the clock
is injected so expiry is tested instantly."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from bot.memory import MemoryEntry, Observation, WorkingMemory
from bot.settings import MemorySettings
from planner.question.context import ContextState
from planner.shapes.answer import AnswerFact
from policy.scope import Scope

T0 = datetime(2026, 7, 22, 13, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def context(env: str, obj: str = "catalog-api") -> ContextState:
    return ContextState(scope=Scope(env=env, object=obj), envs=[env])


def entry(clock: Clock, env: str, *texts: str, question: str = "rps?") -> MemoryEntry:
    return MemoryEntry(
        at=clock(),
        question=question,
        context=context(env),
        observations=[
            Observation(
                text=t,
                source="victoriametrics",
                env=env,
                observed_at=clock(),
                freshness="sample_time",
                historical=False,
                subject="http.rate",
                scope={"env": env, "object": "catalog-api"},
            )
            for t in texts
        ],
    )


def test_memory_is_per_channel_and_root_post() -> None:
    clock = Clock()
    memory = WorkingMemory(clock=clock)
    memory.remember("town", "root-1", entry(clock, "dc-a", "412 req/s"))
    memory.remember("town", "root-2", entry(clock, "dc-b", "137 req/s"))
    memory.remember("other", "root-1", entry(clock, "stage", "3 req/s"))

    assert memory.last_context("town", "root-1").scope.env == "dc-a"
    assert memory.last_context("town", "root-2").scope.env == "dc-b"
    assert memory.last_context("other", "root-1").scope.env == "stage"
    assert memory.last_context("town", "root-3") is None
    assert "137" not in memory.prompt_block("town", "root-1")


def test_entries_expire_after_90_minutes_with_an_injected_clock() -> None:
    clock = Clock()
    memory = WorkingMemory(clock=clock)
    memory.remember("c", "r", entry(clock, "dc-a", "412 req/s"))
    clock.now = T0 + timedelta(minutes=60)
    memory.remember("c", "r", entry(clock, "dc-b", "137 req/s"))

    clock.now = T0 + timedelta(minutes=90)
    assert [e.context.scope.env for e in memory.entries("c", "r")] == ["dc-a", "dc-b"]
    clock.now = T0 + timedelta(minutes=91)
    assert [e.context.scope.env for e in memory.entries("c", "r")] == ["dc-b"]
    assert "412" not in memory.prompt_block("c", "r")
    clock.now = T0 + timedelta(minutes=60 + 91)
    assert memory.last_context("c", "r") is None
    assert memory.prompt_block("c", "r") == ""
    assert memory.threads() == 0


def test_expired_threads_are_purged_when_anything_is_remembered() -> None:
    clock = Clock()
    memory = WorkingMemory(clock=clock)
    for i in range(5):
        memory.remember("c", f"old-{i}", entry(clock, "dc-a", "x"))
    clock.now = T0 + timedelta(hours=2)
    memory.remember("c", "new", entry(clock, "dc-a", "y"))
    assert memory.threads() == 1


def test_at_most_20_entries_per_thread_newest_kept() -> None:
    clock = Clock()
    memory = WorkingMemory(clock=clock)
    for i in range(25):
        clock.now = T0 + timedelta(seconds=i)
        memory.remember("c", "r", entry(clock, "dc-a", f"value {i}", question=f"q{i}"))
    kept = memory.entries("c", "r")
    assert len(kept) == 20
    assert [e.question for e in kept] == [f"q{i}" for i in range(5, 25)]


def test_thread_count_is_bounded_least_recently_used_out() -> None:
    clock = Clock()
    memory = WorkingMemory(clock=clock, max_threads=3)
    for root in ("a", "b", "c"):
        memory.remember("ch", root, entry(clock, "dc-a", root))
    memory.last_context("ch", "a")  # used: "b" is now the oldest
    memory.remember("ch", "d", entry(clock, "dc-a", "d"))
    assert memory.threads() == 3
    assert memory.last_context("ch", "b") is None
    assert memory.last_context("ch", "a") is not None


def test_prompt_block_stays_within_12_kb_newest_first_and_marked_as_memory() -> None:
    clock = Clock()
    memory = WorkingMemory(clock=clock)
    for i in range(20):
        clock.now = T0 + timedelta(minutes=i)
        texts = [f"turn {i} observation {j} " + "x" * 300 for j in range(8)]
        memory.remember("c", "r", entry(clock, "dc-a", *texts, question=f"q{i}"))
    clock.now = T0 + timedelta(minutes=30)
    block = memory.prompt_block("c", "r")
    assert 0 < len(block.encode()) <= 12 * 1024
    lines = [json.loads(line) for line in block.splitlines()]
    assert lines[0]["memory_of"] == "q19"  # newest first
    assert lines[0]["remembered_minutes_ago"] == 11
    first = lines[0]
    assert first["observed_at"] == (T0 + timedelta(minutes=19)).isoformat()
    assert first["freshness"] == "sample_time" and first["historical"] is False
    assert first["scope"] == {"env": "dc-a", "object": "catalog-api"}
    assert first["subject"] == "http.rate"


def test_one_huge_observation_does_not_hide_the_rest() -> None:
    clock = Clock()
    memory = WorkingMemory(clock=clock, max_prompt_bytes=600)
    memory.remember("c", "r", entry(clock, "dc-a", "small older fact"))
    memory.remember("c", "r", entry(clock, "dc-a", "y" * 5000))
    block = memory.prompt_block("c", "r")
    assert len(block.encode()) <= 600
    assert "small older fact" in block


def test_observation_from_an_answer_fact_keeps_time_scope_and_subject() -> None:
    at = T0 - timedelta(minutes=5)
    fact = AnswerFact(
        text="catalog-api: 6/6 ready",
        source="kubernetes/dc-a",
        observed_at=at,
        scope={"env": "dc-a", "namespace": "catalog"},
    )
    obs = Observation.from_fact(fact, subject="k8s.workload")
    assert (obs.env, obs.observed_at, obs.subject) == ("dc-a", at, "k8s.workload")
    assert obs.scope == {"env": "dc-a", "namespace": "catalog"}
    assert obs.historical is True and obs.freshness == "snapshot"


def test_limits_come_from_settings() -> None:
    clock = Clock()
    memory = WorkingMemory.from_settings(
        MemorySettings(ttl_minutes=5, max_entries=2, max_prompt_bytes=600), clock=clock
    )
    for i in range(3):
        memory.remember("c", "r", entry(clock, "dc-a", f"v{i}", question=f"q{i}"))
    assert [e.question for e in memory.entries("c", "r")] == ["q1", "q2"]
    clock.now = T0 + timedelta(minutes=6)
    assert memory.entries("c", "r") == []
