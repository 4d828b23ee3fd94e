"""The SSRF guard: who may probe what, decided before any connection."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence

import pytest
from pydantic import ValidationError

from connectors.kit.netguard import (
    MAX_PROBES,
    SPECIAL_RANGES,
    NetCheckRequest,
    PortRange,
    address_class,
    check_network_target,
    special_range,
)


class FakeDNS:
    """A resolver with fixed answers that records what it was asked."""

    def __init__(self, answers: dict[str, Sequence[str]]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def __call__(self, host: str) -> list[str]:
        self.asked.append(host)
        if host not in self.answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return list(self.answers[host])


DNS = FakeDNS(
    {
        "example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
        "split.example.com": ["93.184.216.34", "10.0.0.7"],
        "split-late.example.com": ["1.1.1.1", "8.8.8.8", "169.254.169.254"],
        "internal.corp": ["10.20.30.40"],
        "metadata.corp": ["169.254.169.254"],
        "empty.example.com": [],
        "garbage.example.com": ["not-an-ip"],
        "v6only.example.com": ["2001:4860:4860::8888"],
    }
)


def req(target: str, *ports: int | PortRange) -> NetCheckRequest:
    return NetCheckRequest(target=target, ports=ports or (443,))


@pytest.mark.parametrize(
    "target",
    ["93.184.216.34", "8.8.8.8", "2001:4860:4860::8888", "[2001:4860:4860::8888]", "1.1.1.1/32"],
)
@pytest.mark.parametrize("role", ["engineer", "admin"])
def test_single_public_ip_on_one_port_is_allowed_for_everyone(target: str, role: str) -> None:
    decision = check_network_target(req(target, 22), role, DNS)
    assert decision.allowed, decision.reason
    assert decision.kind == "allowed"
    assert len(decision.addresses) == 1
    assert "public" in decision.reason


@pytest.mark.parametrize("port", [1, 22, 443, 6443, 65535])
def test_any_single_port_is_allowed(port: int) -> None:
    assert check_network_target(req("8.8.8.8", port), "engineer", DNS).allowed


def test_public_name_allowed_and_every_address_returned() -> None:
    decision = check_network_target(req("example.com"), "engineer", DNS)
    assert decision.allowed
    assert decision.addresses == ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]


# (address, words of the reason, the range the reason names): at least one address in
# every range `SPECIAL_RANGES` refuses, from the IANA IPv4 and IPv6 Special-Purpose Address
# Registries and beyond them; written out here, not derived from the table under test
REFUSED = [
    ("0.1.2.3", "this network", "0.0.0.0/8"),
    ("0.0.0.0", "unspecified", "0.0.0.0/32"),
    ("10.1.2.3", "private", "10.0.0.0/8"),
    ("10.0.0.0/32", "private", "10.0.0.0/8"),
    ("100.64.0.1", "carrier-grade NAT", "100.64.0.0/10"),
    ("100.127.255.254", "carrier-grade NAT", "100.64.0.0/10"),
    ("127.0.0.1", "loopback", "127.0.0.0/8"),
    ("127.1.2.3", "loopback", "127.0.0.0/8"),
    ("169.254.169.254", "link-local", "169.254.0.0/16"),
    ("172.16.0.1", "private", "172.16.0.0/12"),
    ("172.31.255.254", "private", "172.16.0.0/12"),
    ("192.0.0.100", "IETF protocol assignment", "192.0.0.0/24"),
    ("192.0.0.255", "IETF protocol assignment", "192.0.0.0/24"),
    ("192.0.0.1", "DS-Lite", "192.0.0.0/29"),
    ("192.0.0.8", "dummy", "192.0.0.8/32"),
    ("192.0.0.170", "NAT64/DNS64 discovery", "192.0.0.170/32"),
    ("192.0.0.171", "NAT64/DNS64 discovery", "192.0.0.171/32"),
    ("192.0.2.10", "documentation", "192.0.2.0/24"),
    ("192.88.99.1", "6to4 relay anycast", "192.88.99.0/24"),
    ("192.168.1.1", "private", "192.168.0.0/16"),
    ("198.18.0.1", "benchmarking", "198.18.0.0/15"),
    ("198.19.255.254", "benchmarking", "198.18.0.0/15"),
    ("198.51.100.7", "documentation", "198.51.100.0/24"),
    ("203.0.113.9", "documentation", "203.0.113.0/24"),
    ("224.0.0.1", "multicast", "224.0.0.0/4"),
    ("239.255.255.250", "multicast", "224.0.0.0/4"),
    ("240.0.0.1", "reserved", "240.0.0.0/4"),
    ("255.255.255.254", "reserved", "240.0.0.0/4"),
    ("255.255.255.255", "limited broadcast", "255.255.255.255/32"),
    ("::", "unspecified", "::/128"),
    ("::1", "loopback", "::1/128"),
    ("::ffff:127.0.0.1", "IPv4-mapped", "::ffff:0:0/96, of 127.0.0.1"),
    ("::ffff:8.8.8.8", "IPv4-mapped", "::ffff:0:0/96, of 8.8.8.8"),  # public inside
    ("::ffff:0:808:808", "IPv4-translated", "::ffff:0:0:0/96, of 8.8.8.8"),
    ("::8.8.8.8", "IPv4-compatible", "::/96, of 8.8.8.8"),
    ("::169.254.169.254", "IPv4-compatible", "::/96, of 169.254.169.254"),
    ("64:ff9b::a00:1", "NAT64", "64:ff9b::/96, of 10.0.0.1"),
    ("64:ff9b::808:808", "NAT64", "64:ff9b::/96, of 8.8.8.8"),
    ("64:ff9b:1::a00:1", "local-use NAT64", "64:ff9b:1::/48"),
    ("100::1", "discard-only", "100::/64"),
    ("100:0:0:1::1", "dummy", "100:0:0:1::/64"),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo", "2001::/32, of 192.0.2.45"),
    ("2001:1::4", "IETF protocol assignment", "2001::/23"),
    ("2001:5::1", "IETF protocol assignment", "2001::/23"),
    ("2001:1ff:ffff::1", "IETF protocol assignment", "2001::/23"),
    ("2001:2::1", "benchmarking", "2001:2::/48"),
    ("2001:10::1", "ORCHID", "2001:10::/28"),
    ("2001:20::1", "ORCHIDv2", "2001:20::/28"),
    ("2001:30::1", "drone remote ID", "2001:30::/28"),
    ("2001:db8::1", "documentation", "2001:db8::/32"),
    ("2002:a00:1::1", "6to4", "2002::/16, of 10.0.0.1"),
    ("2002:808:808::1", "6to4", "2002::/16, of 8.8.8.8"),
    ("3fff::1", "documentation", "3fff::/20"),
    ("3fff:fff::1", "documentation", "3fff::/20"),
    ("5f00::1", "SRv6", "5f00::/16"),
    ("fc00::1", "unique local", "fc00::/7"),
    ("fd12:3456:789a::1", "unique local", "fc00::/7"),
    ("fe80::1", "link-local", "fe80::/10"),
    ("febf::1", "link-local", "fe80::/10"),
    ("fec0::1", "site-local", "fec0::/10"),
    ("ff02::1", "multicast", "ff00::/8"),
    ("1::1", "outside global unicast", "::/3"),
    ("4000::1", "outside global unicast", "4000::/2"),
    ("8000::1", "outside global unicast", "8000::/1"),
    ("e000::1", "outside global unicast", "8000::/1"),
]

# the registries' globally reachable rows inside refused ranges: decided by the registry
REGISTRY_REACHABLE = [
    ("192.0.0.9", "192.0.0.9/32"),  # Port Control Protocol anycast
    ("192.0.0.10", "192.0.0.10/32"),  # TURN anycast
    ("192.31.196.1", "192.31.196.0/24"),  # AS112-v4
    ("192.52.193.1", "192.52.193.0/24"),  # AMT
    ("192.175.48.1", "192.175.48.0/24"),  # Direct Delegation AS112 Service
    ("2001:1::1", "2001:1::1/128"),  # Port Control Protocol anycast
    ("2001:1::2", "2001:1::2/128"),  # TURN anycast
    ("2001:1::3", "2001:1::3/128"),  # DNS-SD SRP anycast
    ("2001:3::1", "2001:3::/32"),  # AMT
    ("2001:4:112::1", "2001:4:112::/48"),  # AS112-v6
    ("2620:4f:8000::1", "2620:4f:8000::/48"),  # Direct Delegation AS112 Service
]

PUBLIC = [
    "8.8.8.8",
    "8.8.4.4",
    "1.1.1.1",
    "9.9.9.9",
    "140.82.112.3",
    "93.184.216.34",
    "100.63.255.255",  # just below CGNAT
    "100.128.0.1",  # just above it
    "172.15.255.255",
    "172.32.0.1",
    "192.0.1.1",
    "192.169.0.1",
    "198.17.255.255",
    "198.20.0.1",
    "223.255.255.254",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2a00:1450:4001:81c::200e",
    "2001:200::1",  # just past 2001::/23
    "2c0f:fb50:4003::1",
]


@pytest.mark.parametrize(("target", "why", "where"), REFUSED)
def test_non_public_address_is_admin_only(target: str, why: str, where: str) -> None:
    refused = check_network_target(req(target), "engineer", DNS)
    assert not refused.allowed
    assert refused.kind == "admin_only"
    assert why in refused.reason
    assert f"({where})" in refused.reason, "the reason names the range"
    assert "admins only" in refused.reason
    assert refused.addresses == [], "a refusal gives nothing to connect to"

    allowed = check_network_target(req(target), "admin", DNS)
    assert allowed.allowed, allowed.reason
    assert len(allowed.addresses) == 1


@pytest.mark.parametrize("target", [t for t, _ in REGISTRY_REACHABLE] + PUBLIC)
@pytest.mark.parametrize("role", ["engineer", "admin"])
def test_globally_reachable_address_is_allowed(target: str, role: str) -> None:
    assert address_class(ipaddress.ip_address(target)) is None, target
    decision = check_network_target(req(target), role, DNS)
    assert decision.allowed, decision.reason
    assert decision.addresses == [target]


def test_every_row_of_the_table_is_tested() -> None:
    """The tables above cover `SPECIAL_RANGES` row by row, so a row added without a test
    (or a test left for a row taken out) fails here."""
    refused = {r.network for r in SPECIAL_RANGES if not r.reachable}
    reachable = {r.network for r in SPECIAL_RANGES if r.reachable}
    tested = {ipaddress.ip_network(where.split(",")[0]) for _, _, where in REFUSED}
    assert refused == tested
    assert reachable == {ipaddress.ip_network(net) for _, net in REGISTRY_REACHABLE}
    assert len(SPECIAL_RANGES) == len(refused) + len(reachable), "a range listed twice"


def test_the_first_and_last_address_of_every_row_follow_the_row() -> None:
    """The most specific row decides, at a range's edges too; a refusal names its range."""
    for row in SPECIAL_RANGES:
        for ip in (row.network.network_address, row.network.broadcast_address):
            deciding = special_range(ip)
            assert deciding is not None and deciding.network.prefixlen >= row.network.prefixlen
            why = address_class(ip)
            assert (why is None) == deciding.reachable, (ip, why)
            assert why is None or f"({deciding.network}" in why, (ip, why)


