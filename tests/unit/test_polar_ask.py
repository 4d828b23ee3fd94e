"""A yes/no question is read by its form, and asks about the value it names."""

from __future__ import annotations

import pytest

from planner.question.asked import AskedValue, asked_value
from planner.question.polar import polar_asked


@pytest.mark.parametrize(
    "question",
    [
        "is the api in east restarting?",
        "@infrabot are there any 5xx on the api?",
        "any errors from the api in the last hour?",
        "были ли ещё 502 у api за последний час?",
        "есть ли ошибки у api в east?",
        "Checked the dashboards. Did the worker crash loop overnight?",
    ],
)
def test_a_yes_no_question_is_read_by_its_form(question: str) -> None:
    assert polar_asked(question)


@pytest.mark.parametrize(
    "question",
    [
        "why is the api restarting?",
        "how many 502s did the api return?",
        "почему api перезапускается?",
        "what changed in east today?",
        "show the last 20 lines of the api",
    ],
)
def test_a_question_for_a_cause_a_number_or_a_list_is_no_yes_no(question: str) -> None:
    assert not polar_asked(question)


def test_a_yes_no_question_asks_about_the_value_it_names() -> None:
    assert asked_value("is the api restarting?", polar=True) is AskedValue.RESTARTS
    assert asked_value("есть ли 5xx у api?", polar=True) is AskedValue.ERRORS
    assert asked_value("is the api restarting?") is None  # not asked yes or no: no value
