"""The chain behind a symptom: which object failed because of which, read from typed
facts. Each workload the facts are about is a unit; a unit's own state (crash loop, killed
for memory, not ready, no ready endpoint, a full disk or no memory in its own log) and
the calls its log says failed, each read as a dependency error (policy/dependencies.py),
are its links. A failed call points to the unit it names: by name (its Service's or
cluster DNS name), by a pod address the facts place, or by the software its image runs.
The chain starts at a unit that fails and follows failed calls to the unit behind them
(two hops at most); it is told when it leaves the first unit, or when the first unit's
log names a dependency no read reached ("<symptom> <- <a> not ready: its calls to
PostgreSQL (<host>) fail: authentication refused <- <db>: CrashLoopBackOff")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from planner.conclude.rule import Confidence, Finding, IndexedFact, Seen, of_kind
from policy.dependencies import (
    FAILURE_LABELS,
    DependencyError,
    Failure,
    excerpt,
    failure_of,
    names_workload,
    read_error,
    runs_software,
)
from policy.facts import (
    AppLog,
    HttpRate,
    K8sDependency,
    K8sEndpoints,
    K8sEvent,
    K8sLog,
    K8sNetworkPolicy,
    K8sPlacement,
    K8sPod,
    K8sTermination,
    K8sWaiting,
    K8sWorkload,
    LogTemplate,
    MetricsRestarts,
    MetricsUsage,
    PolicyPeer,
)
from policy.language import Bilingual, Language, phrase
from policy.numbers import Nouns, count_said, integer_said, percent_said
from policy.units import bytes_said

MAX_HOPS = 2
# what an object's own log says of itself that explains its failure
OWN_FAILURES = frozenset({Failure.FULL, Failure.MEMORY})
# a quoted line is cut here: the chain is one sentence
QUOTE = 160

_STATEFUL_POD = re.compile(r"^(.+)-\d{1,4}$")
_REPLICA_POD = re.compile(r"^(.+)-[a-z0-9]{6,10}-[a-z0-9]{5}$")
_DAEMON_POD = re.compile(r"^(.+)-[a-z0-9]{5}$")


def workload_of(pod: str) -> str:
    """<deployment>-<template hash>-<suffix>, <statefulset>-<ordinal>,
    <daemonset>-<suffix> -> the workload's name; any other name is its own."""
    for shape in (_REPLICA_POD, _STATEFUL_POD, _DAEMON_POD):
        m = shape.match(pod)
        if m:
            return m.group(1)
    return pod


@dataclass
class _Unit:
    """One workload as the facts show it: what is wrong with it, the failed calls its
    log holds, the images and addresses of its pods."""

    name: str
    # (how much it explains, lower first; fact index; the state said)
    states: list[tuple[int, int, str]] = field(default_factory=list)
    calls: list[tuple[int, DependencyError, str]] = field(default_factory=list)
    lines: int = 0  # failed calls its log holds (a template counts its lines)
    images: set[str] = field(default_factory=set)
    addresses: set[str] = field(default_factory=set)
    # its pods' labels, its namespace and that namespace's labels (K8sWorkload), and the
    # NetworkPolicies that select its pods: who may reach it, where it may go
    labels: dict[str, str] | None = None
    namespace: str | None = None
    namespace_labels: dict[str, str] = field(default_factory=dict)
    policies: list[tuple[int, K8sNetworkPolicy]] = field(default_factory=list)
    changed: tuple[int, str] | None = None  # what its newest revision changed
    # the addresses its configuration points it at: (fact index, host, software, port)
    configured: list[tuple[int, str, str | None, int | None]] = field(default_factory=list)


# how much a state explains: the unit's own log saying why, then a crash or a wait, then
# what Kubernetes reported of it, then not being ready (what the others cause)
_OWN_LOG, _SATURATED, _WAITING, _ENDED, _EVENT, _UNREADY = 0, 1, 2, 3, 4, 5
# the events of a pod that say it does not run or serve (kubelet's and the scheduler's
# reasons): its state, beside what their message says it called
_STATE_EVENTS = frozenset(
    {"BackOff", "Unhealthy", "FailedMount", "FailedScheduling", "Failed", "FailedAttachVolume"}
)
_THROTTLED: Bilingual = (
    "{pod} throttled by its CPU limit ({limit} cores) in {share} of its scheduling periods",
    "{pod} притормаживается лимитом CPU ({limit} ядра) в {share} периодов планировщика",
)
# a container held back by its CPU limit in this share of its periods or more is slowed
# by it (the kubernetes-mixin CPUThrottlingHigh alert fires at 25%)
THROTTLED_SHARE = 0.25


