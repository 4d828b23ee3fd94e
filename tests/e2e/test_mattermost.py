"""End to end through Mattermost: a simulated server, the official driver, the real
conversation path on a simulated world. Each test asserts what users see in the channel."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from bot.knowledge import KnowledgeBase, KnowledgeDesk
from bot.mattermost import (
    COMMAND_PATH,
    PROGRESS_TEXT,
    Backoff,
    MattermostApi,
    MattermostListener,
    command_route,
    render_reply,
)
from bot.settings import MattermostSettings
from bot.sockets import bind, url_of
from bot.web import uvicorn_server
from evals.session import WorldSession
from evals.simulators.server import BackgroundServer
from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world
from tests.e2e.mattermost_sim import MattermostSim

RPS_A = "@infrabot какой средний RPS у catalog-api в dc-a за последний час?"


async def eventually(check: Callable[[], Any], timeout: float = 30.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = check()
        if value:
            return value
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


@pytest.fixture
def session() -> Iterator[WorldSession]:
    with WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW, admins=["boss"]) as s:
        yield s


@pytest.fixture
def sim() -> Iterator[MattermostSim]:
    sim = MattermostSim(team_name="ops")
    for name in ("infrabot", "alice", "boss"):
        sim.add_user(name)
    sim.users[sim.user_id("infrabot")]["is_bot"] = True
    sim.add_user("deploybot", is_bot=True)
    sim.add_channel("incidents", ["infrabot", "alice", "boss", "deploybot"])
    sim.add_channel("random", ["alice", "boss"])
    with BackgroundServer(sim.app) as server:
        sim.base_url = server.base_url  # type: ignore[attr-defined]
        yield sim


def channel(sim: MattermostSim, name: str) -> str:
    return next(c["id"] for c in sim.channels.values() if c["name"] == name)


def answers(sim: MattermostSim, root_id: str) -> list[dict[str, Any]]:
    return [
        p
        for p in sim.thread(root_id)
        if p["user_id"] == sim.user_id("infrabot") and p["props"].get("infrabot") == "answer"
    ]


def prose(message: str) -> str:
    """The words of a message without its links: a random port in a URL is not a value said."""
    return re.sub(r"\(?https?://[^\s)]+\)?", "", message)


def bot_posts(sim: MattermostSim, root_id: str) -> list[dict[str, Any]]:
    """The bot's posts a person sees in the thread (deleted ones are not shown)."""
    return [
        p
        for p in sim.thread(root_id)
        if p["user_id"] == sim.user_id("infrabot") and not p.get("delete_at")
    ]


@contextlib.asynccontextmanager
async def running(
    sim: MattermostSim,
    session: WorldSession,
    kb_path: Any,
    channels: list[str] | None = None,
    **kw: Any,
) -> AsyncIterator[MattermostListener]:
    assert session.conversation is not None and session.config is not None
    base_url = sim.base_url  # type: ignore[attr-defined]
    desk = KnowledgeDesk(
        KnowledgeBase.load(kb_path),
        clock=session.clock,
        allowed_hosts=session.config.allowed_link_hosts,
    )
    listener = MattermostListener(
        api=MattermostApi(base_url, sim.token_for("infrabot"), timeout_s=5),
        settings=MattermostSettings(
            url=base_url, team="ops", bot_username="infrabot", channels=channels or []
        ),
        conversation=session.conversation,
        role_of=session.config.role_of,
        clock=session.clock,
        desk=desk,
        backoff=Backoff(min_s=0.05, max_s=0.2),
        typing_every_s=0.2,
        **kw,
    )
    task = asyncio.create_task(listener.run())
    try:
        await eventually(lambda: listener.stream is not None and listener.stream.connected.is_set())
        yield listener
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        leftover = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        assert not [t for t in leftover if not t.done()], f"leaked tasks: {leftover}"


@pytest.fixture
async def bot(
    sim: MattermostSim, session: WorldSession, tmp_path: Any
) -> AsyncIterator[MattermostListener]:
    async with running(sim, session, tmp_path / "knowledge.jsonl") as listener:
        yield listener


