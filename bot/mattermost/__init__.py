"""Mattermost surface: websocket listener, thread re-reading, progress and replies.

`MattermostListener(api=MattermostApi(url, token), settings=..., conversation=...,
role_of=config.role_of, clock=..., desk=KnowledgeDesk(...)).run()` is all `infrabot serve`
needs, with `command_route(listener, token)` mounted on the web app for the `/infrabot`
slash command; everything else here is internal.
"""

from bot.mattermost._alerts import MattermostAlerts
from bot.mattermost._api import (
    MattermostApi,
    MattermostAuthError,
    MattermostError,
    MattermostNotFound,
    MattermostUnavailable,
)
from bot.mattermost._command import COMMAND_PATH, command_route
from bot.mattermost._leases import LeasedShares, lease_store
from bot.mattermost._listener import PROGRESS_TEXT, MattermostListener
from bot.mattermost._partition import Partition, partition_of
from bot.mattermost._render import LONG_ANSWER_CHARS, REPORT_NAME, quiet_mentions, render_reply
from bot.mattermost._socket import Backoff, EventStream

__all__ = [
    "COMMAND_PATH",
    "LONG_ANSWER_CHARS",
    "PROGRESS_TEXT",
    "REPORT_NAME",
    "Backoff",
    "EventStream",
    "LeasedShares",
    "MattermostAlerts",
    "MattermostApi",
    "MattermostAuthError",
    "MattermostError",
    "MattermostListener",
    "MattermostNotFound",
    "MattermostUnavailable",
    "Partition",
    "command_route",
    "lease_store",
    "partition_of",
    "quiet_mentions",
    "render_reply",
]
