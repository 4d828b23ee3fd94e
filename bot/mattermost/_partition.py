"""Several replicas of one bot account, each post answered once: threads are split
between replicas by a stable hash of the thread's root post id.

Every replica receives every websocket event (Mattermost sends each to all of the bot's
connections); a replica answers a post only when its thread is its own. A thread stays
with one replica for its life, so that replica's working memory of the thread is the
thread's memory (sticky partitioning), and a "remember this" draft and its confirmation
meet on the same replica. A replica that is down answers its threads' posts made
meanwhile when it is back (the listener's catch-up at start, `mattermost.catch_up_s`).
With `mattermost.leases` each share is a Kubernetes Lease instead, and a live replica
takes a dead one's share over (bot/mattermost/_leases.py). Changing the count re-deals
the threads: scale to 0 first (docs/runbook.md).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from bot.config_errors import ConfigFileError

_ORDINAL = re.compile(r"-(\d+)$")  # a StatefulSet pod's name: infrabot-2


class Shares(Protocol):
    """Which threads this replica answers: a fixed `Partition`, or the shares it holds as
    Leases (bot/mattermost/_leases.py)."""

    @property
    def count(self) -> int: ...

    def owns(self, root_id: str) -> bool: ...


def shard_of(root_id: str, count: int) -> int:
    """The share a thread is in: a stable hash of its root post, over `count` shares."""
    return zlib.crc32(root_id.encode()) % count if count > 1 else 0


@dataclass(frozen=True)
class Partition:
    index: int = 0
    count: int = 1

    def owns(self, root_id: str) -> bool:
        return self.count <= 1 or shard_of(root_id, self.count) == self.index


def partition_of(replicas: int, environ: Mapping[str, str]) -> Partition:
    """This process's share: `INFRABOT_REPLICA_INDEX`, else the ordinal at the end of the
    pod's host name; a clear error when neither says which of `replicas` it is."""
    if replicas <= 1:
        return Partition()
    raw = environ.get("INFRABOT_REPLICA_INDEX")
    if raw is None and (m := _ORDINAL.search(environ.get("HOSTNAME", ""))):
        raw = m.group(1)
    if raw is None or not raw.isdigit():
        raise ConfigFileError(
            f"mattermost.replicas: {replicas} replicas, but this one's index is unknown: set "
            "INFRABOT_REPLICA_INDEX (0..replicas-1) or run as a StatefulSet (host name "
            "ending in -N)"
        )
    index = int(raw)
    if index >= replicas:
        raise ConfigFileError(
            f"mattermost.replicas: replica index {index} is not below replicas={replicas}"
        )
    return Partition(index, replicas)
