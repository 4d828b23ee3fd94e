"""Benchmark: how infrabot scales with the size of the simulated world.

The built-in demo world is grown to N times its size (default 1x, 10x, 100x): copy k of
every Kubernetes object, pod log, metric series and log document gets the infix `-x{k}`
after its workload's name (deployment <name> -> <name>-x1, its pod <name>-<hash>-<id> ->
<name>-x1-<hash>-<id>, node <node> -> <node>-x1), with uids remapped; namespaces, the
GitLab section, faults and the audit log are not copied, nor is anything that mentions
a workload the question names (or a host its ingress serves), so the story the question
is about stays as it is. Each scale runs in a subprocess of its own (peak
memory per scale, a timeout per scale) and measures:

    build       scaling the world and validating it into `evals.world.World`
    start       `WorldSession(...).start()`: simulators, VictoriaMetrics import, wiring
    first_turn  the first investigation turn (lists the inventory of names)
    turn        median of the next `--turns` turns (the inventory is cached for 60 s on
                the turn clock); every turn has a new thread root id
    facts/gaps  of the last answer: a scaled world that breaks the story shows here
    bad calls   tool calls of the last answer that came back partial, error or denied
    rss         peak RSS of the scale's process; vm: peak RSS of its VictoriaMetrics

A scale that fails or runs past `--timeout` shows as "failed: reason"; scales are not
started once `--budget` (all scales together) is spent.

    .venv/bin/python benchmarks/world_scale.py [--scales 1,10,100] [--turns 3] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import hashlib
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import QUESTION, timed_turns

if TYPE_CHECKING:
    from evals.world import World

NOT_COPIED = ("Namespace",)
KEEP_KEYS = frozenset({"container"})  # container names are not workload names
RESULT = "RESULT "  # prefix of the child's result line on stdout
MIN_SCALE_S = 10.0  # a scale is not started with less of the budget left

# --- scaling the world ------------------------------------------------------------------


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet")


def _story(data: dict[str, Any]) -> tuple[str, ...]:
    """The workloads the question names: what the story is about, never copied."""
    from planner.question.names import find_name, normalise

    text = normalise(QUESTION)
    names = {
        o["metadata"]["name"]
        for objs in data["kubernetes"].values()
        for o in objs
        if o["kind"] in WORKLOAD_KINDS
    }
    return tuple(sorted(n for n in names if find_name(n, text)))


def _story_hosts(data: dict[str, Any], story: tuple[str, ...]) -> set[str]:
    """Hosts served by the story's workloads (the ingress series name them)."""
    return {
        m["labels"]["host"]
        for series in data["metrics"].values()
        for m in series
        if m["labels"].get("service", "").startswith(story) and "host" in m["labels"]
    }


def _mentions_story(value: Any, story: tuple[str, ...], hosts: set[str]) -> bool:
    return any(s.startswith(story) or s in hosts for s in _strings(value))


def _roots(names: set[str]) -> dict[str, str]:
    """Each name's workload: the shortest other name it extends at a '-' or '.'."""
    out = {}
    for name in names:
        bases = [b for b in names if name.startswith((b + "-", b + "."))]
        out[name] = min(bases, key=len) if bases else name
    return out


class Renamer:
    """Copy k of the world: every object name and uid gets its own copy-k value."""

    def __init__(self, kubernetes: dict[str, list[dict[str, Any]]]) -> None:
        objs = [o for objs in kubernetes.values() for o in objs if o["kind"] not in NOT_COPIED]
        self.roots = _roots({o["metadata"]["name"] for o in objs})
        self.uids = {o["metadata"]["uid"] for o in objs if o["metadata"].get("uid")}

    def mapping(self, k: int) -> dict[str, str]:
        names = {n: f"{root}-x{k}{n[len(root) :]}" for n, root in self.roots.items()}
        uids = {u: str(uuid.UUID(hashlib.md5(f"{u}/{k}".encode()).hexdigest())) for u in self.uids}
        return names | uids


def _rename(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, dict):
        return {k: v if k in KEEP_KEYS else _rename(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, names) for v in value]
    return value


def _rename_stream(key: str, names: dict[str, str]) -> str:
    namespace, pod, *rest = key.split("/")
    return "/".join([namespace, names.get(pod, pod), *rest])


