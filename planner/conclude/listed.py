"""The list asked for, as the answer's first line: "Nodes under memory pressure in <env>:
<node> (1 of 4 nodes read)", or that none of those read is in that state. Written from
a sweep of the environment (k8s.sweep says how many pods and nodes it read; the pods and
node conditions it found say which are in the state), once per env; without a sweep's
count nothing is said, and the gaps say why."""

from __future__ import annotations

from planner.conclude.reads import every_fact
from planner.question.listing import Listing, ListState
from planner.read.executor import CallRecord
from policy.facts import K8sNodeCondition, K8sPod, K8sSweep, K8sWaiting
from policy.language import Bilingual, Language, phrase, pick
from policy.vocabulary import RankSubject

_STATE: dict[ListState, Bilingual] = {
    ListState.NOT_READY: ("not Ready", "не Ready"),
    ListState.PENDING: ("Pending", "в Pending"),
    ListState.EVICTED: ("evicted", "вытеснены (Evicted)"),
    ListState.CRASH_LOOP: ("in CrashLoopBackOff", "в CrashLoopBackOff"),
    ListState.MEMORY_PRESSURE: ("under memory pressure", "под MemoryPressure"),
    ListState.DISK_PRESSURE: ("under disk pressure", "под DiskPressure"),
    ListState.PID_PRESSURE: ("under PID pressure", "под PIDPressure"),
    ListState.CORDONED: ("cordoned (unschedulable)", "закордонены (unschedulable)"),
    ListState.ALL: ("", ""),
}
# the node condition a state is, and the status that puts a node in it
_CONDITION: dict[ListState, tuple[str, bool]] = {
    ListState.MEMORY_PRESSURE: ("MemoryPressure", True),
    ListState.DISK_PRESSURE: ("DiskPressure", True),
    ListState.PID_PRESSURE: ("PIDPressure", True),
    ListState.CORDONED: ("Unschedulable", True),
    ListState.NOT_READY: ("Ready", False),
}
_SOME: dict[RankSubject, Bilingual] = {
    RankSubject.NODE: (
        "Nodes {state}{where}: {names} ({count} of {total} nodes read)",
        "Узлы {state}{where}: {names} ({count} из {total} прочитанных)",
    ),
    RankSubject.POD: (
        "Pods {state}{where}: {names} ({count} of {total} pods read)",
        "Pod'ы {state}{where}: {names} ({count} из {total} прочитанных)",
    ),
}
_NONE: dict[RankSubject, Bilingual] = {
    RankSubject.NODE: (
        "No node{where} is {state} ({total} nodes read)",
        "Ни один узел{where} не {state} (прочитано узлов: {total})",
    ),
    RankSubject.POD: (
        "No pod{where} is {state} ({total} pods read)",
        "Ни один pod{where} не {state} (прочитано pod'ов: {total})",
    ),
}
_NONE_CUT: dict[RankSubject, Bilingual] = {
    RankSubject.NODE: (
        "None of the {total} nodes read{where} is {state}, but the read was cut short: others "
        "may be",
        "Среди {total} прочитанных узлов{where} нет {state}, но чтение было неполным: другие "
        "могут быть",
    ),
    RankSubject.POD: (
        "None of the {total} pods read{where} is {state}, but the read was cut short: others "
        "may be",
        "Среди {total} прочитанных pod'ов{where} нет {state}, но чтение было неполным: другие "
        "могут быть",
    ),
}
# every pod or node counted: the sweep's own count, no names
_ALL: dict[RankSubject, Bilingual] = {
    RankSubject.NODE: (
        "{total} nodes{where} (every node listed)",
        "Узлов{where}: {total} (все в списке)",
    ),
    RankSubject.POD: (
        "{total} pods{where} (every pod listed)",
        "Pod'ов{where}: {total} (все в списке)",
    ),
}
_ALL_CUT: dict[RankSubject, Bilingual] = {
    RankSubject.NODE: (
        "At least {total} nodes{where}: the list was cut short",
        "Узлов{where}: не меньше {total}, список прочитан не полностью",
    ),
    RankSubject.POD: (
        "At least {total} pods{where}: the list was cut short",
        "Pod'ов{where}: не меньше {total}, список прочитан не полностью",
    ),
}
_IN: Bilingual = (" in {env}", " в {env}")
_IN_NAMESPACE: Bilingual = (" in {env}, namespace {namespace}", " в {env}, namespace {namespace}")
MAX_NAMES = 12


