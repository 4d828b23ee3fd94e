"""A question for a value of the object's state (its image, its replicas): the answer's
first line is that value, with its time and source, before any cause found beside it.

Class "value questions answered with the value": "какая версия образа сейчас у X?" was
answered with X's crash loop, the image buried in the twelfth fact. Metric values (a
p99, a lag, a count) have plans of their own; this is the workload's own state, read by
`k8s.workload_status` in every plan that has an object.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Literal

from policy.facts import FactKind, HttpRate, K8sWorkload
from policy.language import Bilingual, Language, phrase, pick
from policy.numbers import Nouns, noun_for
from policy.results import ResultFact


class AskedValue(StrEnum):
    IMAGE = "image"  # image, version, tag: what runs
    REPLICAS = "replicas"  # how many replicas / pods, how many ready
    USAGE = "usage"  # what is really used (CPU, memory), against requests and limits
    RESTARTS = "restarts"  # how many times containers restarted in the window
    ERRORS = "errors"  # how many responses failed, or what share of them, in the window


# "how many", "сколько": a number asked (one home for every grammar that reads a count)
HOW_MANY = r"\bhow many\b|\bnumber of\b|\bcount of\b|сколько|количеств[а-яё]{0,3}\b|\bчисло\b"
# an HTTP status or class named ("502", "5xx"), not a duration or a size ("500 ms")
_STATUS = r"\b[45]xx(?![\w.:])|\b[45]\d\d(?![\d.:%]|\s?(?:ms|мс|sec|сек|mb|kb|mib|gib)\b)"
_RESTART_RU = r"рестарт|перезапуск|перезагруз"
# the words of a resource (a usage asked of one, a ranking by one)
MEMORY_WORDS = r"\bmemory\b|\bmem\b|\bram\b|памят\w*|\bоперативк\w*|\bозу\b"
CPU_WORDS = r"\bcpu\b|\bprocessor\b|\bцпу\b|процессор\w*|\bядер\b|\bядра\b"

_ASKED: dict[AskedValue, re.Pattern[str]] = {
    AskedValue.IMAGE: re.compile(
        # not "каким образом" (how) nor the verb "tags"
        r"\b(?:images?|versions?|tag)\b|верси\w*|(?<!каким )(?<!таким )(?<!главным )образ\w*"
        r"|\bтег\w*|\bтэг\w*",
        re.I,
    ),
    AskedValue.REPLICAS: re.compile(
        r"\breplicas?\b|реплик\w*|how many (?:pods|instances)|сколько (?:подов|инстанс\w*)",
        re.I,
    ),
    # usage, not the quota's bookkeeping of requests: "реально потребляет", "actually uses"
    AskedValue.USAGE: re.compile(
        r"\b(?:really|actually) (?:uses?|using|used|consumes?|consuming)\b|\bconsum\w*|"
        r"\busage\b|(?<![а-яё])(?:реально|фактически|на самом деле)\s+(?:потребл|использ|ест)\w*|"
        r"(?<![а-яё])потребл\w*|"
        # "how much memory", "сколько памяти", "memory ... using": the amount of a resource
        r"\b(?:how much|сколько)\s+(?:memory|ram|cpu|памяти|оперативк\w*|цпу|процессора)\b|"
        r"\b(?:memory|ram|cpu)\b[^.?!\n]{0,60}\b(?:using|uses|use|used)\b",
        re.I,
    ),
    # how many restarts, not why it restarts: a count asked of the restart counter
    AskedValue.RESTARTS: re.compile(
        rf"(?:{HOW_MANY})[^.?!\n]{{0,40}}(?:\brestart|{_RESTART_RU})|\brestart count\b", re.I
    ),
    # how many failed, or what share: a number asked of the error rate, not why they fail
    AskedValue.ERRORS: re.compile(
        r"(?:\b(?:share|percent|percentage|ratio|fraction|proportion)\b|\bдол[яиюей]|процент|"
        rf"{HOW_MANY})[^.?!\n]{{0,40}}(?:\berror|\bfail|ошиб|{_STATUS})|"
        r"\b(?:error|5xx|4xx) (?:rate|ratio|share|percentage)\b",
        re.I,
    ),
}
# the kind of fact that carries each value: it is kept first in the evidence
_CARRIER: dict[AskedValue, FactKind] = {
    AskedValue.IMAGE: FactKind.K8S_WORKLOAD,
    AskedValue.REPLICAS: FactKind.K8S_WORKLOAD,
    AskedValue.USAGE: FactKind.METRICS_USAGE,
    AskedValue.RESTARTS: FactKind.METRICS_RESTARTS,
    AskedValue.ERRORS: FactKind.HTTP_RATE,
}


_MEMORY = re.compile(MEMORY_WORDS, re.I)
_CPU = re.compile(CPU_WORDS, re.I)


def resource_asked(message: str) -> Literal["cpu", "memory"] | None:
    """The one resource a usage question asks about; None for both or neither."""
    memory, cpu = _MEMORY.search(message) is not None, _CPU.search(message) is not None
    if memory == cpu:
        return None
    return "memory" if memory else "cpu"


def carrier(asked: AskedValue) -> FactKind:
    """The kind of fact that carries the value asked."""
    return _CARRIER[asked]


def carries(asked: AskedValue, attrs: object) -> bool:
    """A fact with these attributes carries the value asked: of its carrier kind, and for
    errors the error rate, not the request rate read beside it."""
    if getattr(attrs, "kind", None) is not _CARRIER[asked]:
        return False
    return not (isinstance(attrs, HttpRate) and attrs.what != "errors")


# a question for a cause ("why", "what happened"): any object in it gets the baseline
_CAUSE = re.compile(
    r"\bwhy\b|what (?:caused|happened|is wrong|'s wrong|is going on|'s going on)|"
    r"what'?s (?:going on|wrong|up with)|\breason\b|"
    r"почему|отчего|из-за чего|в ч[её]м (?:причина|дело|проблема)|что случилось|"
    r"что (?:не так|с ним|с ней|происходит)|причин\w*",
    re.I,
)


_COUNT = re.compile(rf"{HOW_MANY}|\bhow much\b|\bcount\b", re.I)
_HOW_MANY = re.compile(HOW_MANY, re.I)


def asks_count(message: str) -> bool:
    """The question asks how many (of something), not only what or why."""
    return _COUNT.search(message) is not None


def asks_how_many(message: str) -> bool:
    """The question asks for a number of things ("how many pods"), not an amount."""
    return _HOW_MANY.search(message) is not None


def asks_cause(message: str) -> bool:
    """The question asks why, not only what or how much."""
    return _CAUSE.search(message) is not None


# asked yes or no ("is it restarting?", "были ли 502?"): the value the verdict is about
_POLAR: dict[AskedValue, re.Pattern[str]] = {
    AskedValue.RESTARTS: re.compile(rf"\brestart|\bcrash[\s-]*loop|{_RESTART_RU}|крашлуп", re.I),
    AskedValue.ERRORS: re.compile(rf"\berrors?\b|{_STATUS}|\bошиб", re.I),
}


def asked_value(message: str, polar: bool = False) -> AskedValue | None:
    """The state value a question asks for, if it asks for one (the earliest named); a
    yes/no question (`polar`) asks about the value it names too."""
    hits = [(m.start(), value) for value, rx in _ASKED.items() if (m := rx.search(message))]
    if not hits and polar:
        hits = [(m.start(), value) for value, rx in _POLAR.items() if (m := rx.search(message))]
    return min(hits)[1] if hits else None


def value_priority(asked: AskedValue | None, order: dict[str, int]) -> dict[str, int]:
    """The fact order with the facts that carry the value asked for first, so the budget of
    a busy source (a crash's events and log lines) never leaves the value out."""
    if asked is None:
        return order
    return {**order, _CARRIER[asked]: -1}


# the value sentence's parts, (English, Russian)
_IN_ENV: Bilingual = (" in {env}", " в {env}")
_READY: Bilingual = ("{ready} of {desired} {replicas} ready", "готово реплик: {ready} из {desired}")
_IMAGES: Bilingual = (
    "{where} runs more than one image: ",
    "{where} запускает больше одного образа: ",
)
_REVISION_READY: Bilingual = (
    "{images} on {ready} of {desired} ready (revision {revision}{newest})",
    "{images}: готово {ready} из {desired} (ревизия {revision}{newest})",
)
_NEWEST: Bilingual = (", the newest", ", самая новая")
_IMAGE: Bilingual = ("{where} runs image {images}", "{where} запускает образ {images}")
_REVISION: Bilingual = (" (revision {revision})", " (ревизия {revision})")


def value_sentence(
    asked: AskedValue, fact: ResultFact, env: str | None, language: Language = Language.EN
) -> str | None:
    """The value as the answer's first line, or None when `fact` does not carry it."""
    attrs = fact.attrs
    if not isinstance(attrs, K8sWorkload) or attrs.name is None:
        return None

    def say(text: Bilingual, **fields: object) -> str:
        return phrase(text, language, **fields)

    where = f"{attrs.workload_kind or 'Workload'} {attrs.name}" + (
        say(_IN_ENV, env=env) if env else ""
    )
    counts = (
        say(
            _READY,
            ready=attrs.ready,
            desired=attrs.desired,
            replicas=noun_for(attrs.desired, Nouns.REPLICA, language),
        )
        if attrs.ready is not None and attrs.desired is not None
        else None
    )
    match asked:
        case AskedValue.IMAGE:
            live = attrs.live_replicasets or []
            if len({tuple(rs.images) for rs in live}) > 1:
                # a rollout under way or stuck: what each revision runs, and how much of it
                # is ready, is the answer; the spec's image alone would say the new one runs
                return say(_IMAGES, where=where) + "; ".join(
                    say(
                        _REVISION_READY,
                        images=", ".join(rs.images),
                        ready=rs.ready,
                        desired=rs.desired,
                        revision=rs.revision or "?",
                        newest=pick(_NEWEST, language) if rs is live[-1] else "",
                    )
                    for rs in live
                )
            if not attrs.images:
                return None
            head = say(_IMAGE, where=where, images=", ".join(attrs.images))
            if attrs.revision:
                head += say(_REVISION, revision=attrs.revision)
            return head + (f"; {counts}" if counts else "")
        case AskedValue.REPLICAS:
            if counts is None:
                return None
            return f"{where}: {counts}"
        case AskedValue.USAGE | AskedValue.RESTARTS | AskedValue.ERRORS:
            return None  # a measured value: the fact read over the window says it
