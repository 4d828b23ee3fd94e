"""`doctor` for Mattermost: does the bot's token log in, is the team there, is the bot a
member of each configured channel, and does the websocket authenticate, each said in the
words an operator acts on (the URL, the team, the channel, the refused token)."""

from __future__ import annotations

from collections.abc import Sequence

from websockets.exceptions import WebSocketException

from bot.mattermost._api import MattermostApi, MattermostError, websocket_url
from bot.mattermost._socket import SocketAuthError, handshake
from bot.settings import MattermostSettings
from connectors.kit.unreachable import safe_url, unreachable_said
from policy.probe import Probe

SOURCE = "mattermost"
TIMEOUT_S = 10.0


async def probe(
    settings: MattermostSettings, token: str | None, alert_channels: Sequence[str] = ()
) -> Probe:
    """Login, team, channels (the ones questions are answered in, the alert routes' and
    the alert post channels') and the websocket, in that order: a step that fails says why
    and the ones after it are not tried."""
    url = safe_url(settings.url)
    if not token:
        return Probe(source=SOURCE, answered=False, detail="INFRABOT_MM_TOKEN is not set")
    api = MattermostApi(settings.url, token, timeout_s=TIMEOUT_S)
    found: list[str] = []
    missing: list[str] = []
    try:
        me = await api.login()
    except MattermostError as exc:
        return Probe(source=SOURCE, answered=False, detail=f"{url}: login failed: {exc}")
    found.append(f"logged in as {me.get('username', '?')}")
    try:
        team = await api.team_by_name(settings.team)
    except MattermostError as exc:
        missing.append(f"team {settings.team}: {exc}")
        return Probe(source=SOURCE, answered=True, detail=url, found=found, missing=missing)
    found.append(f"team {settings.team}")
    posts = [c.channel for c in settings.alert_post_channels]
    for name in dict.fromkeys([*settings.channels, *alert_channels, *posts]):
        try:
            channel = await api.channel_by_name(str(team["id"]), name)
        except MattermostError as exc:
            missing.append(f"channel {name}: {exc}")
            continue
        if await api.is_member(str(channel["id"])):
            found.append(f"channel {name} (the bot is a member)")
        else:
            missing.append(f"channel {name}: the bot is not a member (add it to the channel)")
    socket = websocket_url(settings.url)
    try:
        await handshake(socket, token, TIMEOUT_S)
        found.append("websocket authenticated")
    except SocketAuthError as exc:
        missing.append(f"websocket {safe_url(socket)}: the token was refused ({exc})")
    except (OSError, TimeoutError, WebSocketException) as exc:
        missing.append(f"websocket: {unreachable_said(socket, exc, TIMEOUT_S)}")
    return Probe(source=SOURCE, answered=True, detail=url, found=found, missing=missing)
