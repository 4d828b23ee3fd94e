"""Mattermost event payloads are total: any websocket frame and any event (keys missing,
wrong types, `data.post` as broken or deeply nested JSON, huge strings) is parsed and
handled by the listener without an exception, raised or swallowed; a redelivered event is
answered once, and a well-formed direct message is answered exactly once, in its thread.

The listener runs against a recording stand-in for the Mattermost API and a conversation
that answers at once, so what is checked is the parsing and routing of the payload.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from structlog.testing import capture_logs

from bot.mattermost._listener import MattermostListener
from bot.mattermost._socket import _parse
from bot.settings import MattermostSettings
from planner.shapes.answer import Answer
from planner.shapes.turn import Turn
from policy.scope import Scope
from tests.property._tier import TIER

NOW = datetime(2026, 7, 20, 11, 40, tzinfo=UTC)
BOT = {"id": "bot-id", "username": "infrabot"}
SETTINGS = MattermostSettings(url="https://mm.example.com", team="sre")


class _Long(str):
    """A long payload that prints as its recipe, so a failing example stays readable."""

    def __new__(cls, recipe: str, text: str) -> _Long:
        out = super().__new__(cls, text)
        out.recipe = recipe  # type: ignore[attr-defined]
        return out

    def __repr__(self) -> str:
        return self.recipe  # type: ignore[attr-defined,no-any-return]


# a frame the websocket's 8 MB limit lets through, and a post no length cap stops
DEEP = _Long('"[" * 50_000 + "]" * 50_000', "[" * 50_000 + "]" * 50_000)
HUGE = _Long('"x" * 200_000', "x" * 200_000)


class FakeApi:
    """What the listener calls on Mattermost, answered from memory and recorded."""

    url = "https://mm.example.com"
    token = "t"

    def __init__(self, thread: list[Any]) -> None:
        self._thread = thread
        self.posted: list[tuple[str, str, dict[str, Any]]] = []  # (channel, root, props)
        self.patched: list[tuple[str, dict[str, Any]]] = []
        self.deleted: list[str] = []

    async def is_member(self, channel_id: str) -> bool:
        return True

    async def user(self, user_id: str) -> dict[str, Any]:
        return {"id": user_id, "username": "alice", "is_bot": False}

    async def thread(self, post_id: str) -> list[Any]:
        return self._thread

    async def typing(self, channel_id: str, parent_id: str = "") -> None:
        return None

    async def create_post(
        self, channel_id: str, message: str, *, root_id: str = "", props: Any = None, **_: Any
    ) -> dict[str, Any]:
        assert isinstance(channel_id, str) and isinstance(message, str)
        self.posted.append((channel_id, root_id, props or {}))
        return {"id": f"reply-{len(self.posted)}"}

    async def patch_post(self, post_id: str, message: str, *, props: Any = None, **_: Any) -> Any:
        assert isinstance(message, str)
        self.patched.append((post_id, props or {}))
        return {"id": post_id}

    async def delete_post(self, post_id: str) -> None:
        self.deleted.append(post_id)

    async def upload(self, channel_id: str, name: str, content: bytes, mime: str) -> str:
        return "file-1"


class FakeConversation:
    memory = None

    def pending_question(self, channel: str, root: str) -> str | None:
        return None

    async def answer(self, turn: Turn, progress: object = None) -> Any:
        answer = Answer(question=turn.question, scope=Scope(), summary="ok", final=True)
        return SimpleNamespace(answer=answer)


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)  # NaN is no JSON a server sends, and never equals itself
    | st.text(st.characters(exclude_categories=()), max_size=8)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=3,
)
IDS = st.sampled_from(["p1", "p2", "c1", "dm", "", "bot-id", "u1"]) | SCALARS
WEIRD_STRINGS = st.sampled_from(
    ["", "{", '{"id": ', "null", "[]", "1e999", DEEP, HUGE, '"\\ud800"']
)


def _posts(message: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "id": IDS,
            "channel_id": IDS,
            "root_id": IDS,
            "user_id": IDS,
            "message": message,
            "create_at": st.integers() | st.sampled_from(["abc", "1.5", 1.5, [], {}]) | SCALARS,
            "delete_at": st.integers(0, 1) | SCALARS,
            "type": st.sampled_from(["", "system_join_channel"]) | SCALARS,
            "props": st.fixed_dictionaries(
                {}, optional={"from_bot": SCALARS, "from_webhook": SCALARS, "infrabot": SCALARS}
            )
            | JSON,
        },
    )


MESSAGES = (
    st.sampled_from(["@infrabot why does service-a return 502?", "@infrabot", "hi", HUGE])
    | st.text(st.characters(exclude_categories=()), max_size=30)
    | SCALARS
)


def _encoded(post: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`data.post` as Mattermost sends it (a JSON string), as a mapping, or broken."""
    return st.one_of(post.map(json.dumps), post, WEIRD_STRINGS, SCALARS)


EVENTS = st.fixed_dictionaries(
    {},
    optional={
        "event": st.sampled_from(
            [
                "posted",
                "posted",
                "reaction_added",
                "user_added",
                "channel_updated",
                "hello",
                "typing",
                "",
            ]
        )
        | JSON,
        "data": st.fixed_dictionaries(
            {},
            optional={
                "post": _encoded(_posts(MESSAGES)),
                "channel_type": st.sampled_from(["D", "O", "P", ""]) | SCALARS,
                "mentions": st.sampled_from(['["bot-id"]', "[", '{"a": 1}']) | JSON,
                "reaction": JSON,
                "channel_id": SCALARS,
            },
        )
        | JSON
        | WEIRD_STRINGS,
        "broadcast": st.fixed_dictionaries({}, optional={"channel_id": SCALARS}) | SCALARS,
        "seq": SCALARS,
    },
)


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """One event loop for every example: a loop per example costs more than the event."""
    runner = asyncio.new_event_loop()
    yield runner
    runner.close()


