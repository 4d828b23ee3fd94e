"""Every scenario's answers, normalised, one file per scenario: the diff of two snapshots
shows what a change did to what users read.

    .venv/bin/infrabot eval evals/scenarios evals/blind-open --runs 1 --report /tmp/before
    .venv/bin/python dev/answers_snapshot.py /tmp/before/report.json /tmp/snap-before
    ... change ...
    (the same two commands into /tmp/after and /tmp/snap-after)
    diff -r /tmp/snap-before /tmp/snap-after

Kept per turn: the Answer's JSON, the plain rendering and the Markdown one. Dropped, as
they change from run to run without a user seeing a different answer: timings, each
call's duration, the simulators' random ports, and a float's last bits.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from bot.render import render_markdown
from planner.shapes.answer import Answer

_PORT = re.compile(r"((?:127\.0\.0\.1|localhost|\[::1\])):\d{2,5}\b")
_RUN_PREFIX = re.compile(r"\brun\d+-")
_VOLATILE = {"timings", "duration_ms", "seconds", "ms"}


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, str):
        return _RUN_PREFIX.sub("run-", _PORT.sub(r"\1:PORT", value))
    if isinstance(value, float):  # a sum's last bit depends on the order reads came back
        return float(f"{value:.9g}")
    return value


def _turn(turn: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"question": turn.get("question"), "failures": turn.get("failures")}
    if "answer" in turn:
        answer = Answer.model_validate(turn["answer"])
        out["answer"] = _scrub(turn["answer"])
        out["rendered"] = _scrub(turn["rendered"]).splitlines()
        out["markdown"] = _scrub(render_markdown(answer)).splitlines()
    else:
        out["error"] = turn.get("error", "")[-300:]
    return out


def main(report_path: str, out_dir: str) -> int:
    report = json.loads(Path(report_path).read_text())
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for scenario in report["scenarios"]:
        runs = [
            {"run": r["run"], "turns": [_turn(t) for t in r["turns"]]} for r in scenario["runs"]
        ]
        text = json.dumps({"id": scenario["id"], "runs": runs}, ensure_ascii=False, indent=1)
        (out / f"{scenario['id']}.json").write_text(text + "\n")
    print(f"{len(report['scenarios'])} scenarios written to {out}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: answers_snapshot.py REPORT.json OUT_DIR", file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(main(sys.argv[1], sys.argv[2]))
