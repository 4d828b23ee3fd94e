"""Round 0 of every turn: what each environment runs, so that the names in a question
resolve ("it runs in another env, not in this one" apart from "no such thing"), and
which sources are already down.

Read through the executor like every other call (one timeout and failure path; not
retried), or kept from a turn moments ago (planner.read.inventory_cache).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime

import structlog

from planner.plan.routing import PlannedCall, canonical
from planner.question.alert import scope_words
from planner.question.context import InventoryItem, names_not_listed
from planner.read.executor import CallRecord, Executor
from planner.read.inventory_cache import InventoryCache
from planner.read.workspace import TurnWorkspace
from planner.shapes.answer import ToolCallRecord
from planner.shapes.turn import Turn
from planner.turn.settings import TurnSettings
from policy.contracts import ToolContract
from policy.facts import RelationKind
from policy.gaps import GapNote, GapReason
from policy.results import ToolResult
from policy.scope import Scope
from policy.toolset import CallContext, Toolset

log = structlog.get_logger(__name__)

INVENTORY = "inventory"


@dataclass
class Inventory:
    items: list[InventoryItem]
    calls: list[ToolCallRecord]
    failed: dict[tuple[str, str | None], GapNote]
    # lists that came back cut short: a name may be missing from them
    partial: list[GapNote] = field(default_factory=list)

    def guess_names(self, envs: list[str]) -> bool:
        """Listed nowhere (a list failed, was cut short, or no source lists these envs:
        logs only): a workload-like name in the question is then taken as the object,
        not dropped."""
        return (
            bool(self.failed)
            or any(n.env in (None, *envs) for n in self.partial)
            or not any(i.env in envs for i in self.items)
        )


async def inventory_for(
    turn: Turn,
    gate: Toolset,
    settings: TurnSettings,
    cache: InventoryCache,
    named: list[str] | None,
) -> Inventory:
    """The lists the question needs: only the envs it names when it names some, all of
    them when it names something those do not list, and listed afresh when a kept list
    lacks a name the question uses (perhaps deployed since)."""
    inventory = await read_inventory(turn, gate, settings, cache, only=named)

    def unlisted() -> bool:
        return bool(
            names_not_listed(
                scope_words(turn.question),
                inventory=inventory.items,
                envs=settings.envs,
                env_aliases=settings.env_aliases,
            )
        )

    if named and unlisted():
        # a name the named envs do not list (or they have no list): the others' names tell
        # "it runs in another env, not in this one" from "no such thing"
        inventory = await read_inventory(turn, gate, settings, cache)
    if any(c.cached for c in inventory.calls) and unlisted():
        # the question names something the kept lists do not have: perhaps deployed since
        # they were read, so list again rather than answer about something else
        fresh = await read_inventory(turn, gate, settings, cache, fresh=True, only=named)
        if named:
            # the other envs' names, read just before, still tell "it runs elsewhere"
            fresh.items += [i for i in inventory.items if i.env not in named]
        inventory = fresh
    return inventory


def _listing_calls(
    contracts: list[ToolContract], only: list[str] | None
) -> tuple[list[PlannedCall], set[str]]:
    """One listing call per env, from the source that keeps an env's objects (a live
    API) first; a source that only sees names in passing (a log index) lists an env
    nothing else lists. The second set: the keys of those secondary listers."""
    listers = [c for c in contracts if INVENTORY in c.agent.evidence]
    listers.sort(key=lambda c: c.agent.freshness != "live")
    planned: list[PlannedCall] = []
    covered: set[str | None] = set()
    secondary: set[str] = set()
    for contract in listers:
        source = contract.agent.sources[0]
        envs: list[str | None] = list(contract.enums.get("env", [None]))
        for env in envs:
            if (only and env is not None and env not in only) or env in covered:
                continue
            covered.add(env)
            args = {"env": env} if env else {}
            call = PlannedCall(contract.name, canonical(args), env, source, (INVENTORY,))
            planned.append(call)
            if contract.agent.freshness != "live":
                secondary.add(call.key)
    return planned, secondary


async def read_inventory(
    turn: Turn,
    gate: Toolset,
    settings: TurnSettings,
    cache: InventoryCache,
    *,
    fresh: bool = False,
    only: list[str] | None = None,
) -> Inventory:
    """Names known in each env, the calls made, and the sources that failed (those stay
    unavailable for the rest of the turn, so the answer says why, not "no service").
    A read kept from a turn moments ago is reused unless `fresh`; its record says so."""
    ctx = CallContext(
        user=turn.user,
        role=turn.role,
        scope=Scope(),
        now=turn.now,
        timezone=settings.timezone,
    )
    planned, secondary = _listing_calls(gate.contracts(ctx), only)
    kept: dict[str, tuple[ToolResult, datetime]] = {}
    if not fresh:
        for call in planned:
            hit = cache.get(call.tool, call.env, turn.now)
            if hit is not None:
                kept[call.key] = (hit.result, hit.observed_at)
    executor = Executor(
        gate=gate,
        ctx=ctx,
        workspace=TurnWorkspace(),
        timeouts=settings.investigation.source_timeouts,
        default_timeout=settings.investigation.default_timeout,
        # the first thing every turn waits for: a source that is down is reported after one
        # timeout, not two (the investigation's own calls to it are then skipped as down)
        retry_transient=False,
    )
    began = time.perf_counter()
    records = {r.call.key: r for r in await executor.run([c for c in planned if c.key not in kept])}
    log.debug("inventory.read", calls=len(records), kept=len(kept), ms=_ms_since(began))
    out = Inventory([], [], {})
    for call in planned:
        if call.key in kept:
            result, observed_at = kept[call.key]
            out.calls.append(_record(call, result, cached_at=observed_at))
        else:
            made: CallRecord = records[call.key]
            result = made.result
            cache.put(call.tool, call.env, result, turn.now)
            out.calls.append(_record(call, result, duration_ms=made.duration_ms))
        _take(out, call, result, secondary=call.key in secondary)
    return out


def _record(
    call: PlannedCall,
    result: ToolResult,
    *,
    duration_ms: int = 0,
    cached_at: datetime | None = None,
) -> ToolCallRecord:
    return ToolCallRecord(
        tool=call.tool,
        arguments=call.arguments,
        purpose=INVENTORY,
        source=call.source,
        env=call.env,
        status=result.status,
        duration_ms=duration_ms,
        cached=cached_at is not None,
        observed_at=cached_at.isoformat() if cached_at is not None else None,
        error_kind=result.error_kind if cached_at is None else None,
    )


def _take(out: Inventory, call: PlannedCall, result: ToolResult, *, secondary: bool) -> None:
    """One listing's names, and what its failure or cut says of its source."""
    if result.failed and not secondary:
        # a lister that only sees names in passing failing says nothing of its source's
        # other reads: only a live inventory's failure stands for the source's
        source = result.coverage.source.split("/")[0]
        note = GapNote(GapReason.SOURCE_FAILED, call.env, source, result.error or "")
        out.failed[(source, call.env)] = note
    if result.status == "partial" and not secondary:
        cov = result.coverage
        read = cov.what_was_read()
        out.partial.append(GapNote(GapReason.TRUNCATED, call.env, call.tool, read))
    fronts = _fronts(result)
    for ent in result.entities:
        out.items.append(
            InventoryItem(
                env=ent.env or call.env or "",
                namespace=ent.namespace,
                name=ent.name,
                kind=ent.kind,
                routes=tuple(ent.routes),
                fronted_by=tuple(fronts.get(f"{ent.kind.value}/{ent.name}", ())),
                images=tuple(ent.images),
                addresses=tuple(ent.addresses),
            )
        )


