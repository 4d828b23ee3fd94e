"""One investigation: context -> plan -> rounds of gated calls -> guard -> Answer.

The loop is small on purpose: each round asks the router for the calls that can advance
an unsettled objective (alternatives after a failure, per-node calls once nodes are
known), runs them in parallel, and stops when nothing new can be called, the round limit
is hit, or the turn deadline passes. Whatever came back survives the deadline.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import tzinfo

import structlog

from planner.conclude.evidence import EvidencePacket, build_packet
from planner.conclude.finalizer import finalize, frame_summary
from planner.conclude.guard import EnvOutcome, Progress, outcome_for
from planner.model.freeplan import FreePlanOutcome, free_planning
from planner.model.prose import write_prose
from planner.model.roles import ModelDesk, ModelSet
from planner.plan.objectives import Objective, QuestionPlan, plan_for
from planner.plan.routing import (
    Block,
    Blocked,
    Discovered,
    Given,
    PlannedCall,
    PodState,
    bind_arguments,
    candidates,
    canonical,
    needs_missing,
)
from planner.question.asked import value_priority
from planner.question.context import ContextState, InventoryItem
from planner.question.names import normalise
from planner.read.executor import CallRecord, Executor
from planner.read.workspace import TurnWorkspace
from planner.shapes.answer import Answer, Gap, ModelTally
from planner.shapes.progress import ProgressSink
from planner.shapes.turn import Turn
from policy.contracts import ToolContract
from policy.facts import (
    FACT_RANKS,
    AppLog,
    AppResponse,
    EdgeAccess,
    EdgeError,
    EntityKind,
    FactAttrs,
    K8sEndpoints,
    K8sEvent,
    K8sLog,
    K8sPlacement,
    K8sPod,
    K8sTermination,
    K8sWaiting,
    RelationKind,
)
from policy.gaps import GapNote, GapReason
from policy.toolset import CallContext, Toolset

log = structlog.get_logger(__name__)
_IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")


@dataclass(frozen=True)
class InvestigationSettings:
    timezone: tzinfo
    source_timeouts: dict[str, float] = field(default_factory=dict)
    default_timeout: float = 20.0
    max_rounds: int = 4
    turn_deadline_s: float = 90.0
    facts_per_source: int = 12
    keep_query_hosts: frozenset[str] = frozenset()  # our own dashboards: links keep queries


@dataclass
class Investigation:
    plan: QuestionPlan
    context: ContextState
    records: list[CallRecord]
    outcomes: dict[tuple[str, str], EnvOutcome]
    packet: EvidencePacket
    workspace: TurnWorkspace
    answer: Answer
    timed_out: bool = False


def _named_workloads(
    records: list[CallRecord],
    context: ContextState,
    inventory: list[InventoryItem],
    discovered: Discovered,
) -> None:
    """Workloads of the env other than the question's that a log line, an event or a
    waiting reason names ("connection refused to <workload>:<port>"): a dependency to look
    at next. Only a whole name counts, never a part of a longer one."""
    if context.scope.object is None:
        return
    asked = {o.name for o in context.objects} | {context.scope.object}
    for rec in records:
        env = rec.result.scope.env or rec.call.env
        if env is None:
            continue
        texts = [
            f.text
            for f in rec.result.facts
            if isinstance(f.attrs, K8sLog | AppLog | K8sEvent | K8sWaiting | EdgeError)
        ]
        if not texts:
            continue
        said = _whole_names(normalise(" ".join(texts)))
        for item in inventory:
            if item.env != env or item.name in asked or item.kind not in _WORKLOADS:
                continue
            if normalise(item.name) in said:
                discovered.add_object(env, item.name, item.namespace)


def _subjects_of(
    records: list[CallRecord],
    context: ContextState,
    inventory: list[InventoryItem],
    discovered: Discovered,
) -> None:
    """When the question names no workload ("shop.example.com returned 502"): the
    workloads whose pods the failing requests went to (an upstream address placed on a
    pod), found by the pod's name in the env's inventory: the symptom's owner, to be read
    as the question's object would be."""
    if context.scope.object is not None:
        return
    for rec in records:
        env = rec.result.scope.env or rec.call.env
        if env is None:
            continue
        for fact in rec.result.facts:
            a = fact.attrs
            if not isinstance(a, K8sPlacement) or not a.pod or a.created_after_moment:
                continue
            owners = [
                item
                for item in inventory
                if item.env == env
                and item.kind in _WORKLOADS - {EntityKind.SERVICE}
                and (item.namespace is None or a.namespace is None or item.namespace == a.namespace)
                and a.pod.startswith(item.name + "-")
            ]
            if owners:  # the longest name that prefixes the pod's is its workload
                owner = max(owners, key=lambda item: len(item.name))
                discovered.add_subject(env, owner.name, owner.namespace or a.namespace)


