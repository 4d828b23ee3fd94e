"""Amounts said in answers, one way everywhere (a connector's fact and the planner's
ranking sentence say the same memory the same way)."""

from __future__ import annotations

_BINARY = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


def bytes_said(value: float) -> str:
    """One decimal, two below 10 of a unit: 1.29 GiB and 1.35 GiB an hour apart read as
    different, where one decimal said 1.3 GiB for both."""
    for unit, size in _BINARY:
        if abs(value) >= size:
            scaled = value / size
            if abs(scaled) >= 10:
                return f"{scaled:.1f} {unit}"
            text = f"{scaled:.2f}"
            return (text[:-1] if text.endswith("0") else text) + f" {unit}"
    return f"{value:.0f} B"
