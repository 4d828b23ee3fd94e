"""Deterministic tool routing: objectives -> admitted tools -> bound arguments.

Stages (objectives are planned, not tool names): admission (the gate's
catalogue for this user) -> objective relevance (a tool declares an evidence kind the
objective accepts) -> ranking (time semantics first, then lexical overlap with the
question) -> argument binding by argument name from the scope and from entities observed
earlier in the turn. A tool whose required arguments cannot be bound is not called; the
objective then says what it is missing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from enum import IntEnum, StrEnum
from typing import Any

from planner.plan.objectives import Objective
from planner.question.context import ContextState
from planner.question.logtail import ERROR_LINES, LogTail
from planner.question.phrase import PhraseCount
from planner.question.ranking import Ranking
from policy.contracts import ToolContract
from policy.gaps import GapNote, GapReason, Need
from policy.scope import shifted

IDENTIFIER_NEEDS: dict[Need, str] = {
    Need.REQUEST_ID: "request_id",
    Need.JOB_ID: "job_id",
    Need.PROMQL: "query",
    Need.LOG_QUERY: "query",
}
MAX_ENUM_FAN = 6
MAX_NODES = 3
MAX_OBJECTS = 4
MAX_PODS = 2
MAX_DEPENDENCIES = 2


class Block(StrEnum):
    """Why an objective could not be asked of a source in one env. A decision reads this,
    never the sentence that goes with it."""

    MISSING_INPUT = "missing_input"  # the question lacks what it needs (a request_id, a name)
    NOT_OBSERVED = "not_observed"  # an entity the evidence has not yielded (a node, a pod)
    DEFERRED = "deferred"  # waits for entities a later round may observe
    NOT_ALLOWED = "not_allowed"  # the user's role may not use the tools that could
    NO_SOURCE = "no_source"  # no configured tool serves it in this env
    UNAVAILABLE = "unavailable"  # its sources are down, or no call could be bound


@dataclass(frozen=True)
class Blocked:
    kind: Block
    notes: tuple[GapNote, ...] = ()  # what the answer's gap says; none for DEFERRED

    @property
    def leaves_unresolved(self) -> bool:
        return bool(self.notes) and all(n.reason.leaves_unresolved for n in self.notes)


@dataclass(frozen=True)
class PlannedCall:
    tool: str
    arguments_json: str
    env: str | None
    source: str
    objectives: tuple[str, ...]

    @property
    def arguments(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.arguments_json)
        return loaded

    @property
    def key(self) -> str:
        return f"{self.tool}:{self.arguments_json}"


class PodState(IntEnum):
    """How a pod seen in the evidence fails; the worse state a read saw wins."""

    OK = 0
    UNREADY = 1  # running, its readiness probe failing: its current log says why
    CRASHED = 2  # waiting or terminated: the last run's log says why


@dataclass
class Discovered:
    """Entities observed so far in the turn, by env, that later calls may need."""

    nodes: dict[str, list[str]] = field(default_factory=dict)
    addresses: dict[str, list[str]] = field(default_factory=dict)  # pod IPs behind the service
    pods: dict[str, list[tuple[str, str | None, PodState]]] = field(default_factory=dict)
    # workloads other than the question's that the evidence names (name, namespace)
    objects: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)
    # addresses a failed call named (a callee's pod, a Service's cluster IP): whose they are
    called: dict[str, list[str]] = field(default_factory=dict)
    # when the question names no workload: the ones the evidence puts behind the symptom
    # (the pods the failing requests went to), read as the question's object
    subjects: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)

    def add_subject(self, env: str, name: str, namespace: str | None) -> None:
        lst = self.subjects.setdefault(env, [])
        if all(o[0] != name for o in lst) and len(lst) < MAX_OBJECTS:
            lst.append((name, namespace))

    def add_object(self, env: str, name: str, namespace: str | None) -> None:
        lst = self.objects.setdefault(env, [])
        if all(o[0] != name for o in lst) and len(lst) < MAX_DEPENDENCIES:
            lst.append((name, namespace))

    def add_node(self, env: str, node: str) -> None:
        lst = self.nodes.setdefault(env, [])
        if node not in lst:
            lst.append(node)

    def add_called(self, env: str, address: str) -> None:
        lst = self.called.setdefault(env, [])
        if address and address not in lst:
            lst.append(address)

    def add_address(self, env: str, address: str) -> None:
        lst = self.addresses.setdefault(env, [])
        if address and address not in lst:
            lst.append(address)

    def add_pod(
        self, env: str, pod: str, namespace: str | None, state: PodState = PodState.OK
    ) -> None:
        lst = self.pods.setdefault(env, [])
        for i, (name, ns, seen) in enumerate(lst):
            if name == pod:
                # listed as running by one read, seen crashing by another: it crashed
                lst[i] = (name, ns or namespace, max(seen, state))
                return
        lst.append((pod, namespace, state))


@dataclass(frozen=True)
class Given:
    """What the question names that a tool may take as an argument: a tool that takes one
    (a job_id, a request_id, the object asked about) is the most specific route."""

    job_id: bool = False
    request_id: bool = False
    service: bool = False  # a read of the object asked about before one of its whole env

    @classmethod
    def of(cls, context: ContextState) -> Given:
        return cls(
            job_id=bool(context.identifiers.job_ids),
            request_id=bool(context.identifiers.request_ids),
            service=bool(context.scope.object),
        )

    def arguments(self) -> tuple[str, ...]:
        """The argument names the question gives a value for."""
        named = (("job_id", self.job_id), ("request_id", self.request_id))
        return tuple(name for name, present in (*named, ("service", self.service)) if present)


def _takes_identifiers(objective: Objective, props: dict[str, Any]) -> bool:
    """An objective about one identified thing (this request, this job) is served only by
    tools that take that identifier: a window search would attach other requests."""
    return not any(
        n in IDENTIFIER_NEEDS and IDENTIFIER_NEEDS[n] not in props for n in objective.needs
    )


def _time_rank(contract: ToolContract, mode: str) -> int:
    """For the past, history-capable tools first; for now, live first."""
    if mode == "historical":
        return 0 if contract.agent.supports_history else 2
    return 0 if contract.agent.freshness == "live" else 1


def candidates(
    objective: Objective,
    env: str,
    contracts: list[ToolContract],
    mode: str,
    question: str,
    given: Given | None = None,
) -> list[ToolContract]:
    """Admitted tools that can close the objective in this env, best first."""
    words = set(re.findall(r"[a-zа-я0-9]{3,}", question.lower()))
    named = (given or Given()).arguments()
    # the sources that serve the objective's primary kind here: a second kind of the same
    # objective is read from them first (an app's error lines from the log index that
    # holds its log, before the pods' own logs)
    primary = {
        c.agent.sources[0]
        for c in contracts
        if objective.evidence and c.serves(objective.evidence[:1], env)
    }
    out = []
    for c in contracts:
        props = c.input_schema().get("properties", {})
        if not c.serves(objective.evidence, env) or not _takes_identifiers(objective, props):
            continue
        # the objective's first evidence kind is its primary one
        rank_kind = min(objective.evidence.index(k) for k in c.evidence_for(objective.evidence))
        # a tool that takes an identifier the question gives (job_id, request_id) is the
        # most specific route
        specific = -sum(1 for name in named if name in props)
        lexical = len(
            words & set(re.findall(r"[a-z0-9]{3,}", (c.name + " " + c.description).lower()))
        )
        cohesive = 0 if c.agent.sources[0] in primary else 1
        rank = (specific, _time_rank(c, mode), rank_kind, cohesive, -lexical, c.name)
        out.append((rank, c))
    return [c for _, c in sorted(out, key=lambda x: x[0])]


def _iso(dt: datetime) -> str:
    return dt.isoformat()


Arguments = dict[str, Any]


@dataclass(frozen=True)
class _Binding:
    """One tool asked for one objective in one env: what its arguments are bound from."""

    objective: Objective
    env: str
    context: ContextState
    discovered: Discovered
    props: dict[str, Any]  # the tool's argument schemas, by name

    def takes(self, name: str) -> bool:
        return name in self.props

    def in_namespace(self, namespace: str | None) -> Arguments:
        """The namespace of a name bound from the evidence, when the tool takes one."""
        return {"namespace": namespace} if namespace and self.takes("namespace") else {}


def _query_for(objective: Objective, context: ContextState) -> str | None:
    """The query the question wrote, for an objective that reads a written query."""
    ids = context.identifiers
    if Need.PROMQL in objective.needs:
        return ids.promql
    return ids.log_query if Need.LOG_QUERY in objective.needs else None


def _ask_values(context: ContextState) -> Arguments:
    """The arguments an exact ask binds: what a ranking ranks, by what and how many; the
    latest lines of the pod named, of the run asked; the phrase to count."""
    ask = context.ask
    match ask:
        case Ranking():
            return {
                "subject": ask.subject.value,
                "measure": ask.measure.value,
                "limit": ask.count,
                "order": ask.order,
            }
        case LogTail():
            pod = {"pod": ask.pods[0]} if ask.pods else {}
            # a container's log is grepped; a log index is filtered by level
            errors = {"grep": ERROR_LINES, "level": "error"} if ask.errors else {}
            return {"limit": ask.lines, "previous": ask.previous, **pod, **errors}
        case PhraseCount():
            return {"text": ask.text, "grep": re.escape(ask.text)}
        case _:
            return {}


def _edge_host(b: _Binding) -> str | None:
    """An edge log read for an object the question names by name, not host: the host its
    Ingress serves, the one field an edge in front of the cluster records it by."""
    edge = any(kind.startswith("edge.") for kind in b.objective.evidence)
    hosts = b.context.served_hosts
    return hosts[0] if edge and hosts else None


def _scope_values(b: _Binding, now: datetime) -> Arguments:
    """Every argument the question's scope and identifiers give, by argument name."""
    scope = b.context.scope
    ids = b.context.identifiers
    start, end = scope.time.bounds(now)
    if b.objective.lookback is not None:
        start = shifted(start, -b.objective.lookback)
    values: Arguments = {
        "env": b.env,
        "namespace": scope.namespace,
        "service": scope.object,
        "object": scope.object,
        "deployment": scope.object,
        "project": scope.object,
        "request_id": ids.request_ids[0] if ids.request_ids else None,
        "job_id": ids.job_ids[0] if ids.job_ids else None,
        "host": ids.hosts[0] if ids.hosts else _edge_host(b),
        "port": ids.ports[0] if ids.ports else None,
        "query": _query_for(b.objective, b.context),
        "start": _iso(start),
        "end": _iso(end),
        "terms": b.context.terms or None,
        "fronts": b.context.fronts or None,
    }
    values |= _ask_values(b.context)
    if b.context.quantile is not None:  # the quantile asked, not the tool's default
        values["quantile"] = b.context.quantile
    if ids.http_codes and b.takes("status"):
        values["status"] = ids.http_codes[0]
    if b.takes("service"):
        # the question's object is bound once, to the most specific name the tool takes
        for alias in ("object", "deployment", "project"):
            values[alias] = None
    return values


