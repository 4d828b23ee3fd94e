"""A question for changes is read in any form of its verb (class "what changed asked in words
the grammar had not met": "что поменялось", "what's changed"), so the changes are read and
lead, not an environment check."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from planner.question.context import InventoryItem, build_context
from policy.facts import EntityKind

TZ = ZoneInfo("Europe/Moscow")
INV = [
    InventoryItem(env="east", namespace="billing", name="invoice-api", kind=EntityKind.DEPLOYMENT)
]


def ctx(text: str):
    now = datetime(2026, 3, 2, 12, 0, tzinfo=TZ)
    return build_context(text, envs=["east", "west"], inventory=INV, now=now, tz=TZ)


@pytest.mark.parametrize(
    "text",
    [
        "что поменялось в east за сегодня?",
        "что-нибудь менялось в east?",
        "what's changed in east since the morning?",
        "кто поменял invoice-api в east?",
    ],
)
def test_a_question_for_changes_in_any_verb_form_reads_the_changes(text: str) -> None:
    assert ctx(text).intent == "release_timeline"


def test_beside_a_symptom_what_changed_asks_the_changes_as_its_cause() -> None:
    c = ctx("invoice-api в east с 13:00 отдаёт 500 на логине. что поменялось?")
    assert c.intent == "http_errors" and "release_timeline" in c.also
