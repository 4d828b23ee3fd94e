"""Alerts already posted in a channel: where Alertmanager (its slack_configs) or Grafana
posts to Mattermost through an incoming webhook, a channel may opt in
(`mattermost.alert_post_channels`) to have each firing alert investigated in the post's
own thread.

The post is read the way an alert pasted into a question is (planner's `pasted_alert`:
its message and its attachments' title, text and fields); a resolved one, or the same
alert again within the hour (a notification's repeat), is not investigated.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from bot.mattermost._payload import mapping
from bot.settings import AlertPostChannelSettings
from planner import AlertStatus, Language, pasted_alert

__all__ = ["ALERT_USER", "AlertPosts"]

ALERT_USER = "alertmanager"  # who asks an alert's question (a service, never an admin)

_REPEAT = timedelta(hours=1)
_MAX_KEPT = 2_000
_MAX_CHARS = 20_000


def _text_of(post: Mapping[str, Any]) -> str:
    """The post's message and its attachments' words, as a person would paste them."""
    parts = [str(post.get("message") or "")]
    attachments = mapping(post.get("props")).get("attachments")
    for attachment in attachments if isinstance(attachments, list) else []:
        a = mapping(attachment)
        parts += [str(a.get(k) or "") for k in ("pretext", "title", "text")]
        fields = a.get("fields")
        for field in fields if isinstance(fields, list) else []:
            f = mapping(field)
            parts.append(f"{f.get('title') or ''}: {f.get('value') or ''}")
    return "\n".join(p for p in parts if p.strip())[:_MAX_CHARS]


class AlertPosts:
    def __init__(
        self, channels: list[AlertPostChannelSettings], clock: Callable[[], datetime]
    ) -> None:
        self.settings = {c.channel: c.language for c in channels}
        self.ids: dict[str, Language] = {}  # channel id -> language, once resolved
        self.clock = clock
        self._recent: OrderedDict[str, datetime] = OrderedDict()

    def question(self, post: Mapping[str, Any]) -> tuple[str, Language] | None:
        """What to investigate for a channel's top-level alert post, or None."""
        language = self.ids.get(str(post.get("channel_id") or ""))
        if language is None or post.get("root_id"):
            return None
        text = _text_of(post)
        alert = pasted_alert(text)
        if alert is None or alert.alertname is None or alert.status is AlertStatus.RESOLVED:
            return None
        key = hashlib.sha256(
            json.dumps([alert.alertname, sorted(alert.labels.items()), alert.title_values]).encode()
        ).hexdigest()
        now = self.clock()
        seen = self._recent.get(key)
        if seen is not None and now - seen < _REPEAT:
            return None
        self._recent[key] = now
        self._recent.move_to_end(key)
        while len(self._recent) > _MAX_KEPT:
            self._recent.popitem(last=False)
        return text, language