async def barrier(sim: MattermostSim, listener: MattermostListener) -> None:
    """A cheap mention that the bot must answer: once it has, every earlier event is done."""
    post = sim.user_post("alice", channel(sim, "incidents"), "@infrabot")
    await eventually(lambda: bot_posts(sim, post["id"]))
    await listener.idle()


async def test_mention_is_answered_in_the_thread_with_facts_and_a_follow_up(
    sim: MattermostSim, bot: MattermostListener
) -> None:
    question = sim.user_post("alice", channel(sim, "incidents"), RPS_A)
    [answer] = await eventually(lambda: answers(sim, question["id"]))

    assert answer["root_id"] == question["id"]
    # asked in Russian: the frame of the answer is Russian
    assert "412" in answer["message"] and "Факты" in answer["message"]
    assert "dc-a" in answer["message"]
    # the answer is a new reply (the asker is notified of it, not of the progress note),
    # and the progress post is gone (deleted just after the answer is posted): one bot
    # post left in the thread
    await eventually(lambda: len(bot_posts(sim, question["id"])) == 1)
    assert answer["edit_at"] == 0
    assert PROGRESS_TEXT not in answer["message"]
    progress = [p for p in sim.thread(question["id"]) if p["props"].get("infrabot") == "progress"]
    assert len(progress) == 1 and progress[0]["delete_at"] > 0
    assert progress[0]["create_at"] < answer["create_at"]
    assert any(t["parent_id"] == question["id"] for t in sim.typing)

    follow = sim.user_post(
        "alice", channel(sim, "incidents"), "@infrabot the same in dc-b", root_id=question["id"]
    )
    second = await eventually(lambda: answers(sim, question["id"])[1:])
    assert "137" in second[0]["message"] and "dc-b" in second[0]["message"]
    assert "412" not in prose(second[0]["message"])
    # the bot re-read the thread for the follow-up
    assert ("GET", f"/api/v4/posts/{follow['root_id']}/thread") in sim.requests


async def test_direct_message_is_answered_without_a_mention(
    sim: MattermostSim, bot: MattermostListener
) -> None:
    dm = sim.direct("alice", "infrabot")
    question = sim.user_post(
        "alice", dm, "what is the RPS of catalog-api in dc-b in the last hour?"
    )
    [answer] = await eventually(lambda: answers(sim, question["id"]))
    assert "137" in answer["message"]


async def test_a_redelivered_event_is_answered_once(
    sim: MattermostSim, bot: MattermostListener
) -> None:
    question = sim.user_post("alice", channel(sim, "incidents"), RPS_A)
    sim.replay(question["id"])
    sim.replay(question["id"])
    await eventually(lambda: answers(sim, question["id"]))
    await barrier(sim, bot)
    assert len(bot_posts(sim, question["id"])) == 1


async def test_posts_by_bots_and_in_foreign_channels_are_ignored(
    sim: MattermostSim, bot: MattermostListener
) -> None:
    by_bot = sim.user_post("deploybot", channel(sim, "incidents"), RPS_A)
    webhook = sim.user_post(
        "alice", channel(sim, "incidents"), RPS_A, props={"from_webhook": "true"}
    )
    foreign = sim.user_post("alice", channel(sim, "random"), RPS_A)
    await barrier(sim, bot)

    assert bot_posts(sim, by_bot["id"]) == []
    assert bot_posts(sim, webhook["id"]) == []
    assert bot_posts(sim, foreign["id"]) == []
    random_id = channel(sim, "random")
    assert ("GET", f"/api/v4/channels/{random_id}/members/me") in sim.requests
    # the bot's own posts come back as events too, and never start another answer
    assert all(p["props"].get("infrabot") for p in sim.posts_by("infrabot"))


