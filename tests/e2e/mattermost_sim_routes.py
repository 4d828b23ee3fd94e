"""REST v4 and websocket handlers of the Mattermost simulator (see mattermost_sim.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

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


class SimRoutes:
    """Handlers over the simulator's state (users, channels, posts, files, sockets), which
    `MattermostSim` holds."""

    users: dict[str, dict[str, Any]]
    tokens: dict[str, str]
    channels: dict[str, dict[str, Any]]
    posts: dict[str, dict[str, Any]]
    files: dict[str, dict[str, Any]]
    typing: list[dict[str, str]]
    edits: list[tuple[str, str]]
    requests: list[tuple[str, str]]
    refuse_sockets: bool
    socket_connections: int
    team: dict[str, Any]
    _lock: Any
    _sockets: list[_Socket]

    def _create(
        self,
        user_id: str,
        channel_id: str,
        message: str,
        root_id: str,
        props: dict[str, Any],
        file_ids: list[str] | None = None,
    ) -> dict[str, Any]:
        raise NotImplementedError

    def _broadcast(self, event: str, data: dict[str, Any], broadcast: dict[str, Any]) -> None:
        raise NotImplementedError

    def thread(self, root_id: str) -> list[dict[str, Any]]:
        raise NotImplementedError

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
            api("/channels/{channel_id}", self._channel, ["GET"]),
            api("/channels/{channel_id}/members/{user_id}", self._member, ["GET"]),
            api("/channels/{channel_id}/posts", self._channel_posts, ["GET"]),
            api("/posts", self._post_create, ["POST"]),
            api("/posts/{post_id}/patch", self._post_patch, ["PUT"]),
            api("/posts/{post_id}/thread", self._post_thread, ["GET"]),
            api("/posts/{post_id}", self._post_get, ["GET"]),
            api("/posts/{post_id}", self._post_delete, ["DELETE"]),
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

    async def _channel(self, request: Request, me: str) -> Response:
        channel = self.channels.get(request.path_params["channel_id"])
        if channel is None or me not in channel["members"]:
            return _error(404, "no channel")  # as Mattermost: not even told it exists
        return JSONResponse({k: v for k, v in channel.items() if k != "members"})

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

    def _own(self, request: Request, me: str) -> dict[str, Any] | JSONResponse:
        """The post the request names, if `me` wrote it; else Mattermost's error."""
        post = self.posts.get(request.path_params["post_id"])
        if post is None:
            return _error(404, "no post")
        if post["user_id"] != me:
            return _error(403, "You do not have the appropriate permissions.")
        return post

    async def _post_patch(self, request: Request, me: str) -> Response:
        body = await request.json()
        with self._lock:
            post = self._own(request, me)
            if isinstance(post, JSONResponse):
                return post
            if "message" in body:
                if len(body["message"]) > 16383:
                    return _error(400, "message too long")
                post["message"] = body["message"]
                self.edits.append((post["id"], body["message"]))
            if "props" in body:
                post["props"] = body["props"]
            if "file_ids" in body:
                post["file_ids"] = body["file_ids"]
            post["edit_at"] = post["update_at"] = _now_ms()
            out = dict(post)
        self._broadcast("post_edited", {"post": json.dumps(out)}, {"channel_id": out["channel_id"]})
        return JSONResponse(out)

    async def _post_delete(self, request: Request, me: str) -> Response:
        """As Mattermost: the post stays, marked deleted (threads and channels leave it
        out), and a post_deleted event goes to the channel."""
        with self._lock:
            post = self._own(request, me)
            if isinstance(post, JSONResponse):
                return post
            post["delete_at"] = post["update_at"] = _now_ms()
            out = dict(post)
        self._broadcast(
            "post_deleted", {"post": json.dumps(out)}, {"channel_id": out["channel_id"]}
        )
        return JSONResponse({"status": "OK"})

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
