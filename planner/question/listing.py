"""A question that asks for a list of pods or nodes in a state: "which nodes in <env> are
under memory pressure?", "перечисли поды в <env>, которые сейчас не Ready", "какие ноды
в stage cordoned?", "на каких нодах disk pressure?".

Class "a list asked, an environment triage given": the answer's first line is the list
(or that none of the N read is in that state), read from a sweep of the whole
environment, not the story of whatever fails.

Read by a grammar of three slots, in English and Russian: a request for a list (a
question word or "list"/"перечисли"), what is listed (pods or nodes) and the state. A
state this grammar cannot read leaves the question to the other readers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from planner.question.asked import asks_how_many
from policy.vocabulary import RankSubject


class ListState(StrEnum):
    """The state a listed pod or node is in."""

    NOT_READY = "not_ready"
    PENDING = "pending"
    CRASH_LOOP = "crash_loop"
    EVICTED = "evicted"
    MEMORY_PRESSURE = "memory_pressure"
    DISK_PRESSURE = "disk_pressure"
    PID_PRESSURE = "pid_pressure"
    CORDONED = "cordoned"
    ALL = "all"  # "how many pods in <namespace>?": every one, counted


_ASKS = re.compile(
    r"\bwhich\b|\bwhat\b|\blist\b|\bshow\b|\bname\b|\bany\b|"
    r"как(?:ой|ая|ие|их|ое)\b|на\s+каких|в\s+каких|перечисли|покажи|назови|выведи|есть\s+ли",
    re.I,
)
_NODES = re.compile(
    r"\bnodes?\b|\bworkers?\b|(?<![а-яё])(?:нод[аыуе]?|нодах|узл[аыов]{0,2}|узел|узлах)\b", re.I
)
_PODS = re.compile(
    r"\bpods?\b|\bcontainers?\b|(?<![а-яё])(?:под|пода|поды|подов|подах|контейнер\w{0,3})\b", re.I
)

# the state, most specific first; each applies to the subjects listed with it
_STATES: tuple[tuple[ListState, frozenset[RankSubject], re.Pattern[str]], ...] = (
    (
        ListState.MEMORY_PRESSURE,
        frozenset({RankSubject.NODE}),
        re.compile(r"memory\s*pressure|memorypressure|давлени\w{0,3}\s+(?:по\s+)?памят", re.I),
    ),
    (
        ListState.DISK_PRESSURE,
        frozenset({RankSubject.NODE}),
        re.compile(r"disk\s*pressure|diskpressure|давлени\w{0,3}\s+(?:по\s+)?диск", re.I),
    ),
    (
        ListState.PID_PRESSURE,
        frozenset({RankSubject.NODE}),
        re.compile(r"pid\s*pressure|pidpressure", re.I),
    ),
    (
        ListState.CORDONED,
        frozenset({RankSubject.NODE}),
        re.compile(r"cordon\w*|unschedulable|кордон\w*|закордон\w*", re.I),
    ),
    (
        ListState.CRASH_LOOP,
        frozenset({RankSubject.POD}),
        re.compile(r"crash[\s-]*loop\w*|crashloopbackoff|краш[\s-]*луп\w*", re.I),
    ),
    (
        ListState.EVICTED,
        frozenset({RankSubject.POD}),
        re.compile(r"evict\w*|(?<![а-яё])(?:выселил|выселен|вытеснил|вытеснен|эвикт)\w*", re.I),
    ),
    (
        ListState.PENDING,
        frozenset({RankSubject.POD}),
        re.compile(r"\bpending\b|не\s+(?:за)?планир\w*|в\s+pending", re.I),
    ),
    (
        ListState.NOT_READY,
        frozenset({RankSubject.POD, RankSubject.NODE}),
        # "not ready", "aren't Ready", "not in Ready", "не в Ready", "не в состоянии Ready"
        re.compile(
            r"(?:\bnot|n't|(?<![а-яё])не)\s+(?:(?:in|в)\s+)?"
            r"(?:(?:the|a|состоянии|статусе)\s+)?(?:ready\b|готов)|"
            r"notready|unready|неготов",
            re.I,
        ),
    ),
)


@dataclass(frozen=True)
class Listing:
    """What the question asks to be listed, and in which state."""

    subject: RankSubject
    state: ListState


def listing_asked(message: str) -> Listing | None:
    """The list the message asks for, or None when it asks none this grammar can read."""
    # "how many pods", "сколько нод": a count of every pod or node, when no state is named
    counts = asks_how_many(message)
    if _ASKS.search(message) is None and not counts:
        return None
    nodes, pods = _NODES.search(message), _PODS.search(message)
    for state, subjects, rx in _STATES:
        if rx.search(message) is None:
            continue
        if nodes and RankSubject.NODE in subjects and not (pods and pods.start() < nodes.start()):
            return Listing(RankSubject.NODE, state)
        if pods and RankSubject.POD in subjects:
            return Listing(RankSubject.POD, state)
        if nodes is None and pods is None and len(subjects) == 1:
            return Listing(next(iter(subjects)), state)  # "any disk pressure in eu-north?"
    if counts and nodes and not (pods and pods.start() < nodes.start()):
        return Listing(RankSubject.NODE, ListState.ALL)
    if counts and pods:
        return Listing(RankSubject.POD, ListState.ALL)
    return None