def _copyable(data: dict[str, Any]) -> dict[str, Any]:
    """What each copy is made of: everything but namespaces and the story's workloads."""
    story = _story(data)
    if not story:
        raise SystemExit(f"the question names no workload of the world: {QUESTION}")
    hosts = _story_hosts(data, story)

    def keep(value: Any) -> bool:
        return not _mentions_story(value, story, hosts)

    return {
        "kubernetes": {
            env: [o for o in objs if o["kind"] not in NOT_COPIED and keep(o)]
            for env, objs in data["kubernetes"].items()
        },
        "pod_logs": {
            env: {key: text for key, text in streams.items() if keep(key)}
            for env, streams in data["pod_logs"].items()
        },
        "metrics": {
            env: [m for m in series if keep(m["labels"])] for env, series in data["metrics"].items()
        },
        "logs": {
            env: {index: [d for d in docs if keep(d)] for index, docs in by_index.items()}
            for env, by_index in data["logs"].items()
        },
    }


def _add_copy(data: dict[str, Any], base: dict[str, Any], names: dict[str, str]) -> None:
    for env, objs in base["kubernetes"].items():
        data["kubernetes"][env].extend(_rename(o, names) for o in objs)
    for env, streams in base["pod_logs"].items():
        data["pod_logs"][env].update({_rename_stream(k, names): t for k, t in streams.items()})
    for env, series in base["metrics"].items():
        data["metrics"][env].extend({**m, "labels": _rename(m["labels"], names)} for m in series)
    for env, by_index in base["logs"].items():
        for index, docs in by_index.items():
            data["logs"][env][index].extend(_rename(d, names) for d in docs)


def scaled_data(original: dict[str, Any], scale: int) -> dict[str, Any]:
    """The world data with scale-1 renamed copies of everything but the story."""
    data = copy.deepcopy(original)
    base = _copyable(original)
    renamer = Renamer(original["kubernetes"])
    for k in range(1, scale):
        _add_copy(data, base, renamer.mapping(k))
    return data


def _duplicate_series(data: dict[str, Any]) -> int:
    seen = {
        (env, tuple(sorted(m["labels"].items()))) for env, s in data["metrics"].items() for m in s
    }
    return sum(len(s) for s in data["metrics"].values()) - len(seen)


def world_data(world: World) -> dict[str, Any]:
    """The world as data in the world format (steps as "60s": the JSON dump's ISO 8601
    durations are not a format the world file accepts)."""
    data = world.model_dump(mode="json")
    for env, series in world.metrics.items():
        for dumped, m in zip(data["metrics"][env], series, strict=True):
            dumped["step"] = f"{m.step.total_seconds():g}s"
    return data


def world_size(data: dict[str, Any]) -> dict[str, int]:
    return {
        "objects": sum(len(objs) for objs in data["kubernetes"].values()),
        "series": sum(len(series) for series in data["metrics"].values()),
        "docs": sum(len(d) for by_index in data["logs"].values() for d in by_index.values()),
        "pod_logs": sum(len(streams) for streams in data["pod_logs"].values()),
    }


# --- one scale (in a subprocess) --------------------------------------------------------


async def _turns(session: Any, turns: int) -> tuple[list[float], Any]:
    done = await timed_turns(session, 1 + turns, QUESTION)
    return [wall for wall, _ in done], done[-1][1]


def _failed_calls(answer: Any) -> int:
    return sum(1 for c in answer.tool_calls if c.status in ("partial", "error", "denied"))


def measure(scale: int, turns: int) -> dict[str, Any]:
    from evals.parsecache import ParseCache, default_cache_dir
    from evals.session import WorldSession
    from evals.world import World
    from evals.worldfile import read_world_file

    wf = read_world_file(None, cache=ParseCache(default_cache_dir()))
    original = world_data(wf.world)
    began = time.perf_counter()
    data = scaled_data(original, scale)
    world = World.model_validate(data)
    build = time.perf_counter() - began
    size = world_size(data)
    duplicates = _duplicate_series(data)
    del data, original
    began = time.perf_counter()
    session = WorldSession(world, timezone=wf.timezone, now=wf.now).start()
    start = time.perf_counter() - began
    try:
        walls, outcome = asyncio.run(_turns(session, turns))
    finally:
        session.stop()
    answer = outcome.answer
    kib = 1024
    return {
        "scale": scale,
        **size,
        "duplicate_series": duplicates,
        "build_s": build,
        "start_s": start,
        "first_turn_s": walls[0],
        "turn_s": statistics.median(walls[1:]) if len(walls) > 1 else None,
        "turns_s": walls,
        "facts": len(answer.facts),
        "gaps": len(answer.gaps),
        "tool_calls": len(answer.tool_calls),
        "failed_calls": _failed_calls(answer),
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / kib,
        "vm_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / kib,
    }


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")


