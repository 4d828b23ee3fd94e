"""Ordinary questions a new user asks of the built-in demo world (`infrabot ask`), each
answered with the value asked for or the real cause, first."""

from __future__ import annotations

import pytest

from bot.cli import main
from planner.answer import Answer


def ask(question: str, capsys: pytest.CaptureFixture[str]) -> Answer:
    assert main(["ask", "--json", question]) == 0
    return Answer.model_validate_json(capsys.readouterr().out)


def test_a_latency_asked_for_is_the_first_line_of_the_answer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The p99 was read, then pushed out of the answer by the request rates and the usage
    read beside it, while its objective said "resolved"."""
    answer = ask("p99 latency of catalog-api in dc-a, last hour", capsys)
    assert answer.summary.startswith("catalog-api in dc-a: p99 latency ")
    latency = [f for f in answer.facts if f.kind == "http.latency"]
    assert latency and latency[0].source.startswith("victoriametrics")
    assert {o.id: o.status for o in answer.objectives}["http.latency"] == "resolved"
