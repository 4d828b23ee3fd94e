"""Two `infrabot serve` processes on one bot account, as two replicas of a StatefulSet:
both receive every post from Mattermost's websocket, and each post is answered exactly
once, by the replica whose share its thread is in (bot/mattermost/_partition.py)."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from bot.mattermost import COMMAND_PATH, Partition
from bot.settings import MattermostSettings
from evals.session import WorldSession
from evals.simulators.server import BackgroundServer
from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world
from tests.e2e.mattermost_sim import MattermostSim
from tests.e2e.replica_procs import answered, start_replica, wait_until

POSTS = 12
COMMANDS = 8
REPLICAS = 2


def _web_url(out: Path) -> str | None:
    found = re.search(r"web chat on (\S+)", out.read_text()) if out.exists() else None
    return found.group(1) if found else None


def _command_roots(sim: MattermostSim) -> list[dict[str, Any]]:
    return [p for p in sim.posts_by("infrabot") if p["props"].get("infrabot") == "command"]


def test_two_replicas_answer_each_post_exactly_once(tmp_path: Path) -> None:
    sim = MattermostSim(team_name="ops")
    sim.add_user("infrabot", is_bot=True)
    sim.add_user("alice")
    incidents = sim.add_channel("incidents", ["infrabot", "alice"])
    with (
        WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW) as session,
        BackgroundServer(sim.app) as mattermost,
    ):
        assert session.config is not None
        procs: list[subprocess.Popen[str]] = []
        logs = [tmp_path / f"replica-{i}.log" for i in range(REPLICAS)]
        outs = [tmp_path / f"replica-{i}.out" for i in range(REPLICAS)]
        try:
            settings = MattermostSettings(
                url=mattermost.base_url, team="ops", channels=["incidents"], replicas=REPLICAS
            )
            commands = {"INFRABOT_MM_COMMAND_TOKEN": "cmd-token"}
            procs += [
                start_replica(session.config, settings, i, tmp_path, commands, stdout=outs[i])
                for i in range(REPLICAS)
            ]
            wait_until(lambda: sim.open_sockets() == REPLICAS, 60, "both replicas connected")
            # every /infrabot command reaches one replica (as a Service would send them)
            web = wait_until(lambda: _web_url(outs[0]), 30, "replica 0's web port")
            for i in range(COMMANDS):
                form = {
                    "token": "cmd-token",
                    "channel_id": incidents,
                    "user_name": "alice",
                    "text": f"what is the RPS of catalog-api in dc-a? (command {i})",
                }
                assert httpx.post(web + COMMAND_PATH.lstrip("/"), data=form).status_code == 200
            roots = wait_until(
                lambda: (r := _command_roots(sim)) and len(r) == COMMANDS and r,
                60,
                "every command's thread started",
            )
            posts = [
                sim.user_post("alice", incidents, f"@infrabot what is the RPS of catalog-api? #{i}")
                for i in range(POSTS)
            ]

            every = {p["id"] for p in posts} | {r["id"] for r in roots}
            wait_until(lambda: set(answered(sim)) == every, 120, "every post and command answered")
            time.sleep(2.0)  # a second answer, were one coming, would be there by now
            counts = answered(sim)
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(timeout=20)
    assert counts == Counter({post_id: 1 for post_id in every})
    # a command's thread is answered by the replica that owns it, not the one it reached
    for index, log in enumerate(logs):
        started = {
            line.get("root")
            for line in map(json.loads, filter(None, log.read_text().splitlines()))
            if line.get("event") == "turn.start"
        }
        owned = {r["id"] for r in roots if Partition(index, REPLICAS).owns(r["id"])}
        assert started & {r["id"] for r in roots} == owned, index
    # each replica answered its own share, by the thread's hash
    by_replica = [
        {
            line["post"]
            for line in map(json.loads, filter(None, log.read_text().splitlines()))
            if line.get("event") == "mattermost.mention"
        }
        for log in logs
    ]
    for index, mentions in enumerate(by_replica):
        assert mentions == {p["id"] for p in posts if Partition(index, REPLICAS).owns(p["id"])}, (
            index
        )
    assert all(by_replica)