_FULL: Bilingual = (
    "volume claim {claim} has {free} of {size} left{inodes}",
    "у тома {claim} осталось {free} из {size}{inodes}",
)
_INODES: Bilingual = (", {free} of {total} inodes free", ", свободных inode: {free} из {total}")
# a volume with less than this share of its bytes or inodes left is full for a writer
FULL_SHARE = 0.05


def nearly_full(usage: MetricsUsage) -> bool:
    """A claim with (almost) no bytes or no inodes left."""
    size, used = usage.limit or 0, usage.usage or 0
    bytes_low = size > 0 and (size - used) / size < FULL_SHARE
    inodes_low = bool(usage.inodes) and (usage.inodes_free or 0) / (usage.inodes or 1) < FULL_SHARE
    return bytes_low or inodes_low


def held_back(usage: MetricsUsage) -> bool:
    """The container is slowed by its CPU limit."""
    return usage.resource == "cpu" and (usage.throttled or 0) >= THROTTLED_SHARE


_RELEASED: Bilingual = (
    "its last revision changed {change}",
    "его последняя ревизия изменила {change}",
)
_POLICY: Bilingual = (
    "NetworkPolicy {policy} (created {created}) lets no pod of {caller} reach {callee}",
    "NetworkPolicy {policy} (создана {created}) не пускает pod'ы {caller} к {callee}",
)
_RESTARTED: Bilingual = (
    "{pod} restarted {times}{reason}",
    "{pod} перезапускался {times}{reason}",
)

_NOT_READY: Bilingual = ("not ready", "не готов")
_ENDPOINTS: Bilingual = (
    "{ready} of {total} endpoints ready",
    "готовых endpoints: {ready} из {total}",
)
_LOG: Bilingual = ("its log: {line}", "в его логе: {line}")
_CALLS: Bilingual = (
    "its calls to {what} fail ({how}): {line}",
    "его обращения к {what} падают ({how}): {line}",
)
_CHAIN: Bilingual = ("Chain: {chain}", "Цепочка: {chain}")
_ARROW = " ← "


def _quote(text: str) -> str:
    return f'"{excerpt(str(text), QUOTE)}"'


