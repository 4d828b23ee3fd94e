"""A measure the question names in its own words that no typed read covers ("какой лаг у
<consumer> на партиции 2", "queue depth of <worker>"): the series discovery found whose
metric name and labels the question's words name is the value asked, said first, never
"N observations, no cause" over it.

Read from the evidence, not from a list of measures: the metric's name is split into its
parts (`kafka_consumergroup_lag` -> kafka, consumergroup, lag) and matched against the
question's words, Russian ones transliterated ("лаг" -> "lag"); a label value the
question names ("2", a topic) picks the series among those of one metric, and with none
named the sum over them is the answer."""

from __future__ import annotations

import re

from planner.conclude.rule import IndexedFact
from planner.question.wordforms import latin
from policy.facts import MetricsValue

_WORD = re.compile(r"[\w.:-]+", re.UNICODE)
# labels that say where a series was scraped, not what it measures
_PLACE_LABELS = frozenset({"__name__", "env", "instance", "job", "endpoint", "service", "pod"})
_STEM = 4  # a word and a name part sharing this many first letters name the same thing


def series_named(
    question: str, indexed: list[IndexedFact], obj: str | None, envs: list[str]
) -> IndexedFact | None:
    """The discovered series the question's words name best; None when none of its words
    names a part of any metric's name (other than the object's and the envs' own)."""
    own = {w for name in (obj or "", *envs) for w in re.split(r"[^\w]+", name.lower()) if w}
    words = [latin(w.lower()) for w in _WORD.findall(question)]
    asked = {w.strip(".:-") for w in words} - own - {""}
    best: tuple[tuple[int, int, int], IndexedFact] | None = None
    for item in indexed:
        attrs = item.fact.attrs
        if not isinstance(attrs, MetricsValue) or not attrs.metric:
            continue
        parts = [p for p in attrs.metric.lower().split("_") if len(p) >= 3]
        by_name = sum(1 for p in parts if any(_names(w, p) for w in asked))
        if by_name == 0:
            continue
        values = {v.lower() for k, v in (attrs.labels or {}).items() if k not in _PLACE_LABELS}
        by_label = len(values & asked)
        key = (by_name, by_label, 1 if attrs.summed and not by_label else 0)
        if best is None or key > best[0]:
            best = (key, item)
    return best[1] if best else None


def _names(word: str, part: str) -> bool:
    if word == part:
        return True
    return len(word) >= _STEM and len(part) >= _STEM and word[:_STEM] == part[:_STEM]