def listing_sentence(listing: Listing, records: list[CallRecord], language: Language) -> str | None:
    """The list, one clause per env a sweep read; None when no sweep said what it read."""
    totals: dict[str | None, int] = {}
    names: dict[str | None, list[str]] = {}
    namespaces: dict[str | None, str] = {}  # a sweep of one namespace: said with the env
    for env, fact in every_fact(records):
        attrs = fact.attrs
        if isinstance(attrs, K8sSweep):
            count = attrs.nodes if listing.subject is RankSubject.NODE else attrs.pods
            if count is not None:
                totals[env] = totals.get(env, 0) + count
            if attrs.namespace and listing.subject is RankSubject.POD:
                namespaces[env] = attrs.namespace
        elif (name := _in_state(listing, attrs)) is not None:
            found = names.setdefault(env, [])
            if name not in found:
                found.append(name)
    # a sweep cut short proves no "none": it says what it read and that others may be
    cut = {
        rec.result.scope.env or rec.call.env
        for rec in records
        if not rec.result.coverage.complete_for_negative
        and any(isinstance(f.attrs, K8sSweep) for f in rec.result.facts)
    }
    said = [
        _clause(
            listing,
            _where(env, namespaces.get(env), language),
            total,
            names.get(env, []),
            language,
            cut=env in cut,
        )
        for env, total in totals.items()
    ]

    return "; ".join(said) or None


def _in_state(listing: Listing, attrs: object) -> str | None:
    """The pod or node a fact shows in the listed state, or None."""
    if listing.subject is RankSubject.NODE:
        wanted = _CONDITION.get(listing.state)
        if not isinstance(attrs, K8sNodeCondition) or wanted is None or attrs.node is None:
            return None
        condition, true = wanted
        status_true = attrs.status == "True"
        return attrs.node if attrs.condition == condition and status_true == true else None
    match listing.state:
        case ListState.CRASH_LOOP:
            ok = isinstance(attrs, K8sWaiting) and attrs.reason == "CrashLoopBackOff"
            return attrs.pod if ok and isinstance(attrs, K8sWaiting) else None
        case ListState.PENDING:
            return attrs.pod if isinstance(attrs, K8sPod) and attrs.phase == "Pending" else None
        case ListState.EVICTED:
            evicted = isinstance(attrs, K8sPod) and attrs.pod_reason == "Evicted"
            return attrs.pod if evicted and isinstance(attrs, K8sPod) else None
        case ListState.NOT_READY:
            if isinstance(attrs, K8sPod) and attrs.phase != "Succeeded":
                return attrs.pod if attrs.ready is False or attrs.phase != "Running" else None
            return None
        case _:
            return None


def _where(env: str | None, namespace: str | None, language: Language) -> str:
    if env and namespace:
        return phrase(_IN_NAMESPACE, language, env=env, namespace=namespace)
    return phrase(_IN, language, env=env) if env else ""


def _clause(
    listing: Listing,
    where: str,
    total: int,
    names: list[str],
    language: Language,
    *,
    cut: bool,
) -> str:
    if listing.state is ListState.ALL:
        every = _ALL_CUT if cut else _ALL
        return phrase(every[listing.subject], language, where=where, total=total)
    state = pick(_STATE[listing.state], language)
    if not names:
        none = _NONE_CUT if cut else _NONE
        return phrase(none[listing.subject], language, where=where, state=state, total=total)
    shown = ", ".join(names[:MAX_NAMES]) + (" …" if len(names) > MAX_NAMES else "")
    return phrase(
        _SOME[listing.subject],
        language,
        state=state,
        where=where,
        names=shown,
        count=len(names),
        total=total,
    )
