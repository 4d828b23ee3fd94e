"""Fault matrix: every source x every fault kind, while the other sources work.

One question whose answer holds facts from every source (why service-d in dc-b of the demo
world fails: its pods, events and logs from Kubernetes; restarts and usage from metrics;
error lines and the audit trail from Elasticsearch; the release from GitLab) is answered
once with no fault, then once per (source, kind) with that fault on that source, through
the real connectors against the world simulators. Sources and kinds are the world
format's own closed sets (`evals.world.SourceName`, `FaultKind`), so a new source or kind
joins the matrix by itself, and fails it until the demo world gives the source a fact for
this question and `_EXPECT` says how the kind's gap reads.

Each case asserts what a user would see:
(a) a gap that the fault-free answer does not have names the failed source (one of its
    tools or its backend) with a reason of the fault's kind, and every
    failed call of that source carries the kind's typed error;
(b) every fact of the other sources in the fault-free answer is still there;
(c) nothing is claimed from the failed source: no fact of it after an error, no objective
    resolved by it alone, no absence concluded from a read of it.

`limits.facts_per_source` is raised above what any source yields here. With the default
(12) a healthy source's fallback read for the failed source's objective (kubernetes
`k8s.log_errors` when logs are down) takes a slot of that source's budget and pushes out
one of its facts: a choice of the budget, not a lost fact, and not what this matrix tests.

    .venv/bin/pytest tests/integration/test_fault_matrix.py -v     # 24 cases + baseline
"""

from __future__ import annotations

import asyncio
import re
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from bot.settings import InfrabotConfig
from bot.wiring import build_tools
from evals.parsecache import ParseCache, default_cache_dir
from evals.runner import SOURCE_TIMEOUT_S, STALL_SECONDS
from evals.session import WorldSession
from evals.simulators.victoriametrics import VictoriaMetrics, victoria_metrics_binary
from evals.world import Fault, FaultKind, SourceName, World
from evals.worldfile import WorldFile, read_world_file
from planner.shapes.turn import Turn
from planner.turn.conduct import TurnOutcome
from policy.errors import ErrorKind
from policy.gaps import GapReason

pytestmark = pytest.mark.victoriametrics

SOURCES: tuple[str, ...] = typing.get_args(SourceName)
KINDS: tuple[str, ...] = typing.get_args(FaultKind)
QUESTION = "почему service-d в dc-b падает?"
FACTS_PER_SOURCE = 200  # the most `limits` allows
VM_PREFIX = "faultmatrix-"


@dataclass(frozen=True)
class KindExpectation:
    gap_kinds: frozenset[GapReason]  # what the gap naming the source is, as a program reads it
    reason: str  # what its sentence says, as a person reads it (a regex, case-insensitive)
    error_kinds: frozenset[ErrorKind]  # the typed error of each failed call; empty: none fails


_FAILED = frozenset({GapReason.SOURCE_FAILED, GapReason.SOURCE_DOWN})
_EXPECT: dict[str, KindExpectation] = {
    "timeout": KindExpectation(
        _FAILED,
        r"did not answer|in time|timed? ?out|no answer within",
        frozenset({ErrorKind.TIMEOUT}),
    ),
    "http_error": KindExpectation(_FAILED, r"\b5\d\d\b", frozenset({ErrorKind.UNAVAILABLE})),
    "forbidden": KindExpectation(
        _FAILED, r"\b40[13]\b|forbidden|denied|refused", frozenset({ErrorKind.FORBIDDEN})
    ),
    # GitLab answers 404 for a route it does not serve as for an object it does not have
    "unsupported": KindExpectation(
        _FAILED,
        r"\b404\b|not served|does not serve|no such|not found",
        frozenset({ErrorKind.UNSUPPORTED, ErrorKind.NOT_FOUND}),
    ),
    "malformed": KindExpectation(_FAILED, r"json|malformed|pars", frozenset({ErrorKind.MALFORMED})),
    "truncate": KindExpectation(
        frozenset({GapReason.TRUNCATED, GapReason.PARTIAL_READ}),
        r"part|truncat|not read|expired|част",  # "часть": a part, in a Russian answer
        frozenset(),
    ),
}


