"""Inputs at the edges never break an answer: a moment at the calendar's ends (Go's zero
time, a 9999 sentinel) on every date path of every surface, and an empty or blank
question on the CLI."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone

import pytest

from bot.presentation import present
from bot.render import render_markdown, render_plain
from planner.shapes.answer import Answer, AnswerFact
from policy.scope import Scope, TimeSpec

EDGES = [
    datetime(1, 1, 1, tzinfo=UTC),  # Go's zero time, as Kubernetes may serve it
    datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC),
    datetime(1, 1, 1, 1, tzinfo=timezone(timedelta(hours=3))),
]


@pytest.mark.parametrize("at", EDGES)
@pytest.mark.parametrize("zone", ["Europe/Moscow", "Pacific/Honolulu", "UTC"])
def test_a_moment_at_the_calendars_ends_renders_on_every_surface(at: datetime, zone: str) -> None:
    answer = Answer(
        question="what happened?",
        scope=Scope(env="dc-a", time=TimeSpec(at=at, mode="historical")),
        summary=f"seen at {at.isoformat()}",
        facts=[AnswerFact(text=f"stamp {at.isoformat()}", source="k8s", observed_at=at)],
        timezone=zone,
    )
    shown = present(answer)
    assert shown.conclusion.startswith("seen at ")
    for text in (render_plain(answer), render_markdown(answer)):
        # the year the source wrote is kept where the zone cannot hold the moment
        assert str(at.year) in text or at.astimezone(UTC).strftime("%H:%M") in text


@pytest.mark.parametrize("question", ["", "   ", "\n\n"])
def test_an_empty_or_blank_question_gets_an_answer_not_a_traceback(question: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "ask", question],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    # it asks what to read, with an example, and reads nothing
    assert "For example" in done.stdout and "(dc-a, <service>)" in done.stdout