async def test_malformed_events_neither_break_nor_reconnect_the_listener(
    sim: MattermostSim, bot: MattermostListener
) -> None:
    sim.emit("posted", {"post": "[1, 2]"})
    sim.emit("posted", {"post": "not json"})
    sim.emit("posted", {"post": json.dumps({"id": "x", "channel_id": "c", "create_at": "soon"})})
    sim.emit("reaction_added", {"reaction": "{"})
    sim.emit("posted", {"post": json.dumps({"id": "y"}), "mentions": "{}"})
    question = sim.user_post("alice", channel(sim, "incidents"), RPS_A)
    [answer] = await eventually(lambda: answers(sim, question["id"]))
    assert "412" in answer["message"]
    assert sim.socket_connections == 1


async def test_reconnects_after_the_server_drops_and_refuses_the_socket(
    sim: MattermostSim, bot: MattermostListener
) -> None:
    await barrier(sim, bot)  # the bot has seen the channel
    sim.refuse_sockets = True
    sim.drop_sockets()
    assert bot.stream is not None
    await eventually(lambda: not bot.stream.connected.is_set())
    # posted while the bot is away: it catches up after reconnecting
    missed = sim.user_post("alice", channel(sim, "incidents"), RPS_A)
    await asyncio.sleep(0.5)  # several refused attempts
    sim.refuse_sockets = False
    await eventually(lambda: sim.open_sockets() == 1 and bot.stream.connected.is_set())
    assert sim.socket_connections == 2
    await eventually(lambda: answers(sim, missed["id"]))

    sim.drop_sockets()
    await eventually(lambda: sim.socket_connections == 3 and sim.open_sockets() == 1)
    after = sim.user_post("alice", channel(sim, "incidents"), RPS_A)
    [answer] = await eventually(lambda: answers(sim, after["id"]))
    assert "412" in answer["message"]
    assert len(answers(sim, missed["id"])) == 1


async def test_a_long_answer_is_a_short_post_with_the_report_attached(
    sim: MattermostSim, session: WorldSession, tmp_path: Any
) -> None:
    async with running(sim, session, tmp_path / "kb.jsonl", long_answer_chars=400) as bot:
        question = sim.user_post("alice", channel(sim, "incidents"), RPS_A)
        [answer] = await eventually(lambda: answers(sim, question["id"]))
        await bot.idle()
    assert len(answer["message"]) <= 400 + 300
    assert "infrabot-report.md" in answer["message"]
    [file_id] = answer["file_ids"]
    report = sim.files[file_id]
    assert report["name"] == "infrabot-report.md"
    assert "412" in report["content"].decode() and "Факты" in report["content"].decode()


async def test_remember_this_drafts_and_saves_only_after_an_admin_confirms(
    sim: MattermostSim, bot: MattermostListener, tmp_path: Any
) -> None:
    incidents = channel(sim, "incidents")
    question = sim.user_post("alice", incidents, RPS_A)
    [answer] = await eventually(lambda: answers(sim, question["id"]))
    summary = answer["message"].splitlines()[0].strip("*")
    root = question["id"]
    sim.user_post(
        "alice",
        incidents,
        "This rate counts only GET /; for all methods see "
        "https://wiki.example.com/catalog/rps and not https://paste.evil.org/x "
        "(password=hunter2)",
        root_id=root,
    )

    refused = sim.user_post("alice", incidents, "@infrabot remember this", root_id=root)
    await eventually(
        lambda: [p for p in bot_posts(sim, root) if p["create_at"] > refused["create_at"]]
    )
    assert "Only an admin" in bot_posts(sim, root)[-1]["message"]

    ask = sim.user_post("boss", incidents, "@infrabot запомни это", root_id=root)
    draft = await eventually(
        lambda: [p for p in bot_posts(sim, root) if p["props"].get("infrabot") == "draft"]
    )
    text = draft[0]["message"]
    assert ask["create_at"] < draft[0]["create_at"]
    assert "only GET /" in text and "https://wiki.example.com/catalog/rps" in text
    assert "paste.evil.org/x" not in text and "hunter2" not in text
    assert summary[:40] in text  # the bot's earlier answer is shown apart, as what is corrected
    assert not (tmp_path / "knowledge.jsonl").exists()

    sim.user_post("alice", incidents, "yes", root_id=root)  # not an admin: not a confirmation
    sim.user_post("boss", incidents, "да", root_id=root)
    saved = await eventually(
        lambda: [p for p in bot_posts(sim, root) if p["props"].get("infrabot") == "knowledge"]
    )
    assert "Saved" in saved[0]["message"]
    [line] = (tmp_path / "knowledge.jsonl").read_text().splitlines()
    entry = json.loads(line)
    assert entry["author"] == "boss" and entry["confirmed_by"] == "boss"
    assert entry["source"].endswith(f"/ops/pl/{root}")
    assert entry["links"] == ["https://wiki.example.com/catalog/rps"]
    assert entry["scope"]["env"] == "dc-a"
    assert summary[:40] not in entry["content"] and summary[:40] in entry["superseded_answer"]
    assert entry == saved[0]["props"]["infrabot_knowledge"]

    # rebuildable from the channel history: the bot's own "saved" posts
    bot.settings = MattermostSettings(url=bot.api.url, team="ops", channels=["incidents"])
    await bot.start()
    (tmp_path / "knowledge.jsonl").unlink()
    assert await bot.rebuild_knowledge() == 1
    assert json.loads((tmp_path / "knowledge.jsonl").read_text()) == entry


