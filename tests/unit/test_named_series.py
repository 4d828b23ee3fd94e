"""A measure named in the question's words is the discovered series those words name."""

from __future__ import annotations

from planner.conclude.named_series import series_named
from planner.conclude.rule import IndexedFact
from policy.facts import MetricsValue
from policy.results import ResultFact

LAG = "kafka_consumergroup_lag"


def series(index: int, metric: str, summed: int | None = None, **labels: str) -> IndexedFact:
    attrs = MetricsValue(metric=metric, summed=summed, labels=labels, value=float(index))
    return IndexedFact(index, ResultFact(text=f"{metric} {index}", source="vm", attrs=attrs), "fra")


FACTS = [
    series(0, "container_memory_working_set_bytes", 3, container="writer"),
    series(1, LAG, 6, consumergroup="writer-svc", topic="payments"),
    series(2, LAG, consumergroup="writer-svc", topic="payments", partition="0"),
    series(3, LAG, consumergroup="writer-svc", topic="payments", partition="2"),
]


def test_a_russian_word_names_a_part_of_the_metric_and_a_label_value_picks_the_series() -> None:
    found = series_named("какой лаг у writer-svc на партиции 2?", FACTS, "writer-svc", ["fra"])
    assert found is FACTS[3]


def test_with_no_label_value_named_the_sum_over_the_series_is_the_answer() -> None:
    assert series_named("consumer lag of writer-svc?", FACTS, "writer-svc", ["fra"]) is FACTS[1]
    found = series_named("how much working memory does it use", FACTS, "writer-svc", ["fra"])
    assert found is FACTS[0]


def test_words_that_name_only_the_object_or_the_env_name_no_series() -> None:
    assert series_named("что с writer-svc в fra?", FACTS, "writer-svc", ["fra"]) is None