def _base(b: _Binding, now: datetime, round_no: int) -> Arguments | Blocked:
    """The arguments every call of the fan shares, or DEFERRED while the addresses an
    upstream read needs are still to be observed."""
    base: Arguments = {
        name: _coerce(b.props[name], value)
        for name, value in _scope_values(b, now).items()
        if b.takes(name) and value is not None
    }
    addresses = b.discovered.addresses.get(b.env, [])
    if b.takes("upstreams") and b.context.scope.object:
        if addresses:
            base["upstreams"] = addresses[:20]
        elif round_no == 0:
            return Blocked(Block.DEFERRED)
    if base.get("host") and any(k.startswith("edge.") for k in b.objective.evidence):
        # an edge in front of the cluster is read by the host: its upstream is the
        # ingress, not the pods, and its records name no service
        base.pop("upstreams", None)
        base.pop("service", None)
    if b.takes("addresses") and Need.CALLED_ADDRESS in b.objective.needs:
        addresses = b.discovered.called.get(b.env, [])
    if b.takes("addresses") and {Need.ADDRESS, Need.CALLED_ADDRESS} & set(b.objective.needs):
        base["addresses"] = addresses[:20]
        base.pop("namespace", None)  # an address may belong to any namespace
        base.pop("service", None)
    return base