async def test_a_reaction_by_an_admin_confirms_a_draft(
    sim: MattermostSim, bot: MattermostListener, tmp_path: Any
) -> None:
    incidents = channel(sim, "incidents")
    root = sim.user_post(
        "alice",
        incidents,
        "catalog-api RPS in dc-b is measured on the "
        "ingress only, the sidecar traffic is not counted",
    )["id"]
    sim.user_post("boss", incidents, "@infrabot save this for next time", root_id=root)
    [draft] = await eventually(
        lambda: [p for p in bot_posts(sim, root) if p["props"].get("infrabot") == "draft"]
    )
    sim.react("alice", draft["id"], "+1")  # not an admin
    sim.react("boss", draft["id"], "white_check_mark")
    await eventually(
        lambda: [p for p in bot_posts(sim, root) if p["props"].get("infrabot") == "knowledge"]
    )
    [line] = (tmp_path / "knowledge.jsonl").read_text().splitlines()
    assert "sidecar traffic is not counted" in json.loads(line)["content"]


def test_mentions_inside_source_text_never_ping_anyone() -> None:
    from planner.shapes.answer import Answer, AnswerFact
    from policy.scope import Scope

    link = "https://kibana.example.com/app/discover#/?_a=(sort:!('@timestamp',desc))"
    answer = Answer(
        question="q",
        scope=Scope(env="dc-a"),
        summary="s",
        facts=[
            AnswerFact(
                text="log line: deploy failed, @channel @alice please look",
                source="logs",
                link=link,
            ),
        ],
    )
    message = render_reply(answer).message
    assert "@channel" not in message and "@alice" not in message
    assert "@\u200bchannel" in message and link in message


async def test_the_progress_note_says_which_sources_are_read_while_the_turn_runs(
    sim: MattermostSim, tmp_path: Any
) -> None:
    """Every source answering slowly: the progress post is edited with the reads done and
    what is read now of which object, in the question's language, before the answer comes
    as its own reply."""
    slow = WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW, latency_s=0.3)
    with slow:
        async with running(sim, slow, tmp_path / "kb.jsonl", progress_every_s=0.05):
            question = sim.user_post("alice", channel(sim, "incidents"), RPS_A)
            [answer] = await eventually(lambda: answers(sim, question["id"]))
            # the progress post is deleted just after the answer is posted
            [note] = await eventually(
                lambda: [
                    p
                    for p in sim.thread(question["id"])
                    if p["props"].get("infrabot") == "progress" and p.get("delete_at")
                ]
            )
    shown = [text for post_id, text in sim.edits if post_id == note["id"]]
    assert shown, "the progress post was never updated"
    assert all("Разбираюсь" in text and "из" in text for text in shown)  # "3 из 5"
    # what is read, of which object, where: not the source's name
    # ("Сейчас читаю: запросы и долю ошибок catalog-api в dc-a")
    assert any(re.search(r"Сейчас читаю: [а-я ]+ catalog-api в dc-a", text) for text in shown), (
        shown
    )
    assert not any("victoriametrics" in text for text in shown)
    assert note["delete_at"] >= answer["create_at"] > 0  # gone once the answer is there


