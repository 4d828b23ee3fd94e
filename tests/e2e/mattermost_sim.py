"""A small Mattermost server for end-to-end tests: the REST v4 subset the bot uses and a
websocket that emits `posted` / `reaction_added` events.

Run with `evals.simulators.server.BackgroundServer(sim.app)`. Test code drives it from the
test's thread (`user_post`, `replay`, `react`, `drop_sockets`, `refuse_sockets`); the bot
talks to it through the official `mattermostdriver` and `websockets` clients.

Unlike a real server, every post is emitted to every connected socket (also posts in
channels the bot is not a member of), so the bot's own membership check is what a test
exercises. What the bot did is recorded: posts, edits, uploaded files, typing events.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette

from tests.e2e.mattermost_sim_routes import _CLOSE, SimRoutes, _new_id, _now_ms, _Socket


@dataclass
class MattermostSim(SimRoutes):
    team_name: str = "ops"
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    channels: dict[str, dict[str, Any]] = field(default_factory=dict)
    posts: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    typing: list[dict[str, str]] = field(default_factory=list)
    # every edit as (post id, message), in order: Mattermost keeps a post's edit history
    edits: list[tuple[str, str]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    refuse_sockets: bool = False
    socket_connections: int = 0

    def __post_init__(self) -> None:
        self.team = {"id": _new_id(), "name": self.team_name, "display_name": self.team_name}
        self._lock = threading.RLock()
        self._sockets: list[_Socket] = []
        self.app = Starlette(routes=self._routes())

    # --- test-side API ---------------------------------------------------------------

    def add_user(self, username: str, *, is_bot: bool = False) -> str:
        user_id = _new_id()
        with self._lock:
            self.users[user_id] = {
                "id": user_id,
                "username": username,
                "is_bot": is_bot,
                "first_name": "",
                "last_name": "",
                "roles": "system_user",
            }
            self.tokens[f"token-{username}"] = user_id
        return user_id

    def token_for(self, username: str) -> str:
        return f"token-{username}"

    def user_id(self, username: str) -> str:
        return next(u["id"] for u in self.users.values() if u["username"] == username)

    def add_channel(self, name: str, members: list[str], *, kind: str = "O") -> str:
        channel_id = _new_id()
        with self._lock:
            self.channels[channel_id] = {
                "id": channel_id,
                "name": name,
                "display_name": name,
                "type": kind,
                "team_id": self.team["id"] if kind in "OP" else "",
                "members": {self.user_id(m) for m in members},
            }
        return channel_id

    def direct(self, a: str, b: str) -> str:
        ids = sorted([self.user_id(a), self.user_id(b)])
        return self.add_channel(f"{ids[0]}__{ids[1]}", [a, b], kind="D")

    def user_post(
        self,
        username: str,
        channel_id: str,
        message: str,
        root_id: str = "",
        props: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return self._create(self.user_id(username), channel_id, message, root_id, props or {})

    def replay(self, post_id: str) -> None:
        """Emit the `posted` event of an existing post again (a redelivered event)."""
        with self._lock:
            post = dict(self.posts[post_id])
        self._emit_posted(post)

    def react(self, username: str, post_id: str, emoji: str) -> None:
        with self._lock:
            post = self.posts[post_id]
        reaction = {
            "user_id": self.user_id(username),
            "post_id": post_id,
            "emoji_name": emoji,
            "create_at": _now_ms(),
        }
        self._broadcast(
            "reaction_added", {"reaction": json.dumps(reaction)}, {"channel_id": post["channel_id"]}
        )

    def emit(self, event: str, data: dict[str, Any]) -> None:
        """Send any event as it is (malformed ones included)."""
        self._broadcast(event, data, {})

    def drop_sockets(self) -> None:
        """Close every websocket, as a server restart does."""
        with self._lock:
            sockets = list(self._sockets)
        for s in sockets:
            s.loop.call_soon_threadsafe(s.queue.put_nowait, _CLOSE)

    def open_sockets(self) -> int:
        with self._lock:
            return len(self._sockets)

    def thread(self, root_id: str) -> list[dict[str, Any]]:
        with self._lock:
            posts = [p for p in self.posts.values() if root_id in (p["id"], p["root_id"])]
        return sorted(posts, key=lambda p: (p["create_at"], p["id"]))

    def posts_by(self, username: str) -> list[dict[str, Any]]:
        uid = self.user_id(username)
        with self._lock:
            return sorted(
                (dict(p) for p in self.posts.values() if p["user_id"] == uid),
                key=lambda p: (p["create_at"], p["id"]),
            )

    # --- internals -------------------------------------------------------------------

    def _create(
        self,
        user_id: str,
        channel_id: str,
        message: str,
        root_id: str,
        props: dict[str, Any],
        file_ids: list[str] | None = None,
    ) -> dict[str, Any]:
        with self._lock:
            now = max([_now_ms(), *(p["create_at"] + 1 for p in self.posts.values())])
            post = {
                "id": _new_id(),
                "create_at": now,
                "update_at": now,
                "edit_at": 0,
                "delete_at": 0,
                "is_pinned": False,
                "user_id": user_id,
                "channel_id": channel_id,
                "root_id": root_id,
                "original_id": "",
                "message": message,
                "type": "",
                "props": props,
                "hashtags": "",
                "file_ids": file_ids or [],
                "pending_post_id": "",
            }
            self.posts[post["id"]] = post
        self._emit_posted(post)
        return dict(post)

    def _emit_posted(self, post: dict[str, Any]) -> None:
        with self._lock:
            channel = self.channels[post["channel_id"]]
            sender = self.users[post["user_id"]]
            names = set(re.findall(r"@([\w.-]+)", post["message"]))
            mentions = [u["id"] for u in self.users.values() if u["username"] in names]
        data = {
            "channel_display_name": channel["display_name"],
            "channel_name": channel["name"],
            "channel_type": channel["type"],
            "post": json.dumps(post),
            "sender_name": "@" + sender["username"],
            "set_online": True,
            "team_id": channel["team_id"],
        }
        if mentions:
            data["mentions"] = json.dumps(mentions)
        self._broadcast("posted", data, {"channel_id": post["channel_id"]})

    def _broadcast(self, event: str, data: dict[str, Any], broadcast: dict[str, Any]) -> None:
        with self._lock:
            sockets = list(self._sockets)
        for s in sockets:
            message = {
                "event": event,
                "data": data,
                "broadcast": {"omit_users": None, "user_id": "", "team_id": "", **broadcast},
            }
            s.loop.call_soon_threadsafe(s.queue.put_nowait, message)