def _fan_subjects(b: _Binding, base: Arguments) -> list[Arguments]:
    """No workload asked about: one read for each the evidence put behind the symptom."""
    subjects = b.discovered.subjects.get(b.env)
    if b.context.scope.object is not None or Need.OBJECT not in b.objective.needs:
        return [base]
    name_of = next((n for n in ("service", "object", "deployment") if b.takes(n)), None)
    if not subjects or name_of is None:
        return [base]
    return [{**base, name_of: name, **b.in_namespace(ns)} for name, ns in subjects]


def _fan_objects(
    b: _Binding, base: Arguments, other: Arguments, fan: list[Arguments]
) -> list[Arguments]:
    """ "<service> and <other service>": the same read for every object named."""
    if not b.takes("service") or len(b.context.objects) <= 1:
        return fan
    return [
        {
            **(base if o.name == b.context.scope.object else other),
            "service": o.name,
            **b.in_namespace(o.namespace),
        }
        for o in b.context.objects[:MAX_OBJECTS]
    ]


def _fan_dependencies(b: _Binding, other: Arguments) -> list[Arguments]:
    """The same read for the workloads the evidence connects the object to."""
    dependencies = b.discovered.objects.get(b.env)
    if not (b.takes("service") and b.objective.follows_evidence and dependencies):
        return []
    return [{**other, "service": name, **b.in_namespace(ns)} for name, ns in dependencies]


