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

import asyncio
import contextlib
import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

_CLOSE = object()


def _new_id() -> str:
    return uuid.uuid4().hex[:26]


def _now_ms() -> int:
    return int(time.time() * 1000)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"status_code": status, "message": message}, status_code=status)


@dataclass
class _Socket:
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[Any]
    user_id: str
    seq: int = 0


@dataclass
class MattermostSim:
    team_name: str = "ops"
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    channels: dict[str, dict[str, Any]] = field(default_factory=dict)
    posts: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    typing: list[dict[str, str]] = field(default_factory=list)
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

    def _auth(self, request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        token = header[7:] if header.lower().startswith("bearer ") else ""
        return self.tokens.get(token)

    def _routes(self) -> list[Any]:
        def api(path: str, fn: Any, methods: list[str]) -> Route:
            async def endpoint(request: Request) -> Response:
                with self._lock:
                    self.requests.append((request.method, request.url.path))
                user_id = self._auth(request)
                if user_id is None:
                    return _error(401, "Invalid or expired session, please login again.")
                return await fn(request, user_id)

            return Route("/api/v4" + path, endpoint, methods=methods)

        return [
            api("/users/me", self._me, ["GET"]),
            api("/users/ids", self._users_by_ids, ["POST"]),
            api("/users/{user_id}/typing", self._typing, ["POST"]),
            api("/users/{user_id}", self._user, ["GET"]),
            api("/teams/name/{name}", self._team, ["GET"]),
            api("/teams/{team_id}/channels/name/{name}", self._channel_by_name, ["GET"]),
            api("/channels/{channel_id}/members/{user_id}", self._member, ["GET"]),
            api("/channels/{channel_id}/posts", self._channel_posts, ["GET"]),
            api("/posts", self._post_create, ["POST"]),
            api("/posts/{post_id}/patch", self._post_patch, ["PUT"]),
            api("/posts/{post_id}/thread", self._post_thread, ["GET"]),
            api("/posts/{post_id}", self._post_get, ["GET"]),
            api("/files", self._upload, ["POST"]),
            WebSocketRoute("/api/v4/websocket", self._websocket),
        ]

    async def _me(self, request: Request, me: str) -> Response:
        return JSONResponse(self.users[me])

    async def _user(self, request: Request, me: str) -> Response:
        uid = request.path_params["user_id"]
        uid = me if uid == "me" else uid
        return JSONResponse(self.users[uid]) if uid in self.users else _error(404, "no user")

    async def _users_by_ids(self, request: Request, me: str) -> Response:
        ids = await request.json()
        return JSONResponse([self.users[i] for i in ids if i in self.users])

    async def _typing(self, request: Request, me: str) -> Response:
        body = await request.json()
        with self._lock:
            self.typing.append(
                {
                    "user_id": me,
                    "channel_id": body.get("channel_id", ""),
                    "parent_id": body.get("parent_id", ""),
                }
            )
        return JSONResponse({"status": "OK"})

    async def _team(self, request: Request, me: str) -> Response:
        if request.path_params["name"] != self.team["name"]:
            return _error(404, "no team")
        return JSONResponse(self.team)

    async def _channel_by_name(self, request: Request, me: str) -> Response:
        name = request.path_params["name"]
        for c in self.channels.values():
            if c["name"] == name and c["team_id"] == request.path_params["team_id"]:
                return JSONResponse({k: v for k, v in c.items() if k != "members"})
        return _error(404, "no channel")

    async def _member(self, request: Request, me: str) -> Response:
        channel = self.channels.get(request.path_params["channel_id"])
        uid = request.path_params["user_id"]
        uid = me if uid == "me" else uid
        if channel is None or uid not in channel["members"]:
            return _error(404, "not a member")
        return JSONResponse({"channel_id": channel["id"], "user_id": uid, "roles": "channel_user"})

    async def _channel_posts(self, request: Request, me: str) -> Response:
        channel_id = request.path_params["channel_id"]
        if channel_id not in self.channels or me not in self.channels[channel_id]["members"]:
            return _error(403, "not a member")
        with self._lock:
            posts = [p for p in self.posts.values() if p["channel_id"] == channel_id]
        posts.sort(key=lambda p: (p["create_at"], p["id"]), reverse=True)
        if "since" in request.query_params:
            since = int(request.query_params["since"])
            posts = [p for p in posts if p["update_at"] > since]
        else:
            page = int(request.query_params.get("page", 0))
            per_page = int(request.query_params.get("per_page", 60))
            posts = posts[page * per_page : (page + 1) * per_page]
        return JSONResponse(
            {"order": [p["id"] for p in posts], "posts": {p["id"]: p for p in posts}}
        )

    async def _post_create(self, request: Request, me: str) -> Response:
        body = await request.json()
        channel = self.channels.get(body.get("channel_id", ""))
        if channel is None or me not in channel["members"]:
            return _error(403, "You do not have the appropriate permissions.")
        root_id = body.get("root_id") or ""
        if root_id and root_id not in self.posts:
            return _error(400, "Invalid RootId parameter")
        if len(body.get("message", "")) > 16383:
            return _error(400, "message too long")
        post = self._create(
            me,
            channel["id"],
            body.get("message", ""),
            root_id,
            body.get("props") or {},
            body.get("file_ids") or [],
        )
        return JSONResponse(post, status_code=201)

    async def _post_patch(self, request: Request, me: str) -> Response:
        body = await request.json()
        with self._lock:
            post = self.posts.get(request.path_params["post_id"])
            if post is None:
                return _error(404, "no post")
            if post["user_id"] != me:
                return _error(403, "You do not have the appropriate permissions.")
            if "message" in body:
                if len(body["message"]) > 16383:
                    return _error(400, "message too long")
                post["message"] = body["message"]
            if "props" in body:
                post["props"] = body["props"]
            if "file_ids" in body:
                post["file_ids"] = body["file_ids"]
            post["edit_at"] = post["update_at"] = _now_ms()
            out = dict(post)
        self._broadcast("post_edited", {"post": json.dumps(out)}, {"channel_id": out["channel_id"]})
        return JSONResponse(out)

    async def _post_get(self, request: Request, me: str) -> Response:
        post = self.posts.get(request.path_params["post_id"])
        return JSONResponse(post) if post else _error(404, "no post")

    async def _post_thread(self, request: Request, me: str) -> Response:
        post = self.posts.get(request.path_params["post_id"])
        if post is None:
            return _error(404, "no post")
        posts = self.thread(post["root_id"] or post["id"])
        return JSONResponse(
            {"order": [p["id"] for p in reversed(posts)], "posts": {p["id"]: p for p in posts}}
        )

    async def _upload(self, request: Request, me: str) -> Response:
        body = await request.body()
        content_type = request.headers.get("content-type", "")
        msg = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + body
        )
        fields: dict[str, str] = {}
        infos = []
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            filename = part.get_filename()
            payload = part.get_payload(decode=True) or b""
            if filename:
                file_id = _new_id()
                info = {
                    "id": file_id,
                    "name": filename,
                    "size": len(payload),
                    "mime_type": part.get_content_type(),
                    "user_id": me,
                }
                with self._lock:
                    self.files[file_id] = {**info, "content": payload}
                infos.append(info)
            elif name:
                fields[str(name)] = payload.decode()
        if not infos or not fields.get("channel_id"):
            return _error(400, "need channel_id and files")
        return JSONResponse({"file_infos": infos, "client_ids": []}, status_code=201)

    async def _websocket(self, websocket: WebSocket) -> None:
        if self.refuse_sockets:
            await websocket.close(code=1013)
            return
        await websocket.accept()
        try:
            challenge = json.loads(await websocket.receive_text())
            token = (challenge.get("data") or {}).get("token", "")
            user_id = self.tokens.get(token)
            if challenge.get("action") != "authentication_challenge" or user_id is None:
                await websocket.send_json(
                    {
                        "status": "FAIL",
                        "seq_reply": challenge.get("seq"),
                        "error": {"id": "api.web_socket_router.not_authenticated"},
                    }
                )
                await websocket.close()
                return
            await websocket.send_json({"status": "OK", "seq_reply": challenge.get("seq")})
            sock = _Socket(asyncio.get_running_loop(), asyncio.Queue(), user_id)
            await websocket.send_json(
                {
                    "event": "hello",
                    "data": {"server_version": "sim"},
                    "broadcast": {"user_id": user_id},
                    "seq": sock.seq,
                }
            )
        except (WebSocketDisconnect, ValueError):
            return
        with self._lock:
            self._sockets.append(sock)
            self.socket_connections += 1
        reader = asyncio.create_task(self._drain(websocket))
        try:
            while True:
                getter = asyncio.create_task(sock.queue.get())
                done, _ = await asyncio.wait({getter, reader}, return_when=asyncio.FIRST_COMPLETED)
                if reader in done:
                    getter.cancel()
                    break
                item = getter.result()
                if item is _CLOSE:
                    await websocket.close(code=1001)
                    break
                sock.seq += 1
                await websocket.send_json({**item, "seq": sock.seq})
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            with self._lock:
                self._sockets.remove(sock)
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await reader

    @staticmethod
    async def _drain(websocket: WebSocket) -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while True:
                await websocket.receive_text()
