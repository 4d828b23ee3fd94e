"""What the benchmarks share: the repository root, the demo question, statistics."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
INFRABOT = str(Path(PYTHON).with_name("infrabot"))
QUESTION = "почему service-a в dc-a отдавал 502 в 14:11?"


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p95(values: list[float]) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