def test_every_fault_kind_has_an_expectation() -> None:
    assert set(_EXPECT) == set(KINDS), (
        f"fault kinds without an expectation: {sorted(set(KINDS) - set(_EXPECT))}; "
        f"expectations for kinds that do not exist: {sorted(set(_EXPECT) - set(KINDS))}"
    )


# --- what belongs to which source ----------------------------------------------------


@dataclass(frozen=True)
class SourceTools:
    """A world source as the product sees it: the tools its configuration section builds
    and the backends those tools name in their contracts (what a fact's `source` says)."""

    tools: frozenset[str]
    backends: frozenset[str]

    @property
    def names(self) -> set[str]:
        """What a gap about this source says: a tool's name or a backend's (the world's
        own word, `logs`, is also part of `k8s.pod_logs`)."""
        return {*self.tools, *self.backends}


def _keeping(config: InfrabotConfig, keep: set[str]) -> InfrabotConfig:
    """The configuration with every source section but `keep` removed, at the top level
    (gitlab) and in every environment (kubernetes, metrics, logs)."""
    drop = set(SOURCES) - keep

    def strip(model: Any) -> Any:
        fields = type(model).model_fields
        return model.model_copy(update={name: None for name in drop if name in fields})

    envs = {name: strip(env) for name, env in config.environments.items()}
    return typing.cast(InfrabotConfig, strip(config).model_copy(update={"environments": envs}))


def source_tools(config: InfrabotConfig) -> dict[str, SourceTools]:
    common = {t.contract.name for t in build_tools(_keeping(config, set()), environ={})}
    out: dict[str, SourceTools] = {}
    for source in SOURCES:
        tools = [
            t
            for t in build_tools(_keeping(config, {source}), environ={})
            if t.contract.name not in common
        ]
        out[source] = SourceTools(
            frozenset(t.contract.name for t in tools),
            frozenset(b for t in tools for b in t.contract.agent.sources),
        )
    return out


def fact_backends(source: str) -> set[str]:
    """`kubernetes/dc-b` -> {kubernetes}; a fact of a union (`gitlab, elasticsearch`) has
    each."""
    return {part.strip().split("/", 1)[0] for part in source.split(",") if part.strip()}


# --- running the question --------------------------------------------------------------


@dataclass
class Run:
    outcome: TurnOutcome
    queried: set[str]  # world sources the simulators saw a read of

    @property
    def facts(self) -> set[tuple[str, str | None, str]]:
        return {(f.source, f.kind, f.text) for f in self.outcome.answer.facts}

    @property
    def gaps(self) -> set[tuple[GapReason, str]]:
        return {(g.kind, g.reason) for g in self.outcome.answer.gaps}


@pytest.fixture(scope="module")
def demo() -> WorldFile:
    return read_world_file(None, cache=ParseCache(default_cache_dir()))


@pytest.fixture(scope="module")
def vm(demo: WorldFile) -> Iterator[VictoriaMetrics]:
    binary = victoria_metrics_binary()
    if binary is None:
        pytest.skip(
            "victoria-metrics binary NOT FOUND (apt-get install victoria-metrics): "
            "the fault matrix needs the metrics source"
        )
    with VictoriaMetrics(binary) as server:
        server.import_world(demo.world, env_prefix=VM_PREFIX)  # once: faults change no sample
        yield server


async def ask(
    demo: WorldFile, vm: VictoriaMetrics, faults: list[Fault]
) -> tuple[Run, InfrabotConfig]:
    world: World = demo.world.model_copy(update={"faults": faults})
    session = WorldSession(
        world,
        timezone=demo.timezone,
        now=demo.now,
        stall_seconds=STALL_SECONDS,
        timeout_s=SOURCE_TIMEOUT_S,
        shared_vm=vm,
        vm_prefix=VM_PREFIX,
        vm_preloaded=True,
        config_extra={"limits": {"turn_deadline_s": 60, "facts_per_source": FACTS_PER_SOURCE}},
    )
    with session:
        assert session.conversation is not None and session.config is not None
        turn = Turn(question=QUESTION, user="alice", role="engineer", now=session.clock())
        try:
            outcome = await session.conversation.answer(turn)
        finally:
            await session.conversation.aclose()
        queried = {r.source for r in session.simulators.query_log.records()}
        return Run(outcome, queried), session.config


@dataclass
class Baseline:
    run: Run
    sources: dict[str, SourceTools]


