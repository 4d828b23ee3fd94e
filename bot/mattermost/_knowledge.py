""" "Remember this" in Mattermost: the draft post, confirmation by a reply or a reaction,
and rebuilding the knowledge base from the bot's own "saved" posts.

A saved entry is posted to its thread with the entry in the post's props, so the channel
history is the durable copy and the JSONL file only a cache.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import structlog

from bot.knowledge import CONFIRM_REACTIONS, DeskReply, KnowledgeDesk, KnowledgeEntry
from bot.mattermost._api import MattermostApi, MattermostError
from bot.mattermost._render import quiet_mentions
from bot.memory import WorkingMemory
from planner import ThreadMessage
from policy.toolset import Role

log = structlog.get_logger(__name__)


class KnowledgeReplies:
    def __init__(
        self,
        *,
        api: MattermostApi,
        desk: KnowledgeDesk,
        team: str,
        memory: WorkingMemory,
        role_of: Callable[[str], Role],
    ) -> None:
        self.api = api
        self.desk = desk
        self.team = team
        self.memory = memory
        self.role_of = role_of

    async def remember(
        self,
        channel_id: str,
        root_id: str,
        user: str,
        role: Role,
        text: str,
        thread: list[ThreadMessage],
    ) -> None:
        context = self.memory.last_context(channel_id, root_id)
        scope = context.scope.model_dump(mode="json") if context is not None else {}
        reply = self.desk.request(
            channel=channel_id,
            root_id=root_id,
            user=user,
            role=role,
            text=text,
            thread=thread,
            scope=scope,
            source=self.api.permalink(self.team, root_id),
        )
        post = await self.post(channel_id, root_id, reply)
        if reply.kind == "draft":
            self.desk.attach_post(channel_id, root_id, str(post["id"]))

    async def post(self, channel_id: str, root_id: str, reply: DeskReply) -> dict[str, Any]:
        props: dict[str, Any] = {"infrabot": "draft" if reply.kind == "draft" else "desk"}
        if reply.kind == "saved" and reply.entry is not None:
            props = {
                "infrabot": "knowledge",
                "infrabot_knowledge": reply.entry.model_dump(mode="json"),
            }
        return await self.api.create_post(
            channel_id, quiet_mentions(reply.text), root_id=root_id, props=props
        )

    async def on_reaction(self, reaction: Mapping[str, Any]) -> None:
        """A confirming emoji on a draft post, by an admin, saves the draft."""
        if reaction.get("emoji_name") not in CONFIRM_REACTIONS:
            return
        try:
            user = await self.api.user(str(reaction.get("user_id")))
            username = str(user.get("username") or "")
            reply = self.desk.confirm_post(
                str(reaction.get("post_id")), user=username, role=self.role_of(username)
            )
            if reply is None or reply.kind == "refused":
                return
            draft_entry = reply.entry
            if draft_entry is not None:
                await self.post(draft_entry.channel, draft_entry.root_id, reply)
        except MattermostError as exc:
            log.warning("mattermost.reaction_failed", error=str(exc))

    async def reply_in_thread(
        self, channel_id: str, root_id: str, user: str, role: Role, text: str
    ) -> bool:
        """yes/да/confirm or no/нет in a thread with a pending draft; True when handled."""
        reply = self.desk.answer(
            channel=channel_id, root_id=root_id, user=user, role=role, text=text
        )
        if reply is None:
            return False
        await self.post(channel_id, root_id, reply)
        return True

    async def learn(self, entry: object, post_id: str) -> None:
        """An entry the bot saved (this replica or another): into this replica's base,
        once (the base skips one it has)."""
        try:
            parsed = KnowledgeEntry.model_validate(entry)
            await asyncio.to_thread(self.desk.kb.add, parsed)
        except ValueError:
            log.warning("knowledge.bad_post", post=post_id)

    async def rebuild(self, channel_ids: list[str], *, me_id: str, max_pages: int = 50) -> int:
        """Rebuild the base from the bot's own "saved" posts (only its own: a post by anyone
        else with the same props is not trusted)."""
        entries: list[KnowledgeEntry] = []
        for channel_id in channel_ids:
            for page in range(max_pages):
                posts = await self.api.channel_posts(channel_id, page=page, per_page=200)
                for p in posts:
                    props = p.get("props") or {}
                    if p.get("user_id") != me_id or not props.get("infrabot_knowledge"):
                        continue
                    try:
                        entries.append(KnowledgeEntry.model_validate(props["infrabot_knowledge"]))
                    except ValueError:
                        log.warning("knowledge.bad_post", post=p.get("id"))
                if len(posts) < 200:
                    break
        return await asyncio.to_thread(self.desk.kb.rebuild, entries)
