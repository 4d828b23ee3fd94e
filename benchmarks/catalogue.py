"""Benchmark: choosing a model call's tools from a catalogue of 18,505 (TheMCPCompany's size).

The synthetic catalogue and its labelled questions are benchmarks/catalogue_data.py. Each
question goes through the stages of planner/model/catalogue.py as a turn does: admission (the
write tools drop out), objective relevance (a general question: nothing open, every
admitted tool may serve), the lexical prefilter (top 30), no model rerank (the lexical
order), at most 8 chosen. The catalogue's index is built once, before the clock starts;
each question's selection is timed on its own.

    median_ms / p95_ms   per-question selection time (wall), over all questions
    recall@8             share of questions with a gold tool among the 8 chosen

    .venv/bin/python benchmarks/catalogue.py [--size 18505] [--misses] [--json]

The last line of output is
`catalogue tools=N questions=Q median_ms=X p95_ms=Y recall@8=R`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import median, p95, parser, quiet_logs, report
from catalogue_data import FULL, QUESTIONS, catalogue, gold

from planner.model import catalogue as cat
from planner.plan.objectives import QuestionPlan
from policy.gate import admitted

GENERAL = QuestionPlan(intent="triage", variant="default", catalogue_version=1, objectives=[])


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--size", type=int, default=FULL, help="tools in the catalogue")
    p.add_argument("--misses", action="store_true", help="print the questions missed")
    args = p.parse_args()
    quiet_logs()
    every = catalogue(args.size)
    tools = [c for c in every if admitted(c, "engineer")[0]]
    built = time.perf_counter()
    cat.index_of(tools)  # once per catalogue, as a running bot does on its first turn
    build_ms = (time.perf_counter() - built) * 1000
    times: list[float] = []
    hits = 0
    hits30 = 0
    for question, service, op, server in QUESTIONS:
        wanted = gold(every, service, op, server)
        start = time.perf_counter()
        selection = cat.select(tools, question=question, plan=GENERAL, open_ids=set())
        times.append((time.perf_counter() - start) * 1000)
        chosen = selection.chosen
        # what a model rerank could still find: a gold tool among the 30 prefiltered
        hits30 += bool({c.name for c in selection.prefiltered} & wanted)
        names = {c.name for c in chosen}
        if names & wanted:
            hits += 1
        elif args.misses:
            print(f"MISS {question!r}\n  gold e.g. {sorted(wanted)[:3]}\n  chosen {sorted(names)}")
    recall = hits / len(QUESTIONS)
    result = {
        "tools": len(every),
        "admitted": len(tools),
        "questions": len(QUESTIONS),
        "index_build_ms": round(build_ms, 1),
        "median_ms": round(median(times), 1),
        "p95_ms": round(p95(times), 1),
        "recall_at_8": round(recall, 3),
        "recall_at_30": round(hits30 / len(QUESTIONS), 3),
    }
    report(
        result,
        f"catalogue of {len(every)} tools ({len(tools)} admitted), index built in "
        f"{build_ms:.0f} ms",
        args.json,
    )
    print(
        f"catalogue tools={len(every)} questions={len(QUESTIONS)} "
        f"median_ms={median(times):.1f} p95_ms={p95(times):.1f} recall@8={recall:.3f}"
    )


if __name__ == "__main__":
    main()