@pytest.mark.parametrize(
    ("answers", "bad", "where"),
    [
        (["8.8.8.8", "192.0.0.8"], "192.0.0.8", "192.0.0.8/32"),
        (["2606:4700:4700::1111", "::ffff:8.8.8.8"], "::ffff:808:808", "::ffff:0:0/96"),
        (["1.1.1.1", "64:ff9b::808:808"], "64:ff9b::808:808", "64:ff9b::/96"),
        (["140.82.112.3", "2001:db8::1"], "2001:db8::1", "2001:db8::/32"),
        (["8.8.8.8", "fe80::1%eth0"], "fe80::1", "fe80::/10"),
        (["1.1.1.1", "100.64.0.1"], "100.64.0.1", "100.64.0.0/10"),
        (["2001:4860:4860::8888", "5f00::1"], "5f00::1", "5f00::/16"),
        (["9.9.9.9", "198.18.0.1"], "198.18.0.1", "198.18.0.0/15"),
    ],
)
def test_name_resolving_to_a_mix_is_refused(answers: list[str], bad: str, where: str) -> None:
    dns = FakeDNS({"mixed.example.com": answers})
    refused = check_network_target(req("mixed.example.com"), "engineer", dns)
    assert not refused.allowed and refused.kind == "admin_only"
    assert f"{bad} is " in refused.reason and where in refused.reason
    admin = check_network_target(req("mixed.example.com"), "admin", dns)
    assert admin.allowed and len(admin.addresses) == 2


