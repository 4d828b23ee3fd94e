"""A scrape target's `instance` label ("<host>:<port>") read as the host it names: one
rule for the alert reader (a node-exporter's node) and the metrics connector (a series'
node)."""

from __future__ import annotations

import re

__all__ = ["instance_host"]

_WITH_PORT = re.compile(r".+:\d+")


def instance_host(instance: str | None) -> str | None:
    """ "10.0.0.7:9100" -> "10.0.0.7", "[fd00::7]:9100" -> "fd00::7"; a bare host as it
    is; None for none."""
    if not instance:
        return None
    if instance.startswith("["):
        return instance[1:].split("]", 1)[0] or None
    return (instance.rsplit(":", 1)[0] if _WITH_PORT.fullmatch(instance) else instance) or None
