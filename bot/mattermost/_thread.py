"""Re-read a Mattermost thread: Mattermost is the source of truth for thread context."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import structlog

from bot.mattermost._api import MattermostApi, MattermostError
from bot.mattermost._payload import mapping, millis
from planner import ThreadMessage

log = structlog.get_logger(__name__)

MAX_THREAD_MESSAGES = 50
MAX_MESSAGE_CHARS = 4000


async def read_thread(
    api: MattermostApi, root_id: str, post: Mapping[str, Any], *, me_id: str, me_name: str
) -> list[ThreadMessage]:
    """Humans' messages and the bot's own earlier answers (drafts and saved knowledge too)
    before `post`, oldest first. Its progress notes, other bots, webhooks and system posts
    are left out. An unreadable thread is an empty one: the question is still answered."""
    try:
        posts = await api.thread(root_id)
    except MattermostError as exc:
        log.warning("mattermost.thread_unreadable", root=root_id, error=str(exc))
        return []
    created = millis(post.get("create_at"))
    out: list[ThreadMessage] = []
    for p in posts:
        if not isinstance(p, Mapping):
            continue
        if p.get("id") == post.get("id") or p.get("type") or p.get("delete_at"):
            continue
        if created and millis(p.get("create_at")) > created:
            continue
        at = datetime.fromtimestamp(millis(p.get("create_at")) / 1000, tz=UTC)
        text = str(p.get("message") or "")[:MAX_MESSAGE_CHARS]
        props = mapping(p.get("props"))
        if p.get("user_id") == me_id:
            if props.get("infrabot") in ("answer", "draft", "knowledge"):
                out.append(ThreadMessage(author=me_name, text=text, is_bot=True, at=at))
            continue
        if str(props.get("from_bot")).lower() == "true" or props.get("from_webhook"):
            continue
        try:
            user = await api.user(str(p.get("user_id")))
        except MattermostError:
            continue
        if user.get("is_bot"):
            continue
        out.append(ThreadMessage(author=str(user.get("username")), text=text, at=at))
    return out[-MAX_THREAD_MESSAGES:]
