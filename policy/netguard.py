"""The SSRF guard of the network checker, decided in code before any connection.

Rules (MISSION-NOTES, "Threats"):
    * one public host name or IP address on one port: allowed for everyone;
    * a CIDR range, more than one port, a port range: admins only;
    * a private, loopback, link-local, reserved, multicast, unspecified, CGNAT
      (100.64.0.0/10), IPv6 unique-local, IPv4-mapped / 6to4 / NAT64 / Teredo or
      otherwise not globally routable address: admins only;
    * a host name is resolved first and EVERY resolved address is checked: a name with one
      public and one private address counts as private;
    * a name that does not resolve, or a target that is neither a host name, an IP
      address nor a CIDR range, is refused with the reason.
The caller connects only to `Decision.addresses`, never re-resolving the name, so a DNS
answer that changes between the check and the connect cannot slip past the guard.

The resolver is injected (host -> list of address strings); it may block, so async code
runs `check_network_target` in a thread.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

Resolver = Callable[[str], Sequence[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_PROBES = 65536
"""Addresses x ports one request may cover, even for an admin."""

_HOSTNAME_RE = re.compile(
    r"(?=.{1,253}\.?$)(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?\.)*"
    r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?"
)

_CGNAT = ipaddress.IPv4Network("100.64.0.0/10")
_IPV6_ULA = ipaddress.IPv6Network("fc00::/7")
_IPV6_SITE_LOCAL = ipaddress.IPv6Network("fec0::/10")
_IPV6_NAT64 = (ipaddress.IPv6Network("64:ff9b::/96"), ipaddress.IPv6Network("64:ff9b:1::/48"))
_IPV6_6TO4 = ipaddress.IPv6Network("2002::/16")
_IPV6_TEREDO = ipaddress.IPv6Network("2001::/32")
_IPV4_COMPAT = ipaddress.IPv6Network("::/96")


class PortRange(BaseModel):
    """An inclusive range of ports."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: int = Field(ge=1, le=65535)
    last: int = Field(ge=1, le=65535)

    @model_validator(mode="after")
    def _ordered(self) -> PortRange:
        if self.last < self.first:
            raise ValueError(f"port range {self.first}-{self.last} ends before it starts")
        return self

    def __len__(self) -> int:
        return self.last - self.first + 1


class NetCheckRequest(BaseModel):
    """What a caller wants to probe: one host, IP or CIDR range, and the ports."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    target: str = Field(min_length=1, max_length=260, description="host name, IP or CIDR")
    ports: tuple[int | PortRange, ...] = Field(min_length=1)

    @field_validator("ports")
    @classmethod
    def _port_bounds(cls, ports: tuple[int | PortRange, ...]) -> tuple[int | PortRange, ...]:
        for port in ports:
            if isinstance(port, int) and not 1 <= port <= 65535:
                raise ValueError(f"port {port} is outside 1..65535")
        return ports

    @property
    def port_count(self) -> int:
        return len({p for spec in self.ports for p in _expand(spec)})


def _expand(spec: int | PortRange) -> range:
    return range(spec, spec + 1) if isinstance(spec, int) else range(spec.first, spec.last + 1)


DecisionKind = Literal["allowed", "admin_only", "unresolved", "invalid", "too_large"]


@dataclass(frozen=True)
class Decision:
    """The guard's verdict. `addresses` are the only addresses a caller may connect to
    (empty when refused); for an allowed CIDR range it holds the one network."""

    allowed: bool
    reason: str
    addresses: list[str] = field(default_factory=list)
    kind: DecisionKind = "allowed"


def address_class(ip: IPAddress) -> str | None:
    """Why an address is not public, or None for a globally routable unicast address."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"an IPv4-mapped IPv6 address (of {ip.ipv4_mapped})"
        if any(ip in net for net in _IPV6_NAT64):
            return "a NAT64 address (64:ff9b::/96) embedding an IPv4 address"
        if ip in _IPV6_6TO4:
            return "a 6to4 address (2002::/16) embedding an IPv4 address"
        if ip in _IPV6_TEREDO:
            return "a Teredo address (2001::/32)"
        if ip in _IPV6_ULA:
            return "an IPv6 unique local address (fc00::/7)"
        if ip in _IPV6_SITE_LOCAL:
            return "an IPv6 site-local address (fec0::/10)"
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "a carrier-grade NAT address (100.64.0.0/10)"
    if isinstance(ip, ipaddress.IPv6Address) and ip in _IPV4_COMPAT:
        return "an IPv4-compatible IPv6 address (::/96)"
    if ip.is_reserved:
        return "a reserved address"
    if ip.is_private:
        return "a private address"
    if not ip.is_global:
        return "not a globally routable address"
    return None