class _Units:
    """The facts grouped by the workload each is about."""

    def __init__(self, facts: list[IndexedFact], lang: Language) -> None:
        self.by_name: dict[str, _Unit] = {}
        self.lang = lang
        # what each unit runs and where first: a line is its server's own or a call by
        # what the unit's images are
        lines = (K8sLog, AppLog, LogTemplate, K8sEvent)
        self.full: list[tuple[int, MetricsUsage]] = []
        for f in sorted(facts, key=lambda f: isinstance(f.fact.attrs, lines)):
            self._add(f)
        for index, volume in self.full:
            self._volume(index, volume)

    def _volume(self, index: int, v: MetricsUsage) -> None:
        """A nearly full claim is the state of the workload it belongs to: a
        StatefulSet's "<template>-<workload>-<n>", or one named after it."""
        claim = str(v.claim)
        owners = [
            u
            for u in self.by_name.values()
            if re.fullmatch(rf"(?:.+-)?{re.escape(u.name)}(?:-\d+)?", claim)
        ]
        if not owners:
            return
        said = phrase(
            _FULL,
            self.lang,
            claim=claim,
            free=bytes_said((v.limit or 0) - (v.usage or 0)),
            size=bytes_said(v.limit or 0),
            inodes=phrase(
                _INODES,
                self.lang,
                free=integer_said(round(v.inodes_free or 0), self.lang),
                total=integer_said(round(v.inodes), self.lang),
            )
            if v.inodes
            else "",
        )
        max(owners, key=lambda u: len(u.name)).states.append((_SATURATED, index, said))

    def unit(self, name: str) -> _Unit:
        return self.by_name.setdefault(name, _Unit(name))

    def _add(self, f: IndexedFact) -> None:
        a = f.fact.attrs
        lang = self.lang
        if isinstance(a, K8sWaiting) and a.pod:
            u = self.unit(workload_of(a.pod))
            u.states.append((_WAITING, f.index, f"{a.pod} {a.reason}"))
            if a.image:
                u.images.add(a.image)
        elif isinstance(a, K8sTermination) and a.pod and a.reason in ("OOMKilled", "Error"):
            code = f" (exit code {a.exit_code})" if a.exit_code is not None else ""
            said = f"{a.pod} {a.reason}{code}"
            # killed for memory says why; an exit code says only that it ended
            rank = _OWN_LOG if a.reason == "OOMKilled" else _ENDED
            self.unit(workload_of(a.pod)).states.append((rank, f.index, said))
        elif isinstance(a, K8sPod) and a.pod:
            u = self.unit(workload_of(a.pod))
            u.images.update(a.images or ([a.image] if a.image else []))
            if a.phase == "Running" and a.ready is False:
                u.states.append((_UNREADY, f.index, f"{a.pod} {phrase(_NOT_READY, lang)}"))
        elif isinstance(a, K8sPlacement) and a.pod and a.ip:
            self.unit(workload_of(a.pod)).addresses.add(a.ip)
        elif isinstance(a, K8sWorkload) and a.name:
            u = self.unit(a.name)
            u.labels, u.namespace = a.pod_labels or {}, a.namespace
            u.namespace_labels = a.namespace_labels or {}
            if a.last_change:
                # what its last release changed: said beside a state it may explain
                said = phrase(_RELEASED, lang, change="; ".join(a.last_change[:3]))
                u.changed = (f.index, said)
        elif isinstance(a, K8sNetworkPolicy) and a.workload:
            self.unit(a.workload).policies.append((f.index, a))
        elif isinstance(a, K8sDependency) and a.workload and a.host:
            self.unit(a.workload).configured.append((f.index, a.host, a.software, a.port))
        elif isinstance(a, K8sEndpoints) and a.service:
            self._endpoints(f.index, a)
        elif isinstance(a, K8sLog) and a.pod:
            self._line(workload_of(a.pod), f.index, str(a.message or a.line or f.fact.text))
        elif isinstance(a, AppLog) and (a.service or a.pod):
            name = str(a.service) if a.service else workload_of(str(a.pod))
            self._line(name, f.index, str(a.message or f.fact.text))
        elif isinstance(a, LogTemplate) and a.service:
            self._line(a.service, f.index, str(a.example or a.template or ""), a.count or 1)
        elif isinstance(a, HttpRate) and a.callee and a.service and (a.total or 0) > 0:
            # its calls a mesh counted failing, by callee
            u = self.unit(a.service)
            u.calls.append(
                (f.index, DependencyError(None, Failure.UNAVAILABLE, (a.callee,)), f.fact.text)
            )
            u.lines += int(a.total or 0)
        elif isinstance(a, MetricsUsage) and a.claim and nearly_full(a):
            self.full.append((f.index, a))
        elif isinstance(a, MetricsUsage) and a.pod and held_back(a):
            said = phrase(
                _THROTTLED, lang, pod=a.pod, share=percent_said(a.throttled or 0), limit=a.limit
            )
            self.unit(workload_of(a.pod)).states.append((_SATURATED, f.index, said))
        elif isinstance(a, MetricsRestarts) and a.pod and (a.increase or 0) > 0:
            reason = f", {a.last_reason}" if a.last_reason else ""
            times = count_said(int(a.increase or 0), Nouns.TIME, lang)
            said = phrase(_RESTARTED, lang, pod=a.pod, times=times, reason=reason)
            self.unit(workload_of(a.pod)).states.append((_WAITING, f.index, said))
        elif isinstance(a, K8sEvent) and a.object_kind == "Pod" and a.name and a.type == "Warning":
            name = workload_of(a.name)
            # the kubelet's words about the pod (a probe it ran, an image it pulled):
            # the pod's state, never a call the pod made
            if a.reason in _STATE_EVENTS:
                said = f"{a.reason}: {_quote(str(a.message or ''))}"
                self.unit(name).states.append((_EVENT, f.index, said))

    def _endpoints(self, index: int, a: K8sEndpoints) -> None:
        u = self.unit(str(a.service))
        for row in a.endpoints or []:
            for ip in row.get("addresses") or []:
                u.addresses.add(str(ip))
        u.addresses.update([*(a.ready_ips or []), *(a.not_ready_ips or [])])
        ready, not_ready = int(a.ready or 0), int(a.not_ready or 0)
        if ready == 0 and not_ready > 0:
            total = ready + not_ready
            said = phrase(_ENDPOINTS, self.lang, ready=ready, total=total)
            u.states.append((_UNREADY, index, said))

    def _line(self, name: str, index: int, line: str, count: int = 1) -> None:
        u = self.unit(name)
        error = read_error(line)
        server = (
            error is not None
            and error.software is not None
            and any(runs_software(i, error.software) for i in u.images)
        )
        if error is not None and not server:
            u.calls.append((index, error, line))
            u.lines += count
        elif failure_of(line) in OWN_FAILURES:
            # the unit's own failure (a full disk, no memory left), or its server's own
            # line: never a call to something else
            u.states.append((_OWN_LOG, index, phrase(_LOG, self.lang, line=_quote(line))))

    @staticmethod
    def _configured(
        caller: _Unit, error: DependencyError
    ) -> list[tuple[int, str, str | None, int | None]]:
        if error.hosts:
            return []
        return [c for c in caller.configured if _fits(c[2], c[3], error)]

    def configured_host(self, caller: _Unit, error: DependencyError) -> str | None:
        """The host the caller is configured to call for a failed call that names none."""
        fitting = [c for c in self._configured(caller, error) if c[2] == error.software]
        return fitting[0][1] if len(fitting) == 1 else None

    def callee(self, caller: _Unit, error: DependencyError) -> tuple[_Unit, int | None] | None:
        """The unit a failed call names: by name, by a pod address, by the address the
        caller's configuration gives for it, by its software; with the fact that links
        them when it is not the line itself (the caller's setting)."""
        others = [u for u in self.by_name.values() if u is not caller]
        for host in error.hosts:
            if (named := _named(others, host)) is not None:
                return named, None
        for address in error.addresses:
            placed = [u for u in others if address in u.addresses]
            if placed:
                return placed[0], None
        # the dependencies the caller's configuration points at for that software (for
        # that port, when the line names an address no read placed): the one that fails,
        # else the first configured
        configured = [
            (named, index)
            for index, host, _software, _port in self._configured(caller, error)
            if (named := _named(others, host)) is not None
        ]
        failing = [c for c in configured if c[0].states]
        if failing or (configured and not error.addresses):
            return (failing or configured)[0]
        if error.software is not None:
            # by its images, or by a name that is the software's (a coredns Deployment)
            running = [
                u
                for u in others
                if any(runs_software(i, error.software) for i in [*u.images, u.name])
            ]
            if len(running) == 1:
                return running[0], None
        return None


