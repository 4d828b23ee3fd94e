"""Replicas that take over a dead one's threads: each share of the threads is a Kubernetes
Lease (coordination.k8s.io/v1), held by the replica that answers it.

Threads are dealt into `replicas` shares by a stable hash of the root post (`Partition`).
Without leases a share belongs to one replica for good, and a replica that dies leaves its
share unanswered until it is back. With leases, share i is the Lease `<prefix>-i` in the
bot's namespace: a replica renews the shares it holds every third of the lease duration,
and takes a share whose lease ran out (its holder stopped renewing: it died, or lost its
network) by writing itself in as holder with the resourceVersion it read, so that of two
replicas racing for one share the API server lets exactly one win (409 Conflict for the
other). No consensus of our own: the API server's optimistic concurrency is the lock.

A replica takes its own share at once; another share only once it has been free for a
lease duration after the replica started (its owner may still be starting). A share it
took over it keeps: a replica that returns takes whatever is free then, not its old share
back (restart the StatefulSet to deal the shares evenly again). A replica answers a share
only while its lease is valid by its own clock (renewed less than a lease duration ago),
so one that cannot renew stops answering before another can take the share. After taking
a share over it reads back what was asked in the channels meanwhile and answers what has
no answer yet (the listener's catch-up): every question is answered once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import structlog
import urllib3

from bot.mattermost._partition import shard_of

log = structlog.get_logger(__name__)

RENEWS_PER_DURATION = 3


@dataclass(frozen=True)
class Lease:
    """A Lease as the API holds it: who holds it, when they last renewed it."""

    name: str
    holder: str | None
    renewed: datetime | None
    duration_s: int
    version: str
    transitions: int = 0

    def expired(self, now: datetime) -> bool:
        return self.renewed is None or now >= self.renewed + timedelta(seconds=self.duration_s)


class LeaseConflict(Exception):
    """Another replica wrote the Lease first (HTTP 409): this one did not get it."""


class LeaseStoreError(Exception):
    """The Lease could not be read or written (the API server down, no permission)."""


class LeaseStore(Protocol):
    async def read(self, name: str) -> Lease | None: ...
    async def create(self, name: str, holder: str, duration_s: int, now: datetime) -> Lease: ...
    async def replace(self, lease: Lease) -> Lease: ...


class KubeLeases:
    """Leases of one namespace through the official client's CoordinationV1Api (its
    blocking calls in a thread each)."""

    def __init__(self, api_client: Any, namespace: str) -> None:
        from kubernetes.client import CoordinationV1Api

        self._api = CoordinationV1Api(api_client)
        self.namespace = namespace

    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        from kubernetes.client.exceptions import ApiException

        try:
            return await asyncio.to_thread(fn, *args)
        except ApiException as exc:
            if exc.status == 409:
                raise LeaseConflict(str(exc.reason)) from exc
            if exc.status == 404:
                return None
            raise LeaseStoreError(f"HTTP {exc.status} {exc.reason}") from exc
        except (OSError, urllib3.exceptions.HTTPError) as exc:
            raise LeaseStoreError(str(exc)) from exc

    async def read(self, name: str) -> Lease | None:
        body = await self._call(self._api.read_namespaced_lease, name, self.namespace)
        return None if body is None else _lease_of(body)

    async def create(self, name: str, holder: str, duration_s: int, now: datetime) -> Lease:
        lease = Lease(name=name, holder=holder, renewed=now, duration_s=duration_s, version="")
        made = await self._call(
            self._api.create_namespaced_lease, self.namespace, self._body(lease)
        )
        if made is None:
            raise LeaseConflict(f"{name}: the namespace {self.namespace} is not there")
        return _lease_of(made)

    async def replace(self, lease: Lease) -> Lease:
        done = await self._call(
            self._api.replace_namespaced_lease, lease.name, self.namespace, self._body(lease)
        )
        if done is None:
            raise LeaseConflict(f"{lease.name}: deleted since it was read")
        return _lease_of(done)

    def _body(self, lease: Lease) -> Any:
        """The V1Lease the API takes: a create carries no resourceVersion, a replace the
        one read (the API server refuses it when another wrote since)."""
        from kubernetes.client import V1Lease, V1LeaseSpec, V1ObjectMeta

        return V1Lease(
            metadata=V1ObjectMeta(
                name=lease.name, namespace=self.namespace, resource_version=lease.version or None
            ),
            spec=V1LeaseSpec(
                holder_identity=lease.holder,
                lease_duration_seconds=lease.duration_s,
                renew_time=lease.renewed,
                lease_transitions=lease.transitions,
            ),
        )


def _lease_of(body: Any) -> Lease:
    spec = body.spec
    renewed = spec.renew_time
    if renewed is not None and renewed.tzinfo is None:
        renewed = renewed.replace(tzinfo=UTC)
    return Lease(
        name=str(body.metadata.name),
        holder=spec.holder_identity or None,
        renewed=renewed,
        duration_s=int(spec.lease_duration_seconds or 0),
        version=str(body.metadata.resource_version or ""),
        transitions=int(spec.lease_transitions or 0),
    )


def _utc_now() -> datetime:
    return datetime.now(UTC)


class LeasedShares:
    """This replica's shares of the threads, each held as a Lease; `owns` is what the
    listener asks of every post (as it asks a fixed `Partition`)."""

    def __init__(
        self,
        store: LeaseStore,
        *,
        identity: str,
        index: int,
        count: int,
        duration_s: int,
        prefix: str = "infrabot-share",
        clock: Callable[[], datetime] = _utc_now,
    ) -> None:
        self.store = store
        self.identity = identity
        self.index = index
        self.count = count
        self.duration = timedelta(seconds=duration_s)
        self.prefix = prefix
        self.clock = clock
        self.started = clock()
        self.on_takeover: Callable[[int], Awaitable[None]] | None = None
        self._valid_until: dict[int, datetime] = {}
        self._ticks = 0

    def owns(self, root_id: str) -> bool:
        return self.holds(shard_of(root_id, self.count))

    def holds(self, share: int) -> bool:
        until = self._valid_until.get(share)
        return until is not None and self.clock() < until

    @property
    def held(self) -> list[int]:
        return [s for s in range(self.count) if self.holds(s)]

    async def tick(self) -> None:
        """Renew what is held, take what is free: the own share first."""
        for share in [self.index, *(s for s in range(self.count) if s != self.index)]:
            try:
                await self._one(share)
            except LeaseConflict:
                self._valid_until.pop(share, None)
                log.info("leases.lost_race", share=share, identity=self.identity)
            except (LeaseStoreError, ValueError, TypeError, AttributeError) as exc:
                # not renewed (the API server down, or a Lease in a shape we cannot read):
                # the share stays answered only until its lease runs out
                log.warning("leases.unavailable", share=share, error=str(exc)[:200])
        self._ticks += 1

    async def _one(self, share: int) -> None:
        name = f"{self.prefix}-{share}"
        now = self.clock()
        seconds = int(self.duration.total_seconds())
        patient = share != self.index and now - self.started < self.duration
        lease = await self.store.read(name)
        if lease is None:
            if patient:
                return  # its owner may still be starting
            await self.store.create(name, self.identity, seconds, now)
            await self._took(share, now, taken_over=share != self.index)
        elif lease.holder == self.identity:
            await self.store.replace(replace(lease, renewed=now, duration_s=seconds))
            if not self.holds(share):
                await self._took(share, now, taken_over=False)
            self._valid_until[share] = now + self.duration
        elif lease.holder is None or lease.expired(now):
            if patient:
                return
            taken = replace(
                lease,
                holder=self.identity,
                renewed=now,
                duration_s=seconds,
                transitions=lease.transitions + 1,
            )
            await self.store.replace(taken)
            await self._took(share, now, taken_over=lease.holder is not None)
        else:
            self._valid_until.pop(share, None)

    async def _took(self, share: int, now: datetime, *, taken_over: bool) -> None:
        """A share newly held: what was asked in it meanwhile is read back, unless this is
        the first round at start and the share was nobody's (the start's own catch-up
        reads that)."""
        self._valid_until[share] = now + self.duration
        log.info("leases.took", share=share, identity=self.identity, taken_over=taken_over)
        if (taken_over or self._ticks > 0) and self.on_takeover is not None:
            await self.on_takeover(share)

    async def run(self) -> None:
        """Forever: a tick every third of the lease duration."""
        every = self.duration.total_seconds() / RENEWS_PER_DURATION
        while True:
            await self.tick()
            await asyncio.sleep(every)


SERVICEACCOUNT_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"


def lease_store(
    namespace: str | None, url: str | None, token: str | None, verify_tls: bool
) -> KubeLeases:
    """The Leases of the bot's own cluster: in-cluster by its ServiceAccount, or `url` with
    `token`; the namespace given, else the ServiceAccount's, else "default"."""
    from pathlib import Path

    from kubernetes.client import ApiClient, Configuration
    from kubernetes.config import load_incluster_config

    config = Configuration()
    if url:
        config.host = url.rstrip("/")
        config.verify_ssl = verify_tls
        if token:
            config.api_key = {"authorization": token}
            config.api_key_prefix = {"authorization": "Bearer"}
    else:
        load_incluster_config(client_configuration=config)  # type: ignore[no-untyped-call]
    own = Path(SERVICEACCOUNT_NAMESPACE)
    where = namespace or (own.read_text().strip() if own.exists() else "default")
    return KubeLeases(ApiClient(config), where)
