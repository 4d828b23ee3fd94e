"""Benchmark: the wall time of the whole evaluation suite (`infrabot eval`), a process.

.venv/bin/python benchmarks/eval_suite.py [--runs 2] [--json] [--tree OTHER_CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import time
from pathlib import Path

from _common import infrabot


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--json", action="store_true")
    p.add_argument("--tree", type=Path, help="run the infrabot of another checkout")
    args = p.parse_args()
    command, env, cwd = infrabot(args.tree)
    began = time.perf_counter()
    done = subprocess.run(
        [*command, "eval", "--runs", str(args.runs)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    wall = time.perf_counter() - began
    summary = re.search(
        r"(\d+)/(\d+) scenarios passed, required (\d+)/(\d+)", done.stderr + done.stdout
    )
    if summary is None:
        raise SystemExit(f"infrabot eval printed no summary ({done.returncode})")
    passed, total, req_passed, req_total = map(int, summary.groups())
    result = {
        "benchmark": "eval_suite",
        "runs": args.runs,
        "wall_s": round(wall, 1),
        "passed": passed,
        "scenarios": total,
        "required_passed": req_passed,
        "required": req_total,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"eval suite x{args.runs}: {wall:.1f} s wall; {passed}/{total} passed, "
            f"required {req_passed}/{req_total}"
        )


if __name__ == "__main__":
    main()
