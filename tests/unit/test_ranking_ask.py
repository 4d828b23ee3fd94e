"""A ranking asked is read as one, in English and Russian; a cause or a value is not."""

from __future__ import annotations

from typing import Any

import pytest

from planner.conclude.ranked import ranking_sentence
from planner.question.ranking import DEFAULT_COUNT, Ranking, ranking_asked
from planner.shapes.language import Language
from policy.facts import MetricsRank
from policy.results import ResultFact
from policy.vocabulary import RankMeasure, RankSubject
from tests.unit.toolkit import read_of

POD, NODE = RankSubject.POD, RankSubject.NODE
M = RankMeasure


@pytest.mark.parametrize(
    ("question", "subject", "measure", "count", "order"),
    [
        ("which pods in dc-a use the most memory?", POD, M.MEMORY, DEFAULT_COUNT, "top"),
        ("list the top 5 pods by memory usage in dc-a", POD, M.MEMORY, 5, "top"),
        ("which 3 pods use the most CPU in prod right now?", POD, M.CPU, 3, "top"),
        ("какой под в dc-b сейчас потребляет больше всего CPU?", POD, M.CPU, 1, "top"),
        ("топ-3 ноды в dc-a по TCP ретрансмитам за последний час", NODE, M.RETRANSMITS, 3, "top"),
        ("топ-5 подов по потреблению памяти в dc-a", POD, M.MEMORY, 5, "top"),
        ("which pod in eu-north is closest to its memory limit?", POD, M.MEMORY_OF_LIMIT, 1, "top"),
        ("which workloads in dc-b have the most container restarts?", POD, M.RESTARTS, 5, "top"),
        ("which pods use the least CPU in dc-a?", POD, M.CPU, DEFAULT_COUNT, "bottom"),
        ("покажи топ 10 контейнеров по памяти", POD, M.MEMORY, 10, "top"),
    ],
)
def test_a_ranking_asked_is_read_with_its_subject_measure_count_and_order(
    question: str, subject: RankSubject, measure: RankMeasure, count: int, order: str
) -> None:
    assert ranking_asked(question) == Ranking(subject, measure, count, order)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "question",
    [
        "why does service-b in dc-a keep restarting?",  # a cause
        "why does catalog-api use the most memory?",  # a cause, of one object
        "сколько памяти ест service-b в dc-a относительно лимита?",  # a value
        "who deployed service-d most recently?",  # no measure
        "which service returned the most 502s?",  # an order with no measure read here
    ],
)
def test_a_question_that_asks_no_ranking_is_not_read_as_one(question: str) -> None:
    assert ranking_asked(question) is None


def test_a_count_past_the_cap_is_capped() -> None:
    asked = ranking_asked("top 99 pods by memory")
    assert asked is not None and asked.count == 20


def _rank(position: int, name: str, value: float, measure: RankMeasure = M.MEMORY) -> Any:
    attrs = MetricsRank(
        subject=POD, measure=measure, position=position, of=14, name=name, value=value
    )
    return read_of("dc-a", [ResultFact(text=name, attrs=attrs, source="victoriametrics")])


def test_the_ranking_sentence_lists_the_places_in_order_with_units_and_the_total() -> None:
    facts = [_rank(2, "b", 900 * 2**20), _rank(1, "a", 1.5 * 2**30), _rank(3, "c", 200 * 2**20)]
    said = ranking_sentence(Ranking(POD, M.MEMORY, 3), facts, Language.EN)
    assert (
        said
        == "Top 3 pods by memory (working set) in dc-a (of 14): a 1.5 GiB, b 900.0 MiB, c 200.0 MiB"
    )
    ru = ranking_sentence(Ranking(POD, M.MEMORY, 3), facts, Language.RU)
    assert ru is not None and ru.startswith("Топ-3 pod'ов в dc-a") and "a 1.5 GiB" in ru


def test_one_place_asked_is_said_as_the_first_and_a_share_as_percent() -> None:
    facts = [_rank(1, "x", 0.93, M.MEMORY_OF_LIMIT)]
    said = ranking_sentence(Ranking(POD, M.MEMORY_OF_LIMIT, 1), facts, Language.EN)
    assert said == "The pod with the most memory against its limit in dc-a (of 14): x 93%"


def test_no_ranking_read_gives_no_sentence() -> None:
    assert ranking_sentence(Ranking(POD, M.CPU, 3), [_rank(1, "a", 1.0)], Language.EN) is None