async def test_the_slash_command_starts_a_thread_for_the_asker_and_answers_in_it(
    sim: MattermostSim, bot: MattermostListener
) -> None:
    """`/infrabot QUESTION`, as Mattermost sends it (a form POST with the command's token):
    an ephemeral note at once, then a thread the bot starts mentioning the asker, answered
    in it. A wrong token, an empty command and a channel the bot is not in post nothing."""
    app = Starlette(routes=[command_route(bot, "cmd-token")])
    incidents, random = channel(sim, "incidents"), channel(sim, "random")

    def form(**over: str) -> dict[str, str]:
        base = {
            "token": "cmd-token",
            "channel_id": incidents,
            "user_name": "alice",
            "command": "/infrabot",
            "text": RPS_A.removeprefix("@infrabot "),
            "response_url": "http://127.0.0.1:9/hooks/commands/x",
        }
        return base | over

    before = len(sim.posts_by("infrabot"))
    # served as `infrabot serve` serves it: uvicorn on the listener's own event loop
    sock = bind("127.0.0.1", 0)
    server = uvicorn_server(app)
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with httpx.AsyncClient(base_url=url_of(sock).rstrip("/")) as client:
            taken = await client.post(COMMAND_PATH, data=form())
            refused = await client.post(COMMAND_PATH, data=form(token="wrong"))
            help_ = await client.post(COMMAND_PATH, data=form(text="  "))
            elsewhere = await client.post(COMMAND_PATH, data=form(channel_id=random))
            [root] = await eventually(
                lambda: [
                    p for p in sim.posts_by("infrabot") if p["props"].get("infrabot") == "command"
                ]
            )
            [answer] = await eventually(lambda: answers(sim, root["id"]))
            await bot.idle()
    finally:
        server.should_exit = True
        await serving
        sock.close()
    assert taken.status_code == 200 and taken.json()["response_type"] == "ephemeral"
    assert "тредом" in taken.json()["text"]  # asked in Russian: "as a thread"
    assert root["channel_id"] == incidents and root["message"].startswith("@alice ")
    assert "RPS" in root["message"] and answer["root_id"] == root["id"]
    assert "412" in answer["message"]
    assert refused.status_code == 403
    assert help_.status_code == 200 and "/infrabot" in help_.json()["text"]
    assert elsewhere.json()["response_type"] == "ephemeral"
    # one thread started, one answer: nothing for the refused, empty or foreign commands
    new = [p for p in sim.posts_by("infrabot")[before:] if not p.get("delete_at")]
    assert {p["props"].get("infrabot") for p in new} == {"command", "answer"} and len(new) == 2


async def test_a_question_asked_while_the_bot_restarted_is_answered_once_it_is_back(
    sim: MattermostSim, session: WorldSession, tmp_path: Any
) -> None:
    """A restart (a new pod, a crash) loses no question: what was asked in its channels
    while it was away and has no answer yet is answered when it starts; what it had
    answered before is not answered again."""
    incidents = channel(sim, "incidents")
    async with running(sim, session, tmp_path / "kb.jsonl", channels=["incidents"]):
        before = sim.user_post("alice", incidents, RPS_A)
        await eventually(lambda: answers(sim, before["id"]))
    while_down = sim.user_post("alice", incidents, RPS_A)
    async with running(sim, session, tmp_path / "kb.jsonl", channels=["incidents"]) as back:
        await eventually(lambda: answers(sim, while_down["id"]))
        await back.idle()
    assert len(answers(sim, while_down["id"])) == 1
    assert len(answers(sim, before["id"])) == 1  # not answered a second time