def _fits(software: str | None, port: int | None, error: DependencyError) -> bool:
    """A configured address a failed call may have gone to: the same software, or the
    same port when the call names one."""
    if error.ports and port is not None and port not in error.ports:
        return False
    return None in (error.software, software) or error.software == software


def _named(units: list[_Unit], host: str) -> _Unit | None:
    """The unit a host names: its first label is the unit's name or a Service of it
    ("<unit>-rw", "<unit>-master")."""
    named = [u for u in units if names_workload(host, u.name)]
    return max(named, key=lambda u: len(u.name)) if named else None


def _call_said(error: DependencyError, line: str, lang: Language, host: str | None) -> str:
    """ "its calls to PostgreSQL (<host>) fail (how): <line>"; the host the line names,
    else the one the caller's configuration gives for that software."""
    what = error.label or host or "?"
    if host and error.label:
        what += f" ({host})"
    how = phrase(FAILURE_LABELS[error.failure], lang) if error.failure else "?"
    return phrase(_CALLS, lang, what=what, how=how, line=_quote(line))


def _follow(units: _Units, start: _Unit) -> tuple[list[str], list[int]]:
    """The links from one unit down its failed calls: its state, then each callee's. A
    callee reached for a software runs it: its own lines of that software are its state
    ("FATAL: the database system is in recovery mode"), not calls it makes."""
    parts: list[str] = []
    support: list[int] = []
    seen = {start.name}
    unit: _Unit | None = start
    serves: str | None = None
    hops = 0
    while unit is not None:
        own = [c for c in unit.calls if serves and c[1].software == serves]
        calls = [c for c in unit.calls if c not in own]
        states = _told(
            unit.states
            + [(_EVENT, i, phrase(_LOG, units.lang, line=_quote(line))) for i, _, line in own]
        )
        if states and unit.changed is not None:
            # a failing unit's last release is part of its state: what it changed
            states = [*states, (_EVENT, *unit.changed)]
        state = "; ".join(s for _, _, s in states)
        link = f"{unit.name}: {state}" if state else unit.name
        support += [i for _, i, _ in states]
        nxt = None
        if calls and hops < MAX_HOPS:
            index, error, line = calls[0]
            found = units.callee(unit, error)
            host = error.hosts[0] if error.hosts else units.configured_host(unit, error)
            if found is not None:
                nxt, link_index = found
                support += [link_index] if link_index is not None else []
                host = host or nxt.name
                if (blocked := _blocked(unit, nxt, units.lang)) is not None:
                    nxt.states.append((_OWN_LOG, *blocked))
            link += ("; " if state else ": ") + _call_said(error, line, units.lang, host)
            support.append(index)
            serves = error.software
        parts.append(link)
        if nxt is None or nxt.name in seen:
            break
        seen.add(nxt.name)
        unit, hops = nxt, hops + 1
    return parts, support


