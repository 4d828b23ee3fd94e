"""Benchmark: the wall time of the whole evaluation suite (`infrabot eval`), a process.

.venv/bin/python benchmarks/eval_suite.py [--runs 2] [--json] [--tree OTHER_CHECKOUT]
"""

from __future__ import annotations

import re
import subprocess
import time

from _common import infrabot, parser, report


def main() -> None:
    p = parser(__doc__, tree=True)
    p.add_argument("--runs", type=int, default=2)
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
    report(
        result,
        (
            f"eval suite x{args.runs}: {wall:.1f} s wall; {passed}/{total} passed, "
            f"required {req_passed}/{req_total}"
        ),
        args.json,
    )


if __name__ == "__main__":
    main()