def _whole_names(text: str) -> set[str]:
    """Every name the text could be naming as a whole: each run of name characters, and
    each of its parts up to a dot ("<svc>.<ns>.svc" names <svc>, "x-<svc>"
    does not). One pass over the text, whatever the size of the inventory."""
    out: set[str] = set()
    for run in re.findall(r"[\w.-]+", text):
        out.add(run)
        out.update(run[:i] for i, ch in enumerate(run) if ch == ".")
    return out


_WORKLOADS = frozenset(
    {EntityKind.DEPLOYMENT, EntityKind.STATEFULSET, EntityKind.DAEMONSET, EntityKind.SERVICE}
)


def _discover(records: list[CallRecord], discovered: Discovered) -> None:
    """Entities later calls can use, read from the graph and the typed facts: nodes pods
    run on, pod addresses behind a service or an upstream, pods that fail."""
    for rec in records:
        env = rec.result.scope.env or rec.call.env
        if env is None:
            continue
        # crashed or waiting (the last run's log says why), or running but not ready (a
        # readiness probe that fails: the current log says why)
        states: dict[str, PodState] = {}
        for f in rec.result.facts:
            a = f.attrs
            if isinstance(a, K8sWaiting | K8sTermination) and a.pod:
                states[a.pod] = PodState.CRASHED
            elif isinstance(a, K8sPod) and a.pod and a.phase == "Running" and a.ready is False:
                states[a.pod] = max(states.get(a.pod, PodState.OK), PodState.UNREADY)
        for ent in rec.result.entities:
            if ent.kind is EntityKind.NODE:
                discovered.add_node(ent.env or env, ent.name)
            elif ent.kind is EntityKind.POD:
                discovered.add_pod(
                    ent.env or env, ent.name, ent.namespace, states.get(ent.name, PodState.OK)
                )
        for rel in rec.result.relations:
            kind, _, name = rel.dst.partition("/")
            if rel.rel is RelationKind.RUNS_ON and kind == EntityKind.NODE and name:
                discovered.add_node(env, name)
        for fact in rec.result.facts:
            _discover_in(fact.attrs, env, discovered)


def _discover_in(attrs: FactAttrs, env: str, discovered: Discovered) -> None:
    if isinstance(attrs, AppResponse | K8sPod) and attrs.node:
        discovered.add_node(env, str(attrs.node))
    if isinstance(attrs, EdgeAccess):
        upstreams: list[object] = [attrs.upstream_addr]
    elif isinstance(attrs, EdgeError):
        upstreams = [attrs.upstream, *(attrs.upstreams or {})]
    else:
        upstreams = []
    for value in upstreams:
        for ip in _IPV4.findall(str(value or "")):
            discovered.add_address(env, ip)
    if isinstance(attrs, K8sPlacement) and attrs.ip and not attrs.created_after_moment:
        discovered.add_address(env, attrs.ip)
    if isinstance(attrs, K8sEndpoints):
        # pod IPs behind the service: the edge log names upstreams by address
        for ip in [*(attrs.ready_ips or []), *(attrs.not_ready_ips or [])]:
            discovered.add_address(env, ip)
        for row in attrs.endpoints or []:
            for ip in row.get("addresses") or []:
                discovered.add_address(env, str(ip))


def _covers(contract: ToolContract | None, objective: Objective) -> bool:
    return contract is not None and contract.serves(objective.evidence)


def _share_a_call(
    objective: Objective,
    env: str,
    wanted: dict[str, tuple[PlannedCall, set[str]]],
    records: list[CallRecord],
    by_name: dict[str, ToolContract],
    commit: bool = True,
) -> bool:
    """One call that closes several evidence kinds serves every objective that accepts
    one of them: attach this objective to a call already planned this round, or to one
    already made whose result did not fail, instead of calling another tool."""
    for call, objectives in wanted.values():
        if call.env in (env, None) and _covers(by_name.get(call.tool), objective):
            objectives.add(objective.id)
            return True
    for rec in records:
        if (
            rec.call.env in (env, None)
            and objective.id not in rec.objectives
            and rec.result.status not in ("error", "denied")
            and _covers(by_name.get(rec.call.tool), objective)
        ):
            if commit:
                rec.objectives.add(objective.id)
            return True
    return False


