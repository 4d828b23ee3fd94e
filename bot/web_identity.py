"""Who is asking in the web chat: decided from the deployment, never from the request body.

Three answers, one per way the chat is run:

- `LocalName` (`infrabot demo`): the name the page sends, as a label only; everyone is an
  engineer, whatever name they claim.
- `Nobody` (`serve` with `web.identity.mode: none`): no question is answered; the page
  says how to give the chat an identity.
- `TrustedProxy` (`serve` with `mode: proxy`): an authenticating proxy in front of the chat
  (oauth2-proxy, an ingress's external auth) sends the user's name and groups in headers;
  they are believed only from the configured proxy addresses, so a client that reaches the
  pod directly cannot name itself. Admins are the configured names and groups.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network, ip_address
from typing import Protocol

from starlette.requests import Request

from bot.settings import WebIdentityMode, WebIdentitySettings
from policy.toolset import Role

USER_RE = re.compile(r"^[\w.@+-]{1,64}$")
_MAX_GROUPS = 200


@dataclass(frozen=True)
class Caller:
    """The person a web request is from, and what they may see."""

    user: str
    role: Role


class Unidentified(Exception):
    """No identity for this request: `status` (401 or 403) and what to do about it."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Identity(Protocol):
    """Who sent a request; raises `Unidentified` when nobody can be named."""

    @property
    def names_from_body(self) -> bool:
        """Whether the page's own name field is the name (only the local demo)."""
        ...

    def caller(self, request: Request, claimed: str | None) -> Caller: ...


class LocalName:
    """The demo on one's own machine: the claimed name labels the thread; no one is an
    admin by claiming a name."""

    names_from_body = True

    def caller(self, request: Request, claimed: str | None) -> Caller:
        user = claimed or "web"
        if not USER_RE.match(user):
            raise Unidentified(400, "user: 1-64 letters, digits, '.', '@', '+', '-' or '_'")
        return Caller(user=user, role="engineer")


class Nobody:
    """`serve` without an identity: the chat answers no one (Mattermost is the way in)."""

    names_from_body = False

    def caller(self, request: Request, claimed: str | None) -> Caller:
        raise Unidentified(
            401,
            "this web chat does not know who you are, so it answers nothing: ask in "
            "Mattermost, or have an administrator put an authenticating proxy in front of "
            "it (web.identity.mode: proxy)",
        )


class TrustedProxy:
    """The name an authenticating proxy sends, believed only from the proxy's addresses."""

    names_from_body = False

    def __init__(self, settings: WebIdentitySettings, role_of: Callable[[str], Role]) -> None:
        self._proxies: Sequence[IPv4Network | IPv6Network] = tuple(settings.trusted_proxies)
        self._user_header = settings.user_header.lower()
        self._groups_header = settings.groups_header.lower()
        self._admin_groups = frozenset(g.strip() for g in settings.admin_groups if g.strip())
        self._role_of = role_of

    def _from_proxy(self, request: Request) -> bool:
        peer = request.client.host if request.client else ""
        try:
            address = ip_address(peer)
        except ValueError:
            return False
        if address.version == 6 and address.ipv4_mapped is not None:  # ::ffff:10.0.0.7
            address = address.ipv4_mapped
        return any(address in network for network in self._proxies)

    def caller(self, request: Request, claimed: str | None) -> Caller:
        if not self._from_proxy(request):
            raise Unidentified(
                403, "requests must come through the authenticating proxy (this address is not it)"
            )
        user = request.headers.get(self._user_header, "").strip()
        if not user:
            raise Unidentified(401, "the proxy sent no user name: sign in through it")
        if not USER_RE.match(user):
            raise Unidentified(403, "the proxy's user name has characters a name cannot have")
        groups = {
            g.strip()
            for g in request.headers.get(self._groups_header, "").split(",")[:_MAX_GROUPS]
            if g.strip()
        }
        admin = self._role_of(user) == "admin" or bool(groups & self._admin_groups)
        return Caller(user=user, role="admin" if admin else "engineer")


def identity_of(settings: WebIdentitySettings, role_of: Callable[[str], Role]) -> Identity:
    """The identity `serve` runs the web chat with."""
    if settings.mode is WebIdentityMode.PROXY:
        return TrustedProxy(settings, role_of)
    return Nobody()
