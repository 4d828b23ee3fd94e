"""The webhook endpoints under `serve`: `POST /alerts/alertmanager` (Alertmanager's
webhook_config) and `POST /alerts/grafana` (Grafana's webhook contact point).

Authenticated the ways Alertmanager's `http_config` sends (a bearer token, or basic auth),
compared in constant time; the body is read up to its limit (413 beyond it); a
notification is answered 202 at once and handled by the desk in the background. A body
that is not a notification is answered 400 naming the field.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from bot.alerts.desk import AlertDesk
from bot.alerts.meters import Rejected
from bot.alerts.payload import MalformedNotification, NotificationSource, parse_notification

__all__ = ["ALERT_PATHS", "AlertCredentials", "alert_routes"]

ALERT_PATHS = {
    NotificationSource.ALERTMANAGER: "/alerts/alertmanager",
    NotificationSource.GRAFANA: "/alerts/grafana",
}


@dataclass(frozen=True)
class AlertCredentials:
    """What a sender must present: a bearer token, or a user name and password."""

    token: str | None = None
    username: str | None = None
    password: str | None = None

    def admit(self, header: str) -> bool:
        scheme, _, value = header.partition(" ")
        value = value.strip()
        if self.token is not None:
            return scheme.lower() == "bearer" and hmac.compare_digest(
                value.encode(), self.token.encode()
            )
        if scheme.lower() != "basic" or self.username is None or self.password is None:
            return False
        try:
            user, _, password = base64.b64decode(value, validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return False
        same_user = hmac.compare_digest(user.encode(), self.username.encode())
        return hmac.compare_digest(password.encode(), self.password.encode()) and same_user


class _TooLarge(Exception):
    pass


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _TooLarge
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def alert_routes(desk: AlertDesk, credentials: AlertCredentials) -> list[BaseRoute]:
    limit = desk.settings.max_body_bytes
    meters = desk.meters

    def refused(reason: Rejected, status: int, message: str) -> Response:
        meters.rejected.labels(reason.value).inc()
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse({"error": message}, status_code=status, headers=headers)

    def endpoint(source: NotificationSource) -> Route:
        async def receive(request: Request) -> Response:
            if not credentials.admit(request.headers.get("authorization", "")):
                return refused(Rejected.UNAUTHORIZED, 401, "missing or wrong credentials")
            try:
                body = await _body(request, limit)
                notification = parse_notification(body, source)
            except _TooLarge:
                return refused(Rejected.TOO_LARGE, 413, f"the body is over {limit} bytes")
            except MalformedNotification as exc:
                return refused(Rejected.MALFORMED, 400, f"not a notification: {exc}")
            if not desk.accept(notification):
                return refused(Rejected.BUSY, 503, "too many notifications in hand; retry")
            return JSONResponse({"status": "accepted"}, status_code=202)

        return Route(ALERT_PATHS[source], receive, methods=["POST"])

    return [endpoint(source) for source in NotificationSource]
