"""A huge record costs what a long one costs: a 10 MB log line is cut to its head and tail
before any rule, redaction or rendering reads it, the cut is said, and the answer stays
small on every surface."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from policy.bounded_text import MAX_TEXT, bounded
from policy.facts import AppLog
from policy.results import ResultFact
from tests.huge_world import QUESTION, WORLD


def test_a_long_text_keeps_its_head_and_tail_and_says_the_cut() -> None:
    text = "HEAD " + "x" * 100_000 + " TAIL"
    cut = bounded(text)
    assert len(cut) < MAX_TEXT + 100
    assert cut.startswith("HEAD ") and cut.endswith(" TAIL")
    assert "characters cut" in cut
    assert bounded("short") == "short"


def test_a_facts_text_and_logged_values_are_bounded_when_made() -> None:
    line = "ERROR " + "y" * 1_000_000
    fact = ResultFact(text=line, source="es", attrs=AppLog(message=line))
    assert len(fact.text) < MAX_TEXT + 100
    assert isinstance(fact.attrs, AppLog) and len(str(fact.attrs.message)) < MAX_TEXT + 100


def test_a_ten_megabyte_log_line_gives_a_small_answer(tmp_path: Path) -> None:
    path = tmp_path / "world.yaml"
    path.write_text(yaml.safe_dump(WORLD, width=10**9))
    question = QUESTION
    for flag in ([], ["--json"], ["--markdown"]):
        done = subprocess.run(
            [sys.executable, "-m", "bot.cli", "ask", "--now", "2026-07-20T14:40:00+03:00",
             "--world", str(path), *flag, question],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        assert len(done.stdout) < 200_000, (flag, len(done.stdout))
        assert "payment failed" in done.stdout and "characters cut" in done.stdout
