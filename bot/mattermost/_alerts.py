"""The alert desk's Mattermost side: channels by name, the thread's posts, and the
investigation answered in the thread the way a mention is (progress note, answer, the
thread's working memory for follow-ups)."""

from __future__ import annotations

from typing import Any

from bot.alerts.desk import SEEN_PROP, THREAD_PROP, KnownThread
from bot.alerts.payload import AlertState
from bot.mattermost._alert_posts import ALERT_USER
from bot.mattermost._api import MattermostApi
from bot.mattermost._listener import MattermostListener
from bot.mattermost._render import quiet_mentions
from planner import Language

__all__ = ["MattermostAlerts"]

# recent posts searched for a group's thread after a restart (a page is 200 posts)
_FIND_PAGES = 3


class MattermostAlerts:
    def __init__(self, api: MattermostApi, listener: MattermostListener, team: str) -> None:
        self.api = api
        self.listener = listener
        self.team = team
        self._channels: dict[str, str] = {}
        self._team_id: str | None = None

    async def channel_id(self, name: str) -> str:
        if name not in self._channels:
            if self._team_id is None:
                self._team_id = str((await self.api.team_by_name(self.team))["id"])
            channel = await self.api.channel_by_name(self._team_id, name)
            self._channels[name] = str(channel["id"])
        return self._channels[name]

    async def post(
        self, channel_id: str, text: str, *, root_id: str = "", props: dict[str, Any]
    ) -> str:
        # an alert's labels and annotations are the pipeline's text: an "@channel" in a
        # description notifies no one
        quiet = quiet_mentions(text)
        posted = await self.api.create_post(channel_id, quiet, root_id=root_id, props=props)
        return str(posted["id"])

    async def patch(self, post_id: str, text: str, props: dict[str, Any]) -> None:
        await self.api.patch_post(post_id, quiet_mentions(text), props=props)

    async def find_thread(self, channel_id: str, group: str) -> KnownThread | None:
        me = str(self.api.me.get("id") or "")
        for page in range(_FIND_PAGES):
            posts = await self.api.channel_posts(channel_id, page=page)
            for post in reversed(posts):
                props = post.get("props") or {}
                if post.get("user_id") == me and props.get(THREAD_PROP) == group:
                    seen = props.get(SEEN_PROP)
                    return KnownThread(
                        root_id=str(post["id"]),
                        seen=tuple(str(s) for s in seen) if isinstance(seen, list) else (),
                        resolved=props.get("infrabot_alert_status") == AlertState.RESOLVED,
                    )
            if len(posts) < 200:
                return None
        return None

    async def investigate(
        self, channel_id: str, root_id: str, question: str, language: Language
    ) -> None:
        await self.listener.answer_alert(channel_id, root_id, ALERT_USER, question, language)