def _admits(peers: list[PolicyPeer], policy_ns: str | None, other: _Unit) -> bool:
    """A rule's peers let `other`'s pods through (an address block: not decided here)."""
    if not peers:
        return True
    for p in peers:
        if p.ip_block:
            return True
        if p.namespace_labels:
            in_ns = all(other.namespace_labels.get(k) == v for k, v in p.namespace_labels.items())
        else:
            in_ns = p.any_namespace or other.namespace == policy_ns
        pods = p.pod_labels is None or all(
            (other.labels or {}).get(k) == v for k, v in p.pod_labels.items()
        )
        if in_ns and pods:
            return True
    return False


def _blocked(caller: _Unit, callee: _Unit, lang: Language) -> tuple[int, str] | None:
    """The NetworkPolicy that keeps the caller's pods from the callee's: one selecting the
    callee whose ingress rules admit none of the caller's pods, or one selecting the
    caller whose egress rules let none reach the callee. Decided only when both units'
    labels were read."""
    if caller.labels is None or callee.labels is None:
        return None
    for side, other, ingress in ((callee, caller, True), (caller, callee, False)):
        for index, policy in side.policies:
            rules = policy.ingress if ingress else policy.egress
            if rules is None or any(_admits(r, policy.namespace, other) for r in rules):
                continue
            said = phrase(
                _POLICY,
                lang,
                policy=f"{policy.namespace}/{policy.name}",
                created=policy.created or "?",
                caller=caller.name,
                callee=callee.name,
            )
            return index, said
    return None


def _told(states: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The states a link says: the most explanatory of each kind (its own log's line, a
    saturated resource, its crash, what Kubernetes reported), three at most, each once."""
    out: list[tuple[int, int, str]] = []
    for state in sorted(states):
        if all(state[0] != o[0] and state[2] != o[2] for o in out):
            out.append(state)
    return out[:3]


def _symptom(facts: list[IndexedFact]) -> Seen[HttpRate] | None:
    errors = [
        r
        for r in of_kind(facts, HttpRate)
        if r.a.what == "errors" and (r.a.total or 0) > 0 and r.a.callee is None
    ]
    return max(errors, key=lambda r: r.a.total or 0) if errors else None


def _starts(units: _Units, asked: frozenset[str], symptom: Seen[HttpRate] | None) -> list[_Unit]:
    """Where a chain may start: the object the failed requests are counted on, or one the
    question is about whose calls fail again and again or which fails itself. One failed
    call of a healthy peer is noise, never a cause."""
    counted = symptom.a.service if symptom and symptom.a.service else None
    about = set(asked) | ({counted} if counted else set())
    return [
        u
        for u in units.by_name.values()
        if u.calls
        and (u.name in about or not about)
        # the object the failed requests were counted on: its failed calls explain them;
        # one failed call is enough too when what it called is seen failing
        and (u.states or u.lines >= MIN_CALLS or u.name == counted or _corroborated(units, u))
    ]


def _corroborated(units: _Units, unit: _Unit) -> bool:
    """What the unit's first failed call reached fails too, or a policy keeps it out."""
    found = units.callee(unit, unit.calls[0][1])
    if found is None:
        return False
    return bool(found[0].states) or _blocked(unit, found[0], units.lang) is not None


# a failed call seen fewer times than this, in an object that does not fail, is no cause
MIN_CALLS = 3


def dependency_chain(
    facts: list[IndexedFact], asked: frozenset[str], lang: Language
) -> list[Finding]:
    """The longest chain from an object asked about down the calls its log says failed,
    told from the symptom when it leaves that object or names a dependency no read
    reached."""
    units = _Units(facts, lang)
    symptom = _symptom(facts)
    best: tuple[list[str], list[int]] | None = None
    for unit in _starts(units, asked, symptom):
        parts, support = _follow(units, unit)
        if best is None or len(parts) > len(best[0]):
            best = (parts, support)
    if best is None:
        return []
    parts, support = best
    head = []
    if symptom is not None:
        head = [symptom.fact.text.rstrip(".")]
        support.insert(0, symptom.index)
    text = phrase(_CHAIN, lang, chain=_ARROW.join([*head, *parts])) + "."
    # the callee read and failing too: the chain is shown end to end
    confidence: Confidence = "high" if len(parts) > 1 else "medium"
    return [Finding(text, text, list(dict.fromkeys(support)), confidence, weight=8)]
