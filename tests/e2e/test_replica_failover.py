"""Two and three `infrabot serve` processes on one bot account with their shares of the threads held
as Kubernetes Leases (`mattermost.leases`), against the Mattermost simulator and a Leases
API that answers as the API server does. One replica is killed mid-stream: a live one
takes its share over within a lease duration and answers what was asked meanwhile; every
question is answered exactly once."""

from __future__ import annotations

import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from bot.mattermost import Partition
from bot.settings import LeaseSettings, MattermostSettings
from evals.session import WorldSession
from evals.simulators.leases import LeaseApi
from evals.simulators.server import BackgroundServer
from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world
from tests.e2e.mattermost_sim import MattermostSim
from tests.e2e.replica_procs import answered, start_replica, wait_until

DURATION_S = 3
BEFORE = 6
AFTER = 12


@pytest.mark.parametrize("replicas", [2, 3])
def test_a_killed_replicas_share_is_taken_over_and_every_post_answered_once(
    tmp_path: Path, replicas: int
) -> None:
    sim = MattermostSim(team_name="ops")
    sim.add_user("infrabot", is_bot=True)
    sim.add_user("alice")
    incidents = sim.add_channel("incidents", ["infrabot", "alice"])
    leases = LeaseApi()
    with (
        WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW) as session,
        BackgroundServer(sim.app) as mattermost,
        BackgroundServer(leases.app) as lease_server,
    ):
        assert session.config is not None
        procs: list[subprocess.Popen[str]] = []
        try:
            settings = MattermostSettings(
                url=mattermost.base_url,
                team="ops",
                channels=["incidents"],
                replicas=replicas,
                leases=LeaseSettings(
                    url=lease_server.base_url,
                    token_env="LEASE_TOKEN",
                    namespace="bots",
                    duration_s=DURATION_S,
                ),
            )
            env = {"LEASE_TOKEN": "sa-token"}
            procs += [
                start_replica(session.config, settings, i, tmp_path, env) for i in range(replicas)
            ]
            wait_until(lambda: sim.open_sockets() == replicas, 60, "every replica connected")
            shares = [f"infrabot-share-{i}" for i in range(replicas)]
            wait_until(
                lambda: (
                    [leases.holder(s, "bots") for s in shares]
                    == [f"infrabot-{i}" for i in range(replicas)]
                ),
                30,
                "each replica holding its own share",
            )
            ask = "@infrabot what is the RPS of catalog-api in dc-a? #{}"
            first = [sim.user_post("alice", incidents, ask.format(i)) for i in range(BEFORE)]
            wait_until(
                lambda: set(answered(sim)) >= {p["id"] for p in first}, 120, "first answered"
            )
            # kill replica 1 with a question of its share in flight
            procs[1].send_signal(signal.SIGKILL)
            killed = time.monotonic()
            procs[1].wait(timeout=10)
            later = [
                sim.user_post("alice", incidents, ask.format(BEFORE + i)) for i in range(AFTER)
            ]
            theirs = [p["id"] for p in later if Partition(1, replicas).owns(p["id"])]
            assert theirs, "the posts after the kill include some of the dead replica's share"
            taker = wait_until(
                lambda: (h := leases.holder(shares[1], "bots")) != "infrabot-1" and h,
                30,
                "share 1 taken over",
            )
            taken_s = time.monotonic() - killed
            every = {p["id"] for p in first + later}
            wait_until(lambda: set(answered(sim)) == every, 120, "every post answered")
            answered_s = time.monotonic() - killed
            time.sleep(2.0)  # a second answer, were one coming, would be there by now
            counts = answered(sim)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.terminate()
            for proc in procs:
                proc.wait(timeout=20)
    assert counts == Counter({post_id: 1 for post_id in every})
    assert taker in {f"infrabot-{i}" for i in range(replicas) if i != 1}
    # within a lease duration and a renewal period, with a margin for a loaded machine
    assert taken_s < DURATION_S * 3, taken_s
    print(f"share taken over {taken_s:.1f} s after the kill; all answered {answered_s:.1f} s")
