"""Soak: many turns in many threads through one long-lived bot; resident memory stays flat.

The same in-process bot the other benchmarks use (the demo world's simulators and one
`Conversation`) answers `--turns` turns: the demo questions, each opening a thread, and
follow-ups in threads opened earlier ("the same for <another env of the world>", "and in
the last 15 minutes?", "кто его выкатывал?"), several threads open at once. The turn clock moves
`--step-s` per turn, as a running bot's does, so working memory expires threads on its own
TTL. Resident memory (VmRSS) is read after `--warmup` turns and at the end: growth above
`--max-growth` percent exits 1. The structures the turns fill are measured too (working
memory threads and entries, its prompt, the kept inventory, the name caches, the log
connector's field-capabilities cache): one past its bound, or one without a bound that
more than doubles after the warm-up, exits 1 as well.

The simulators share the process and record every read they serve (`QueryLog`, for the
scenario checks); that record is cleared after every turn, so what is measured is the bot.

    .venv/bin/python benchmarks/soak.py [--turns 1000] [--warmup 100] [--quick] [--json]

`--quick` is `--turns 200` (after the same warm-up).
"""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from _common import ROOT, median, p95, parser, quiet_logs, report

sys.path.insert(0, str(ROOT))

from connectors.elasticsearch._reader import FIELDS_KEPT, LogReader
from evals.parsecache import ParseCache, default_cache_dir
from evals.session import WorldSession
from evals.worldfile import read_world_file
from planner.question import names
from planner.shapes.turn import Turn

# what a person says next in a thread, whatever it opened with; `{env}` is one of the
# world's environments
FOLLOW_UPS = (
    "the same for {env}",
    "and in the last 15 minutes?",
    "а что в {env}?",
    "кто его выкатывал сегодня?",
    "what about {env}?",
    "повтори за последние 30 минут",
)
OPEN_THREADS = 8  # threads a follow-up may land in: the most recently opened ones


