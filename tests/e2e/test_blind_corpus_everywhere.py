"""The second corpus, written blind (by a helper that never read the redaction or the
hostile-text code) from real formats: tests/secrets_corpus_blind.py and
tests/hostile_corpus_blind.py. Every secret and every instruction is planted where an
investigation reads (pod logs, events, the log index, the audit trail, GitLab) and pasted
into questions; not one secret and not one thing an instruction asks to be said may reach
any surface: the Answer JSON, plain text, markdown, the Mattermost post, the web chat's
reply and thread, the evaluation report, a knowledge draft and its stored entry, and the
debug logs."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
import yaml

from bot.mattermost._render import render_reply
from bot.render import render_markdown, render_plain
from planner.shapes.answer import Answer
from planner.shapes.turn import ThreadMessage
from tests.e2e.planting import CRASH, SITES, cli, demo_data, plant, write_world
from tests.hostile_corpus_blind import KEEP_BLIND, PAYLOADS_BLIND
from tests.secrets_corpus_blind import CORPUS_BLIND
from tests.unit.test_redaction_corpus import leaks

_SITES = (*SITES, "question")


def _share(items: list[tuple[str, str, str]], site: str) -> list[str]:
    return [t for i, (_, t, _) in enumerate(items) if i % len(_SITES) == _SITES.index(site)]


def _pasted(items: list[tuple[str, str, str]]) -> str:
    return "service-d in dc-b keeps crashing, here is what I see:\n" + "\n".join(
        _share(items, "question")
    )


def problems(shown: str) -> list[str]:
    """Each secret piece and each echoed instruction `shown` holds."""
    found = [
        f"secret {name}: {piece}"
        for name, text, secret in CORPUS_BLIND
        for piece in leaks(secret, text, shown) + leaks(quote(secret, safe=""), text, shown)
    ]
    low = shown.lower()
    found += [f"echo {name}: {echo}" for name, _, echo in PAYLOADS_BLIND if echo.lower() in low]
    return found


def assert_clean(shown: str, where: str) -> None:
    found = problems(shown)
    assert not found, f"{where}: {len(found)} problem(s): {found[:8]}"


def test_the_blind_corpus_is_as_large_as_promised() -> None:
    assert len(CORPUS_BLIND) >= 60 and len(PAYLOADS_BLIND) >= 40
    assert len({n for n, _, _ in CORPUS_BLIND}) == len(CORPUS_BLIND)
    assert all(secret in text for _, text, secret in CORPUS_BLIND)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    by_site = {site: _share(CORPUS_BLIND, site) + _share(PAYLOADS_BLIND, site) for site in SITES}
    world = plant(demo_data(), by_site)
    return write_world(world, tmp_path_factory.mktemp("blind") / "world.yaml")


def test_the_command_line_shows_nothing_planted(planted: Path) -> None:
    done = cli("-v", "ask", "--world", str(planted), "--json", CRASH)
    assert done.returncode == 0, done.stderr[-2000:]
    answer = Answer.model_validate_json(done.stdout)
    # the planted records were read (a leak would have been visible)
    assert any("[REDACTED]" in f.text for f in answer.facts)
    # text from data never opens the conclusion or a hypothesis: the code's own words do
    openings = [answer.summary, *(h.text for h in answer.hypotheses)]
    heads = [" ".join(t.split())[:24].lower() for _, t, _ in [*CORPUS_BLIND, *PAYLOADS_BLIND]]
    opened = [o[:60] for o in openings for head in heads if o.lower().startswith(head)]
    assert not opened, opened
    assert_clean(done.stdout, "ask --json")
    assert_clean(done.stderr, "debug logs")
    for shown, where in (
        (render_plain(answer), "plain"),
        (render_markdown(answer), "markdown"),
        (render_reply(answer).message, "Mattermost post"),
        (render_reply(answer, limit=500).attachment or "", "Mattermost report file"),
    ):
        assert_clean(shown, where)
    for items in (CORPUS_BLIND, PAYLOADS_BLIND):
        pasted = cli("-v", "ask", "--world", str(planted), "--markdown", _pasted(items))
        assert pasted.returncode == 0, pasted.stderr[-2000:]
        assert_clean(pasted.stdout, "a pasted question's answer")
        assert_clean(pasted.stderr, "a pasted question's debug logs")


async def test_the_web_chat_shows_nothing_planted(planted: Path) -> None:
    from bot.cli import demo_app
    from evals.session import WorldSession
    from evals.worldfile import read_world_file

    wf = read_world_file(planted)
    with WorldSession(wf.world, now=wf.now) as session:
        transport = httpx.ASGITransport(app=demo_app(session, wf))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            replies = [
                await c.post("/api/ask", json={"thread_id": "b1", "question": q})
                for q in (CRASH, _pasted(CORPUS_BLIND)[:8000], _pasted(PAYLOADS_BLIND)[:8000])
            ]
            thread = await c.get("/api/threads/b1")
    assert all(r.status_code == 200 for r in replies), [r.text[:300] for r in replies]
    for i, reply in enumerate(replies):
        assert_clean(reply.text, f"web reply {i}")
    assert_clean(thread.text, "web thread read back")


def test_the_evaluation_report_shows_nothing_planted(planted: Path, tmp_path: Path) -> None:
    world = yaml.safe_load(planted.read_text(encoding="utf-8"))
    scenario = {
        "id": "planted-blind",
        "required": True,
        "runs": 1,
        "now": world["now"],
        "timezone": world["timezone"],
        "user": {"name": "ops-admin", "role": "admin"},
        "world": world["world"],
        "turns": [
            {"user": CRASH, "expect": {"answer_contains": ["service-d"]}},
            {"user": _pasted(CORPUS_BLIND), "expect": {}},
            {"user": _pasted(PAYLOADS_BLIND), "expect": {}},
        ],
    }
    path = tmp_path / "planted.yaml"
    path.write_text(yaml.safe_dump(scenario, allow_unicode=True), encoding="utf-8")
    report = tmp_path / "report"
    done = cli("eval", str(path), "--report", str(report))
    assert (report / "report.json").exists(), done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert len(data["scenarios"][0]["runs"][0]["turns"]) == 3
    for name in ("report.json", "report.html"):
        assert_clean((report / name).read_text(encoding="utf-8"), name)
    assert_clean(done.stdout + done.stderr, "eval output")


def test_knowledge_keeps_nothing_planted(tmp_path: Path) -> None:
    """Each carrier in a correction the admin points at: the draft and the stored entry
    hold neither its secret nor what its instruction asks to be said."""
    from bot.knowledge import KnowledgeBase, KnowledgeDesk
    from tests.unit.test_knowledge import ALLOWED, LINK, Clock

    items = [*CORPUS_BLIND, *PAYLOADS_BLIND]
    for n, (name, text, _) in enumerate(items):
        desk = KnowledgeDesk(
            KnowledgeBase.load(tmp_path / f"kb{n}.jsonl"), clock=Clock(), allowed_hosts=ALLOWED
        )
        thread = [
            ThreadMessage(author="bob", text="почему падает service-a?"),
            ThreadMessage(author="infrabot", text="**No ready endpoints.**", is_bot=True),
            ThreadMessage(author="bob", text=f"Wrong: the cause is in this line:\n{text}"),
        ]
        reply = desk.request(
            channel="ch", root_id="r", user="boss", role="admin", text="remember this",
            thread=thread, scope={"env": "dc-a"}, source=LINK,
        )  # fmt: skip
        shown = reply.text
        if reply.kind == "draft":
            saved = desk.answer(channel="ch", root_id="r", user="boss", role="admin", text="yes")
            assert saved is not None
            shown += saved.text + (tmp_path / f"kb{n}.jsonl").read_text()
        assert not problems(shown), (name, problems(shown)[:3])


def test_ordinary_lines_that_look_alike_are_kept() -> None:
    from policy.hostile import describe

    changed = [line for line in KEEP_BLIND if describe(line) != line]
    assert not changed, changed