async def investigate(
    turn: Turn,
    context: ContextState,
    gate: Toolset,
    settings: InvestigationSettings,
    *,
    models: ModelSet | None = None,
    unavailable_sources: dict[tuple[str, str | None], GapNote] | None = None,
    inventory: list[InventoryItem] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    progress: ProgressSink | None = None,
) -> Investigation:
    started = clock()
    ctx = CallContext(
        user=turn.user,
        role=turn.role,
        scope=context.scope,
        now=turn.now,
        timezone=str(settings.timezone),
    )
    contracts = gate.contracts(ctx)
    served = {k: c.agent.facet_of(k) for c in contracts for k in c.agent.evidence}
    plan = plan_for(context, served=served)
    refused = gate.refused(ctx)
    by_name = {c.name: c for c in contracts}
    workspace = TurnWorkspace()
    executor = Executor(
        gate=gate,
        ctx=ctx,
        workspace=workspace,
        timeouts=settings.source_timeouts,
        default_timeout=settings.default_timeout,
        clock=clock,
        progress=progress,
    )
    executor.unavailable.update(unavailable_sources or {})
    discovered = Discovered()
    for env in context.envs:  # nodes and addresses the question names are known at once
        for node in context.nodes:
            discovered.add_node(env, node)
        for host in context.identifiers.hosts:
            for ip in _IPV4.findall(host):
                discovered.add_address(env, ip)
    fresh_after = (
        context.scope.time.bounds(turn.now)[0] if context.scope.time.mode == "now" else None
    )

    def outcome(objective: Objective, env: str) -> EnvOutcome:
        return outcome_for(objective, env, executor.records, by_name, fresh_after)

    blocked: dict[tuple[str, str], Blocked] = {}
    timed_out = False

    def plan_round(
        round_no: int, found: Discovered, *, commit: bool = True
    ) -> tuple[dict[str, tuple[PlannedCall, set[str]]], bool]:
        """The calls round `round_no` wants, and whether some waited for entities not seen
        yet. `commit=False` is a dry run (what the next round would probably ask while
        this one is still reading): it records nothing, neither blocked objectives nor
        which made call serves which objective."""
        wanted: dict[str, tuple[PlannedCall, set[str]]] = {}
        blocked_now: dict[tuple[str, str], Blocked] = blocked if commit else {}
        deferred = False
        for objective in plan.objectives:
            for env in context.envs:
                current = outcome(objective, env)
                follow = objective.follows_evidence and bool(found.objects.get(env))
                if current.status == "resolved" and not follow:
                    continue
                if _share_a_call(objective, env, wanted, executor.records, by_name, commit):
                    continue
                missing = needs_missing(objective, env, context, found)
                if missing:
                    blocked_now[(objective.id, env)] = missing
                    continue
                cands = candidates(
                    objective,
                    env,
                    contracts,
                    context.scope.time.mode,
                    turn.question,
                    Given.of(context),
                )
                if not cands:
                    hidden = [why for c, why in refused if c.serves(objective.evidence, env)]
                    who = f"{turn.user} ({turn.role})"
                    asked = " or ".join(objective.evidence)
                    blocked_now[(objective.id, env)] = (
                        Blocked(
                            Block.NOT_ALLOWED,
                            (GapNote(GapReason.NOT_ALLOWED, env, who, hidden[0]),),
                        )
                        if hidden
                        else Blocked(Block.NO_SOURCE, (GapNote(GapReason.NO_SOURCE, env, asked),))
                    )
                    continue
                reasons: list[GapNote] = []
                covered: set[str] = set()  # an all_of objective: kinds already asked for
                wants = set(objective.evidence)
                for contract in cands:
                    kinds = set(contract.agent.evidence) & wants
                    if objective.all_of and kinds <= covered:
                        continue
                    source = contract.agent.sources[0]
                    if (source, env) in executor.unavailable:
                        reasons.append(executor.unavailable[(source, env)])
                        continue
                    arg_sets, why = bind_arguments(
                        contract, objective, env, context, turn.now, found, round_no
                    )
                    if why is not None and why.kind is Block.DEFERRED:
                        deferred = True
                        break
                    if why is not None:
                        reasons.extend(why.notes)
                        continue
                    calls = [
                        PlannedCall(
                            contract.name,
                            canonical(a),
                            env if "env" in a else None,
                            source,
                            (objective.id,),
                        )
                        for a in arg_sets
                    ]
                    made = [executor.record_for(c.key) for c in calls]
                    if commit:
                        for rec in made:
                            if rec is not None:
                                rec.objectives.add(objective.id)
                    if all(m is not None for m in made):
                        covered |= kinds
                        if not objective.all_of and outcome(objective, env).status == "resolved":
                            break
                        continue  # tried and failed, or a union: next acceptable source
                    down = executor.unavailable.get((source, env))
                    if down:
                        reasons.append(down)
                        continue
                    for call in calls:
                        if executor.record_for(call.key) is None:
                            entry = wanted.setdefault(call.key, (call, set()))
                            entry[1].add(objective.id)
                    covered |= kinds
                    if objective.all_of and not covered >= wants:
                        continue  # a union: ask the sources of its other kinds too
                    break
                else:
                    if reasons:
                        blocked_now[(objective.id, env)] = Blocked(
                            Block.UNAVAILABLE, tuple(dict.fromkeys(reasons))
                        )
        return wanted, deferred

    def read_ahead(round_no: int) -> None:
        """While round `round_no` still waits for its slowest calls, start what the next
        round would ask given the entities already found (the nodes of pods placed by a
        fast read, say): a round then costs its dependent reads, not its slowest one.
        A call read ahead becomes evidence only if the next round really plans it."""
        if round_no + 1 >= settings.max_rounds:
            return
        try:
            view = copy.deepcopy(discovered)
            _discover(executor.ordered(), view)
            ahead, _ = plan_round(round_no + 1, view, commit=False)
        except Exception:  # only a head start: a bug here must not cost the turn
            log.exception("investigation.read_ahead_failed", round=round_no + 1)
            return
        for call, _objectives in ahead.values():
            executor.prefetch(call)

    async def rounds() -> None:
        for round_no in range(settings.max_rounds):
            wanted, deferred = plan_round(round_no, discovered)
            if not wanted:
                if deferred and round_no == 0:
                    continue  # only calls that wait for round-one entities: go on
                return
            calls = [
                PlannedCall(c.tool, c.arguments_json, c.env, c.source, tuple(sorted(objs)))
                for c, objs in wanted.values()
            ]
            log.info("plan.round", round=round_no + 1, calls=len(calls))
            new = await executor.run(calls, on_progress=functools.partial(read_ahead, round_no))
            _discover(new, discovered)
            _named_workloads(new, context, inventory or [], discovered)
            _subjects_of(new, context, inventory or [], discovered)

    free = FreePlanOutcome()

    def settled(o: Objective, env: str) -> Progress:
        status = outcome(o, env).status
        if status == "resolved":
            return "resolved"
        why = blocked.get((o.id, env))
        if status == "failed" or (why is not None and why.kind is Block.NO_SOURCE):
            return "settled"  # nothing a model could add: no source, or it failed
        return "open"

    def status_now() -> dict[str, Progress]:
        out: dict[str, Progress] = {}
        for o in plan.objectives:
            states = {settled(o, env) for env in context.envs}
            out[o.id] = (
                "open" if "open" in states else "resolved" if "resolved" in states else "settled"
            )
        return out

    desk: ModelDesk | None = models.desk() if models is not None else None
    model_phase = False

    async def with_model() -> None:
        nonlocal model_phase
        await rounds()
        open_required = any(o.required and status_now()[o.id] == "open" for o in plan.objectives)
        if desk is not None and (plan.intent == "general" or open_required):
            model_phase = True
            await free_planning(
                question=turn.question,
                context=context,
                plan=plan,
                executor=executor,
                contracts=contracts,
                desk=desk,
                status_of=status_now,
                outcome=free,
            )
            _discover(executor.records, discovered)

    # with a model, the answer's prose has a reserve of its own: planning stops in time
    # for it, and what planning collected is kept whatever way it ends
    reserve = _reserve(models, settings.turn_deadline_s)
    try:
        await asyncio.wait_for(with_model(), settings.turn_deadline_s - reserve)
    except TimeoutError:
        timed_out = True
        log.warning("investigation.deadline", seconds=settings.turn_deadline_s - reserve)
        if model_phase and desk is not None:
            free.notes.append(
                f"the model ({', '.join(desk.models.names())}) was cut after "
                f"{settings.turn_deadline_s - reserve:.0f} s, the turn's planning budget; "
                "answered from the evidence already collected"
            )
    finally:
        await executor.drop_prefetched()  # read ahead, never planned: not evidence

    outcomes: dict[tuple[str, str], EnvOutcome] = {}
    for objective in plan.objectives:
        for env in context.envs:
            out = outcome(objective, env)
            if out.status == "pending" and (objective.id, env) in blocked:
                why = blocked[(objective.id, env)]
                out.status = "unresolved" if why.leaves_unresolved else "unavailable"
                out.reasons.extend(why.notes)
            elif out.status == "failed":
                out.status = "unavailable"
            elif out.status == "pending":
                out.status = "unresolved"
                reason = GapReason.OUT_OF_TIME if timed_out else GapReason.NO_CALL
                out.reasons.append(GapNote(reason, env))
            outcomes[(objective.id, env)] = out
    required = {o.id for o in plan.objectives if o.required}
    packet = build_packet(
        [(r.call_id, r.result) for r in executor.ordered()],
        per_source=settings.facts_per_source,
        priority=value_priority(context.asked, dict(FACT_RANKS)),
        lead=frozenset(r.call_id for r in executor.records if r.objectives & required),
    )
    total_ms = int((clock() - started) * 1000)
    answer = finalize(
        turn=turn,
        context=context,
        plan=plan,
        records=executor.ordered(),
        outcomes=outcomes,
        packet=packet,
        total_ms=total_ms,
        timed_out=timed_out,
    )
    if desk is not None:
        left = settings.turn_deadline_s - (clock() - started)
        prose = await write_prose(
            answer,
            question=turn.question,
            desk=desk,
            # the reserve at least, and whatever planning left unused
            budget_s=max(0.0, left),
            planner_notes=free.closing,
            names=_known_names(context, inventory or [], executor.ordered()),
            envs=_configured_envs(context, contracts),
            tz=settings.timezone,
        )
        for note in [*free.notes, *prose.notes]:
            answer.gaps.append(Gap.of("model", GapNote(GapReason.MODEL, detail=note), answer.lang))
        head = prose.summary or answer.conclusion
        answer.summary = frame_summary(head, len(answer.gaps), answer.final, answer.lang)
        _account(answer, desk)
        answer.timings.total_ms = int((clock() - started) * 1000)
    return Investigation(
        plan, context, executor.ordered(), outcomes, packet, workspace, answer, timed_out
    )