def rss_kib() -> int:
    """Resident set size of this process, from /proc (no psutil in the project)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def plan(turns: int, questions: list[str], envs: list[str]) -> list[tuple[str, str]]:
    """(thread root, message) for every turn: every third turn opens a thread with the
    next demo question, the others follow up in one of the threads opened last."""
    out: list[tuple[str, str]] = []
    opened: list[str] = []
    for i in range(turns):
        if i % 3 == 0 or not opened:
            root = f"soak-{len(opened)}"
            opened.append(root)
            out.append((root, questions[len(opened) % len(questions)]))
        else:
            recent = opened[-OPEN_THREADS:]
            text = FOLLOW_UPS[i % len(FOLLOW_UPS)].format(env=envs[i % len(envs)])
            out.append((recent[i % len(recent)], text))
    return out


def bounds(session: WorldSession) -> dict[str, Any]:
    """Every bounded structure the turns fill, with its bound."""
    conv = session.conversation
    assert conv is not None and session.config is not None
    memory = conv.memory
    threads = memory._threads  # the soak reads the sizes; nothing is changed
    entries = [len(e) for e in threads.values()]
    mem_settings = session.config.memory
    caches = {fn.__name__: fn.cache_info() for fn in (names.name_parts, names.name_pattern)}
    return {
        "memory_threads": len(threads),
        "memory_max_threads": memory._max_threads,
        "memory_entries": sum(entries),
        "memory_entries_per_thread_max": max(entries, default=0),
        "memory_max_entries": mem_settings.max_entries,
        "memory_ttl_minutes": mem_settings.ttl_minutes,
        "inventory_cache_entries": len(conv.inventory_cache._entries),
        # one per index pattern and query window, at most FIELDS_KEPT per reader: found
        # through the collector, since no public path leads from the conversation to a
        # connector's reader
        "es_field_cache_entries": sum(
            len(o._field_cache) for o in gc.get_objects() if isinstance(o, LogReader)
        ),
        "es_field_cache_max": max(
            (len(o._field_cache) for o in gc.get_objects() if isinstance(o, LogReader)),
            default=0,
        ),
        "name_caches": {k: [v.currsize, v.maxsize] for k, v in caches.items()},
        "python_threads": threading.active_count(),
        "gc_objects": len(gc.get_objects()),
    }


UNBOUNDED: tuple[str, ...] = ()  # structures with no limit: must not keep growing after warm-up


def within(b: dict[str, Any], warm: dict[str, Any] | None = None) -> list[str]:
    """The bounds a snapshot breaks (empty: every bound held); with `warm`, also every
    structure without a bound that more than doubled since the warm-up."""
    broken = []
    for name in UNBOUNDED if warm is not None else ():
        if b[name] > max(2 * warm[name], warm[name] + 10):
            broken.append(f"{name} grew {warm[name]} -> {b[name]} after warm-up, no bound")
    if b["es_field_cache_max"] > FIELDS_KEPT:
        broken.append(f"a log reader keeps {b['es_field_cache_max']} field lists > {FIELDS_KEPT}")
    if b["memory_threads"] > b["memory_max_threads"]:
        broken.append(f"memory threads {b['memory_threads']} > {b['memory_max_threads']}")
    if b["memory_entries_per_thread_max"] > b["memory_max_entries"]:
        broken.append(
            f"entries in one thread {b['memory_entries_per_thread_max']} > "
            f"{b['memory_max_entries']}"
        )
    for name, (size, limit) in b["name_caches"].items():
        if limit is not None and size > limit:
            broken.append(f"{name} cache {size} > {limit}")
    return broken


async def soak(session: WorldSession, turns: list[tuple[str, str]], warmup: int, step_s: float):
    conv = session.conversation
    assert conv is not None and session.now is not None
    walls: list[float] = []
    marks: dict[str, Any] = {}
    largest_prompt = 0
    served = 0
    try:
        for i, (root, message) in enumerate(turns):
            now = session.now + timedelta(seconds=step_s * i)
            session.set_clock(now)
            turn = Turn(question=message, user="soak", now=now, channel="soak", root_id=root)
            began = time.perf_counter()
            await conv.answer(turn)
            walls.append(time.perf_counter() - began)
            served += len(session.simulators.query_log.records())
            session.simulators.query_log.clear()  # the harness's record, not the bot's
            largest_prompt = max(largest_prompt, len(conv.memory.prompt_block("soak", root)))
            if i + 1 in (warmup, len(turns)):  # both with the bot's clients still open
                gc.collect()
                mark = "warmup" if i + 1 == warmup else "end"
                marks[mark] = {"rss_kib": rss_kib(), "bounds": bounds(session)}
    finally:
        await conv.aclose()
    marks["largest_prompt_bytes"] = largest_prompt
    marks["reads_served"] = served
    return walls, marks


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--turns", type=int, default=1000)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--step-s", type=float, default=60.0, help="turn clock step (seconds)")
    p.add_argument("--max-growth", type=float, default=10.0, help="percent, after warm-up")
    p.add_argument("--quick", action="store_true", help="--turns 200")
    args = p.parse_args()
    if args.quick:
        args.turns = 200
    if not 0 < args.warmup < args.turns:
        p.error("--warmup must be between 0 and --turns")
    quiet_logs()
    wf = read_world_file(None, cache=ParseCache(default_cache_dir()))
    turns = plan(args.turns, wf.questions, sorted(wf.world.environments))
    began = time.perf_counter()
    with WorldSession(wf.world, timezone=wf.timezone, now=wf.now) as session:
        rss_start = rss_kib()
        walls, marks = asyncio.run(soak(session, turns, args.warmup, args.step_s))
        max_prompt = session.config.memory.max_prompt_bytes if session.config else 0
    wall = time.perf_counter() - began
    warm, end = marks["warmup"], marks["end"]
    growth = 100.0 * (end["rss_kib"] - warm["rss_kib"]) / warm["rss_kib"]
    broken = within(warm["bounds"]) + within(end["bounds"], warm["bounds"])
    if marks["largest_prompt_bytes"] > max_prompt:
        broken.append(f"memory prompt {marks['largest_prompt_bytes']} B > {max_prompt} B")
    flat = growth <= args.max_growth
    result = {
        "benchmark": "soak",
        "turns": args.turns,
        "threads": len({root for root, _ in turns}),
        "warmup_turns": args.warmup,
        "rss_start_mib": round(rss_start / 1024, 1),
        "rss_warmup_mib": round(warm["rss_kib"] / 1024, 1),
        "rss_end_mib": round(end["rss_kib"] / 1024, 1),
        "growth_pct": round(growth, 2),
        "max_growth_pct": args.max_growth,
        "flat": flat,
        "bounds_held": not broken,
        "broken_bounds": broken,
        "bounds_warmup": warm["bounds"],
        "bounds_end": end["bounds"],
        "largest_prompt_bytes": marks["largest_prompt_bytes"],
        "simulator_reads": marks["reads_served"],
        "max_prompt_bytes": max_prompt,
        "turn_median_ms": round(median(walls) * 1000, 1),
        "turn_p95_ms": round(p95(walls) * 1000, 1),
        "wall_s": round(wall, 1),
    }
    b = end["bounds"]
    text = "\n".join(
        [
            f"soak: {args.turns} turns in {result['threads']} threads, {wall:.1f} s "
            f"(turn median {result['turn_median_ms']} ms, p95 {result['turn_p95_ms']} ms)",
            f"RSS: start {result['rss_start_mib']} MiB, after {args.warmup} turns "
            f"{result['rss_warmup_mib']} MiB, at the end {result['rss_end_mib']} MiB: "
            f"{growth:+.2f}% ({'within' if flat else 'OVER'} {args.max_growth:g}%)",
            f"bounds {'held' if not broken else 'BROKEN: ' + '; '.join(broken)}: "
            f"memory {b['memory_threads']}/{b['memory_max_threads']} threads "
            f"(TTL {b['memory_ttl_minutes']} min), {b['memory_entries']} entries, at most "
            f"{b['memory_entries_per_thread_max']}/{b['memory_max_entries']} in a thread; "
            f"largest memory prompt {marks['largest_prompt_bytes']}/{max_prompt} B; "
            f"inventory cache {b['inventory_cache_entries']} reads; log field-caps cache "
            f"{warm['bounds']['es_field_cache_entries']} -> {b['es_field_cache_entries']} "
            f"(at most {b['es_field_cache_max']}/{FIELDS_KEPT} in a reader); name caches "
            + ", ".join(f"{k} {s}/{m}" for k, (s, m) in b["name_caches"].items())
            + f"; {b['python_threads']} Python threads "
            f"(after warm-up {warm['bounds']['python_threads']}); gc objects "
            f"{warm['bounds']['gc_objects']} -> {b['gc_objects']}; "
            f"{marks['reads_served']} simulator reads",
        ]
    )
    report(result, text, args.json)
    sys.exit(0 if flat and not broken else 1)


if __name__ == "__main__":
    main()
