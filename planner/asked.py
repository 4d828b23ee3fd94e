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

from policy.facts import FactKind, K8sWorkload
from policy.results import ResultFact


class AskedValue(StrEnum):
    IMAGE = "image"  # image, version, tag: what runs
    REPLICAS = "replicas"  # how many replicas / pods, how many ready


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
}


# a question for a cause ("why", "what happened"): any object in it gets the baseline
_CAUSE = re.compile(
    r"\bwhy\b|what (?:caused|happened|is wrong|'s wrong|is going on|'s going on)|"
    r"what'?s (?:going on|wrong|up with)|\breason\b|"
    r"почему|отчего|из-за чего|в ч[её]м (?:причина|дело|проблема)|что случилось|"
    r"что (?:не так|с ним|с ней|происходит)|причин\w*",
    re.I,
)


_COUNT = re.compile(
    r"\bhow many\b|\bhow much\b|\bnumber of\b|\bcount\b|сколько|количеств\w*|число\b",
    re.I,
)


def asks_count(message: str) -> bool:
    """The question asks how many (of something), not only what or why."""
    return _COUNT.search(message) is not None


def asks_cause(message: str) -> bool:
    """The question asks why, not only what or how much."""
    return _CAUSE.search(message) is not None


def asked_value(message: str) -> AskedValue | None:
    """The state value a question asks for, if it asks for one (the earliest named)."""
    hits = [(m.start(), value) for value, rx in _ASKED.items() if (m := rx.search(message))]
    return min(hits)[1] if hits else None


def value_priority(asked: AskedValue | None, order: dict[str, int]) -> dict[str, int]:
    """The fact order with the facts that carry the value asked for first, so the budget of
    a busy source (a crash's events and log lines) never leaves the value out."""
    if asked is None:
        return order
    return {**order, FactKind.K8S_WORKLOAD: -1}


def value_sentence(asked: AskedValue, fact: ResultFact, env: str | None) -> str | None:
    """The value as the answer's first line, or None when `fact` does not carry it."""
    attrs = fact.attrs
    if not isinstance(attrs, K8sWorkload) or attrs.name is None:
        return None
    where = f"{attrs.workload_kind or 'Workload'} {attrs.name}" + (f" in {env}" if env else "")
    counts = (
        f"{attrs.ready} of {attrs.desired} replica(s) ready"
        if attrs.ready is not None and attrs.desired is not None
        else None
    )
    match asked:
        case AskedValue.IMAGE:
            live = attrs.live_replicasets or []
            if len({tuple(rs.images) for rs in live}) > 1:
                # a rollout under way or stuck: what each revision runs, and how much of it
                # is ready, is the answer; the spec's image alone would say the new one runs
                return f"{where} runs more than one image: " + "; ".join(
                    f"{', '.join(rs.images)} on {rs.ready} of {rs.desired} ready "
                    f"(revision {rs.revision or '?'}{', the newest' if rs is live[-1] else ''})"
                    for rs in live
                )
            if not attrs.images:
                return None
            head = f"{where} runs image {', '.join(attrs.images)}"
            if attrs.revision:
                head += f" (revision {attrs.revision})"
            return head + (f"; {counts}" if counts else "")
        case AskedValue.REPLICAS:
            if counts is None:
                return None
            return f"{where}: {counts}"