def _fan_nodes(b: _Binding, base: Arguments, fan: list[Arguments]) -> list[Arguments]:
    """A tool that takes the nodes reads them all at once (their peers once); one that
    takes a node reads each."""
    nodes = b.discovered.nodes.get(b.env, [])[:MAX_NODES]
    if b.takes("nodes") and nodes:
        return [{**f, "nodes": nodes} for f in fan]
    if b.takes("node") and nodes:
        return [{**base, "node": n} for n in nodes]
    return fan


def _fan_pods(b: _Binding, base: Arguments, fan: list[Arguments]) -> list[Arguments]:
    """One read per pod seen, the worst first; a crashed one's previous run."""
    needs = set(b.objective.needs)
    if not b.takes("pod") or not ({Need.POD, Need.FAILING_POD} & needs):
        return fan
    pods = sorted(b.discovered.pods.get(b.env, []), key=lambda p: -p[2])
    if Need.FAILING_POD in needs:
        pods = [p for p in pods if p[2] is not PodState.OK]
    if not pods:
        return fan
    return [
        {
            **base,
            "pod": p,
            **b.in_namespace(ns),
            **({"previous": True} if state is PodState.CRASHED and b.takes("previous") else {}),
        }
        for p, ns, state in pods[:MAX_PODS]
    ]


def _fan_enums(b: _Binding, required: set[str], fan: list[Arguments]) -> list[Arguments]:
    """A required closed set nobody named ("search all logs"): read each member."""
    for name in sorted(required - set(fan[0])):
        enum = b.props.get(name, {}).get("enum")
        if enum and len(enum) <= MAX_ENUM_FAN:
            fan = [{**f, name: value} for f in fan for value in enum]
    return fan