def _parse_ip(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _refuse(kind: DecisionKind, reason: str) -> Decision:
    return Decision(allowed=False, reason=reason, addresses=[], kind=kind)


def check_network_target(request: NetCheckRequest, role: str, resolver: Resolver) -> Decision:
    """Decide whether `role` may probe `request`; resolve a host name with `resolver`.

    Only the role "admin" has admin rights; any other role (or a typo) has none.
    """
    is_admin = role == "admin"
    target = request.target.strip()
    ports = request.port_count
    if ports > 1 and not is_admin:
        return _refuse("admin_only", f"checking {ports} ports at once is for admins only")

    if "/" in target:
        try:
            network = ipaddress.ip_network(target, strict=False)
        except ValueError:
            return _refuse("invalid", f"{target!r} is not a valid CIDR range")
        if network.num_addresses > 1:
            if not is_admin:
                return _refuse(
                    "admin_only",
                    f"scanning the range {network} ({network.num_addresses} addresses) "
                    "is for admins only",
                )
            if network.num_addresses * ports > MAX_PROBES:
                return _refuse(
                    "too_large",
                    f"{network} x {ports} ports is {network.num_addresses * ports} probes, "
                    f"more than the limit of {MAX_PROBES}",
                )
            return Decision(True, f"admin scan of {network}", [str(network)])
        addresses: list[IPAddress] = [network.network_address]
        what = str(network.network_address)
    else:
        literal = _parse_ip(target[1:-1] if target.startswith("[") else target)
        if literal is not None:
            addresses = [literal]
            what = str(literal)
        else:
            resolved = _resolve(target, resolver)
            if isinstance(resolved, Decision):
                return resolved
            addresses = resolved
            shown = ", ".join(str(a) for a in addresses)
            what = f"{target} (resolves to {shown})"

    if len(addresses) * ports > MAX_PROBES:
        return _refuse("too_large", f"{what} x {ports} ports exceeds {MAX_PROBES} probes")
    non_public = [(a, why) for a in addresses if (why := address_class(a)) is not None]
    if non_public and not is_admin:
        details = "; ".join(f"{a} is {why}" for a, why in non_public)
        prefix = "" if len(addresses) == 1 and what == str(addresses[0]) else f"{what}: "
        return _refuse(
            "admin_only",
            f"{prefix}{details}; checking non-public addresses is for admins only",
        )
    verdict = "admin check of a non-public address" if non_public else "public address"
    return Decision(True, f"{what}: {verdict}", [str(a) for a in addresses])


def _resolve(host: str, resolver: Resolver) -> list[IPAddress] | Decision:
    if not _HOSTNAME_RE.fullmatch(host):
        return _refuse("invalid", f"{host!r} is not a valid host name, IP address or CIDR")
    try:
        answers = list(resolver(host))
    except (OSError, UnicodeError) as exc:
        return _refuse("unresolved", f"host {host} does not resolve: {exc}")
    if not answers:
        return _refuse("unresolved", f"host {host} does not resolve to any address")
    addresses: list[IPAddress] = []
    for answer in answers:
        ip = _parse_ip(str(answer).split("%", 1)[0])
        if ip is None:
            return _refuse("invalid", f"host {host} resolved to a non-address {answer!r}")
        if ip not in addresses:
            addresses.append(ip)
    return addresses
