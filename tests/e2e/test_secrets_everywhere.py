"""Secrets planted in every source, and pasted into the question, reach no surface.

The demo world gets every shape of the secret corpus (tests/secrets_corpus.py) planted
where an investigation reads: the crashing pods' logs, their events, the log index, the
Kubernetes audit trail and the GitLab commit and deploy job. Then the real command line
answers (the Answer JSON, plain text and Mattermost markdown, with debug logs on) and the
evaluation runner writes its report; not one secret may be in any of them, while the
planted lines were read and shown redacted (so the test would fail if they leaked).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest
import yaml

from planner.shapes.answer import Answer
from tests.e2e.planting import CRASH, SITES, cli, demo_data, plant, write_world
from tests.secrets_corpus import CORPUS, secret_values
from tests.unit.test_redaction_corpus import leaks

# each shape goes to one site (the question is a site too: pasted by the user)
_SITES = (*SITES, "question")


def _site(site: str) -> list[str]:
    return [text for i, (_, text, _) in enumerate(CORPUS) if i % len(_SITES) == _SITES.index(site)]


PASTED = _site("question")


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    world = plant(demo_data(), {site: _site(site) for site in SITES})
    return write_world(world, tmp_path_factory.mktemp("planted") / "world.yaml")


def _assert_clean(shown: str, where: str) -> None:
    found = [
        (name, piece)
        for name, text, secret in CORPUS
        for piece in leaks(secret, text, shown) + leaks(quote(secret, safe=""), text, shown)
    ]
    assert not found, f"{where} shows pieces of secrets: {found[:5]}"
    assert not [s for s in secret_values() if s in shown], where


def _pasted_question() -> str:
    pasted = "\n".join(PASTED)
    return f"service-d in dc-b keeps crashing, here is what I see:\n{pasted}\nwhy?"


def test_the_command_line_shows_no_planted_secret(planted: Path) -> None:
    from bot.mattermost._render import render_reply
    from bot.render import render_markdown, render_plain

    done = cli("-v", "ask", "--world", str(planted), "--json", CRASH)
    assert done.returncode == 0, done.stderr[-2000:]
    answer = Answer.model_validate_json(done.stdout)
    # the planted lines were read and shown redacted: a leak would have been visible
    redacted = {f.source.split("/")[0] for f in answer.facts if "[REDACTED]" in f.text}
    assert {"kubernetes", "elasticsearch", "gitlab"} <= redacted, redacted
    assert any("k8s-audit" in f.source and "[REDACTED]" in f.text for f in answer.facts)
    _assert_clean(done.stdout, "ask --json")
    _assert_clean(done.stderr, "debug logs of ask")
    assert "[debug" in done.stderr or "debug" in done.stderr.lower()  # the logs were on
    for shown, where in (
        (render_plain(answer), "plain"),
        (render_markdown(answer), "markdown"),
        (render_reply(answer).message, "Mattermost post"),
    ):
        _assert_clean(shown, where)

    pasted = cli("-v", "ask", "--world", str(planted), "--markdown", _pasted_question())
    assert pasted.returncode == 0, pasted.stderr[-2000:]
    assert "REDACTED" in pasted.stdout  # escaped as markdown: \\[REDACTED\\]
    _assert_clean(pasted.stdout, "markdown answer to a question with secrets")
    _assert_clean(pasted.stderr, "debug logs of a question with secrets")


def test_the_evaluation_report_shows_no_planted_secret(planted: Path, tmp_path: Path) -> None:
    world = yaml.safe_load(planted.read_text(encoding="utf-8"))
    unknown_env = f"why is service-d in dc-q failing? {PASTED[0]}"
    search = f"найди в логах service-d в dc-b строку '{PASTED[1]}'"
    scenario = {
        "id": "planted-secrets",
        "required": True,
        "runs": 1,
        "now": world["now"],
        "timezone": world["timezone"],
        "user": {"name": "ops-admin", "role": "admin"},
        "world": world["world"],
        "turns": [
            {"user": CRASH, "expect": {"answer_contains": ["service-d"]}},
            {"user": _pasted_question(), "expect": {}},
            {"user": unknown_env, "expect": {"gaps_contain": ["dc-q"]}},
            {"user": search, "expect": {}},
        ],
    }
    path = tmp_path / "planted.yaml"
    path.write_text(yaml.safe_dump(scenario, allow_unicode=True), encoding="utf-8")
    report = tmp_path / "report"
    done = cli("eval", str(path), "--report", str(report))
    assert (report / "report.json").exists(), done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    [entry] = data["scenarios"]
    turns = entry["runs"][0]["turns"]
    assert len(turns) == 4 and all(t.get("rendered") for t in turns), entry["runs"][0]
    assert "[REDACTED]" in turns[1]["question"]
    for name in ("report.json", "report.html"):
        _assert_clean((report / name).read_text(encoding="utf-8"), name)
    _assert_clean(done.stdout + done.stderr, "eval output")