def test_name_resolving_to_registry_reachable_and_public_is_allowed() -> None:
    dns = FakeDNS({"pcp.example.com": ["192.0.0.9", "8.8.8.8", "2001:1::1"]})
    decision = check_network_target(req("pcp.example.com"), "engineer", dns)
    assert decision.allowed, decision.reason
    assert decision.addresses == ["192.0.0.9", "8.8.8.8", "2001:1::1"]


def test_unknown_role_has_no_admin_rights() -> None:
    for role in ("Admin", "root", "", "administrator"):
        assert not check_network_target(req("10.0.0.1"), role, DNS).allowed


def test_name_resolving_to_public_and_private_counts_as_private() -> None:
    decision = check_network_target(req("split.example.com"), "engineer", DNS)
    assert not decision.allowed
    assert decision.kind == "admin_only"
    assert "10.0.0.7 is a private address" in decision.reason
    assert "93.184.216.34" in decision.reason  # the reason shows what the name resolved to


def test_every_resolved_address_is_checked_not_only_the_first() -> None:
    decision = check_network_target(req("split-late.example.com"), "engineer", DNS)
    assert not decision.allowed
    assert "169.254.169.254 is a link-local address" in decision.reason

    admin = check_network_target(req("split-late.example.com"), "admin", DNS)
    assert admin.allowed
    assert admin.addresses == ["1.1.1.1", "8.8.8.8", "169.254.169.254"]


