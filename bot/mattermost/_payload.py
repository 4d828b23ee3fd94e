"""Fields of Mattermost payloads read defensively: an event or a post is data from the
network, and a field of the wrong type (a string `create_at`, a string `props`, a `data`
that is not an object) must make that field empty, never stop the listener."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

_MAX_MILLIS = 253_402_300_799_000  # 9999-12-31T23:59:59Z: the last moment a datetime holds


def mapping(value: Any) -> Mapping[str, Any]:
    """`value` when it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def millis(value: Any) -> int:
    """A post time in milliseconds since the epoch; 0 for anything that is not one."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value):
        number = int(value)
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        number = int(value.strip()[:16])
    else:
        return 0
    return number if 0 <= number <= _MAX_MILLIS else 0
