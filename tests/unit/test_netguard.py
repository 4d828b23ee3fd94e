"""The SSRF guard: who may probe what, decided before any connection."""

from __future__ import annotations

import socket
from collections.abc import Sequence

import pytest
from pydantic import ValidationError

from policy.netguard import (
    MAX_PROBES,
    NetCheckRequest,
    PortRange,
    address_class,
    check_network_target,
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


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("127.0.0.1", "loopback"),
        ("127.1.2.3", "loopback"),
        ("::1", "loopback"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("100.127.255.254", "carrier-grade NAT"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "reserved"),
        ("192.0.2.10", "private"),  # TEST-NET-1, documentation
        ("198.18.0.1", "private"),  # benchmarking
        ("fd12:3456:789a::1", "unique local"),
        ("fc00::1", "unique local"),
        ("fec0::1", "site-local"),
        ("::ffff:127.0.0.1", "IPv4-mapped"),
        ("::ffff:8.8.8.8", "IPv4-mapped"),
        ("64:ff9b::a00:1", "NAT64"),
        ("2002:a00:1::1", "6to4"),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),
        ("2001:db8::1", "private"),
        ("10.0.0.0/32", "private"),
    ],
)
def test_non_public_address_is_admin_only(target: str, why: str) -> None:
    refused = check_network_target(req(target), "engineer", DNS)
    assert not refused.allowed
    assert refused.kind == "admin_only"
    assert why in refused.reason
    assert "admins only" in refused.reason
    assert refused.addresses == [], "a refusal gives nothing to connect to"

    allowed = check_network_target(req(target), "admin", DNS)
    assert allowed.allowed, allowed.reason
    assert len(allowed.addresses) == 1


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


def test_address_class_of_public_addresses_is_none() -> None:
    import ipaddress

    for text in ("8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "100.128.0.1"):
        assert address_class(ipaddress.ip_address(text)) is None, text
