"""The SSRF guard of the network checker, decided in code before any connection.

Rules (SSRF through the network checker):
    * one public host name or IP address on one port: allowed for everyone;
    * a CIDR range, more than one port, a port range: admins only;
    * an address that is not globally reachable: admins only. `SPECIAL_RANGES` decides,
      row by row from the IANA IPv4 and IPv6 Special-Purpose Address Registries (private,
      loopback, link-local, CGNAT, documentation, benchmarking, 192.0.0.0/24, ...), plus
      multicast, IPv6 outside 2000::/3 and every form that wraps an IPv4 address
      (IPv4-mapped, even of a public address, NAT64, 6to4, Teredo);
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

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class SpecialRange:
    """One row of the special-purpose table: a range and what an address in it is, as a
    refusal reads it ("a loopback address"). `reachable` rows are the registries'
    globally reachable exceptions inside a refused range: an engineer may probe those."""

    network: Network
    name: str
    reachable: bool = False


def _no(cidr: str, name: str) -> SpecialRange:
    return SpecialRange(ipaddress.ip_network(cidr), name)


def _ok(cidr: str, name: str) -> SpecialRange:
    return SpecialRange(ipaddress.ip_network(cidr), name, reachable=True)


_OUTSIDE_V6_UNICAST = "an IPv6 address outside global unicast 2000::/3"

SPECIAL_RANGES: tuple[SpecialRange, ...] = (
    # IANA IPv4 Special-Purpose Address Registry (iana-ipv4-special-registry, RFC 6890):
    # every row whose "Globally Reachable" is False
    _no("0.0.0.0/8", 'an address of "this network"'),
    _no("0.0.0.0/32", "the unspecified address"),
    _no("10.0.0.0/8", "a private address"),
    _no("100.64.0.0/10", "a carrier-grade NAT address"),
    _no("127.0.0.0/8", "a loopback address"),
    _no("169.254.0.0/16", "a link-local address"),
    _no("172.16.0.0/12", "a private address"),
    _no("192.0.0.0/24", "an IETF protocol assignment address"),
    _no("192.0.0.0/29", "a DS-Lite (IPv4 service continuity) address"),
    _no("192.0.0.8/32", "the IPv4 dummy address"),
    _no("192.0.0.170/32", "a NAT64/DNS64 discovery address"),
    _no("192.0.0.171/32", "a NAT64/DNS64 discovery address"),
    _no("192.0.2.0/24", "a documentation address (TEST-NET-1)"),
    _no("192.168.0.0/16", "a private address"),
    _no("198.18.0.0/15", "a benchmarking address"),
    _no("198.51.100.0/24", "a documentation address (TEST-NET-2)"),
    _no("203.0.113.0/24", "a documentation address (TEST-NET-3)"),
    _no("240.0.0.0/4", "a reserved address"),
    _no("255.255.255.255/32", "the limited broadcast address"),
    # ... its globally reachable rows, decided by the registry
    _ok("192.0.0.9/32", "Port Control Protocol anycast"),
    _ok("192.0.0.10/32", "TURN anycast"),
    _ok("192.31.196.0/24", "AS112-v4"),
    _ok("192.52.193.0/24", "AMT"),
    _ok("192.175.48.0/24", "Direct Delegation AS112 Service"),
    # refused beyond that registry: the deprecated 6to4 relay anycast (RFC 7526), and
    # multicast (IANA IPv4 Multicast Address Space Registry)
    _no("192.88.99.0/24", "a deprecated 6to4 relay anycast address"),
    _no("224.0.0.0/4", "a multicast address"),
    #
    # IANA IPv6 Special-Purpose Address Registry (iana-ipv6-special-registry, RFC 6890):
    # every row whose "Globally Reachable" is False
    _no("::/128", "the unspecified address"),
    _no("::1/128", "a loopback address"),
    _no("::ffff:0:0/96", "an IPv4-mapped IPv6 address"),
    _no("64:ff9b:1::/48", "a local-use NAT64 address"),
    _no("100::/64", "a discard-only address"),
    _no("100:0:0:1::/64", "a dummy IPv6 address"),
    _no("2001::/23", "an IETF protocol assignment address"),
    _no("2001:2::/48", "a benchmarking address"),
    _no("2001:db8::/32", "a documentation address"),
    _no("3fff::/20", "a documentation address"),
    _no("5f00::/16", "an SRv6 segment identifier"),
    _no("fc00::/7", "an IPv6 unique local address"),
    _no("fe80::/10", "a link-local address"),
    # ... its rows with no answer ("N/A"), refused: each carries or tunnels to an address
    # the guard cannot see, or is withdrawn
    _no("2001::/32", "a Teredo address"),
    _no("2001:10::/28", "a deprecated ORCHID address"),
    _no("2002::/16", "a 6to4 address"),
    # ... its globally reachable rows, decided by the registry
    _ok("2001:1::1/128", "Port Control Protocol anycast"),
    _ok("2001:1::2/128", "TURN anycast"),
    _ok("2001:1::3/128", "DNS-SD Service Registration Protocol anycast"),
    _ok("2001:3::/32", "AMT"),
    _ok("2001:4:112::/48", "AS112-v6"),
    _ok("2620:4f:8000::/48", "Direct Delegation AS112 Service"),
    # ... and its globally reachable rows that are refused all the same: the well-known
    # NAT64 prefix reaches whatever IPv4 address it embeds (a private one too), and
    # ORCHIDv2 and DETs are hash identifiers, not addresses of a host
    _no("64:ff9b::/96", "a NAT64 address"),
    _no("2001:20::/28", "an ORCHIDv2 identifier"),
    _no("2001:30::/28", "a drone remote ID entity tag (DET)"),
    # refused beyond that registry (RFC 4291, RFC 2765, RFC 3879): the deprecated
    # IPv4-compatible and site-local forms, IPv4-translated, multicast, and everything
    # outside 2000::/3, the only block IANA allocates as global unicast
    _no("::/96", "an IPv4-compatible IPv6 address"),
    _no("::ffff:0:0:0/96", "an IPv4-translated IPv6 address"),
    _no("fec0::/10", "an IPv6 site-local address"),
    _no("ff00::/8", "a multicast address"),
    _no("::/3", _OUTSIDE_V6_UNICAST),
    _no("4000::/2", _OUTSIDE_V6_UNICAST),
    _no("8000::/1", _OUTSIDE_V6_UNICAST),
)
"""What `address_class` decides by: the most specific row holding an address wins, so a
reachable row carves its exception out of the refused range around it. Python's
`is_global` is not used for this: it differs between Python versions and misses rows
(192.0.0.8 is global to Python 3.11, 2001:1::1 is not)."""

_EMBEDS_IPV4 = frozenset(
    ipaddress.IPv6Network(cidr)
    for cidr in ("::ffff:0:0/96", "::ffff:0:0:0/96", "::/96", "64:ff9b::/96")
)
"""Forms whose last 32 bits are an IPv4 address (a refusal names it)."""


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


def special_range(ip: IPAddress) -> SpecialRange | None:
    """The most specific row of `SPECIAL_RANGES` holding `ip`, or None."""
    rows = [r for r in SPECIAL_RANGES if r.network.version == ip.version and ip in r.network]
    return max(rows, key=lambda r: r.network.prefixlen, default=None)


def address_class(ip: IPAddress) -> str | None:
    """Why an address is not public, or None for a globally routable unicast address.

    The reason names the range ("a loopback address (127.0.0.0/8)") and, for a form that
    wraps an IPv4 address, the address it wraps."""
    row = special_range(ip)
    if row is not None:
        return None if row.reachable else f"{row.name} ({row.network}{_embedded(ip, row)})"
    if not ip.is_global:  # nothing the table misses today; a guard against a gap in it
        return "not a globally routable address"
    return None


def _embedded(ip: IPAddress, row: SpecialRange) -> str:
    if not isinstance(ip, ipaddress.IPv6Address):
        return ""
    if row.network in _EMBEDS_IPV4:
        return f", of {ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)}"
    if ip.sixtofour is not None:
        return f", of {ip.sixtofour}"
    if ip.teredo is not None:
        return f", of {ip.teredo[1]}"
    return ""


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