@pytest.fixture(scope="module")
def baseline(demo: WorldFile, vm: VictoriaMetrics) -> Baseline:
    """The fault-free answer, once for the module (on a loop of its own: every client it
    opened is closed before `ask` returns)."""
    run, config = asyncio.run(ask(demo, vm, []))
    return Baseline(run, source_tools(config))


def test_fault_free_answer_holds_facts_from_every_source(baseline: Baseline) -> None:
    tools = [s.tools for s in baseline.sources.values()]
    assert all(tools), f"a source builds no tool of its own: {baseline.sources}"
    assert len(set().union(*tools)) == sum(map(len, tools)), "sources share a tool"
    counts = {
        source: sum(
            1 for f in baseline.run.outcome.answer.facts if fact_backends(f.source) & st.backends
        )
        for source, st in baseline.sources.items()
    }
    print(f"\nfault-free answer, facts per source: {counts}")
    assert all(counts.values()), f"the question gets no fact from some source: {counts}"
    assert max(counts.values()) < FACTS_PER_SOURCE, "a source's budget is full: raise it"


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("source", SOURCES)
async def test_a_failed_source_is_a_gap_and_the_others_keep_their_facts(
    source: str, kind: str, demo: WorldFile, vm: VictoriaMetrics, baseline: Baseline
) -> None:
    base = baseline.run
    mine = baseline.sources[source]
    expect = _EXPECT[kind]
    fault = Fault(source=source, kind=kind, max_hits=1 if kind == "truncate" else None)
    run, _ = await ask(demo, vm, [fault])
    answer = run.outcome.answer
    assert source in run.queried, f"the bot never read {source}: the fault was not exercised"

    # (a) a new gap names the source, with a reason of this kind
    new_gaps = run.gaps - base.gaps
    names = [n.lower() for n in mine.names]
    naming = [
        (gap_kind, reason)
        for gap_kind, reason in new_gaps
        if any(n in reason.lower() for n in names)
    ]
    shown = "\n  ".join(f"{k.value}: {r}" for k, r in sorted(run.gaps)) or "(none)"
    assert naming, f"no new gap names {source} ({sorted(names)}); the answer's gaps:\n  {shown}"
    assert any(
        gap_kind in expect.gap_kinds and re.search(expect.reason, reason, re.I)
        for gap_kind, reason in naming
    ), (
        f"no gap naming {source} says {kind} (kinds {sorted(expect.gap_kinds)}, "
        f"/{expect.reason}/): {naming}"
    )
    records = run.outcome.investigation.records if run.outcome.investigation else []
    failed = [
        r for r in records if r.call.tool in mine.tools and r.result.status in ("error", "denied")
    ]
    if expect.error_kinds:
        assert all(r.result.error_kind in expect.error_kinds for r in failed), [
            (r.call.tool, r.result.error_kind, r.result.error) for r in failed
        ]
    else:
        assert not failed, [(r.call.tool, r.result.error_kind, r.result.error) for r in failed]

    # (b) every fact of the other sources survives
    others = {
        f for f in base.facts if fact_backends(f[0]) and not fact_backends(f[0]) & mine.backends
    }
    lost = sorted(others - run.facts)
    assert not lost, f"{len(lost)} fact(s) of the working sources lost:\n  " + "\n  ".join(
        f"{s} {k}: {t}" for s, k, t in lost
    )

    # (c) nothing is claimed from the failed source
    if expect.error_kinds:
        claimed = [f for f in answer.facts if fact_backends(f.source) & mine.backends]
        assert not claimed, f"facts from the failed {source}: {[f.text for f in claimed]}"
    base_outcomes = base.outcome.investigation.outcomes if base.outcome.investigation else {}
    outcomes = run.outcome.investigation.outcomes if run.outcome.investigation else {}
    for key, out in outcomes.items():
        only_failed = bool(out.sources) and set(out.sources) <= mine.backends
        if expect.error_kinds and out.status == "resolved":
            assert not only_failed, f"{key} resolved from the failed {source} alone: {out}"
        if out.negative:
            assert not only_failed, f"{key}: absence concluded from the faulted {source}: {out}"
            before = base_outcomes.get(key)
            assert before is not None and before.negative, (
                f"{key}: the fault turned into an absence the fault-free answer did not "
                f"conclude: {out}"
            )