def _fronts(result: ToolResult) -> dict[str, list[str]]:
    """'deployment/x' -> the Services that select its pods, then the Ingresses that route
    to those Services, from the relations the inventory observed."""
    services: dict[str, list[str]] = {}
    ingresses: dict[str, list[str]] = {}
    for rel in result.relations:
        src_kind, _, src = rel.src.partition("/")
        _, _, dst = rel.dst.partition("/")
        if rel.rel is RelationKind.SELECTS and src_kind == "service":
            services.setdefault(rel.dst, []).append(src)
        elif rel.rel is RelationKind.ROUTES_TO and src_kind == "ingress":
            ingresses.setdefault(dst, []).append(src)
    # a name in more than one namespace cannot be told apart by these edges: no fronts for
    # it, rather than another namespace's
    namespaces: dict[str, set[str | None]] = {}
    for ent in result.entities:
        namespaces.setdefault(f"{ent.kind.value}/{ent.name}", set()).add(ent.namespace)
    return {
        workload: [*svcs, *(i for svc in svcs for i in ingresses.get(svc, []))]
        for workload, svcs in services.items()
        if len(namespaces.get(workload, set())) <= 1
        and all(len(namespaces.get(f"service/{s}", set())) <= 1 for s in svcs)
    }


def _ms_since(began: float) -> int:
    return round((time.perf_counter() - began) * 1000)