SYNTHESIS_SHARE = 0.25  # at most this share of a turn's deadline is held back for prose


def _reserve(models: ModelSet | None, deadline_s: float) -> float:
    """The seconds kept from planning for writing the answer: none without a model."""
    if models is None:
        return 0.0
    return min(models.synthesis_reserve_s, deadline_s * SYNTHESIS_SHARE)


def _account(answer: Answer, desk: ModelDesk) -> None:
    ledger = desk.ledger
    t = answer.timings
    t.model_ms = ledger.ms
    t.model_calls = len(ledger.calls)
    t.model_failed_calls = sum(1 for c in ledger.calls if c.failure is not None)
    t.prompt_tokens = ledger.prompt_tokens
    t.completion_tokens = ledger.completion_tokens
    t.model_format_errors = ledger.format_errors
    t.model_denied_calls = ledger.denied_calls
    for call in ledger.calls:
        tally = t.by_model.setdefault(call.model, ModelTally())
        tally.calls += 1
        tally.failed_calls += call.failure is not None
        tally.prompt_tokens += call.prompt_tokens
        tally.completion_tokens += call.completion_tokens
        tally.ms += call.ms
        tally.format_errors += call.format_errors


def _configured_envs(context: ContextState, contracts: list[ToolContract]) -> set[str]:
    """Every configured environment (each tool's env enum is the configured set)."""
    envs = set(context.envs)
    for contract in contracts:
        envs.update(contract.enums.get("env", []))
    return envs


MAX_NAME_CHARS = 64


def _known_names(
    context: ContextState, inventory: list[InventoryItem], records: list[CallRecord]
) -> set[str]:
    """Every name the turn knows of: namespaces and workloads of the inventory, and what
    the sources returned: entities (pods, nodes, services) and the one-word values of the
    facts' typed attributes (a job's user, a commit's author, an audit actor, a reason).
    In the model's prose each must be one its citations hold (planner.model.prose): a person or
    a pod borrowed from another fact, or from nowhere the sources named, is not."""
    names = set(context.envs)
    for item in inventory:
        names.update(n for n in (item.env, item.namespace, item.name) if n)
    for rec in records:
        for ent in rec.result.entities:
            names.update(n for n in (ent.name, ent.namespace) if n)
        for fact in rec.result.facts:
            for value in fact.attrs.model_dump(mode="json").values():
                if isinstance(value, str) and 1 < len(value) <= MAX_NAME_CHARS and " " not in value:
                    names.add(value)
    return names