def child(scale: int, turns: int) -> None:
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    logging.basicConfig(level=logging.ERROR)
    signal.signal(signal.SIGTERM, _exit_on_term)  # so `finally` stops the simulators
    result = measure(scale, turns)
    if result["facts"] == 0:
        result["error"] = "the answer has no facts"
    print(RESULT + json.dumps(result, ensure_ascii=False), flush=True)


# --- the driver -------------------------------------------------------------------------


def _stop_group(proc: subprocess.Popen[str]) -> None:
    """SIGTERM first (the child stops its simulators and VictoriaMetrics), then SIGKILL to
    the whole process group, so no VictoriaMetrics outlives a timed-out scale."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.communicate(timeout=10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()


def run_scale(scale: int, turns: int, timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", str(scale), "--turns", str(turns)]
    began = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop_group(proc)
        return {"scale": scale, "error": f"timed out after {timeout:g} s", "wall_s": timeout}
    wall = time.perf_counter() - began
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT):
            return json.loads(line[len(RESULT) :]) | {"wall_s": wall}
    tail = (stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
    return {"scale": scale, "error": tail[:160], "wall_s": wall}


COLUMNS = [
    ("scale", "scale", "{}x"),
    ("objects", "k8s objs", "{}"),
    ("series", "series", "{}"),
    ("docs", "log docs", "{}"),
    ("build_s", "build s", "{:.2f}"),
    ("start_s", "start s", "{:.2f}"),
    ("first_turn_s", "1st turn s", "{:.2f}"),
    ("turn_s", "turn s", "{:.2f}"),
    ("facts", "facts", "{}"),
    ("gaps", "gaps", "{}"),
    ("failed_calls", "bad calls", "{}"),
    ("rss_mib", "rss MiB", "{:.0f}"),
    ("vm_rss_mib", "vm MiB", "{:.0f}"),
]


def _cell(row: dict[str, Any], key: str, fmt: str) -> str:
    value = row.get(key)
    return "-" if value is None else fmt.format(value)


def table(rows: list[dict[str, Any]]) -> str:
    header = [title for _, title, _ in COLUMNS]
    lines = []
    for row in rows:
        if "error" in row and "facts" not in row:
            cells = [f"{row['scale']}x", f"failed: {row['error']}"]
        else:
            cells = [_cell(row, key, fmt) for key, _, fmt in COLUMNS]
            if "error" in row:
                cells.append(f"failed: {row['error']}")
        lines.append(cells)
    widths = [len(h) for h in header]
    for cells in lines:
        if len(cells) == len(header):
            widths = [max(w, len(c)) for w, c in zip(widths, cells, strict=True)]
    out = ["  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True))]
    for cells in lines:
        fixed = [c.rjust(w) for c, w in zip(cells, widths, strict=False)]
        out.append("  ".join(fixed + cells[len(widths) :]))
    return "\n".join(out)


def main(scales: list[int], turns: int, timeout: float, budget: float, as_json: bool) -> None:
    began = time.perf_counter()
    rows = []
    for scale in scales:
        left = budget - (time.perf_counter() - began)
        if left < MIN_SCALE_S:
            rows.append(
                {"scale": scale, "error": f"not started, the {budget:g} s budget was spent"}
            )
            continue
        rows.append(run_scale(scale, turns, min(timeout, left)))
        if not as_json:
            wall = rows[-1].get("wall_s", 0.0)
            print(f"  {scale}x done in {wall:.1f} s", file=sys.stderr, flush=True)
    total = time.perf_counter() - began
    if as_json:
        print(
            json.dumps(
                {"question": QUESTION, "total_s": total, "scales": rows},
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    print(f"question: {QUESTION}")
    print(table(rows))
    print(f"total {total:.1f} s")


def _scales(text: str) -> list[int]:
    scales = [int(s) for s in text.split(",") if s.strip()]
    if not scales or min(scales) < 1:
        raise argparse.ArgumentTypeError("scales are positive integers: 1,10,100")
    return scales


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--scales", type=_scales, default=[1, 10, 100])
    parser.add_argument("--turns", type=int, default=3, help="turns after the first")
    parser.add_argument("--timeout", type=float, default=150.0, help="seconds per scale")
    parser.add_argument("--budget", type=float, default=230.0, help="seconds for all scales")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.turns)
    else:
        main(args.scales, args.turns, args.timeout, args.budget, args.json)
