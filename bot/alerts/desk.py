"""The alert desk: each notification of an alert group becomes, in one Mattermost thread,
the alert (the root post) and its investigation (a reply); later notifications of the
group update that thread, never open another.

Decisions, one home each:
- routing: the first route whose matchers all match the group's labels (`_route`);
- a group's thread: found by its key here, or after a restart among the channel's recent
  posts (the root post carries the group and the alerts already seen);
- what a notification adds: alerts not seen firing before are investigated (the first of
  them; the rest are listed), a repeat adds nothing, a resolved group gets one closing
  reply, a resolved group firing again is said so and investigated;
- the safety valves: investigations of one group per hour, a bounded number running and
  waiting, and a storm mode per channel (more new groups in a window than the limit: the
  rest are listed in one summary post). Every valve is counted in /metrics (`AlertMeters`).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Any, Protocol

import structlog

from bot.alerts.matchers import parse_matcher
from bot.alerts.meters import AlertMeters, GroupOutcome, Held
from bot.alerts.payload import AlertState, Notification, WebhookAlert
from bot.alerts.texts import (
    alert_question,
    closing_text,
    environment_of,
    limited_text,
    refired_text,
    root_text,
    storm_text,
)
from bot.settings import AlertRouteSettings, AlertsSettings
from policy.language import Language

log = structlog.get_logger(__name__)

__all__ = ["MAX_PENDING", "SEEN_PROP", "THREAD_PROP", "AlertDesk", "AlertPoster", "KnownThread"]

THREAD_PROP = "infrabot_alert_group"  # the root post's prop naming its group
SEEN_PROP = "infrabot_alert_seen"  # the alerts (fingerprints) its thread has seen firing
_MAX_GROUPS = 5_000  # groups remembered here; older ones are found again in the channel
_MAX_SEEN = 500
MAX_PENDING = 1_000  # notifications and investigations in hand; more are answered 503
_HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class KnownThread:
    """An alert thread found among a channel's posts."""

    root_id: str
    seen: tuple[str, ...]
    resolved: bool


class AlertPoster(Protocol):
    """Where the desk posts: Mattermost (bot.mattermost.MattermostAlerts)."""

    async def channel_id(self, name: str) -> str: ...

    async def post(
        self, channel_id: str, text: str, *, root_id: str = "", props: dict[str, Any]
    ) -> str: ...

    async def patch(self, post_id: str, text: str, props: dict[str, Any]) -> None: ...

    async def find_thread(self, channel_id: str, group: str) -> KnownThread | None: ...

    async def investigate(
        self, channel_id: str, root_id: str, question: str, language: Language
    ) -> None: ...


@dataclass
class _Thread:
    channel_id: str
    root_id: str
    language: Language
    env: str
    opened: datetime
    seen: set[str] = field(default_factory=set)
    runs: deque[datetime] = field(default_factory=deque)
    resolved: bool = False


@dataclass
class _Storm:
    """A channel's storm: the summary post and the groups it lists."""

    post_id: str | None = None
    listed: list[Notification] = field(default_factory=list)
    groups: set[str] = field(default_factory=set)
    last: datetime | None = None


@dataclass
class _Channel:
    opened: deque[datetime] = field(default_factory=deque)  # threads opened, in the window
    storm: _Storm | None = None
    posting: asyncio.Lock = field(default_factory=asyncio.Lock)  # the storm post, one writer