def test_name_resolving_to_private_is_admin_only() -> None:
    assert not check_network_target(req("internal.corp"), "engineer", DNS).allowed
    assert not check_network_target(req("metadata.corp", 80), "engineer", DNS).allowed
    admin = check_network_target(req("internal.corp"), "admin", DNS)
    assert admin.allowed and admin.addresses == ["10.20.30.40"]


@pytest.mark.parametrize("role", ["engineer", "admin"])
def test_unresolvable_name_is_refused_with_a_clear_reason(role: str) -> None:
    decision = check_network_target(req("nope.invalid"), role, DNS)
    assert not decision.allowed
    assert decision.kind == "unresolved"
    assert "nope.invalid does not resolve" in decision.reason
    assert "Name or service not known" in decision.reason


def test_empty_and_garbage_answers_are_refused() -> None:
    empty = check_network_target(req("empty.example.com"), "admin", DNS)
    assert (empty.allowed, empty.kind) == (False, "unresolved")
    garbage = check_network_target(req("garbage.example.com"), "admin", DNS)
    assert (garbage.allowed, garbage.kind) == (False, "invalid")
    assert "not-an-ip" in garbage.reason


def test_duplicate_answers_are_deduplicated() -> None:
    dns = FakeDNS({"dup.example.com": ["8.8.8.8", "8.8.8.8", "8.8.4.4"]})
    assert check_network_target(req("dup.example.com"), "engineer", dns).addresses == [
        "8.8.8.8",
        "8.8.4.4",
    ]


