"""A question that asks for a ranking: "top 5 pods by memory in <env>", "какой под в <env>
ест больше всего CPU?", "топ-3 ноды по ретрансмитам", "which pod is closest to its memory
limit?".

Class "a ranking asked, an environment triage given": the answer's first line is the
ranking, read by a top-k over the measure's series, not the state of whatever fails.

Read by a small grammar of three slots, in English and Russian: an order (a superlative
or "top N"), what is ranked (pods or nodes) and by what (memory, CPU, restarts, the share
of a limit or request, TCP retransmits), with the count when the question gives one. A
question that fills the order but not the measure is no ranking this grammar can read:
it is left to the other readers, never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from planner.question.asked import CPU_WORDS, MEMORY_WORDS
from policy.vocabulary import RankMeasure, RankSubject

Order = Literal["top", "bottom"]

DEFAULT_COUNT = 5  # "which pods use the most memory?": the first five
MAX_COUNT = 20

_NUM = r"(\d{1,2})"

# the order slot: "top 5", "топ-3", a superlative, "closest to its limit"
_TOP = re.compile(rf"\btop[\s-]*{_NUM}?|(?<![а-яё])топ[\s-]*{_NUM}?", re.I)
_MOST = re.compile(
    r"\b(?:the\s+)?most\b|\bhighest\b|\bbiggest\b|\blargest\b|\bheaviest\b|\bhungriest\b|"
    r"\bclosest\b|\bnearest\b|(?:больше|сильнее|чаще|ближе|выше)\s+(?:всего|всех)|"
    r"наибол\w*|самы\w{0,3}\s+(?:больш|высок|прожорлив|нагруж|тяж[её]л)|максимальн\w*",
    re.I,
)
_LEAST = re.compile(
    r"\b(?:the\s+)?least\b|\blowest\b|\bsmallest\b|\bfewest\b|меньше\s+(?:всего|всех)|наимен\w*|"
    r"минимальн\w*",
    re.I,
)

# what is ranked: (subject, its singular forms, its plural forms)
_SUBJECTS: tuple[tuple[RankSubject, re.Pattern[str], re.Pattern[str]], ...] = (
    (
        RankSubject.NODE,
        re.compile(r"\bnode\b|\bworker\b|(?<![а-яё])(?:нода|ноду|нодой|узел|узла)\b", re.I),
        re.compile(r"\bnodes\b|\bworkers\b|(?<![а-яё])(?:ноды|нод|нодах|узлы|узлов|узлах)\b", re.I),
    ),
    (
        RankSubject.POD,
        re.compile(r"\bpod\b|\bcontainer\b|(?<![а-яё])(?:под|пода|контейнер|контейнера)\b", re.I),
        re.compile(
            r"\bpods\b|\bcontainers\b|\bworkloads?\b|\bdeployments?\b|"
            r"(?<![а-яё])(?:поды|подов|подам|подах|контейнеры|контейнеров)\b",
            re.I,
        ),
    ),
)

# a ranking is asked for, not only described: a question word, a request to show or list,
# or "top N" ("why does X use the most memory?" asks a cause, with an object)
_ASKS = re.compile(
    r"\bwhich\b|\bwhat\b|\bwho\b|\bshow\b|\blist\b|\bname\b|\bgive\b|"
    r"как(?:ой|ая|ие|их|ое)\b|\bкто\b|покажи|перечисли|назови|выведи|дай\b",
    re.I,
)

# by what: the first that the message names, most specific first
_MEASURES: tuple[tuple[RankMeasure, re.Pattern[str]], ...] = (
    (
        RankMeasure.MEMORY_OF_LIMIT,
        re.compile(
            r"(?:memory|mem|ram)\w{0,4}\s+limit|limit\w{0,2}\s+(?:of\s+)?(?:memory|mem|ram)|"
            r"(?:its|their)\s+(?:memory\s+)?limit|лимит\w{0,3}\s+(?:по\s+)?памят|"
            r"памят\w{0,3}\s+(?:от|к|против)\s+лимит|к\s+(?:своему\s+)?лимиту",
            re.I,
        ),
    ),
    (
        RankMeasure.CPU_OF_REQUEST,
        re.compile(
            r"cpu\w{0,2}\s+(?:vs\.?\s+|against\s+|of\s+(?:its\s+|their\s+)?)?requests?|"
            r"(?:its|their)\s+cpu\s+requests?|cpu\s+(?:от|против)\s+(?:реквест|request)",
            re.I,
        ),
    ),
    (RankMeasure.RETRANSMITS, re.compile(r"retrans\w*|ретрансм\w*|ретранс\w*", re.I)),
    (RankMeasure.RESTARTS, re.compile(r"restart\w*|рестарт\w*|перезапуск\w*", re.I)),
    (
        RankMeasure.MEMORY,
        re.compile(MEMORY_WORDS, re.I),
    ),
    (
        RankMeasure.CPU,
        re.compile(CPU_WORDS, re.I),
    ),
)

# "which 3 pods", "3 пода", "5 nodes": a count just before what is ranked
_COUNT_BEFORE = re.compile(
    rf"{_NUM}\s+(?:pods?|nodes?|containers?|workers?|под\w*|нод\w*|узл\w*|контейнер\w*)",
    re.I,
)


@dataclass(frozen=True)
class Ranking:
    """What the question asks to be ranked, by what, how many and which end."""

    subject: RankSubject
    measure: RankMeasure
    count: int
    order: Order = "top"


def ranking_asked(message: str) -> Ranking | None:
    """The ranking the message asks for, or None when it asks none (or none this grammar
    can read: an order without a measure)."""
    top = _TOP.search(message)
    least = _LEAST.search(message)
    if top is None and _MOST.search(message) is None and least is None:
        return None
    if top is None and _ASKS.search(message) is None:
        return None
    measure = next((m for m, rx in _MEASURES if rx.search(message)), None)
    if measure is None:
        return None
    subject, singular = _subject(message, measure)
    count = _count(message, top, singular)
    order: Order = "bottom" if least is not None and top is None else "top"
    return Ranking(subject, measure, count, order)


def _subject(message: str, measure: RankMeasure) -> tuple[RankSubject, bool]:
    """What is ranked, and whether the message names it in the singular only ("which
    pod"); retransmits are a node's, the rest a pod's, when the message does not say."""
    for subject, singular, plural in _SUBJECTS:
        one, many = singular.search(message), plural.search(message)
        if one or many:
            return subject, many is None
    default = RankSubject.NODE if measure is RankMeasure.RETRANSMITS else RankSubject.POD
    return default, False


def _count(message: str, top: re.Match[str] | None, singular: bool) -> int:
    """ "top 5" / "топ-3" / "which 3 pods": that many; "which pod": one; else the default."""
    given = next((g for g in (top.groups() if top else ()) if g), None)
    if given is None:
        before = _COUNT_BEFORE.search(message)
        given = before.group(1) if before else None
    if given is not None:
        return max(1, min(int(given), MAX_COUNT))
    return 1 if singular else DEFAULT_COUNT
