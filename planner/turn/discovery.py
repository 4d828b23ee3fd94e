"""What the evidence read so far points to next: the entities later rounds may call
with (nodes pods run on, pod addresses behind a service or an upstream, pods that fail),
the workloads a log line or an event names, and the workloads behind a symptom the
question named no owner for. Read from the typed facts and the graph, never from
sentences."""

from __future__ import annotations

import re
from collections.abc import Callable

from planner.plan.routing import Discovered, PodState
from planner.question.context import ContextState, InventoryItem
from planner.question.names import normalise
from planner.read.executor import CallRecord
from policy.dependencies import (
    DependencyError,
    Failure,
    names_workload,
    read_error,
    runs_software,
)
from policy.facts import (
    AppLog,
    AppResponse,
    EdgeAccess,
    EdgeError,
    EntityKind,
    FactAttrs,
    HttpRate,
    K8sDependency,
    K8sEndpoints,
    K8sEvent,
    K8sLog,
    K8sPlacement,
    K8sPod,
    K8sTermination,
    K8sWaiting,
    LogTemplate,
    RelationKind,
)
from policy.results import ResultFact

IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")


def seed(context: ContextState) -> Discovered:
    """Nodes and addresses the question names are known before anything is read."""
    discovered = Discovered()
    for env in context.envs:
        for node in context.nodes:
            discovered.add_node(env, node)
        for host in context.identifiers.hosts:
            for ip in IPV4.findall(host):
                discovered.add_address(env, ip)
    return discovered


def learn(
    records: list[CallRecord],
    context: ContextState,
    inventory: list[InventoryItem],
    discovered: Discovered,
    every: list[CallRecord] | None = None,
) -> None:
    """Everything a round's new records point to, added to `discovered`; `every`, all the
    turn's records: a pod placed this round is the callee of a call logged in an earlier
    one."""
    discover(records, discovered)
    _named_workloads(records, context, inventory, discovered)
    _called(every if every is not None else records, context, inventory, discovered)
    _subjects_of(records, context, inventory, discovered)


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
                behind = _behind(item, inventory)
                discovered.add_object(env, behind.name, behind.namespace)


def _called(
    records: list[CallRecord],
    context: ContextState,
    inventory: list[InventoryItem],
    discovered: Discovered,
) -> None:
    """The dependency a failed call in a log line goes to (policy/dependencies.py): the
    Service or workload its host names ("<svc>.<ns>.svc:5432", "<svc>-rw"), the workload
    a pod address it names belongs to, else the one workload of the env whose images run
    the software the line names (Redis from "OOM command not allowed", PostgreSQL from a
    psycopg2 error). Read next as the question's object is (state, events, logs)."""
    asked = {o.name for o in context.objects} | {context.scope.object}
    # what each env's reads hold, read once: its workloads, placed pods and settings
    per_env: dict[str, tuple[list[InventoryItem], dict[str, str], list[K8sDependency]]] = {}
    for rec in records:
        env = rec.result.scope.env or rec.call.env
        if env is None:
            continue
        if env not in per_env:
            items = [i for i in inventory if i.env == env and i.kind in _WORKLOADS]
            per_env[env] = (items, _placed(records, env), _settings(records, env))
        items, placed, settings = per_env[env]
        for fact in rec.result.facts:
            error = _mesh_call(fact.attrs) or read_error(_said(fact.attrs, fact.text))
            if error is None:
                continue
            # what the caller is configured to call comes before a guess by software
            configured = _configured(error, items, settings, asked)
            target = _callee(error, items, placed, asked, context.scope.namespace)
            for item in configured or ([target] if target is not None else []):
                behind = _behind(item, inventory)
                discovered.add_object(env, behind.name, behind.namespace)
            if not configured and target is None and error.addresses:
                # whose pod the address is: read next, then followed
                discovered.add_called(env, error.addresses[0])


def links(discovered: Discovered) -> Callable[[ResultFact], bool]:
    """Whether a fact is a link the turn followed: the setting of an object that names a
    dependency read next (the answer's chain cites it)."""
    followed = {name for names in discovered.objects.values() for name, _ in names}

    def link(fact: ResultFact) -> bool:
        a = fact.attrs
        if not isinstance(a, K8sDependency) or not a.host:
            return False
        # a setting that named a dependency read next, or a dependency's own settings:
        # where the next hop's calls go
        named = any(names_workload(a.host, name) for name in followed)
        return named or a.workload in followed

    return link


