"""`infrabot eval`: run scenario files through the real conversation path and check them.

Each run of a scenario starts from a fresh WorldSession (fresh simulators, fresh working
memory) with the clock fixed to the scenario's `now`; the turns go, in order, through
`Conversation.answer` on one thread (channel "eval", one root id per run), so follow-ups
share memory exactly as in a Mattermost thread. Every turn is checked (evals.checks)
against its answer and the reads the simulators served during that turn.

Exit status: 0 when every required scenario passed every run, 1 when one did not,
2 on a scenario file error (the message names file and path), a bad option, or a mode
this build cannot run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import re
import statistics
import sys
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from time import perf_counter
from typing import Any, TextIO

from bot.model_flags import model_config_extra
from bot.render import render_plain
from evals.checks import Failure, check_turn, clip
from evals.parsecache import ParseCache, default_cache_dir
from evals.report import build_report, sum_tallies, write_report
from evals.scenario import Scenario, ScenarioError, builtin_suite, load_suite
from evals.world import World
from planner import ThreadMessage, Turn

CHANNEL = "eval"
BOT_NAME = "infrabot"
# Small timeouts keep fault scenarios fast: a stalled source answers after 4 s, the
# connectors give up on a source a fault stalls after 1 s (healthy ones wait as the product
# does, see evals/worldconfig.py), and the turn is abandoned if it runs past the guard.
STALL_SECONDS = 4.0
SOURCE_TIMEOUT_S = 1.0
TURN_GUARD_S = 120.0

MODEL_KEYS = (
    "model_calls",
    "model_failed_calls",
    "prompt_tokens",
    "completion_tokens",
    "model_ms",
    "model_format_errors",
    "model_denied_calls",
)


_SIMULATOR_ORIGIN = re.compile(r"(//(?:127\.0\.0\.1|localhost|\[::1\])):\d{2,5}\b")


class _DropCancelledStalls(logging.Filter):
    """A stalled (`timeout` fault) simulator request cancelled when its world stops is
    expected, not a simulator error: keep uvicorn from printing its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, asyncio.CancelledError)


@contextlib.contextmanager
def _quiet_stall_cancellations() -> Iterator[None]:
    logger = logging.getLogger("uvicorn.error")
    quiet = _DropCancelledStalls()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def _describe(exc: BaseException) -> str:
    return clip(f"{type(exc).__name__}: {exc}")


def _stack(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))[-4000:]


class SharedMetrics:
    """One VictoriaMetrics for a whole suite, started when a scenario first needs it; each
    run imports its world's series under a prefix of its own, so runs never see each
    other's samples (the proxy filters every query by the run's label)."""

    def __init__(self) -> None:
        self._vm: Any = None
        self._missing = False
        self._runs = 0

    def for_run(self, world: World) -> tuple[Any, str]:
        """The VM and this run's env prefix; (None, "") when the world has no metrics or
        VictoriaMetrics is not installed (the world then reports metrics as a gap)."""
        if not world.uses("metrics") or self._missing:
            return None, ""
        if self._vm is None:
            from evals.simulators.victoriametrics import start_victoria_metrics

            try:
                self._vm = start_victoria_metrics()
            except RuntimeError:  # the run's own start then fails and reports why
                return None, ""
            if self._vm is None:  # not installed: each run's world reports the gap itself
                self._missing = True
                return None, ""
        self._runs += 1
        return self._vm, f"run{self._runs}-"

    def stop(self) -> None:
        if self._vm is not None:
            self._vm.stop()
            self._vm = None