class AlertDesk:
    def __init__(
        self,
        settings: AlertsSettings,
        poster: AlertPoster,
        meters: AlertMeters,
        *,
        clock: Callable[[], datetime],
        zone: tzinfo,
    ) -> None:
        self.settings = settings
        self.poster = poster
        self.meters = meters
        self.clock = clock
        self.zone = zone
        self._routes = [
            ([parse_matcher(m) for m in route.matchers], route) for route in settings.routes
        ]
        self._threads: OrderedDict[str, _Thread] = OrderedDict()
        self._locks: OrderedDict[str, asyncio.Lock] = OrderedDict()
        self._channels: dict[str, _Channel] = {}
        self._slots = asyncio.Semaphore(settings.limits.concurrent)
        self._waiting = 0
        self._tasks: set[asyncio.Task[None]] = set()

    # --- in ------------------------------------------------------------------------------

    def accept(self, notification: Notification) -> bool:
        """Take a notification; it is handled in the background (the sender is answered
        at once). False when `MAX_PENDING` are in hand already: the sender retries
        (Alertmanager does, with back-off)."""
        if len(self._tasks) >= MAX_PENDING:
            return False
        self.meters.notifications.labels(notification.source.value, notification.status.value).inc()
        self._spawn(self.handle(notification))
        return True

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def handle(self, notification: Notification) -> None:
        route = self._route(notification.labels)
        if route is None:
            self.meters.groups.labels(GroupOutcome.UNROUTED.value).inc()
            log.info("alerts.unrouted", group=notification.group)
            return
        try:
            async with self._lock(notification.group):
                await self._handle(notification, route)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # one bad notification never stops the desk
            log.error("alerts.failed", group=notification.group, error=repr(exc)[:300])

    def _route(self, labels: dict[str, str]) -> AlertRouteSettings | None:
        for matchers, route in self._routes:
            if all(m.matches(labels) for m in matchers):
                return route
        return None

    def _lock(self, group: str) -> asyncio.Lock:
        lock = self._locks.get(group)
        if lock is None:
            lock = self._locks[group] = asyncio.Lock()
            while len(self._locks) > _MAX_GROUPS:
                self._locks.popitem(last=False)
        return lock

    # --- one notification ----------------------------------------------------------------

    async def _handle(self, notification: Notification, route: AlertRouteSettings) -> None:
        channel_id = await self.poster.channel_id(route.channel)
        channel = self._channels.get(channel_id)
        if channel and channel.storm and notification.group in channel.storm.groups:
            self.meters.duplicates.inc()  # listed in the storm's summary already
            return
        thread = self._threads.get(notification.group) or await self._found(
            notification, channel_id, route
        )
        firing = notification.firing()
        if not firing:
            await self._resolved(notification, thread)
            return
        if thread is None:
            await self._first(notification, channel_id, route, firing)
            return
        # an alert that resolved is new again when it fires again
        thread.seen -= {a.key for a in notification.alerts if a.status is AlertState.RESOLVED}
        new = [a for a in firing if a.key not in thread.seen]
        if not new:
            self.meters.duplicates.inc()
            return
        refired = thread.resolved
        thread.resolved = False
        thread.seen.update(a.key for a in new)
        await self._update_root(notification, thread)
        if refired:
            await self.poster.post(
                thread.channel_id,
                refired_text(new[0], self.zone, thread.language),
                root_id=thread.root_id,
                props={"infrabot": "alert_note"},
            )
        await self._investigate(notification, thread, new, listed=refired)

    async def _found(
        self, notification: Notification, channel_id: str, route: AlertRouteSettings
    ) -> _Thread | None:
        """The group's thread from before a restart (or another replica's), if any."""
        known = await self.poster.find_thread(channel_id, notification.group)
        if known is None:
            return None
        thread = _Thread(
            channel_id,
            known.root_id,
            route.language,
            self._env(notification),
            self.clock(),
            seen=set(known.seen),
            resolved=known.resolved,
        )
        self._remember(notification.group, thread)
        return thread

    def _env(self, notification: Notification) -> str:
        return environment_of(
            notification.labels, self.settings.env_label, self.settings.env_values
        )

    def _remember(self, group: str, thread: _Thread) -> None:
        self._threads[group] = thread
        self._threads.move_to_end(group)
        while len(self._threads) > _MAX_GROUPS:
            self._threads.popitem(last=False)

    async def _first(
        self,
        notification: Notification,
        channel_id: str,
        route: AlertRouteSettings,
        firing: list[WebhookAlert],
    ) -> None:
        """A group seen for the first time: a thread of its own, or a line in the storm's
        summary when the channel has opened its limit of threads in the window."""
        now = self.clock()
        channel = self._channels.setdefault(channel_id, _Channel())
        window = timedelta(seconds=self.settings.limits.storm_window_s)
        while channel.opened and now - channel.opened[0] > window:
            channel.opened.popleft()
        if len(channel.opened) >= self.settings.limits.storm_groups:
            await self._storm(notification, channel_id, channel, route.language)
            return
        channel.opened.append(now)
        self._calm(channel, now, window)
        env = self._env(notification)
        thread = _Thread(channel_id, "", route.language, env, now, seen={a.key for a in firing})
        thread.root_id = await self.poster.post(
            channel_id, self._root(notification, thread), props=self._props(notification, thread)
        )
        self._remember(notification.group, thread)
        self.meters.groups.labels(GroupOutcome.THREAD.value).inc()
        log.info("alerts.thread", group=notification.group, root=thread.root_id)
        await self._investigate(notification, thread, firing, listed=True)

    def _calm(self, channel: _Channel, now: datetime, window: timedelta) -> None:
        """A storm ends when no group was listed in it for a window."""
        storm = channel.storm
        if storm is not None and storm.last is not None and now - storm.last > window:
            channel.storm = None
            self.meters.storms.dec()

    async def _storm(
        self, notification: Notification, channel_id: str, channel: _Channel, language: Language
    ) -> None:
        storm = channel.storm
        if storm is None:
            storm = channel.storm = _Storm()
            self.meters.storms.inc()
        storm.last = self.clock()
        if notification.group in storm.groups:
            self.meters.duplicates.inc()
            return
        storm.groups.add(notification.group)
        storm.listed.append(notification)
        self.meters.groups.labels(GroupOutcome.STORM.value).inc()
        async with channel.posting:  # one summary post, patched with the latest list
            text = storm_text(
                storm.listed,
                first=self.settings.limits.storm_groups,
                window_s=self.settings.limits.storm_window_s,
                language=language,
            )
            props = {"infrabot": "alert_storm"}
            if storm.post_id is None:
                storm.post_id = await self.poster.post(channel_id, text, props=props)
            else:
                await self.poster.patch(storm.post_id, text, props)

    async def _resolved(self, notification: Notification, thread: _Thread | None) -> None:
        if thread is None or thread.resolved:
            self.meters.duplicates.inc()
            return
        thread.resolved = True
        thread.seen.clear()
        await self._update_root(notification, thread)
        await self.poster.post(
            thread.channel_id,
            closing_text(notification, thread.opened, self.zone, thread.language),
            root_id=thread.root_id,
            props={"infrabot": "alert_resolved"},
        )
        self.meters.resolved.inc()

    # --- posts ---------------------------------------------------------------------------

    def _root(self, notification: Notification, thread: _Thread) -> str:
        return root_text(notification, thread.env, self.zone, thread.language)

    def _props(self, notification: Notification, thread: _Thread) -> dict[str, Any]:
        return {
            "infrabot": "alert",
            THREAD_PROP: notification.group,
            SEEN_PROP: sorted(thread.seen)[:_MAX_SEEN],
            "infrabot_alert_status": AlertState.RESOLVED.value
            if thread.resolved
            else AlertState.FIRING.value,
        }

    async def _update_root(self, notification: Notification, thread: _Thread) -> None:
        await self.poster.patch(
            thread.root_id, self._root(notification, thread), self._props(notification, thread)
        )

    # --- investigations ------------------------------------------------------------------

    async def _investigate(
        self,
        notification: Notification,
        thread: _Thread,
        new: list[WebhookAlert],
        *,
        listed: bool,
    ) -> None:
        """The first new alert is investigated in the thread, within the valves; the new
        alerts are said in a note unless a post already `listed` them (the root post, the
        "firing again" reply)."""
        now = self.clock()
        limits = self.settings.limits
        while thread.runs and now - thread.runs[0] > _HOUR:
            thread.runs.popleft()
        if len(thread.runs) >= limits.per_group_per_hour:
            self.meters.held.labels(Held.GROUP_LIMIT.value).inc()
            await self._note(thread, new, group_limit=limits.per_group_per_hour)
            return
        if self._waiting >= limits.queued and self._slots.locked():
            self.meters.held.labels(Held.QUEUE_FULL.value).inc()
            await self._note(thread, new, queued=self._waiting)
            return
        thread.runs.append(now)
        if not listed:
            await self._note(thread, new)
        question = alert_question(
            new[0], notification, self.settings.env_label, self.settings.env_values
        )
        self._spawn(self._run(thread, question))

    async def _note(self, thread: _Thread, new: list[WebhookAlert], **valve: int) -> None:
        await self.poster.post(
            thread.channel_id,
            limited_text(new, thread.language, **valve),
            root_id=thread.root_id,
            props={"infrabot": "alert_note"},
        )

    async def _run(self, thread: _Thread, question: str) -> None:
        """One investigation, when a slot is free; the group's lock is not held meanwhile
        (a resolve or a repeat of the group is handled while it runs)."""
        self._waited(+1)
        waiting = True
        try:
            async with self._slots:
                self._waited(-1)
                waiting = False
                self.meters.started()
                try:
                    await self.poster.investigate(
                        thread.channel_id, thread.root_id, question, thread.language
                    )
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    self.meters.failed.inc()
                    log.error(
                        "alerts.investigation_failed", root=thread.root_id, error=repr(exc)[:300]
                    )
                finally:
                    self.meters.ended()
        finally:
            if waiting:
                self._waited(-1)

    def _waited(self, change: int) -> None:
        self._waiting += change
        self.meters.waiting.set(self._waiting)
