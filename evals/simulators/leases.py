"""The Kubernetes Leases API (coordination.k8s.io/v1) as the API server serves it to
replicas that coordinate through it: read, create and replace a namespaced Lease, each
write with a new resourceVersion; a create of a Lease that exists and a replace with a
resourceVersion that is not the current one answer 409 Conflict, an absent Lease 404, as a
`Status` object. The API server never expires a Lease: a holder that stopped renewing is
seen as gone by the others, from `renewTime` and `leaseDurationSeconds`.

Run with `evals.simulators.server.BackgroundServer(LeaseApi().app)`; the official client
talks to it through its real HTTP path.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from evals.simulators.kubernetes._resources import status

_BASE = "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"


def _status(code: int, reason: str, message: str) -> JSONResponse:
    return JSONResponse(status(code, reason, message), status_code=code)


@dataclass
class LeaseApi:
    """Leases by (namespace, name); `writes` counts every accepted write."""

    leases: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    writes: int = 0
    conflicts: int = 0
    _version: int = 100
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route(_BASE, self._create, methods=["POST"]),
                Route(_BASE + "/{name}", self._read, methods=["GET"]),
                Route(_BASE + "/{name}", self._replace, methods=["PUT"]),
            ]
        )

    def holder(self, name: str, namespace: str = "default") -> str | None:
        lease = self.leases.get((namespace, name))
        return None if lease is None else lease["spec"].get("holderIdentity")

    def _stamp(self, body: dict[str, Any], namespace: str, name: str) -> dict[str, Any]:
        self._version += 1
        self.writes += 1
        meta = body.setdefault("metadata", {})
        meta.update(
            name=name,
            namespace=namespace,
            resourceVersion=str(self._version),
            uid=meta.get("uid") or str(uuid.uuid4()),
            creationTimestamp=meta.get("creationTimestamp")
            or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
        body["apiVersion"], body["kind"] = "coordination.k8s.io/v1", "Lease"
        return body

    async def _read(self, request: Request) -> JSONResponse:
        ns, name = request.path_params["namespace"], request.path_params["name"]
        with self._lock:
            lease = self.leases.get((ns, name))
        if lease is None:
            return _status(404, "NotFound", f'leases.coordination.k8s.io "{name}" not found')
        return JSONResponse(lease)

    async def _create(self, request: Request) -> JSONResponse:
        ns = request.path_params["namespace"]
        body = await request.json()
        name = str((body.get("metadata") or {}).get("name") or "")
        with self._lock:
            if (ns, name) in self.leases:
                self.conflicts += 1
                return _status(
                    409, "AlreadyExists", f'leases.coordination.k8s.io "{name}" already exists'
                )
            self.leases[(ns, name)] = self._stamp(body, ns, name)
            return JSONResponse(self.leases[(ns, name)], status_code=201)

    async def _replace(self, request: Request) -> JSONResponse:
        ns, name = request.path_params["namespace"], request.path_params["name"]
        body = await request.json()
        sent = str((body.get("metadata") or {}).get("resourceVersion") or "")
        with self._lock:
            lease = self.leases.get((ns, name))
            if lease is None:
                return _status(404, "NotFound", f'leases.coordination.k8s.io "{name}" not found')
            if sent != lease["metadata"]["resourceVersion"]:
                self.conflicts += 1
                return _status(
                    409,
                    "Conflict",
                    f'Operation cannot be fulfilled on leases.coordination.k8s.io "{name}": '
                    "the object has been modified; please apply your changes to the latest "
                    "version and try again",
                )
            body.setdefault("metadata", {})["uid"] = lease["metadata"]["uid"]
            body["metadata"]["creationTimestamp"] = lease["metadata"]["creationTimestamp"]
            self.leases[(ns, name)] = self._stamp(body, ns, name)
            return JSONResponse(self.leases[(ns, name)])