async def run_once(
    scenario: Scenario,
    run: int,
    metrics: SharedMetrics | None = None,
    config_extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One run of a scenario in a fresh world (with `metrics`, its series in the suite's
    VictoriaMetrics); the run's report entry."""
    from evals.session import WorldSession  # the whole product: imported only to run

    spec = scenario.spec
    failures: list[Failure] = []
    turns: list[dict[str, Any]] = []
    entry: dict[str, Any] = {
        "run": run,
        "passed": False,
        "completed": False,
        "seconds": 0.0,
        "setup_seconds": 0.0,
        "tool_calls": 0,
        "failures": [],
        "turns": turns,
    }
    started = perf_counter()
    vm, vm_prefix = (
        await asyncio.to_thread(metrics.for_run, scenario.world) if metrics else (None, "")
    )
    session = WorldSession(
        scenario.world,
        timezone=scenario.timezone,
        now=spec.now,
        admins=scenario.admins() or None,
        stall_seconds=STALL_SECONDS,
        timeout_s=SOURCE_TIMEOUT_S,
        shared_vm=vm,
        vm_prefix=vm_prefix,
        config_extra=config_extra,
    )
    try:
        await asyncio.to_thread(session.start)
    except Exception as exc:
        failures.append(Failure(0, "setup", "the simulators and the bot start", _describe(exc)))
        entry.update(failures=[f.as_dict() for f in failures], error=_stack(exc))
        await asyncio.to_thread(session.stop)
        return entry
    entry["setup_seconds"] = round(perf_counter() - started, 3)
    conversation = session.conversation
    assert conversation is not None
    query_log = session.simulators.query_log
    root_id = f"eval-{spec.id}-run{run}"
    thread: list[ThreadMessage] = []
    clock = spec.now
    completed = True
    try:
        for number, step in enumerate(spec.turns, start=1):
            clock = step.at or clock
            session.set_clock(clock)
            who = step.as_ or spec.user
            turn = Turn(
                question=step.question,
                user=who.name,
                role=who.role,
                channel=CHANNEL,
                root_id=root_id,
                now=clock,
                thread=list(thread),
                language=step.language if step.alert is not None else None,
            )
            record: dict[str, Any] = {
                "turn": number,
                "question": turn.question,
                "user": who.name,
                "role": who.role,
                "at": clock.isoformat(),
                "seconds": 0.0,
                "passed": False,
                "failures": [],
            }
            turns.append(record)
            before = len(query_log.records())
            turn_started = perf_counter()
            failure: Failure | None
            try:
                outcome = await asyncio.wait_for(conversation.answer(turn), TURN_GUARD_S)
            except TimeoutError:
                failure = Failure(
                    number, "timeout", f"an answer within {TURN_GUARD_S:.0f} s", "no answer"
                )
            except Exception as exc:
                failure = Failure(number, "error", "the turn completes", _describe(exc))
                record["error"] = _stack(exc)
            else:
                failure = None
            record["seconds"] = round(perf_counter() - turn_started, 3)
            records = query_log.records()[before:]
            record["queries"] = [r.as_dict() for r in records]
            if failure is not None:
                failures.append(failure)
                record["failures"] = [failure.as_dict()]
                completed = False
                break
            answer = outcome.answer
            rendered = render_plain(answer)
            # the simulators listen on random ports, which links in the answer carry: a
            # check for "412" must not find it in port 41234
            checked = _SIMULATOR_ORIGIN.sub(r"\1:PORT", rendered)
            found = check_turn(number, step.expect, answer, checked, records)
            failures += found
            record.update(
                passed=not found,
                failures=[f.as_dict() for f in found],
                rendered=rendered,
                answer=answer.model_dump(mode="json"),
                tool_calls=[c.model_dump(mode="json") for c in answer.tool_calls],
            )
            entry["tool_calls"] += len(answer.tool_calls)
            thread += [
                ThreadMessage(author=who.name, text=turn.question, at=clock),
                ThreadMessage(author=BOT_NAME, text=rendered, is_bot=True, at=clock),
            ]
    finally:
        await conversation.aclose()
        await asyncio.to_thread(session.stop)
    entry.update(
        passed=completed and not failures,
        completed=completed,
        seconds=round(sum(t["seconds"] for t in turns), 3),
        failures=[f.as_dict() for f in failures],
    )
    if config_extra and "models" in config_extra:
        entry["model"] = _model_use(turns)
    return entry


def _model_use(turns: list[dict[str, Any]]) -> dict[str, Any]:
    """What a run asked of its models, summed over its turns (from each answer's timings),
    with the per-turn figures kept for medians."""
    per_turn = [((t.get("answer") or {}).get("timings") or {}) for t in turns if "answer" in t]
    total = {k: sum(int(t.get(k, 0)) for t in per_turn) for k in MODEL_KEYS}
    return {
        "calls": total["model_calls"],
        "failed_calls": total["model_failed_calls"],
        "prompt_tokens": total["prompt_tokens"],
        "completion_tokens": total["completion_tokens"],
        "latency_ms": total["model_ms"],
        "format_errors": total["model_format_errors"],
        "denied_calls": total["model_denied_calls"],
        "turns": len(per_turn),
        "by_model": sum_tallies(t.get("by_model") or {} for t in per_turn),
        "prompt_tokens_per_turn": [int(t.get("prompt_tokens", 0)) for t in per_turn],
        "calls_per_turn": [int(t.get("model_calls", 0)) for t in per_turn],
    }


def _progress(stream: TextIO, scenario: Scenario, entry: dict[str, Any], runs: int) -> None:
    verdict = "PASS" if entry["passed"] else "FAIL"
    optional = "" if scenario.spec.required else " (optional)"
    print(
        f"{verdict} {scenario.id}{optional} run {entry['run']}/{runs} "
        f"{entry['seconds']:.2f}s {entry['tool_calls']} tool calls",
        file=stream,
        flush=True,
    )
    for f in entry["failures"]:
        print(
            f"     turn {f['turn']} {f['check']}: expected {f['expected']!r}; "
            f"seen {clip(f['seen'], 200)!r}",
            file=stream,
            flush=True,
        )


async def run_suite(
    scenarios: Sequence[Scenario],
    runs: int | None = None,
    stream: TextIO | None = None,
    config_extra: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Run every scenario `runs` times (default: its own `runs`); report entries."""
    results = []
    metrics = SharedMetrics()
    try:
        for scenario in scenarios:
            count = runs or scenario.spec.runs
            entries = []
            for run in range(1, count + 1):
                entry = await run_once(scenario, run, metrics, config_extra)
                entries.append(entry)
                if stream is not None:
                    _progress(stream, scenario, entry, count)
            results.append(_scenario_entry(scenario, entries))
    finally:
        await asyncio.to_thread(metrics.stop)
    return results


def _scenario_entry(scenario: Scenario, runs: list[dict[str, Any]]) -> dict[str, Any]:
    spec = scenario.spec
    return {
        "id": spec.id,
        "title": spec.title,
        "file": str(scenario.path),
        "required": spec.required,
        "tags": spec.tags,
        "passed": bool(runs) and all(r["passed"] for r in runs),
        "completed": bool(runs) and all(r["completed"] for r in runs),
        "median_seconds": round(statistics.median(r["seconds"] for r in runs), 3) if runs else None,
        "runs": runs,
    }


def select(
    scenarios: Sequence[Scenario], *, only_required: bool = False, tags: Sequence[str] = ()
) -> list[Scenario]:
    """Scenarios kept by --only-required and --tag (any of the tags)."""
    return [
        s
        for s in scenarios
        if (not only_required or s.spec.required)
        and (not tags or any(t in s.spec.tags for t in tags))
    ]


def _write(report_dir: str | None, report: dict[str, Any], out: TextIO) -> bool:
    if not report_dir:
        return True
    try:
        json_path, html_path = write_report(Path(report_dir), report)
    except OSError as exc:
        print(f"infrabot eval: cannot write the report into {report_dir}: {exc}", file=out)
        return False
    print(f"report: {json_path} {html_path}", file=out)
    return True


def main(args: argparse.Namespace) -> int:
    """Entry point of `infrabot eval` (bot.cli parses the arguments)."""
    err = sys.stderr
    runs: int | None = getattr(args, "runs", None)
    tags: list[str] = list(getattr(args, "tag", None) or [])
    report_dir: str | None = getattr(args, "report", None)
    if runs is not None and runs < 1:
        print("infrabot eval: --runs must be at least 1", file=err)
        return 2
    paths = [Path(p) for p in getattr(args, "paths", None) or []] or [builtin_suite()]
    try:
        suite = load_suite(paths, cache=ParseCache(default_cache_dir()))
    except ScenarioError as exc:
        print(f"infrabot eval: scenario file error\n{exc}", file=err)
        return 2
    for skipped in suite.skipped:
        print(f"note: {skipped} is not a scenario (no id, no turns); skipped", file=err)
    if not suite.scenarios:
        print(f"infrabot eval: no scenario files in {', '.join(map(str, paths))}", file=err)
        return 2
    selected = select(
        suite.scenarios, only_required=bool(getattr(args, "only_required", False)), tags=tags
    )
    if not selected:
        print(
            "infrabot eval: no scenario matches --only-required/--tag "
            f"({len(suite.scenarios)} loaded)",
            file=err,
        )
        return 2
    try:
        extra = model_config_extra(args)
    except ValueError as exc:
        print(f"infrabot eval: {exc}", file=err)
        return 2
    models = extra["models"] if extra else None
    roles = [m for m in (models or {}).values() if isinstance(m, dict)]
    model_name = " + ".join(dict.fromkeys(m["model"] for m in roles)) if roles else None
    if model_name and models and models.get("planning"):
        model_name += f" (planning {models['planning']})"
    started = perf_counter()
    with _quiet_stall_cancellations():
        results = asyncio.run(run_suite(selected, runs, err, extra))
    report = build_report(
        results,
        mode="model" if models else "deterministic",
        model=model_name,
        runs=runs,
        wall_seconds=perf_counter() - started,
    )
    s = report["summary"]
    print(
        f"{s['passed']}/{s['scenarios']} scenarios passed, required "
        f"{s['required_passed']}/{s['required']}; {s['wall_seconds']:.1f}s wall, "
        f"median {s['median_seconds']}s, p95 {s['p95_seconds']}s",
        file=err,
    )
    if "model_use" in s:
        u = s["model_use"]
        print(
            f"model {s['model']}: {u['calls']} calls ({u['failed_calls']} failed), median "
            f"{u['median_prompt_tokens_per_turn']} "
            f"prompt tokens and {u['median_calls_per_turn']} calls per turn, "
            f"{u['format_errors']} format errors, {u['denied_calls']} denied calls",
            file=err,
        )
    if not _write(report_dir, report, err):
        return 2
    return 1 if any(r["required"] and not r["passed"] for r in results) else 0
