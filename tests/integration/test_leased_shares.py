"""Replicas' shares of the threads held as Kubernetes Leases, through the official client
against a Leases API that answers as the API server does (resourceVersion conflicts, no
server-side expiry): one holder per share, renewals, a dead holder's share taken over
after its lease ran out, and the taker told so that it reads back what was asked."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.mattermost import LeasedShares, lease_store
from evals.simulators.leases import LeaseApi
from evals.simulators.server import BackgroundServer


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def api() -> Iterator[tuple[LeaseApi, str]]:
    leases = LeaseApi()
    with BackgroundServer(leases.app) as server:
        yield leases, server.base_url


def _replica(url: str, index: int, clock: Clock, count: int = 3) -> LeasedShares:
    store = lease_store("bots", url, "token", verify_tls=False)
    return LeasedShares(
        store, identity=f"infrabot-{index}", index=index, count=count, duration_s=15, clock=clock
    )


async def test_each_replica_takes_its_own_share_and_a_dead_ones_is_taken_over(
    api: tuple[LeaseApi, str],
) -> None:
    leases, url = api
    clock = Clock()
    replicas = [_replica(url, i, clock) for i in range(3)]
    taken: list[tuple[str, int]] = []
    for r in replicas:
        r.on_takeover = lambda share, r=r: _told(taken, r.identity, share)
    for r in replicas:
        await r.tick()
    assert [r.held for r in replicas] == [[0], [1], [2]]
    assert leases.holder("infrabot-share-1", "bots") == "infrabot-1"
    # replica 1 dies: the others renew theirs, and after one lease duration a live one
    # takes share 1 over (exactly one of them: the API refuses the second writer)
    for _ in range(4):
        clock.advance(5)
        await asyncio.gather(replicas[0].tick(), replicas[2].tick())
    holders = [r.identity for r in (replicas[0], replicas[2]) if r.holds(1)]
    assert len(holders) == 1 and leases.holder("infrabot-share-1", "bots") == holders[0]
    assert taken == [(holders[0], 1)]
    # the dead replica's own clock says its lease ran out: it stops answering share 1
    assert not replicas[1].holds(1)
    # it comes back and takes no share another holds
    await replicas[1].tick()
    assert replicas[1].held == []


async def test_a_share_whose_owner_never_started_waits_a_lease_duration(
    api: tuple[LeaseApi, str],
) -> None:
    leases, url = api
    clock = Clock()
    first = _replica(url, 0, clock, count=2)
    await first.tick()
    assert first.held == [0]  # share 1's replica may still be starting
    clock.advance(16)
    await first.tick()
    assert first.held == [0, 1] and leases.holder("infrabot-share-1", "bots") == "infrabot-0"


async def test_a_replica_that_cannot_renew_stops_answering_when_its_lease_runs_out(
    api: tuple[LeaseApi, str],
) -> None:
    _leases, url = api
    clock = Clock()
    replica = _replica(url, 0, clock, count=1)
    await replica.tick()
    assert replica.owns("any-root")
    replica.store = lease_store("bots", "http://127.0.0.1:9", None, verify_tls=False)
    clock.advance(10)
    await replica.tick()  # the store is unreachable: logged, the share still valid
    assert replica.holds(0)
    clock.advance(6)
    assert not replica.holds(0)


async def _told(taken: list[tuple[str, int]], identity: str, share: int) -> None:
    taken.append((identity, share))
