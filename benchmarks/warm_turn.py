"""Benchmark: a turn in a long-lived process, over the web chat API (`infrabot demo`).

Starts `infrabot demo` on a free port, asks the demo question once to warm up, then asks
it again N times, each in a new thread (so no working memory carries over; the names
listed in each environment are reused, as in any running bot), timing each HTTP answer.

    .venv/bin/python benchmarks/warm_turn.py [--turns 20] [--json] [--tree OTHER_CHECKOUT]
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import httpx
from _common import QUESTION, infrabot, median, p95, parser, report


def _start_demo(tree: Path | None) -> tuple[subprocess.Popen[str], str]:
    command, env, cwd = infrabot(tree)
    proc = subprocess.Popen(
        [*command, "demo", "--port", "0"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        found = re.search(r"web chat on (http://\S+)", line)
        if found:
            return proc, found.group(1).rstrip("/")
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise SystemExit("infrabot demo did not start")


def main() -> None:
    p = parser(__doc__, tree=True)
    p.add_argument("--turns", type=int, default=20)
    args = p.parse_args()
    proc, url = _start_demo(args.tree)
    times: list[float] = []
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            for i in range(args.turns + 1):
                began = time.perf_counter()
                resp = client.post(
                    "/api/ask", json={"thread_id": f"bench{i}", "question": QUESTION}
                )
                elapsed = time.perf_counter() - began
                resp.raise_for_status()
                if not resp.json().get("answer", {}).get("facts"):
                    raise SystemExit(f"turn {i}: no facts in the answer")
                if i:  # the first warms up
                    times.append(elapsed)
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    result = {
        "benchmark": "warm_turn",
        "turns": args.turns,
        "median_ms": round(median(times) * 1000, 1),
        "p95_ms": round(p95(times) * 1000, 1),
    }
    report(
        result,
        (
            f"warm turn over the web chat API: median {result['median_ms']:.0f} ms, "
            f"p95 {result['p95_ms']:.0f} ms over {args.turns} turns"
        ),
        args.json,
    )


if __name__ == "__main__":
    main()
