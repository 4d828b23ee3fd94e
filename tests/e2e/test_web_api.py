"""The web chat's JSON API and page, without a browser: what a client gets back."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from bot.knowledge import KnowledgeBase, KnowledgeDesk
from bot.web import build_web_app
from evals.session import WorldSession
from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world


@pytest.fixture
def session() -> Iterator[WorldSession]:
    with WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW, admins=["boss"]) as s:
        yield s


@pytest.fixture
async def client(session: WorldSession, tmp_path) -> AsyncIterator[httpx.AsyncClient]:
    assert session.conversation is not None and session.config is not None
    desk = KnowledgeDesk(
        KnowledgeBase.load(tmp_path / "kb.jsonl"),
        clock=session.clock,
        allowed_hosts=session.config.allowed_link_hosts,
    )
    app = build_web_app(
        conversation=session.conversation,
        role_of=session.config.role_of,
        clock=session.clock,
        desk=desk,
        questions=["q1"],
        environments=list(session.config.environments),
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://chat.test") as c:
        yield c


async def ask(
    client: httpx.AsyncClient, question: str, thread: str = "t1", user: str = "alice"
) -> httpx.Response:
    return await client.post(
        "/api/ask", json={"thread_id": thread, "question": question, "user": user}
    )


async def test_ask_answers_with_the_answer_structure_and_markdown(
    client: httpx.AsyncClient,
) -> None:
    res = await ask(client, "какой средний RPS у catalog-api в dc-a за последний час?")
    assert res.status_code == 200
    body = res.json()
    assert body["kind"] == "answer" and body["thread_id"] == "t1"
    assert body["answer"]["scope"]["env"] == "dc-a"
    assert any("412" in f["text"] for f in body["answer"]["facts"])
    # asked in Russian: the answer's frame is Russian, the presentation says so
    assert "412" in body["markdown"] and "#### Факты" in body["markdown"]
    assert body["presentation"]["language"] == "ru"
    assert body["presentation"]["conclusion"].startswith("catalog-api")
    assert len(body["report"]["evidence"]) == len(body["answer"]["facts"])

    follow = (await ask(client, "the same in dc-b")).json()
    assert follow["answer"]["scope"]["env"] == "dc-b"
    assert "137" in follow["markdown"] and "412" not in follow["markdown"]

    history = (await client.get("/api/threads/t1")).json()["messages"]
    assert [(m["author"], m["is_bot"]) for m in history] == [
        ("alice", False),
        ("infrabot", True),
        ("alice", False),
        ("infrabot", True),
    ]
    other = (await ask(client, "what is the RPS of catalog-api?", thread="t2")).json()
    assert other["answer"]["scope"]["env"] != "dc-b"  # threads do not share memory


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        ({"thread_id": "../etc", "question": "x"}, "thread_id"),
        ({"thread_id": "t1", "question": "   "}, "question"),
        ({"thread_id": "t1", "question": "x" * 8001}, "at most 8000"),
        ({"thread_id": "t1", "question": "x", "user": "<script>"}, "user"),
        (["not", "an", "object"], "JSON object"),
    ],
)
async def test_bad_requests_get_a_clear_error(
    client: httpx.AsyncClient, payload: object, error: str
) -> None:
    res = await client.post("/api/ask", json=payload)
    assert res.status_code == 400 and error in res.json()["error"]


async def test_only_json_is_accepted_so_a_foreign_form_cannot_post(
    client: httpx.AsyncClient,
) -> None:
    res = await client.post("/api/ask", data={"thread_id": "t1", "question": "x"})
    assert res.status_code == 400 and "JSON" in res.json()["error"]


@pytest.mark.parametrize(
    ("headers", "body", "error"),
    [
        # a "simple" request another page may send without asking first
        ({"content-type": "text/plain; application/json"}, '{"thread_id":"t1","question":"x"}',
         "JSON"),
        # a JSON post from a page on another origin
        ({"content-type": "application/json", "origin": "https://evil.example"},
         '{"thread_id":"t1","question":"x"}', "another origin"),
        ({"content-type": "application/json", "origin": "null"},
         '{"thread_id":"t1","question":"x"}', "another origin"),
        # 30,000 nested brackets
        ({"content-type": "application/json"}, "[" * 30000 + "]" * 30000, "nested"),
        # a lone surrogate, valid JSON but no text
        ({"content-type": "application/json"}, '{"thread_id":"t9","question":"why \\ud800?"}',
         "surrogate"),
    ],
)  # fmt: skip
async def test_hostile_bodies_get_a_4xx_naming_why_and_break_no_thread(
    client: httpx.AsyncClient, headers: dict[str, str], body: str, error: str
) -> None:
    res = await client.post("/api/ask", content=body.encode(), headers=headers)
    assert res.status_code == 400 and error in res.json()["error"]
    # the thread named in the refused body still answers
    again = await ask(client, "какой средний RPS у catalog-api в dc-a за последний час?", "t9")
    assert again.status_code == 200


async def test_a_same_origin_post_is_answered(client: httpx.AsyncClient) -> None:
    res = await client.post(
        "/api/ask",
        json={"thread_id": "t3", "question": "какой средний RPS у catalog-api в dc-a?"},
        headers={"origin": "http://chat.test"},
    )
    assert res.status_code == 200


async def test_page_and_assets_are_served_with_a_strict_policy(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js">' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    js = await client.get("/static/app.js")
    assert js.status_code == 200 and "textContent" in js.text and "innerHTML" not in js.text
    assert (await client.get("/static/../web.py")).status_code == 404
    info = (await client.get("/api/info")).json()
    assert info["questions"] == ["q1"] and info["environments"] == ["dc-a", "dc-b"]


async def test_remember_this_in_the_web_chat_is_admin_only_and_needs_a_yes(
    client: httpx.AsyncClient,
    tmp_path,
) -> None:
    await ask(client, "what is the RPS of catalog-api in dc-a in the last hour?", user="alice")
    await ask(
        client, "note: the RPS counts only GET /, see https://wiki.example.com/rps", user="alice"
    )
    refused = (await ask(client, "remember this", user="alice")).json()
    assert refused["kind"] == "refused" and "Only an admin" in refused["markdown"]
    draft = (await ask(client, "запомни это", user="boss")).json()
    assert draft["kind"] == "draft" and "only GET /" in draft["markdown"]
    saved = (await ask(client, "да", user="boss")).json()
    assert saved["kind"] == "saved"
    text = (tmp_path / "kb.jsonl").read_text()
    assert (
        "https://wiki.example.com/rps" in text and '"source":"http://chat.test/#thread=t1"' in text
    )


async def test_a_thread_read_back_holds_the_question_redacted(client: httpx.AsyncClient) -> None:
    token = "glpat-" + "Ab3dEf6hIj9kLm2nOp5q"
    res = await ask(client, f"why does catalog-api in dc-a fail? my token {token}", "t5")
    assert res.status_code == 200
    history = (await client.get("/api/threads/t5")).json()["messages"]
    asked = history[0]["text"]
    assert token not in asked and "catalog-api" in asked


@pytest.mark.parametrize(
    ("host", "served"),
    [
        ("chat.example.com", True),
        ("chat.example.com:8443", True),
        ("eu.chat.example.com", True),
        ("attacker.example", False),  # a name pointed at this address by another page
        ("10.0.0.7:8080", False),
    ],
)
async def test_only_the_hosts_the_chat_is_reached_by_are_served(
    session: WorldSession, host: str, served: bool
) -> None:
    assert session.conversation is not None and session.config is not None
    app = build_web_app(
        conversation=session.conversation,
        role_of=session.config.role_of,
        clock=session.clock,
        environments=list(session.config.environments),
        allowed_hosts=["chat.example.com", "*.chat.example.com"],
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://x") as c:
        page = await c.get("/", headers={"host": host})
        asked = await c.post(
            "/api/ask", json={"thread_id": "h1", "question": "q"}, headers={"host": host}
        )
        probe = await c.get("/healthz", headers={"host": host})
    assert (page.status_code == 200) is served and (asked.status_code != 421) is served
    assert probe.status_code == 200  # a probe reaches the pod by its address