def bind_arguments(
    contract: ToolContract,
    objective: Objective,
    env: str,
    context: ContextState,
    now: datetime,
    discovered: Discovered,
    round_no: int = 0,
) -> tuple[list[Arguments], Blocked | None]:
    """Argument sets for this tool (several for per-node/per-pod tools), or why none.

    `Block.DEFERRED` means: call it next round, once the entities it can use (a service's
    upstream addresses) have been observed.
    """
    schema = contract.input_schema()
    required = set(schema.get("required", []))
    b = _Binding(objective, env, context, discovered, schema.get("properties", {}))
    base = _base(b, now, round_no)
    if isinstance(base, Blocked):
        return [], base
    # the names in front of the question's object are its own: never another object's
    other = {k: v for k, v in base.items() if k != "fronts"}
    fan = _fan_subjects(b, base)
    if Need.DEPENDENCY in objective.needs:
        # read for the dependencies the evidence named, never for the object itself
        fan = _fan_dependencies(b, other)
    else:
        fan = _fan_objects(b, base, other, fan) + _fan_dependencies(b, other)
    fan = _fan_pods(b, base, _fan_nodes(b, base, fan))
    fan = _fan_enums(b, required, fan)
    missing = sorted(required - set(fan[0]))
    if missing:
        needs = f"{contract.name} needs {', '.join(missing)}"
        return [], Blocked(Block.UNAVAILABLE, (GapNote(GapReason.NOT_BOUND, env, detail=needs),))
    # a tool that takes an object but got none would read a whole env: only if optional
    return fan, None


def _coerce(prop: dict[str, Any], value: Any) -> Any:
    types = prop.get("type") or [t.get("type") for t in prop.get("anyOf", []) if "type" in t]
    types = [types] if isinstance(types, str) else types
    if "integer" in types and isinstance(value, str) and value.isdigit():
        return int(value)
    if "string" in types and isinstance(value, int):
        return str(value)
    if types and "string" not in types and isinstance(value, str):
        return None  # "5xx" for an argument that takes one number: left out, not refused
    enum = prop.get("enum") or next(
        (t.get("enum") for t in prop.get("anyOf", []) if t.get("enum")), None
    )
    pattern = prop.get("pattern") or next(
        (t.get("pattern") for t in prop.get("anyOf", []) if t.get("pattern")), None
    )
    # a value outside the closed set or the declared shape is not bound (the optional
    # argument is left out): an address is no virtual host, a name no pod IP
    if enum and value not in enum:
        return None
    if pattern and isinstance(value, str) and re.search(pattern, value) is None:
        return None
    return value


def needs_missing(
    objective: Objective, env: str, context: ContextState, discovered: Discovered
) -> Blocked | None:
    """The first input the objective needs and does not have: from the question (a
    request_id, a name) or from the evidence so far (a node, a pod, an address)."""
    scope = context.scope
    ids = context.identifiers
    asked = {
        Need.REQUEST_ID: bool(ids.request_ids),
        Need.OBJECT: bool(scope.object) or bool(discovered.subjects.get(env)),
        Need.NAMESPACE: bool(scope.namespace),
        Need.PROMQL: bool(ids.promql),
        Need.LOG_QUERY: bool(ids.log_query),
        Need.JOB_ID: bool(ids.job_ids),
        Need.HOST: bool(ids.hosts),
        Need.TERMS: bool(context.terms),
    }
    observed = {
        Need.NODE: bool(discovered.nodes.get(env)),
        Need.POD: bool(discovered.pods.get(env)),
        Need.FAILING_POD: any(p[2] is not PodState.OK for p in discovered.pods.get(env, [])),
        Need.ADDRESS: bool(discovered.addresses.get(env)),
        Need.CALLED_ADDRESS: bool(discovered.called.get(env)),
        Need.DEPENDENCY: bool(discovered.objects.get(env)),
    }
    for need in objective.needs:
        if need in asked and not asked[need]:
            note = GapNote(GapReason.MISSING_INPUT, env, subject=need)
            return Blocked(Block.MISSING_INPUT, (note,))
        if need in observed and not observed[need]:
            note = GapNote(GapReason.NOT_OBSERVED, env, subject=need)
            return Blocked(Block.NOT_OBSERVED, (note,))
    return None


def canonical(arguments: dict[str, Any]) -> str:
    return json.dumps(
        {k: v for k, v in arguments.items() if v is not None}, sort_keys=True, ensure_ascii=False
    )
