"""What the multi-process replica tests wait for: a condition within a time, and the bot's
answers in the Mattermost simulator counted by thread."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

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
