"""Faults from a world's `faults:` list, looked up per request by each simulator.

Generic kinds are answered here (timeout, http_error, malformed); `forbidden`,
`unsupported` and `truncate` need each backend's own body shape, so a simulator asks
`FaultPlan.find(...)` and builds that answer itself.
"""

from __future__ import annotations

import asyncio
import fnmatch
from collections.abc import Sequence

from starlette.responses import Response

from evals.world import Fault


class FaultPlan:
    def __init__(self, faults: Sequence[Fault], *, stall_seconds: float = 30.0) -> None:
        self._faults = list(faults)
        self.stall_seconds = stall_seconds

    def find(
        self,
        source: str,
        env: str | None,
        *,
        index: str | None = None,
        resource: str | None = None,
        kinds: Sequence[str] | None = None,
    ) -> Fault | None:
        """The first fault matching this request; index and resource match by glob."""
        for fault in self._faults:
            if fault.source != source or (fault.env is not None and fault.env != env):
                continue
            if kinds is not None and fault.kind not in kinds:
                continue
            if fault.index is not None and not _index_matches(fault.index, index):
                continue
            if fault.resource is not None and (
                resource is None or not fnmatch.fnmatch(resource, fault.resource)
            ):
                continue
            return fault
        return None

    async def generic_response(self, fault: Fault) -> Response | None:
        """Answer timeout / http_error / malformed; None for the backend-specific kinds."""
        if fault.kind == "timeout":
            try:
                await asyncio.sleep(
                    fault.seconds if fault.seconds is not None else self.stall_seconds
                )
            except asyncio.CancelledError:
                # the world is being stopped while a request stalls: end quietly
                return Response("simulator stopping", status_code=503)
            return Response("upstream request timeout", status_code=504)
        if fault.kind == "http_error":
            status = fault.status or 500
            return Response(
                f'{{"error": "simulated failure", "status": {status}}}',
                status_code=status,
                media_type="application/json",
            )
        if fault.kind == "malformed":
            return Response('{"status": "success", "data": {"resu', media_type="application/json")
        return None


def _index_matches(pattern: str, index: str | None) -> bool:
    """A fault's index pattern matches a requested index (or index pattern) if either
    glob covers the other: `app-*` matches a search on `app-payments-2026.07.20` and on
    `app-*`."""
    if index is None:
        return False
    for requested in index.split(","):
        if fnmatch.fnmatch(requested, pattern) or fnmatch.fnmatch(pattern, requested):
            return True
    return False
