"""Async wrapper around the official `mattermostdriver` REST client.

The driver is synchronous (`requests`), so every call runs in a worker thread
(`asyncio.to_thread`) and the listener's event loop never blocks.

Errors: every driver/`requests` exception is mapped onto a small tree, raised `from` the
original, with the server's message redacted and truncated:

    MattermostError
      MattermostAuthError      401 (bad or revoked token), 403 (not allowed)
      MattermostNotFound       404 (post, channel, user, or not a member)
      MattermostUnavailable    connection refused/reset, timeout, 5xx
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import requests
from mattermostdriver import Driver
from mattermostdriver import exceptions as mm_exc

from policy.redaction import redact

T = TypeVar("T")


class MattermostError(Exception):
    """A Mattermost API call failed; the message is safe to log."""


class MattermostAuthError(MattermostError):
    pass


class MattermostNotFound(MattermostError):
    pass


class MattermostUnavailable(MattermostError):
    pass


def _message(exc: BaseException) -> str:
    return redact(str(exc))[:300]


def driver_options(url: str, token: str, *, timeout_s: float = 15.0) -> dict[str, Any]:
    """Driver options from a server URL like https://chat.example.com[:8443][/prefix]."""
    parts = urlsplit(url)
    scheme = parts.scheme or "https"
    port = parts.port or (443 if scheme == "https" else 80)
    return {
        "url": parts.hostname or "localhost",
        "scheme": scheme,
        "port": port,
        "basepath": parts.path.rstrip("/") + "/api/v4",
        "token": token,
        "request_timeout": timeout_s,
        "verify": True,
    }


def websocket_url(url: str) -> str:
    parts = urlsplit(url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}/api/v4/websocket"


class MattermostApi:
    """The REST calls the listener needs, async, with mapped errors and a user cache."""

    def __init__(self, url: str, token: str, *, timeout_s: float = 15.0) -> None:
        self.url = url.rstrip("/")
        self._driver = Driver(driver_options(url, token, timeout_s=timeout_s))
        self._users: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.me: dict[str, Any] = {}

    @property
    def token(self) -> str:
        return str(self._driver.client.token or self._driver.options["token"])

    async def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        try:
            return await asyncio.to_thread(fn, *args, **kwargs)
        except (mm_exc.NoAccessTokenProvided, mm_exc.NotEnoughPermissions) as exc:
            raise MattermostAuthError(_message(exc)) from exc
        except mm_exc.ResourceNotFound as exc:
            raise MattermostNotFound(_message(exc)) from exc
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise MattermostUnavailable(_message(exc)) from exc
        except requests.HTTPError as exc:
            status = exc.response.status_code if exc.response is not None else 0
            cls = MattermostUnavailable if status >= 500 else MattermostError
            raise cls(f"HTTP {status}: {_message(exc)}") from exc
        except requests.RequestException as exc:
            raise MattermostUnavailable(_message(exc)) from exc
        except ValueError as exc:  # a body that is not JSON
            raise MattermostError(f"malformed response: {_message(exc)}") from exc

    async def login(self) -> dict[str, Any]:
        self.me = await self._call(self._driver.login)
        return self.me

    async def team_by_name(self, name: str) -> dict[str, Any]:
        return await self._call(self._driver.teams.get_team_by_name, name)

    async def channel_by_name(self, team_id: str, name: str) -> dict[str, Any]:
        return await self._call(self._driver.channels.get_channel_by_name, team_id, name)

    async def channel(self, channel_id: str) -> dict[str, Any]:
        return await self._call(self._driver.channels.get_channel, channel_id)

    async def is_member(self, channel_id: str) -> bool:
        try:
            await self._call(self._driver.channels.get_channel_member, channel_id, "me")
        except (MattermostNotFound, MattermostAuthError):
            return False
        return True

    async def user(self, user_id: str) -> dict[str, Any]:
        if user_id in self._users:
            self._users.move_to_end(user_id)
            return self._users[user_id]
        data: dict[str, Any] = await self._call(self._driver.users.get_user, user_id)
        self._users[user_id] = data
        while len(self._users) > 2000:
            self._users.popitem(last=False)
        return data

    async def thread(self, post_id: str) -> list[dict[str, Any]]:
        """All posts of the thread that `post_id` belongs to, oldest first."""
        data = await self._call(self._driver.posts.get_thread, post_id)
        posts = list((data.get("posts") or {}).values())
        return sorted(posts, key=lambda p: (p.get("create_at") or 0, p.get("id") or ""))

    async def channel_posts(
        self, channel_id: str, *, since_ms: int | None = None, page: int = 0, per_page: int = 200
    ) -> list[dict[str, Any]]:
        params: dict[str, Any] = (
            {"since": since_ms} if since_ms is not None else {"page": page, "per_page": per_page}
        )
        data = await self._call(self._driver.posts.get_posts_for_channel, channel_id, params)
        posts = list((data.get("posts") or {}).values())
        return sorted(posts, key=lambda p: (p.get("create_at") or 0, p.get("id") or ""))

    async def create_post(
        self,
        channel_id: str,
        message: str,
        *,
        root_id: str = "",
        props: dict[str, Any] | None = None,
        file_ids: list[str] | None = None,
    ) -> dict[str, Any]:
        options: dict[str, Any] = {"channel_id": channel_id, "message": message, "root_id": root_id}
        if props:
            options["props"] = props
        if file_ids:
            options["file_ids"] = file_ids
        return await self._call(self._driver.posts.create_post, options)

    async def patch_post(
        self,
        post_id: str,
        message: str,
        *,
        props: dict[str, Any] | None = None,
        file_ids: list[str] | None = None,
    ) -> dict[str, Any]:
        options: dict[str, Any] = {"message": message}
        if props is not None:
            options["props"] = props
        if file_ids:
            options["file_ids"] = file_ids
        return await self._call(self._driver.posts.patch_post, post_id, options)

    async def delete_post(self, post_id: str) -> None:
        await self._call(self._driver.posts.delete_post, post_id)

    async def upload(self, channel_id: str, name: str, content: bytes, mime: str) -> str:
        data = await self._call(
            self._driver.files.upload_file, channel_id, {"files": (name, content, mime)}
        )
        infos = data.get("file_infos") or []
        if not infos or not infos[0].get("id"):
            raise MattermostError("file upload returned no file id")
        return str(infos[0]["id"])

    async def typing(self, channel_id: str, parent_id: str = "") -> None:
        await self._call(
            self._driver.client.post,
            f"/users/{self.me.get('id') or 'me'}/typing",
            {"channel_id": channel_id, "parent_id": parent_id},
        )

    def permalink(self, team: str, post_id: str) -> str:
        return f"{self.url}/{team}/pl/{post_id}"
