"""What the multi-process replica tests share: starting one `serve` replica, waiting for a
condition within a time, and the bot's answers in the Mattermost simulator by thread."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from bot.settings import InfrabotConfig, MattermostSettings, MemorySettings, WebSettings
from tests.e2e.mattermost_sim import MattermostSim


def wait_until(check: Any, timeout: float, what: str) -> Any:
    """`check()`'s first truthy value within `timeout` seconds, else a failure saying what."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.05)
    raise AssertionError(f"not in {timeout} s: {what}")


def answered(sim: MattermostSim) -> Counter[str]:
    """How many answers the bot posted in each thread."""
    return Counter(
        p["root_id"] for p in sim.posts_by("infrabot") if p["props"].get("infrabot") == "answer"
    )


def start_replica(
    config: InfrabotConfig,
    mattermost: MattermostSettings,
    index: int,
    tmp_path: Path,
    env: dict[str, str],
    *,
    stdout: Path | None = None,
) -> subprocess.Popen[str]:
    """`infrabot serve` as replica `index` of a StatefulSet (its host name's ordinal), with
    the world's sources, `mattermost`, a web port of its own and a knowledge file of its
    own; its JSON log in `tmp_path/replica-<index>.log`."""
    config = config.model_copy(
        update={
            "mattermost": mattermost,
            "web": WebSettings(host="127.0.0.1", port=0),
            "memory": MemorySettings(knowledge_path=tmp_path / f"kb-{index}.jsonl"),
        }
    )
    path = tmp_path / f"config-{index}.yaml"
    path.write_text(yaml.safe_dump(config.model_dump(mode="json", exclude_none=True)))
    environ = os.environ | {"INFRABOT_MM_TOKEN": "token-infrabot", "HOSTNAME": f"infrabot-{index}"}
    environ.pop("INFRABOT_REPLICA_INDEX", None)
    return subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve", "--config", str(path)],
        env=environ | env,
        stdout=stdout.open("w") if stdout else subprocess.DEVNULL,
        stderr=(tmp_path / f"replica-{index}.log").open("w"),
        text=True,
    )
