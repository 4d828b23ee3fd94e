"""net.tcp_check against real sockets on 127.0.0.1, called through the policy gate."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import jsonschema
import pytest

from connectors.netcheck import NetCheckSettings, build_tools
from policy.gate import PolicyGate
from policy.scope import Scope, TimeSpec
from policy.toolset import CallContext, ToolSet

NOW = datetime(2026, 7, 20, 11, 11, tzinfo=UTC)


def ctx(role: str = "engineer", mode: str = "now") -> CallContext:
    time = TimeSpec(mode=mode, at=NOW if mode == "historical" else None)
    return CallContext(user=f"{role}-1", role=role, scope=Scope(env="dc-a", time=time), now=NOW)


class Listener:
    """A real TCP server on 127.0.0.1 that counts the connections it accepted."""

    def __init__(self) -> None:
        self.accepted = 0
        self.server: asyncio.Server | None = None

    async def _on_client(self, _reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        writer.close()

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.sockets[0].getsockname()[1]


@pytest.fixture
async def listener() -> AsyncIterator[Listener]:
    lis = Listener()
    lis.server = await asyncio.start_server(lis._on_client, "127.0.0.1", 0)
    yield lis
    lis.server.close()
    await lis.server.wait_closed()


@pytest.fixture
def closed_port() -> int:
    """A port nothing listens on: bound once to pick it, then released."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


@pytest.fixture
def stalled_port() -> Iterator[int]:
    """A listener whose accept queue is full, so a new connect gets no answer."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    fillers = []
    for _ in range(3):
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        fillers.append(filler)
    yield port
    for filler in fillers:
        filler.close()
    server.close()


def gate(resolver=None, timeout_s: float = 1.0) -> PolicyGate:
    settings = NetCheckSettings(timeout_s=timeout_s, resolver=resolver or (lambda host: []))
    return PolicyGate(ToolSet(build_tools(settings)))


async def test_engineer_is_refused_loopback_and_nothing_connects(listener: Listener) -> None:
    result = await gate().call("net.tcp_check", {"host": "127.0.0.1", "port": listener.port}, ctx())
    assert result.status == "error"
    assert result.error_kind == "forbidden"
    assert "127.0.0.1 is a loopback address" in (result.error or "")
    assert "admins only" in (result.error or "")
    assert result.facts == []
    await asyncio.sleep(0.05)
    assert listener.accepted == 0


async def test_admin_sees_the_port_open(listener: Listener) -> None:
    result = await gate().call(
        "net.tcp_check", {"host": "127.0.0.1", "port": listener.port}, ctx("admin")
    )
    assert result.status == "ok", result.error
    [fact] = result.facts
    assert fact.kind == "net.probe"
    assert fact.attrs.open is True
    assert fact.attrs.state == "open"
    assert fact.attrs.address == "127.0.0.1"
    assert fact.attrs.port == listener.port
    assert f"TCP 127.0.0.1:{listener.port} is open" in fact.text
    assert fact.historical is False
    assert fact.observed_at == NOW
    assert result.coverage.complete_for_negative
    await asyncio.sleep(0.05)
    assert listener.accepted == 1


async def test_admin_sees_a_closed_port(closed_port: int) -> None:
    result = await gate().call(
        "net.tcp_check", {"host": "127.0.0.1", "port": closed_port}, ctx("admin")
    )
    assert result.status == "ok"
    [fact] = result.facts
    assert fact.attrs.open is False
    assert fact.attrs.state == "closed"
    assert "is closed (connection refused)" in fact.text


async def test_a_port_that_does_not_answer_times_out(stalled_port: int) -> None:
    result = await gate().call(
        "net.tcp_check",
        {"host": "127.0.0.1", "port": stalled_port, "timeout_s": 0.3},
        ctx("admin"),
    )
    assert result.status == "ok"
    [fact] = result.facts
    assert fact.attrs.state == "timeout"
    assert fact.attrs.open is False
    assert "timeout" in fact.text and "0.3 s" in fact.text


async def test_a_name_is_resolved_once_and_every_address_is_probed(listener: Listener) -> None:
    asked: list[str] = []

    def resolver(host: str) -> list[str]:
        asked.append(host)
        return ["127.0.0.1", "127.0.0.2"]  # the listener is bound to 127.0.0.1 only

    result = await gate(resolver).call(
        "net.tcp_check", {"host": "api.internal.example", "port": listener.port}, ctx("admin")
    )
    assert asked == ["api.internal.example"]
    states = {f.attrs.address: f.attrs.state for f in result.facts}
    assert states == {"127.0.0.1": "open", "127.0.0.2": "closed"}
    assert all(f.attrs.host == "api.internal.example" for f in result.facts)
    assert "(api.internal.example)" in result.facts[0].text
    assert [e.name for e in result.entities] == ["api.internal.example"]
    assert {r.dst for r in result.relations} == {"address/127.0.0.1", "address/127.0.0.2"}


async def test_engineer_refused_when_one_of_the_addresses_is_private(listener: Listener) -> None:
    def resolver(host: str) -> list[str]:
        return ["93.184.216.34", "127.0.0.1"]

    result = await gate(resolver).call(
        "net.tcp_check", {"host": "rebind.example.com", "port": listener.port}, ctx()
    )
    assert result.status == "error"
    assert result.error_kind == "forbidden"
    assert "127.0.0.1 is a loopback address" in (result.error or "")
    await asyncio.sleep(0.05)
    assert listener.accepted == 0


async def test_a_name_that_does_not_resolve_is_a_gap() -> None:
    def resolver(host: str) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    result = await gate(resolver).call(
        "net.tcp_check", {"host": "nope.example.com", "port": 443}, ctx("admin")
    )
    assert result.status == "error"
    assert result.error_kind == "not_found"
    assert "nope.example.com does not resolve" in (result.error or "")


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"host": "8.8.8.8", "port": 0}, "port"),
        ({"host": "8.8.8.8", "port": 70000}, "port"),
        ({"host": "8.8.8.8", "port": 443, "timeout_s": 10}, "timeout_s"),
        ({"host": "8.8.8.8", "port": 443, "timeout_s": 0.01}, "timeout_s"),
        ({"host": "http://8.8.8.8/", "port": 443}, "host"),
        ({"host": "8.8.8.8", "port": 443, "ports": [1, 2]}, "ports"),
        ({"host": "8.8.8.8"}, "port"),
    ],
)
async def test_bad_arguments_are_denied_by_the_gate(arguments: dict, field: str) -> None:
    result = await gate().call("net.tcp_check", arguments, ctx("admin"))
    assert result.status == "denied"
    assert result.error_kind == "invalid_arguments"
    assert field in (result.error or "")


async def test_a_live_probe_cannot_answer_a_question_about_the_past(listener: Listener) -> None:
    result = await gate().call(
        "net.tcp_check", {"host": "127.0.0.1", "port": listener.port}, ctx("admin", "historical")
    )
    assert result.status == "denied"
    assert result.error_kind == "current_only"
    assert listener.accepted == 0


def test_contract_is_visible_to_engineers_and_valid() -> None:
    contracts = gate().contracts(ctx())
    [contract] = contracts
    assert contract.name == "net.tcp_check"
    agent = contract.agent
    assert agent.evidence == ["net.reachability"]
    assert (agent.current_only, agent.read_only, agent.freshness) == (True, True, "live")
    schema = contract.input_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["host", "port"]
