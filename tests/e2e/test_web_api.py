"""The web chat's JSON API and page, without a browser: what a client gets back."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from bot.knowledge import KnowledgeBase, KnowledgeDesk
from bot.settings import WebIdentityMode, WebIdentitySettings
from bot.web import build_web_app
from bot.web_identity import Nobody, TrustedProxy
from evals.session import WorldSession
from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world


@pytest.fixture
def session() -> Iterator[WorldSession]:
    with WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW, admins=["boss"]) as s:
        yield s


# the authenticating proxy in front of the chat connects from here (httpx's ASGI client is
# 127.0.0.1); "sre-leads" are admins besides the configured name "boss"
PROXY = WebIdentitySettings(
    mode=WebIdentityMode.PROXY, trusted_proxies=["127.0.0.0/8"], admin_groups=["sre-leads"]
)


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
        identity=TrustedProxy(PROXY, session.config.role_of),
        clock=session.clock,
        desk=desk,
        questions=["q1"],
        environments=list(session.config.environments),
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://chat.test", headers={"X-Forwarded-User": "alice"}
    ) as c:
        yield c


async def ask(
    client: httpx.AsyncClient,
    question: str,
    thread: str = "t1",
    user: str = "alice",
    groups: str = "",
) -> httpx.Response:
    """A question as the proxy passes it on for a signed-in `user`."""
    return await client.post(
        "/api/ask",
        json={"thread_id": thread, "question": question},
        headers={"X-Forwarded-User": user, "X-Forwarded-Groups": groups},
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
    words = re.sub(r"\(https?://[^)]*\)", "", follow["markdown"])  # a port may hold "412"
    assert "137" in words and "412" not in words

    history = (await client.get("/api/threads/t1")).json()["messages"]
    assert [(m["author"], m["is_bot"]) for m in history] == [
        ("alice", False),
        ("infrabot", True),
        ("alice", False),
        ("infrabot", True),
    ]
    other = (await ask(client, "what is the RPS of catalog-api?", thread="t2")).json()
    assert other["answer"]["scope"]["env"] != "dc-b"  # threads do not share memory


async def test_the_streamed_progress_says_what_is_read_of_which_object_in_the_askers_language(
    client: httpx.AsyncClient,
) -> None:
    res = await client.post(
        "/api/ask",
        json={"thread_id": "t-progress", "question": "какой средний RPS у catalog-api в dc-a?"},
        headers={"Accept": "application/x-ndjson"},
    )
    assert res.status_code == 200
    lines = [json.loads(line) for line in res.text.splitlines() if line.strip()]
    progress = [line for line in lines if line["type"] == "progress"]
    assert progress and lines[-1]["type"] == "answer"
    # each event says what the read is and of which object; the page's lines are Russian
    first = progress[0]
    assert first["state"] == "reading" and first["read"] == "requests"
    assert first["subject"] == {"kind": "workload", "name": "catalog-api"}
    assert first["lines"][0].startswith("Читаю запросы")
    assert first["lines"][0].endswith("catalog-api в dc-a")
    assert first["status"].startswith("Разбираюсь… готово чтений: 0 из ")
    assert progress[-1]["lines"] == []  # every read over


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        ({"thread_id": "../etc", "question": "x"}, "thread_id"),
        ({"thread_id": "t1", "question": "   "}, "question"),
        ({"thread_id": "t1", "question": "x" * 8001}, "at most 8000"),
        ({"thread_id": "t1", "question": "x", "user": ["boss"]}, "user"),
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
    refused = (await ask(client, "remember this", user="alice")).json()
    assert refused["kind"] == "refused" and "Only an admin" in refused["markdown"]
    # the admin in a thread of their own (alice's is not theirs to post into)
    await ask(client, "what is the RPS of catalog-api in dc-a in the last hour?", "t1b", "boss")
    await ask(
        client, "note: the RPS counts only GET /, see https://wiki.example.com/rps", "t1b", "boss"
    )
    draft = (await ask(client, "запомни это", "t1b", user="boss")).json()
    assert draft["kind"] == "draft" and "only GET /" in draft["markdown"]
    saved = (await ask(client, "да", "t1b", user="boss")).json()
    assert saved["kind"] == "saved"
    text = (tmp_path / "kb.jsonl").read_text()
    assert (
        "https://wiki.example.com/rps" in text and '"source":"http://chat.test/#thread=t1b"' in text
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
        identity=TrustedProxy(PROXY, session.config.role_of),
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


async def test_who_is_asking_comes_from_the_proxy_never_from_the_body(
    client: httpx.AsyncClient,
) -> None:
    """A body naming the admin is not the admin; the proxy's name is. Members of an admin
    group are admins; "remember this" from anyone else is refused."""
    await ask(client, "what is the RPS of catalog-api in dc-a in the last hour?", "k1")
    claimed = await client.post(
        "/api/ask", json={"thread_id": "k1", "question": "remember this", "user": "boss"}
    )
    assert claimed.json()["kind"] == "refused"  # the proxy said alice
    await ask(client, "what is the RPS of catalog-api in dc-a in the last hour?", "k2", "carol")
    await ask(client, "note: the RPS counts only GET /", "k2", "carol")
    draft = (await ask(client, "remember this", "k2", "carol", groups="devs, sre-leads")).json()
    assert draft["kind"] == "draft"
    info = (await client.get("/api/info", headers={"X-Forwarded-User": "carol"})).json()
    assert info["user"] == "carol"  # the page shows the name it is known by


async def test_the_proxy_headers_are_believed_only_from_the_proxy(session: WorldSession) -> None:
    assert session.conversation is not None and session.config is not None
    app = build_web_app(
        conversation=session.conversation,
        identity=TrustedProxy(PROXY, session.config.role_of),
        clock=session.clock,
        environments=list(session.config.environments),
    )
    body = {"thread_id": "d1", "question": "what is the RPS of catalog-api in dc-a?"}
    # a pod that reaches the chat directly, sending the header itself
    direct = httpx.ASGITransport(app=app, client=("10.44.0.9", 51000))
    async with httpx.AsyncClient(transport=direct, base_url="http://chat.test") as c:
        forged = await c.post("/api/ask", json=body, headers={"X-Forwarded-User": "boss"})
        thread = await c.get("/api/threads/d1", headers={"X-Forwarded-User": "boss"})
        probe = await c.get("/healthz")
    assert forged.status_code == 403 and "proxy" in forged.json()["error"]
    assert thread.status_code == 403 and probe.status_code == 200
    # through the proxy, but nobody signed in
    proxied = httpx.ASGITransport(app=app, client=("127.0.0.1", 51000))
    async with httpx.AsyncClient(transport=proxied, base_url="http://chat.test") as c:
        anonymous = await c.post("/api/ask", json=body)
    assert anonymous.status_code == 401 and "sign in" in anonymous.json()["error"]


async def test_without_an_identity_serve_answers_no_question(session: WorldSession) -> None:
    assert session.conversation is not None and session.config is not None
    app = build_web_app(
        conversation=session.conversation,
        identity=Nobody(),
        clock=session.clock,
        environments=list(session.config.environments),
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://chat.test") as c:
        body = {"thread_id": "n1", "question": "what is the RPS of catalog-api?", "user": "boss"}
        res = await c.post("/api/ask", json=body)
        page = await c.get("/")
    assert res.status_code == 401 and "web.identity" in res.json()["error"]
    assert "answer" not in res.json() and page.status_code == 200


async def test_a_thread_is_its_creators_alone(client: httpx.AsyncClient) -> None:
    """Another user can neither read a thread nor post into it (and so cannot move its
    scope before the owner's next follow-up); to them it does not exist."""
    first = (await ask(client, "what is the RPS of catalog-api in dc-a?", "own1")).json()
    assert first["answer"]["scope"]["env"] == "dc-a"
    peek = await client.get("/api/threads/own1", headers={"X-Forwarded-User": "mallory"})
    assert peek.status_code == 404 and "no such thread" in peek.json()["error"]
    hijack = await ask(client, "the same in dc-b", "own1", user="mallory")
    assert hijack.status_code == 404 and "answer" not in hijack.json()
    follow = (await ask(client, "and the error rate?", "own1")).json()
    assert follow["answer"]["scope"]["env"] == "dc-a"  # mallory's "dc-b" never got in
    history = (await client.get("/api/threads/own1")).json()["messages"]
    assert {m["author"] for m in history} == {"alice", "infrabot"}
