"""The network checker: one TCP connect to host:port, behind the SSRF guard.

Tool `net.tcp_check(host, port, timeout_s)`. Before anything connects, the caller's role
and the target go through `connectors.kit.netguard.check_network_target`: the name is resolved
once, every resolved address is checked, and only the addresses the guard returned are
dialled (never the name again), each with `asyncio.open_connection`. Nothing is sent; the
connection is closed as soon as it is open.

Errors (no HTTP here):
    SourceForbidden   the guard refused the target for this role (a non-public address
                      for an engineer, an invalid target); the reason names the addresses
    SourceNotFound    the host name does not resolve
A refused connection, a timeout or an unreachable network is not an error: it is the
observation itself, reported as a `net.probe` fact with state closed / timeout /
unreachable.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable, Sequence
from typing import Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field

from connectors.kit.netguard import Decision, NetCheckRequest, check_network_target
from policy.contracts import AgentMeta, ToolContract
from policy.errors import SourceForbidden, SourceNotFound
from policy.facts import NetProbe
from policy.findings import Findings
from policy.numbers import number_said
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext, FunctionTool, Tool, scope_of

log = structlog.get_logger(__name__)

SOURCE = "network"
MAX_ADDRESSES = 16
"""Most resolved addresses probed for one name; the rest are reported as not probed."""

ProbeState = Literal["open", "closed", "timeout", "unreachable"]


def system_resolver(host: str) -> list[str]:
    """Every address the system resolver returns for `host`, in its order, deduplicated."""
    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    seen: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = str(sockaddr[0])
        if address not in seen:
            seen.append(address)
    return seen


class NetCheckSettings(BaseModel):
    """Settings of the network checker; `resolver` is a seam for tests (no DNS needed)."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    timeout_s: float = Field(default=2.0, ge=0.1, le=5.0)
    resolver: Callable[[str], Sequence[str]] = system_resolver


class TcpCheckArgs(BaseModel):
    """Arguments of `net.tcp_check`."""

    model_config = ConfigDict(extra="forbid")

    host: str = Field(
        min_length=1,
        max_length=255,
        pattern=r"^[A-Za-z0-9_.:\[\]-]+$",
        description="host name, IPv4 or IPv6 address to connect to (no scheme, no port)",
    )
    port: int = Field(ge=1, le=65535, description="TCP port")
    timeout_s: float | None = Field(
        default=None,
        ge=0.1,
        le=5.0,
        description="connect timeout in seconds per address; default from settings",
    )


CONTRACT_DESCRIPTION = (
    "Try a TCP connection from the bot to host:port right now and report, per resolved "
    "address, whether the port is open, closed (refused), timed out or unreachable. "
    "Shows reachability from the bot only, not from a pod. A single public host is "
    "allowed for everyone; private, loopback and other non-public addresses only for admins."
)


async def _probe(address: str, port: int, timeout_s: float) -> tuple[ProbeState, str, float]:
    """Connect once; return the state, a short detail and the elapsed milliseconds."""
    started = time.monotonic()
    try:
        _reader, writer = await asyncio.wait_for(
            asyncio.open_connection(address, port), timeout=timeout_s
        )
    except TimeoutError:
        return "timeout", f"no answer within {timeout_s:g} s", _ms(started)
    except ConnectionRefusedError:
        return "closed", "connection refused", _ms(started)
    except OSError as exc:
        return "unreachable", exc.strerror or type(exc).__name__, _ms(started)
    elapsed = _ms(started)
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return "open", "connected", elapsed


def _ms(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)


def _endpoint(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def _describe(state: ProbeState, detail: str, elapsed_ms: float) -> str:
    if state == "open":
        return f"is open (connected in {number_said(elapsed_ms)} ms)"
    if state == "closed":
        return f"is closed ({detail})"
    if state == "timeout":
        return f"did not answer: timeout ({detail})"
    return f"is unreachable ({detail})"


def _raise_refusal(decision: Decision, host: str, port: int) -> None:
    log.info("netcheck.refused", host=host, port=port, kind=decision.kind)
    if decision.kind == "unresolved":
        raise SourceNotFound(SOURCE, decision.reason)
    raise SourceForbidden(SOURCE, f"net.tcp_check refused: {decision.reason}")


def build_tools(settings: NetCheckSettings | None = None) -> list[Tool]:
    """The network-check tools for these settings."""
    settings = settings or NetCheckSettings()
    contract = ToolContract(
        name="net.tcp_check",
        description=CONTRACT_DESCRIPTION,
        args_model=TcpCheckArgs,
        agent=AgentMeta(
            evidence=["net.reachability"],
            sources=[SOURCE],
            output_kind="probe",
            freshness="live",
            negative_semantics="complete_read",
            supports_history=False,
            current_only=True,
            read_only=True,
        ),
    )

    async def tcp_check(args: TcpCheckArgs, ctx: CallContext) -> ToolResult:
        timeout_s = args.timeout_s if args.timeout_s is not None else settings.timeout_s
        request = NetCheckRequest(target=args.host, ports=(args.port,))
        decision = await asyncio.to_thread(
            check_network_target, request, ctx.role, settings.resolver
        )
        if not decision.allowed:
            _raise_refusal(decision, args.host, args.port)
        addresses = decision.addresses[:MAX_ADDRESSES]
        outcomes = await asyncio.gather(
            *(_probe(address, args.port, timeout_s) for address in addresses)
        )
        facts: list[ResultFact] = []
        for address, (state, detail, elapsed_ms) in zip(addresses, outcomes, strict=True):
            named = "" if address == args.host.strip("[]") else f" ({args.host})"
            facts.append(
                ResultFact(
                    text=f"TCP {_endpoint(address, args.port)}{named} "
                    + _describe(state, detail, elapsed_ms),
                    source=SOURCE,
                    observed_at=ctx.now,
                    historical=False,
                    attrs=NetProbe(
                        host=args.host,
                        port=args.port,
                        address=address,
                        open=state == "open",
                        state=state,
                        detail=detail,
                        elapsed_ms=elapsed_ms,
                        timeout_s=timeout_s,
                    ),
                )
            )
            log.info("netcheck.probe", host=args.host, port=args.port, state=state)
        skipped = decision.addresses[MAX_ADDRESSES:]
        warnings = (
            [
                f"{args.host} resolved to {len(decision.addresses)} addresses; probed only the "
                f"first {MAX_ADDRESSES}"
            ]
            if skipped
            else []
        )
        found = Findings(
            SOURCE,
            facts=facts,
            warnings=warnings,
            complete=not skipped,
            truncated=bool(skipped),
        )
        found.entity("host", args.host, addresses=decision.addresses)
        for address in decision.addresses:
            if address != args.host.strip("[]"):
                found.relate(f"host/{args.host}", "resolves_to", f"address/{address}", ctx.now)
        return found.result(
            contract.name,
            scope_of(args, ctx),
            returned=len(facts),
            observed_at=ctx.now,
            limit=MAX_ADDRESSES,
            total=len(decision.addresses),
        )

    return [FunctionTool(contract=contract, fn=tcp_check)]
