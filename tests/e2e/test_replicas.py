"""Two `infrabot serve` processes on one bot account, as two replicas of a StatefulSet:
both receive every post from Mattermost's websocket, and each post is answered exactly
once, by the replica whose share its thread is in (bot/mattermost/_partition.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from bot.mattermost import Partition
from bot.settings import MattermostSettings, MemorySettings, WebSettings
from evals.session import WorldSession
from evals.simulators.server import BackgroundServer
from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world
from tests.e2e.mattermost_sim import MattermostSim

POSTS = 12
REPLICAS = 2


def _wait(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.1)
    raise AssertionError(f"not in {timeout} s: {what}")


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
        try:
            for index in range(REPLICAS):
                config = session.config.model_copy(
                    update={
                        "mattermost": MattermostSettings(
                            url=mattermost.base_url,
                            team="ops",
                            channels=["incidents"],
                            replicas=REPLICAS,
                        ),
                        "web": WebSettings(host="127.0.0.1", port=0),
                        "memory": MemorySettings(knowledge_path=tmp_path / f"kb-{index}.jsonl"),
                    }
                )
                path = tmp_path / f"config-{index}.yaml"
                path.write_text(yaml.safe_dump(config.model_dump(mode="json", exclude_none=True)))
                env = os.environ | {
                    "INFRABOT_MM_TOKEN": "token-infrabot",
                    "HOSTNAME": f"infrabot-{index}",  # the StatefulSet ordinal
                }
                env.pop("INFRABOT_REPLICA_INDEX", None)
                procs.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "bot.cli", "serve", "--config", str(path)],
                        env=env,
                        stdout=subprocess.DEVNULL,
                        stderr=logs[index].open("w"),
                        text=True,
                    )
                )
            _wait(lambda: sim.open_sockets() == REPLICAS, 60, "both replicas connected")
            posts = [
                sim.user_post("alice", incidents, f"@infrabot what is the RPS of catalog-api? #{i}")
                for i in range(POSTS)
            ]

            def answered() -> Counter[str]:
                return Counter(
                    p["root_id"]
                    for p in sim.posts_by("infrabot")
                    if p["props"].get("infrabot") == "answer"
                )

            _wait(lambda: len(answered()) == POSTS, 120, "every post answered")
            time.sleep(2.0)  # a second answer, were one coming, would be there by now
            counts = answered()
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(timeout=20)
    assert counts == Counter({p["id"]: 1 for p in posts})
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
