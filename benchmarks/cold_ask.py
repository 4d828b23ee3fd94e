"""Benchmark: a cold `infrabot ask` on the demo world, the whole process, wall time.

Each run is a new process: interpreter start, imports, the demo world (from the parse
cache after the first run), the simulators (VictoriaMetrics included), one turn, exit.
One run first warms the caches a fresh install fills once (bytecode, the parse cache).

    .venv/bin/python benchmarks/cold_ask.py [--runs 10] [--json] [--tree OTHER_CHECKOUT]
"""

from __future__ import annotations

import resource
import subprocess
import time
from pathlib import Path

from _common import QUESTION, infrabot, median, p95, parser, report


def one_run(tree: Path | None) -> tuple[float, int]:
    command, env, cwd = infrabot(tree)
    began = time.perf_counter()
    done = subprocess.run(
        [*command, "ask", QUESTION], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    wall = time.perf_counter() - began
    if done.returncode != 0 or "502" not in done.stdout:
        raise SystemExit(f"infrabot ask failed ({done.returncode}): {done.stderr[-500:]}")
    return wall, done.stdout.count("\n")


def main() -> None:
    p = parser(__doc__, tree=True)
    p.add_argument("--runs", type=int, default=10)
    args = p.parse_args()
    one_run(args.tree)  # warm-up: bytecode and the parse cache, as after any first start
    walls = [one_run(args.tree)[0] for _ in range(args.runs)]
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    result = {
        "benchmark": "cold_ask",
        "runs": args.runs,
        "median_s": round(median(walls), 3),
        "p95_s": round(p95(walls), 3),
        "peak_rss_mib": round(peak_mib, 1),
    }
    report(
        result,
        (
            f"cold ask: median {result['median_s']:.2f} s, p95 {result['p95_s']:.2f} s over "
            f"{args.runs} runs; peak RSS {result['peak_rss_mib']:.0f} MiB"
        ),
        args.json,
    )


if __name__ == "__main__":
    main()