def _behind(item: InventoryItem, inventory: list[InventoryItem]) -> InventoryItem:
    """A Service named otherwise than its workload (kube-dns before coredns, <db>-rw before
    <db>): the workload whose pods it selects, the one with a state, restarts and logs."""
    if item.kind is not EntityKind.SERVICE:
        return item
    selected = [
        i
        for i in inventory
        if i.env == item.env
        and i.namespace == item.namespace
        and i.kind in _WORKLOADS - {EntityKind.SERVICE}
        and item.name in i.fronted_by
    ]
    return selected[0] if len(selected) == 1 else item


def _settings(records: list[CallRecord], env: str) -> list[K8sDependency]:
    """The addresses the configuration read so far in `env` points workloads at."""
    return [
        f.attrs
        for rec in records
        if (rec.result.scope.env or rec.call.env) == env
        for f in rec.result.facts
        if isinstance(f.attrs, K8sDependency)
    ]


def _configured(
    error: DependencyError,
    items: list[InventoryItem],
    settings: list[K8sDependency],
    asked: set[str | None],
) -> list[InventoryItem]:
    """A failed call that names no address: the dependencies the caller's configuration
    points at for that software (every one configured, when the line names none; at most
    three): each is read, and the one that fails is the chain's."""
    if error.hosts or error.addresses:
        return []
    mine = [s for s in settings if s.workload in asked and s.host]
    # the settings for that software; else the ones whose software is not told
    # (DB_HOST); every one when the line names no software
    typed = (
        [s for s in mine if s.software == error.software] or [s for s in mine if s.software is None]
        if error.software
        else mine
    )
    out: list[InventoryItem] = []
    for setting in typed:
        named = [i for i in items if names_workload(str(setting.host), i.name)]
        if named and (best := max(named, key=lambda i: len(i.name))) not in out:
            out.append(best)
    return out[:3]


def _mesh_call(attrs: FactAttrs) -> DependencyError | None:
    """A caller's failed calls a mesh counted by callee: a failed call naming it."""
    if isinstance(attrs, HttpRate) and attrs.callee and (attrs.total or 0) > 0:
        return DependencyError(None, Failure.UNAVAILABLE, (attrs.callee,))
    return None


def _said(attrs: FactAttrs, text: str) -> str:
    """The words of a log line, an event or a waiting reason; nothing for other facts."""
    if isinstance(attrs, K8sLog | AppLog | K8sEvent | K8sWaiting | LogTemplate):
        return text
    return ""


def _placed(records: list[CallRecord], env: str) -> dict[str, str]:
    """Pod address -> pod, from the placements read so far in `env`."""
    out: dict[str, str] = {}
    for rec in records:
        if (rec.result.scope.env or rec.call.env) != env:
            continue
        for fact in rec.result.facts:
            a = fact.attrs
            if isinstance(a, K8sPlacement) and a.ip and a.pod:
                out[a.ip] = a.pod
    return out


def _callee(
    error: DependencyError,
    items: list[InventoryItem],
    placed: dict[str, str],
    asked: set[str | None],
    namespace: str | None,
) -> InventoryItem | None:
    others = [i for i in items if i.name not in asked]
    for host in error.hosts:
        named = [i for i in others if names_workload(host, i.name)]
        if named:
            return max(named, key=lambda i: len(i.name))
    for ip in error.addresses:
        # a Service's cluster IP, else the pod a placement read put at that address
        fronted = [i for i in others if ip in i.addresses]
        if fronted:
            return fronted[0]
        pod = placed.get(ip)
        owners = [i for i in others if pod and pod.startswith(i.name + "-")]
        if owners:
            return max(owners, key=lambda i: len(i.name))
    if error.software is None or error.hosts:
        return None
    running = [i for i in others if any(runs_software(image, error.software) for image in i.images)]
    # several run it: the one beside the asked object
    near = [i for i in running if i.namespace == namespace] if len(running) > 1 else running
    return near[0] if len(near) == 1 else None


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


def discover(records: list[CallRecord], discovered: Discovered) -> None:
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
        for ip in IPV4.findall(str(value or "")):
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