async def deliver(event: dict[str, Any], thread: list[Any]) -> tuple[FakeApi, list[Any], int]:
    """The event delivered twice (a reconnect redelivers): what was posted, the log, and
    how many posts the first delivery made."""
    api = FakeApi(thread)
    listener = MattermostListener(
        api=api,  # type: ignore[arg-type]
        settings=SETTINGS,
        conversation=FakeConversation(),  # type: ignore[arg-type]
        role_of=lambda user: "engineer",
        clock=lambda: NOW,
        typing_every_s=3600,
    )
    listener.me = dict(BOT)
    with capture_logs() as logs:
        try:
            await listener.on_event(event)
            await listener.idle()
            first = len(api.posted) + len(api.patched)
            await listener.on_event(event)
            await listener.idle()
        finally:
            await listener.aclose()
    return api, logs, first


def _decoded_post(event: dict[str, Any]) -> dict[str, Any] | None:
    data = event.get("data")
    post = data.get("post") if isinstance(data, dict) else None
    if isinstance(post, str):
        try:
            post = json.loads(post)
        except (ValueError, RecursionError):
            return None
    return post if isinstance(post, dict) else None


@TIER
@given(event=EVENTS, thread=st.lists(_posts(MESSAGES) | SCALARS, max_size=2))
# found by this property: a `data.post` of deeply nested JSON raises RecursionError out
# of the listener's `_json` (bot/mattermost/_listener.py)
@example(event={"event": "posted", "data": {"post": DEEP}}, thread=[])
# found by this property: a non-mapping `data` or `broadcast`, a `create_at` that is not a
# number, a non-mapping `props`; a thread post whose `create_at` is not a number (the
# question is then dropped unanswered, logged as mattermost.post_failed)
@example(event={"event": "posted", "data": "x"}, thread=[])
@example(event={"event": "user_added", "broadcast": "x"}, thread=[])
@example(
    event={
        "event": "posted",
        "data": {"post": '{"id": "p1", "channel_id": "c1", "create_at": "abc"}'},
    },
    thread=[],
)
@example(
    event={"event": "posted", "data": {"post": {"id": "p1", "channel_id": "c1", "props": "x"}}},
    thread=[],
)
@example(
    event={
        "event": "posted",
        "data": {
            "channel_type": "D",
            "post": {"id": "p1", "channel_id": "dm", "user_id": "u1", "message": "why?"},
        },
    },
    thread=[{"id": "p0", "create_at": "yesterday", "message": "hi"}],
)
def test_any_event_is_handled_without_an_exception(
    loop: asyncio.AbstractEventLoop, event: dict[str, Any], thread: list[Any]
) -> None:
    api, logs, first = loop.run_until_complete(deliver(event, thread))
    errors = [e for e in logs if e.get("log_level") in ("error", "critical")]
    assert not errors, f"an exception was swallowed: {errors[:2]}"
    assert len(api.posted) + len(api.patched) == first, "a redelivered event was answered again"
    post = _decoded_post(event)
    if api.posted:
        assert event.get("event") == "posted" and post is not None
        channel = str(post["channel_id"])
        root = str(post.get("root_id") or post["id"])
        assert all(c == channel and r == root for c, r, _ in api.posted), api.posted


@TIER
@given(
    message=st.text(st.characters(exclude_categories=()), max_size=60),
    encoded=st.booleans(),
    root=st.sampled_from(["", "root-1"]),
)
def test_a_direct_message_is_answered_exactly_once_in_its_thread(
    loop: asyncio.AbstractEventLoop, message: str, encoded: bool, root: str
) -> None:
    post = {"id": "p1", "channel_id": "dm", "user_id": "u1", "root_id": root, "message": message,
            "create_at": 1_784_547_600_000}  # fmt: skip
    data = {"channel_type": "D", "post": json.dumps(post) if encoded else post}
    api, logs, _ = loop.run_until_complete(deliver({"event": "posted", "data": data}, [post]))
    assert not [e for e in logs if e.get("log_level") == "error"], logs
    thread = root or "p1"
    # what stays in the thread: the posts not deleted (a progress note is, once answered)
    kept = [post for i, post in enumerate(api.posted) if f"reply-{i + 1}" not in api.deleted]
    assert [(c, r) for c, r, _ in kept] == [("dm", thread)]
    assert all(r == thread for _, r, _ in api.posted)
    props = [p for _, p in api.patched] or [kept[0][2]]
    assert props[-1].get("infrabot") in ("answer", "help"), (api.posted, api.patched)


@TIER
@given(raw=st.one_of(st.binary(max_size=40), st.text(max_size=40), WEIRD_STRINGS,
                     JSON.map(json.dumps), _posts(MESSAGES).map(json.dumps)))  # fmt: skip
@example(raw=DEEP)  # found by this property: RecursionError out of _parse (_socket.py)
@example(raw=b"\xff\xfe")
def test_any_websocket_frame_parses_to_an_event_or_none(raw: str | bytes) -> None:
    with capture_logs():
        event = _parse(raw)
    assert event is None or (isinstance(event, dict) and event == json.loads(raw))