def test_ip_literal_is_not_sent_to_the_resolver() -> None:
    dns = FakeDNS({})
    assert check_network_target(req("8.8.8.8"), "engineer", dns).allowed
    assert dns.asked == []


@pytest.mark.parametrize(
    "target",
    [
        "http://example.com",
        "example.com:443",
        "exa mple.com",
        "-bad-.com",
        "a..b",
        "10.0.0.0/33",
        "example.com/24",
        "x" * 64 + ".com",
    ],
)
def test_invalid_target_is_refused_without_resolving(target: str) -> None:
    dns = FakeDNS({})
    decision = check_network_target(req(target), "admin", dns)
    assert not decision.allowed
    assert decision.kind == "invalid"
    assert dns.asked == []


def test_obscure_ipv4_spelling_is_judged_by_its_resolved_address() -> None:
    # getaddrinfo reads "127.1" and "2130706433" as 127.0.0.1; the guard checks the answer
    dns = FakeDNS({"127.1": ["127.0.0.1"], "2130706433": ["127.0.0.1"]})
    for target in ("127.1", "2130706433"):
        decision = check_network_target(req(target), "engineer", dns)
        assert not decision.allowed
        assert "loopback" in decision.reason


@pytest.mark.parametrize("target", ["93.184.216.0/24", "10.0.0.0/8", "2001:4860::/32"])
def test_cidr_ranges_are_admin_only(target: str) -> None:
    refused = check_network_target(req(target), "engineer", DNS)
    assert not refused.allowed
    assert refused.kind == "admin_only"
    assert "range" in refused.reason and "admins only" in refused.reason


def test_admin_may_scan_a_cidr_range() -> None:
    decision = check_network_target(req("10.0.0.5/24", 22), "admin", DNS)
    assert decision.allowed
    assert decision.addresses == ["10.0.0.0/24"]


def test_more_than_one_port_is_admin_only_even_for_a_public_host() -> None:
    refused = check_network_target(req("8.8.8.8", 53, 443), "engineer", DNS)
    assert not refused.allowed
    assert "2 ports" in refused.reason and "admins only" in refused.reason
    assert check_network_target(req("8.8.8.8", 53, 443), "admin", DNS).allowed


def test_port_range_is_admin_only_but_a_one_port_range_is_one_port() -> None:
    wide = req("8.8.8.8", PortRange(first=1, last=1024))
    assert not check_network_target(wide, "engineer", DNS).allowed
    assert check_network_target(wide, "admin", DNS).allowed
    single = req("8.8.8.8", PortRange(first=443, last=443))
    assert check_network_target(single, "engineer", DNS).allowed
    repeated = req("8.8.8.8", 443, 443)
    assert check_network_target(repeated, "engineer", DNS).allowed


def test_ports_are_checked_before_dns() -> None:
    dns = FakeDNS({})
    assert not check_network_target(req("example.com", 80, 443), "engineer", dns).allowed
    assert dns.asked == []


def test_even_an_admin_has_a_size_limit() -> None:
    decision = check_network_target(req("10.0.0.0/8", 443), "admin", DNS)
    assert not decision.allowed
    assert decision.kind == "too_large"
    assert str(MAX_PROBES) in decision.reason


@pytest.mark.parametrize("ports", [(0,), (65536,), (-1,), ()])
def test_bad_ports_do_not_validate(ports: tuple[int, ...]) -> None:
    with pytest.raises(ValidationError):
        NetCheckRequest(target="8.8.8.8", ports=ports)


def test_port_range_must_be_ordered() -> None:
    with pytest.raises(ValidationError, match="ends before it starts"):
        PortRange(first=100, last=10)
