"""A question no grammar reads gets the environment check said as such and, without a model,
the supported questions closest to it (class "the answer says what it understood and which
supported question is closest"), in the asker's language."""

from __future__ import annotations

from planner.question.supported import closest_questions
from planner.shapes.language import Language


def test_shared_words_put_the_closest_form_first() -> None:
    first = closest_questions("any deploy in east lately, who did it?", "east", Language.EN)[0]
    assert first == "who deployed <service> in east, and when?"
    slow = closest_questions("всё тормозит в west", "west", Language.RU)[0]
    assert slow == "какая p95 задержка у <сервис> в west?"


def test_with_nothing_shared_a_cause_then_a_ranking_are_offered_about_the_env() -> None:
    assert closest_questions("как дела с платежами в east?", "east", Language.RU) == [
        "почему <сервис> в east отдаёт 5xx?",
        "топ-5 pod'ов по памяти в east",
    ]
