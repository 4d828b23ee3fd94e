"""Run every benchmark and print one table; with `--baseline`, the same measurements of
another checkout (a `git worktree` of an older commit) and the ratio before/after.

    .venv/bin/python benchmarks/run.py [--quick] [--baseline OTHER_CHECKOUT]

`--quick` runs fewer repetitions and skips the 100x world. Each benchmark runs in a
process of its own and prints JSON; this script only collects it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# (script, arguments, arguments with --quick, [(label, key, unit, goal)], baseline-able)
PLAN: list[tuple[str, list[str], list[str], list[tuple[str, str, str, str]], bool]] = [
    (
        "cold_ask.py",
        ["--runs", "10"],
        ["--runs", "3"],
        [
            ("cold ask, median", "median_s", "s", "< 1.0"),
            ("cold ask, peak RSS", "peak_rss_mib", "MiB", ""),
        ],
        True,
    ),
    (
        "warm_turn.py",
        ["--turns", "20"],
        ["--turns", "5"],
        [("warm turn (web chat API), median", "median_ms", "ms", "< 250")],
        True,
    ),
    (
        "source_latency.py",
        ["--turns", "5"],
        ["--turns", "3"],
        [
            ("200 ms/source: first turn", "first_turn_ms", "ms", ""),
            ("200 ms/source: turn", "turn_ms", "ms", ""),
            ("200 ms/source: turn / slowest call", "ratio", "x", "<= 1.25"),
        ],
        False,
    ),
    (
        "turn_overhead.py",
        ["--turns", "200"],
        ["--turns", "50"],
        [
            ("turn overhead (instant tools)", "overhead_median_ms", "ms", "< 20"),
            ("six 200 ms fake calls / slowest", "six_calls_ratio", "x", "<= 1.25"),
        ],
        False,
    ),
    (
        "eval_suite.py",
        ["--runs", "2"],
        ["--runs", "1"],
        [("eval suite wall", "wall_s", "s", "half of before")],
        True,
    ),
]


def _run(script: str, args: list[str], tree: Path | None) -> dict[str, Any]:
    extra = ["--tree", str(tree)] if tree is not None else []
    done = subprocess.run(
        [sys.executable, str(HERE / script), *args, *extra, "--json"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1][:120]}
    return json.loads(lines[-1])


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--baseline", type=Path, help="another checkout to measure as 'before'")
    args = p.parse_args()
    rows: list[tuple[str, str, str, str, str, str]] = []
    for script, full, quick, measures, comparable in PLAN:
        options = quick if args.quick else full
        print(f"running {script} ...", file=sys.stderr, flush=True)
        now = _run(script, options, None)
        before = _run(script, options, args.baseline) if args.baseline and comparable else {}
        for label, key, unit, goal in measures:
            value, old = now.get(key), before.get(key)
            ratio = (
                f"{old / value:.1f}x {'less' if unit == 'MiB' else 'faster'}"
                if isinstance(value, int | float) and isinstance(old, int | float) and value
                else ""
            )
            shown = _cell(value) if "error" not in now else f"failed: {now['error']}"
            rows.append((label, shown, unit, _cell(old) if before else "", ratio, goal))
    scales = ["--scales", "1,10"] if args.quick else ["--scales", "1,10,100"]
    print("running world_scale.py ...", file=sys.stderr, flush=True)
    done = subprocess.run(
        [sys.executable, str(HERE / "world_scale.py"), *scales],
        capture_output=True,
        text=True,
        timeout=600,
    )
    header = ("measure", "now", "unit", "before", "ratio", "goal")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    print()
    print(done.stdout.rstrip() or f"world_scale.py failed: {done.stderr[-300:]}")


if __name__ == "__main__":
    main()
