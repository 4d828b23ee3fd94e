"""Fifty Mattermost threads at once, each about a scope of its own, through the simulated
Mattermost server, the real listener and the real conversation path on one world.

Every thread asks about a different service (in one of five environments, from one of
five channels, by one of ten users, in English or Russian), all fifty posted together so
their turns interleave; then every thread follows up with no scope at all ("and over the
last 15 minutes?"), again all together, which only the thread's own working memory can
answer. Each reply must name its own service, environment and request rate and none of
another thread's: the figure printed is threads answered and cross-thread leaks.

    .venv/bin/pytest tests/e2e/test_concurrency.py -s      # prints the figure
"""

from __future__ import annotations

import inspect
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from bot.mattermost import MattermostListener
from evals.session import WorldSession
from evals.simulators.server import BackgroundServer
from tests.e2e.mattermost_sim import MattermostSim
from tests.e2e.scoped_world import NOW, TIMEZONE, ScopeCase, scoped_world, scopes
from tests.e2e.test_mattermost import answers, bot_posts, eventually, running

THREADS = 50
ENVS = 5
CHANNELS = 5
USERS = [f"user{i}" for i in range(10)]
CASES = scopes(ENVS, THREADS // ENVS)
QUESTIONS = (
    "@infrabot what is the RPS of {service} in {env} over the last hour?",
    "@infrabot какой средний RPS у {service} в {env} за последний час?",
)
FOLLOW_UP = "@infrabot and over the last 15 minutes?"
DEADLINE_S = 45.0


@pytest.fixture
def session() -> Iterator[WorldSession]:
    # a source's timeout well above what fifty turns at once on two cores make a read wait
    with WorldSession(scoped_world(CASES), timezone=TIMEZONE, now=NOW, timeout_s=10.0) as s:
        yield s


@pytest.fixture
def sim() -> Iterator[MattermostSim]:
    sim = MattermostSim(team_name="ops")
    sim.add_user("infrabot", is_bot=True)
    for name in USERS:
        sim.add_user(name)
    for i in range(CHANNELS):
        sim.add_channel(f"incidents-{i}", ["infrabot", *USERS])
    with BackgroundServer(sim.app) as server:
        sim.base_url = server.base_url  # type: ignore[attr-defined]
        yield sim


def _leaks(message: str, own: ScopeCase) -> list[str]:
    """Every other scope's service, namespace or rate, and every other env, in `message`."""
    found = []
    for other in CASES:
        if other is own:
            continue
        for name in (other.service, other.namespace):
            if name in message:
                found.append(name)
        if re.search(rf"\b{other.rps}\b", message):
            found.append(str(other.rps))
        if other.env != own.env and other.env in message:
            found.append(other.env)
    return sorted(set(found))


def _misses(message: str, own: ScopeCase) -> list[str]:
    """What the reply must say about its own scope and does not."""
    wanted = [own.service, own.env]
    missing = [w for w in wanted if w not in message]
    if not re.search(rf"\b{own.rps}\b", message):
        missing.append(str(own.rps))
    return missing


def _check(sim: MattermostSim, roots: dict[str, ScopeCase], turns: int) -> dict[str, Any]:
    leaks: dict[str, list[str]] = {}
    misses: dict[str, list[str]] = {}
    for root, case in roots.items():
        replies = answers(sim, root)
        assert len(replies) == turns, f"{case.service}: {len(replies)} answers, want {turns}"
        # a progress note may still be there a moment after its answer is posted (it is
        # deleted then: tests/e2e/test_mattermost.py); every other bot post is an answer
        shown = [p for p in bot_posts(sim, root) if p["props"].get("infrabot") != "progress"]
        assert len(shown) == turns, f"{case.service}: extra bot posts"
        for n, reply in enumerate(replies, 1):
            if found := _leaks(reply["message"], case):
                leaks[f"{case.service} turn {n}"] = found
            if missing := _misses(reply["message"], case):
                misses[f"{case.service} turn {n}"] = missing
    stray = [p for p in sim.posts_by("infrabot") if p["root_id"] not in roots]
    return {"leaks": leaks, "misses": misses, "stray": stray}


@pytest.mark.parametrize(
    "in_flight", [None, THREADS], ids=["listener-default-slots", "all-50-in-flight"]
)
async def test_fifty_threads_at_once_each_get_only_their_own_scope(
    sim: MattermostSim, session: WorldSession, tmp_path: Any, in_flight: int | None
) -> None:
    channels = [c["id"] for c in sorted(sim.channels.values(), key=lambda c: c["name"])]
    began = time.perf_counter()
    slots = {"max_concurrent": in_flight} if in_flight else {}  # else the listener's own
    at_most = in_flight or inspect.signature(MattermostListener).parameters["max_concurrent"]
    async with running(sim, session, tmp_path / "knowledge.jsonl", **slots) as listener:
        roots: dict[str, ScopeCase] = {}
        for i, case in enumerate(CASES):
            text = QUESTIONS[i % len(QUESTIONS)].format(service=case.service, env=case.env)
            post = sim.user_post(USERS[i % len(USERS)], channels[i % CHANNELS], text)
            roots[post["id"]] = case
        await eventually(lambda: all(answers(sim, r) for r in roots), timeout=DEADLINE_S)
        first = _check(sim, roots, 1)
        first_s = time.perf_counter() - began

        by_root = {p["id"]: p for p in sim.posts.values() if p["id"] in roots}
        for i, root in enumerate(roots):
            channel_id = by_root[root]["channel_id"]
            sim.user_post(USERS[(i + 3) % len(USERS)], channel_id, FOLLOW_UP, root_id=root)
        await eventually(lambda: all(len(answers(sim, r)) == 2 for r in roots), DEADLINE_S)
        await listener.idle()
        second = _check(sim, roots, 2)
    wall = time.perf_counter() - began

    leaks = {**first["leaks"], **second["leaks"]}
    print(
        f"\n{THREADS} threads in {ENVS} envs and {CHANNELS} channels, "
        f"at most {getattr(at_most, 'default', at_most)} turns in flight: "
        f"{2 * len(roots)} answers ({first_s:.1f} s for the questions, {wall:.1f} s in all), "
        f"{len(leaks)} cross-thread leaks"
    )
    assert not leaks, f"answers naming another thread's scope: {leaks}"
    assert not second["misses"], f"answers missing their own scope: {second['misses']}"
    assert not first["misses"], f"answers missing their own scope: {first['misses']}"
    assert not second["stray"], f"bot posts outside the threads: {second['stray']}"


def test_the_scopes_share_no_name_and_a_leak_would_be_seen() -> None:
    names = [n for c in CASES for n in (c.service, c.namespace, str(c.rps))]
    assert len(names) == len(set(names)) == 3 * THREADS
    assert len({c.env for c in CASES}) == ENVS
    own, other = CASES[0], next(c for c in CASES if c.env != CASES[0].env)
    clean = f"{own.service} ({own.namespace}) in {own.env}: {own.rps} req/s; 11163600 requests"
    assert _leaks(clean, own) == [] and _misses(clean, own) == []
    leaked = f"{clean}; {other.service} in {other.env}: {other.rps} req/s"
    assert _leaks(leaked, own) == sorted({other.service, other.env, str(other.rps)})
