"""The asker's own words decide the answer's language, on the demo world through the
real path: a question in German is answered in English, saying so first; a Russian
question with an English alert pasted under it gets a Russian frame."""

from __future__ import annotations

from bot.mattermost import render_reply
from bot.presentation import present
from bot.render import render_markdown, render_plain
from planner.shapes.language import Language
from tests.e2e.demo_thread import ask_in_one_thread

NOTE = (
    "Answers are in English or Russian; your question looks like German, so this one is in English."
)
RUSSIAN_WITH_ALERT = (
    "что это значит?\n"
    "[FIRING:1] KubePodCrashLooping (service-d dc-b orders)\n"
    "Pod dc-b/orders/service-d-7f9c-abcde (service-d) is restarting 3 times / 10 minutes."
)


def test_a_german_question_gets_english_saying_so_first_and_a_pasted_alert_keeps_russian() -> None:
    german, russian = ask_in_one_thread(
        "Warum startet service-b in dc-a ständig neu?", RUSSIAN_WITH_ALERT
    )
    assert german.language is Language.EN
    for shown in (
        render_markdown(german),
        render_reply(german).message,
        render_plain(german),
        present(german).conclusion,
    ):
        assert shown.lstrip("*").startswith(NOTE), shown[:200]
    assert "Scope:" in render_markdown(german)
    assert NOTE not in german.conclusion  # the line frames the answer; the finding is apart

    assert russian.language is Language.RU
    text = render_markdown(russian)
    assert "Область:" in text and "Scope:" not in text
    assert "Answers are in English or Russian" not in text
