"""The Mattermost listener: which posts to answer, and how the answer is posted.

Answered: a post that @mentions the bot in a channel the bot is a member of (and, when
`mattermost.channels` is set, one of those channels), and any post in a direct message.
Ignored: the bot's own posts, posts by other bots and webhooks, system posts, posts in
channels the bot is not in, and a post id already seen (events are redelivered after a
reconnect). Each accepted post runs in its own task, so the websocket keeps reading.

Identity: the author's username decides the role (`config.admins`); the bot's token is
only used to read the thread and post, never to widen what the user may see.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Mapping
from datetime import datetime
from typing import Any

import structlog

from bot.conversation import Conversation
from bot.knowledge import KnowledgeDesk, is_remember_request
from bot.mattermost._alert_posts import ALERT_USER, AlertPosts
from bot.mattermost._api import (
    MattermostApi,
    MattermostAuthError,
    MattermostError,
    websocket_url,
)
from bot.mattermost._knowledge import KnowledgeReplies
from bot.mattermost._partition import Partition, Shares
from bot.mattermost._payload import mapping, millis
from bot.mattermost._progress import UPDATE_EVERY_S, ProgressNote, progress_text
from bot.mattermost._render import REPORT_NAME, quiet_mentions, render_reply
from bot.mattermost._socket import Backoff, EventStream
from bot.mattermost._thread import read_thread
from bot.settings import MattermostSettings
from planner import Language, Phrase, ThreadMessage, Turn, language_of, say
from policy.toolset import Role

log = structlog.get_logger(__name__)

PROGRESS_TEXT = progress_text({}, Language.EN)


class MattermostListener:
    def __init__(
        self,
        *,
        api: MattermostApi,
        settings: MattermostSettings,
        conversation: Conversation,
        role_of: Callable[[str], Role],
        clock: Callable[[], datetime],
        desk: KnowledgeDesk | None = None,
        backoff: Backoff | None = None,
        max_concurrent: int = 4,
        typing_every_s: float = 4.0,
        progress_every_s: float = UPDATE_EVERY_S,
        partition: Shares | None = None,
        long_answer_chars: int = 12_000,
        seen_limit: int = 4096,
    ) -> None:
        self.api = api
        self.settings = settings
        self.conversation = conversation
        self.role_of = role_of
        self.clock = clock
        self.knowledge = (
            KnowledgeReplies(
                api=api, desk=desk, team=settings.team, memory=conversation.memory, role_of=role_of
            )
            if desk is not None
            else None
        )
        self._backoff = backoff or Backoff()
        self._slots = asyncio.Semaphore(max_concurrent)
        self._typing_every = typing_every_s
        self._progress_every = progress_every_s
        self.partition: Shares = partition or Partition()
        self._long = long_answer_chars
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._seen_limit = seen_limit
        self._member: dict[str, bool] = {}
        self._channel_types: dict[str, str] = {}
        self._allowed: set[str] | None = None  # channel ids from settings.channels
        self._alert_posts = (
            AlertPosts(settings.alert_post_channels, clock)
            if settings.alert_post_channels
            else None
        )
        self._locks: weakref.WeakValueDictionary[tuple[str, str], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._tasks: set[asyncio.Task[None]] = set()
        self._last_post_ms = 0
        self.stream: EventStream | None = None
        self.me: dict[str, Any] = {}
        # why the listener is not (yet) connected, for /readyz; None once logged in
        self.last_error: str | None = None

    # --- start-up ------------------------------------------------------------------

    async def start(self) -> None:
        """Log in (retrying while the server is down) and resolve the configured channels."""
        attempt = 0
        while True:
            try:
                self.me = await self.api.login()
                self.last_error = None
                break
            except MattermostAuthError:
                raise
            except MattermostError as exc:
                delay = self._backoff.delay(attempt)
                attempt += 1
                self.last_error = f"login failed: {exc}"[:300]
                log.warning("mattermost.login_retry", error=str(exc), in_s=round(delay, 2))
                await asyncio.sleep(delay)
        self._allowed = None
        if self.settings.channels:
            self._allowed = set((await self._channel_ids(self.settings.channels)).values())
        if self._alert_posts is not None:
            posts = self._alert_posts
            ids = await self._channel_ids(list(posts.settings))
            posts.ids = {
                ids[name]: language for name, language in posts.settings.items() if name in ids
            }
        log.info("mattermost.started", user=self.me.get("username"), channels=self._allowed)

    async def _channel_ids(self, names: list[str]) -> dict[str, str]:
        """The configured channels' ids by name; one that cannot be found is logged."""
        team = await self.api.team_by_name(self.settings.team)
        out: dict[str, str] = {}
        for name in names:
            try:
                channel = await self.api.channel_by_name(team["id"], name)
            except MattermostError as exc:
                log.warning("mattermost.channel_unknown", channel=name, error=str(exc))
                continue
            out[name] = str(channel["id"])
        return out

    async def run(self) -> None:
        """Until cancelled: listen, answer, reconnect. Cancelling also ends answer tasks."""
        await self.start()
        self.stream = EventStream(
            websocket_url(self.api.url),
            self.api.token,
            on_event=self.on_event,
            on_connect=self._on_connect,
            backoff=self._backoff,
        )
        try:
            await self.stream.run()
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def idle(self) -> None:
        """Wait until every accepted post has been handled (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- events --------------------------------------------------------------------

    async def on_event(self, event: Mapping[str, Any]) -> None:
        kind = event.get("event")
        data = mapping(event.get("data"))
        broadcast = mapping(event.get("broadcast"))
        if kind == "posted":
            post = _json(data.get("post"))
            if isinstance(post, dict):
                self._accept(post, data)
        elif kind == "reaction_added" and self.knowledge is not None:
            reaction = _json(data.get("reaction"))
            if isinstance(reaction, dict) and reaction.get("user_id") != self.me.get("id"):
                self._spawn(self.knowledge.on_reaction(reaction))
        elif kind in ("user_added", "user_removed", "channel_deleted", "channel_updated"):
            self._member.pop(str(broadcast.get("channel_id") or data.get("channel_id")), None)

    def _accept(self, post: dict[str, Any], data: Mapping[str, Any]) -> None:
        post_id = str(post.get("id") or "")
        channel_id = str(post.get("channel_id") or "")
        if not post_id or not channel_id:
            return
        if data.get("channel_type"):
            self._channel_types[channel_id] = str(data["channel_type"])
        self._last_post_ms = max(self._last_post_ms, millis(post.get("create_at")))
        props = mapping(post.get("props"))
        if post.get("user_id") == self.me.get("id"):
            self._own_post(post_id, channel_id, props)
            return
        webhook = (
            str(props.get("from_bot")).lower() == "true"
            or str(props.get("from_webhook")).lower() == "true"
        )
        if webhook and not post.get("type"):
            self._alert_posted(post_id, channel_id, post)
        if webhook or post.get("type"):
            return
        if post_id in self._seen:
            log.debug("mattermost.duplicate", post=post_id)
            return
        if not self.partition.owns(str(post.get("root_id") or post_id)):
            return  # another replica's thread
        self._remember_seen(post_id)
        mentions = _json(data.get("mentions"), default=[])
        self._spawn(
            self._handle(post, mentioned_ids=mentions if isinstance(mentions, list) else [])
        )

    def _remember_seen(self, post_id: str) -> None:
        self._seen[post_id] = None
        while len(self._seen) > self._seen_limit:
            self._seen.popitem(last=False)

    def _alert_posted(self, post_id: str, channel_id: str, post: Mapping[str, Any]) -> None:
        """An alert an incoming webhook posted in a channel that opted in: investigated in
        the post's own thread (once; a repeat within the hour is not)."""
        posts = self._alert_posts
        if posts is None or post_id in self._seen or not self.partition.owns(post_id):
            return
        asked = posts.question(post)
        if asked is None:
            return
        self._remember_seen(post_id)
        question, language = asked
        log.info("mattermost.alert_post", post=post_id, channel=channel_id)
        self._spawn(
            self._answer(
                channel_id, post_id, ALERT_USER, "engineer", question, [], language=language
            )
        )

    async def _on_connect(self, reconnected: bool) -> None:
        """After a reconnect, read what was posted meanwhile in the channels we answer in;
        post-id dedupe keeps an already answered post from being answered again. On the
        first connect, what was asked in the configured channels in the last
        `mattermost.catch_up_s` (while this process was not there: a restart) and has no
        answer from the bot after it yet."""
        if not reconnected:
            await self.catch_up()
            return
        if not self._last_post_ms:
            return
        for channel_id, member in list(self._member.items()):
            if member:
                await self._read_back(channel_id, self._last_post_ms, unanswered_only=False)

    async def catch_up(self) -> None:
        """What was asked in the configured channels in the last `mattermost.catch_up_s`
        and has no answer from the bot yet, in the threads this replica answers now: at
        start, and when it takes over a share of the threads another replica held."""
        window = self.settings.catch_up_s
        if window <= 0 or not self._allowed:
            return  # (with no channels listed, there is no list of where to look)
        # Mattermost's own clock writes create_at: the wall clock, not the turns' clock
        since = int(time.time() * 1000) - int(window * 1000)
        for channel_id in sorted(self._allowed):
            await self._read_back(channel_id, since, unanswered_only=True)

    async def _read_back(self, channel_id: str, since: int, *, unanswered_only: bool) -> None:
        """Accept what was posted in the channel after `since`, as if it had just come;
        `unanswered_only`: people's posts the bot has not answered (posted in the thread
        after them) yet."""
        try:
            posts = await self.api.channel_posts(channel_id, since_ms=since)
        except MattermostError as exc:
            log.warning("mattermost.catch_up_failed", channel=channel_id, error=str(exc))
            return
        me = self.me.get("id")
        # the bot's last word in each thread: a post before it was answered already
        answered: dict[str, int] = {}
        for post in posts:
            if isinstance(post, Mapping) and post.get("user_id") == me:
                thread = str(post.get("root_id") or post.get("id"))
                answered[thread] = max(answered.get(thread, 0), millis(post.get("create_at")))
        for post in posts:
            if not isinstance(post, Mapping) or post.get("delete_at"):
                continue
            at = millis(post.get("create_at"))
            if at <= since:
                continue
            thread = str(post.get("root_id") or post.get("id"))
            if unanswered_only:
                if post.get("user_id") == me or answered.get(thread, 0) >= at:
                    continue
                log.info("mattermost.catch_up", post=post.get("id"), channel=channel_id)
            self._accept(dict(post), {"channel_type": self._channel_types.get(channel_id, "O")})

    async def _is_member(self, channel_id: str) -> bool:
        if channel_id not in self._member:
            self._member[channel_id] = await self.api.is_member(channel_id)
        return self._member[channel_id]

    def _mentioned(self, text: str, mentioned_ids: list[Any]) -> bool:
        if self.me.get("id") in mentioned_ids:
            return True
        name = re.escape(str(self.me.get("username") or self.settings.bot_username))
        return re.search(rf"(?<![\w.-])@{name}(?![\w-])", text, re.IGNORECASE) is not None

    def _strip_mention(self, text: str) -> str:
        name = re.escape(str(self.me.get("username") or self.settings.bot_username))
        return " ".join(re.sub(rf"(?<![\w.-])@{name}(?![\w-])[,:]?", " ", text, flags=re.I).split())

    # --- one post --------------------------------------------------------------------

    async def _handle(self, post: dict[str, Any], *, mentioned_ids: list[Any]) -> None:
        channel_id = str(post["channel_id"])
        root_id = str(post.get("root_id") or post["id"])
        text = str(post.get("message") or "")
        try:
            direct = self._channel_types.get(channel_id) == "D"
            if not direct and self._allowed is not None and channel_id not in self._allowed:
                return
            if not await self._is_member(channel_id):
                log.info("mattermost.not_member", channel=channel_id)
                return
            author = await self.api.user(str(post.get("user_id")))
            if author.get("is_bot"):
                return
            username = str(author.get("username") or "")
            role = self.role_of(username)
            if self.knowledge is not None and await self.knowledge.reply_in_thread(
                channel_id, root_id, username, role, text
            ):
                return
            awaited = self.conversation.pending_question(channel_id, root_id) is not None
            if not (direct or awaited or self._mentioned(text, mentioned_ids)):
                return  # (a reply to the bot's own question back needs no mention)
            question = self._strip_mention(text)
            log.info("mattermost.mention", post=post["id"], user=username, channel=channel_id)
            if not question:
                await self.api.create_post(
                    channel_id,
                    "Ask me about a service, an environment and a time, e.g. "
                    '"why did service-a return 502 at 14:11 in dc-a?"',
                    root_id=root_id,
                    props={"infrabot": "help"},
                )
                return
            thread = await self._thread(root_id, post)
            if self.knowledge is not None and is_remember_request(question):
                await self.knowledge.remember(channel_id, root_id, username, role, question, thread)
                return
            await self._answer(channel_id, root_id, username, role, question, thread)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # one bad post never stops the listener
            log.error("mattermost.post_failed", post=post.get("id"), error=repr(exc)[:300])

    async def serves(self, channel_id: str) -> bool:
        """The channel is one the bot answers in: one of `mattermost.channels` (all, when
        that is empty), or a direct message, which is always served."""
        if self._allowed is None or channel_id in self._allowed:
            return True
        kind = self._channel_types.get(channel_id)
        if kind is None:
            try:
                kind = str((await self.api.channel(channel_id)).get("type") or "")
            except MattermostError as exc:
                log.warning("mattermost.channel_unknown", channel=channel_id, error=str(exc))
                return False
            self._channel_types[channel_id] = kind
        return kind == "D"

    async def is_member(self, channel_id: str) -> bool:
        """The bot can post in the channel."""
        try:
            return await self._is_member(channel_id)
        except MattermostError as exc:
            log.warning("mattermost.member_unknown", channel=channel_id, error=str(exc))
            return False

    def ask_from_command(self, channel_id: str, username: str, question: str) -> None:
        """`/infrabot QUESTION`: a thread of its own, started by the bot for the asker
        (mentioned, so Mattermost notifies them and they follow the thread), answered as
        a mention is."""
        self._spawn(self._from_command(channel_id, username, question))

    async def _from_command(self, channel_id: str, username: str, question: str) -> None:
        language = language_of(question)
        text = say(Phrase.COMMAND_ASKED, language, user=username, question="")
        # the asker and the question ride on the root post: with several replicas, the one
        # that owns the new thread answers it when the post reaches it (the websocket)
        props = {"infrabot": "command", "asker": username, "question": question}
        try:
            root = await self.api.create_post(
                channel_id, text + quiet_mentions(question), props=props
            )
        except MattermostError as exc:
            log.error("mattermost.command_failed", channel=channel_id, error=str(exc))
            return
        log.info("mattermost.command", post=root.get("id"), user=username, channel=channel_id)
        if self.partition.count <= 1:
            role = self.role_of(username)
            await self._answer(channel_id, str(root["id"]), username, role, question, [])

    def _own_post(self, post_id: str, channel_id: str, props: Mapping[str, Any]) -> None:
        """The bot's own posts, which every replica receives: a knowledge entry another
        replica saved is learnt here too; a thread `/infrabot` started on another replica
        is answered by the replica that owns it."""
        if self.knowledge is not None and props.get("infrabot_knowledge"):
            self._spawn(self.knowledge.learn(props["infrabot_knowledge"], post_id))
        if (
            props.get("infrabot") == "command"
            and self.partition.count > 1
            and self.partition.owns(post_id)
            and post_id not in self._seen
            and isinstance(props.get("asker"), str)
            and isinstance(props.get("question"), str)
        ):
            self._remember_seen(post_id)
            asker, question = str(props["asker"]), str(props["question"])
            role = self.role_of(asker)
            self._spawn(self._answer(channel_id, post_id, asker, role, question, []))

    async def _thread(self, root_id: str, post: Mapping[str, Any]) -> list[ThreadMessage]:
        name = str(self.me.get("username") or self.settings.bot_username)
        return await read_thread(
            self.api, root_id, post, me_id=str(self.me.get("id")), me_name=name
        )

    async def _typing(self, channel_id: str, root_id: str) -> None:
        while True:
            with contextlib.suppress(MattermostError):
                await self.api.typing(channel_id, root_id)
            await asyncio.sleep(self._typing_every)

    async def answer_alert(
        self, channel_id: str, root_id: str, user: str, question: str, language: Language
    ) -> None:
        """An alert's investigation, in the thread its root post opened: answered as a
        mention is (so follow-ups in the thread carry its scope), in the route's language."""
        await self._answer(channel_id, root_id, user, "engineer", question, [], language=language)

    async def _answer(
        self,
        channel_id: str,
        root_id: str,
        user: str,
        role: Role,
        question: str,
        thread: list[ThreadMessage],
        *,
        language: Language | None = None,
    ) -> None:
        key = (channel_id, root_id)
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        async with lock, self._slots:
            typing = asyncio.create_task(self._typing(channel_id, root_id))
            progress_id: str | None = None
            note: ProgressNote | None = None
            told = language
            language = told or language_of(question)
            try:
                progress = await self.api.create_post(
                    channel_id,
                    progress_text({}, language),
                    root_id=root_id,
                    props={"infrabot": "progress"},
                )
                progress_id = str(progress["id"])
                note = ProgressNote(self.api, progress_id, language, every_s=self._progress_every)
                turn = Turn(
                    question=question,
                    user=user,
                    role=role,
                    channel=channel_id,
                    root_id=root_id,
                    now=self.clock(),
                    thread=thread,
                    language=told,
                )
                outcome = await self.conversation.answer(turn, note.tell)
                await note.close()
                await self._post_answer(channel_id, root_id, progress_id, outcome.answer)
            except Exception as exc:
                if isinstance(exc, asyncio.CancelledError):
                    raise
                if note is not None:
                    await note.close()
                log.error("mattermost.answer_failed", root=root_id, error=repr(exc)[:300])
                text = (
                    "I could not finish this investigation (internal error: "
                    f"{type(exc).__name__}). Nothing was changed; please ask again."
                )
                await self._say(channel_id, root_id, text, progress_id, {"infrabot": "error"})
            finally:
                if note is not None:
                    await note.close()
                typing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await typing

    async def _post_answer(
        self, channel_id: str, root_id: str, progress_id: str, answer: Any
    ) -> None:
        reply = render_reply(answer, limit=self._long)
        file_ids = None
        if reply.attachment is not None:
            file_ids = [
                await self.api.upload(
                    channel_id, REPORT_NAME, reply.attachment.encode(), "text/markdown"
                )
            ]
        await self._say(
            channel_id, root_id, reply.message, progress_id, {"infrabot": "answer"}, file_ids
        )

    async def _say(
        self,
        channel_id: str,
        root_id: str,
        text: str,
        progress_id: str | None,
        props: dict[str, Any],
        file_ids: list[str] | None = None,
    ) -> dict[str, Any]:
        """Post `text` as a new reply in the thread, so that the asker is notified of the
        answer (an edit notifies no one), then delete the progress post. When the reply
        cannot be posted, the progress post is edited into it instead."""
        try:
            posted = await self.api.create_post(
                channel_id, text, root_id=root_id, props=props, file_ids=file_ids
            )
        except MattermostError as exc:
            if progress_id is None:
                raise
            log.warning("mattermost.reply_failed", root=root_id, error=str(exc))
            return await self.api.patch_post(progress_id, text, props=props, file_ids=file_ids)
        if progress_id is not None:
            try:
                await self.api.delete_post(progress_id)
            except MattermostError as exc:  # a progress note left behind is harmless
                log.warning("mattermost.progress_not_deleted", post=progress_id, error=str(exc))
        return posted

    async def rebuild_knowledge(self, *, max_pages: int = 50) -> int:
        """Rebuild the knowledge base from the bot's own "saved" posts in its channels."""
        assert self.knowledge is not None
        return await self.knowledge.rebuild(
            sorted(self._allowed or ()), me_id=str(self.me.get("id")), max_pages=max_pages
        )


def _json(value: Any, default: Any = None) -> Any:
    if isinstance(value, dict | list):
        return value
    if not isinstance(value, str | bytes):
        return default
    try:
        return json.loads(value)
    except (ValueError, RecursionError):  # RecursionError: nested thousands deep
        return default
