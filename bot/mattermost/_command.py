"""The `/infrabot` slash command: ask from any channel without an @mention.

Mattermost POSTs the command (form fields `token`, `channel_id`, `user_name`, `text`, ...)
to the Request URL set in Integrations > Slash Commands, here `/mattermost/command` on the
serve port, and waits at most 3 seconds for a reply. The reply is at once an ephemeral
note (only the asker sees it); the bot then starts a thread in the channel, "@alice
asked: ...", and answers in it as it answers a mention, so follow-ups are @mentions in that
thread. The command's token (INFRABOT_MM_COMMAND_TOKEN) proves the request came from
Mattermost; without it configured the route is not mounted.
"""

from __future__ import annotations

import asyncio
import hmac
import re
from urllib.parse import parse_qs

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.mattermost._listener import MattermostListener
from planner import Language, Phrase, language_of, say

log = structlog.get_logger(__name__)

COMMAND_PATH = "/mattermost/command"
_USERNAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")  # as Mattermost allows them
_MAX_FORM_BYTES = 64 * 1024
_CHECK_S = 1.2  # twice within Mattermost's 3 s


def _ephemeral(text: str) -> JSONResponse:
    return JSONResponse({"response_type": "ephemeral", "text": text})


def command_route(listener: MattermostListener, token: str) -> Route:
    """The route Mattermost calls for `/infrabot <question>`."""

    async def command(request: Request) -> Response:
        body = bytearray()
        async for chunk in request.stream():  # chunked or not: read no more than the cap
            body += chunk
            if len(body) > _MAX_FORM_BYTES:
                return Response("too large", status_code=413)
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items() if v}
        given = str(form.get("token") or "")
        if not hmac.compare_digest(given.encode(), token.encode()):
            log.warning("mattermost.command_bad_token", channel=form.get("channel_id"))
            return Response("invalid command token", status_code=403)
        text = str(form.get("text") or "").strip()
        language = language_of(text) if text else Language.EN
        username = str(form.get("user_name") or "")
        channel_id = str(form.get("channel_id") or "")
        if not text:
            return _ephemeral(say(Phrase.COMMAND_HELP, language))
        if not _USERNAME.fullmatch(username) or not channel_id:
            return Response("user_name and channel_id are required", status_code=400)
        # Mattermost waits 3 s for this reply. Whether the channel is served is never
        # guessed (not known in time: refused); only a slow membership check is not waited
        # for (the thread is then started if the bot can post there, and logged if not)
        try:
            served = await asyncio.wait_for(listener.serves(channel_id), _CHECK_S)
        except TimeoutError:
            served = False
        try:
            member = served and await asyncio.wait_for(listener.is_member(channel_id), _CHECK_S)
        except TimeoutError:
            member = True
        if not member:
            return _ephemeral(say(Phrase.COMMAND_NOT_HERE, language))
        listener.ask_from_command(channel_id, username, text)
        return _ephemeral(say(Phrase.COMMAND_TAKEN, language))

    return Route(COMMAND_PATH, command, methods=["POST"])
