"""Metrics simulator: the real VictoriaMetrics (Debian 1.79) behind one proxy per environment.

One VictoriaMetrics process holds every environment of a world; each imported series
carries the label `world_env=<env>`. The per-environment proxy (`build_app`) serves the
Prometheus query API at `/api/v1/{query,query_range,series,labels,label/<name>/values}`,
forwards to VictoriaMetrics with `extra_label=world_env=<env>` (VictoriaMetrics enforces it
as a label filter on every selector) and strips `world_env` from what comes back, so each
environment looks like a server of its own and never sees another's samples.

Faults (source "metrics"; `resource` may name one endpoint: query, query_range, series,
labels, label_values):
    timeout, http_error, malformed   FaultPlan.generic_response
    forbidden                        403 {"status":"error","errorType":"forbidden",...}
    unsupported                      404 {"status":"error","errorType":"not_found",...}
    truncate                         at most `max_hits` series (or names), plus a
                                     Prometheus `warnings` entry saying so

VictoriaMetrics drops samples more than ~2 days ahead of the machine clock, and a world
may be set in the future (a scenario written for next month): such a world is stored
shifted back by whole days (`world_shift`), and every time a query names, and every time
an answer carries, is moved by the same amount, so the bot sees the world's own times.
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import weakref
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import structlog
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from evals.simulators.faults import FaultPlan
from evals.simulators.querylog import QueryLog, QueryRecord
from evals.simulators.server import BackgroundServer
from evals.world import Fault, World

log = structlog.get_logger(__name__)

ENV_LABEL = "world_env"
FLAGS = (
    "-retentionPeriod=100y",
    "-search.latencyOffset=0s",
    "-search.disableCache",
    "-loggerLevel=ERROR",
    "-http.maxGracefulShutdownDuration=1s",
    # Istio's request series carry about 30 labels, and world_env comes on top: the
    # default of 30 would drop labels (world_env among them) and hide the series
    "-maxLabelsPerTimeseries=80",
)
_DEBIAN_PATH = Path("/usr/bin/victoria-metrics")
_IMPORT_CHUNK = 500  # series per import request
_CLIENT_FILTERS = ("extra_label", "extra_filters", "extra_filters[]")  # only the proxy sets these


def victoria_metrics_binary() -> str | None:
    """Path of the `victoria-metrics` binary, or None when it is not installed."""
    found = shutil.which("victoria-metrics")
    if found:
        return found
    if _DEBIAN_PATH.is_file():
        return str(_DEBIAN_PATH)
    return None


def start_victoria_metrics() -> VictoriaMetrics | None:
    """A started VictoriaMetrics, or None (with a warning) when it is not installed: the
    worlds' metrics sources then become gaps. A binary that cannot start raises."""
    binary = victoria_metrics_binary()
    if binary is None:
        log.warning(
            "simulators.victoriametrics_missing",
            hint="apt-get install victoria-metrics; metrics sources become gaps",
        )
        return None
    return VictoriaMetrics(binary).start()


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _shutdown(proc: subprocess.Popen[bytes], directory: Path) -> None:
    # killed, not terminated: a graceful stop flushes data to a directory thrown away next
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=5)
    shutil.rmtree(directory, ignore_errors=True)


class VictoriaMetrics:
    """One VictoriaMetrics process on 127.0.0.1 with a throw-away data directory."""

    def __init__(self, binary: str, *, host: str = "127.0.0.1") -> None:
        self.binary = binary
        self.host = host
        self.port: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._dir: Path | None = None
        self._finalizer: (
            weakref.finalize[[subprocess.Popen[bytes], Path], VictoriaMetrics] | None
        ) = None
        # world_env label -> seconds its samples were stored earlier (world_shift)
        self.shifts: dict[str, int] = {}
        self._proxies: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("VictoriaMetrics is not started")
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 15.0) -> VictoriaMetrics:
        last_error = ""
        for _attempt in range(3):  # a port picked free may be taken before VM binds it
            self._dir = Path(tempfile.mkdtemp(prefix="infrabot-vm-"))
            self.port = _free_port(self.host)
            logfile = (self._dir / "vm.log").open("ab")
            self._proc = subprocess.Popen(
                [
                    self.binary,
                    f"-storageDataPath={self._dir / 'data'}",
                    f"-httpListenAddr={self.host}:{self.port}",
                    *FLAGS,
                ],
                stdout=logfile,
                stderr=logfile,
                stdin=subprocess.DEVNULL,
            )
            logfile.close()
            # also stopped at interpreter exit if nobody calls stop() (an interrupted run)
            self._finalizer = weakref.finalize(self, _shutdown, self._proc, self._dir)
            if self._wait_healthy(timeout):
                log.debug("victoriametrics.started", port=self.port, pid=self._proc.pid)
                return self
            last_error = (self._dir / "vm.log").read_text(errors="replace")[-2000:]
            self._finalizer()
        self.stop()
        raise RuntimeError(f"victoria-metrics did not become healthy: {last_error}")

    def _wait_healthy(self, timeout: float) -> bool:
        assert self._proc is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                return False
            try:
                if httpx.get(f"{self.url}/health", timeout=1.0, verify=False).status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.01)
        return False

    def proxy_client(self) -> httpx.AsyncClient:
        """The keep-alive client the proxies on this loop forward through (a client per
        request cost a TCP connect each time). One per event loop, since a server thread
        each may share this process; `close_proxy_client` closes the current loop's."""
        loop = asyncio.get_running_loop()
        client = self._proxies.get(loop)
        if client is None or client.is_closed:
            client = httpx.AsyncClient(
                base_url=self.url,
                timeout=60.0,
                verify=False,  # plain HTTP on loopback; a CA bundle load costs 20-40 ms
                limits=httpx.Limits(max_keepalive_connections=32),
            )
            self._proxies[loop] = client
        return client

    async def close_proxy_client(self) -> None:
        client = self._proxies.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    def stop(self) -> None:
        if self._finalizer is not None:
            self._finalizer()  # terminates the process and removes the data directory
        self._finalizer = None
        self._proc = None
        self._dir = None
        self.port = None

    def __enter__(self) -> VictoriaMetrics:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def import_world(self, world: World, *, env_prefix: str = "", shift: bool = True) -> int:
        """Import every series of every environment, labelled world_env=<env_prefix><env>.

        `env_prefix` lets one process hold several worlds (tests start it once per file);
        pass the same prefixed name to `build_app(vm_env=...)`. `shift=False` stores a
        world set at the machine's clock as it is (vmalert evaluates rules over it at the
        real time). Returns the series count.
        """
        lines: list[str] = []
        shift_s = world_shift(world) if shift else 0
        shift_ms = shift_s * 1000
        for env in world.metrics:
            # decided once, here: the queries of this env use the same shift, whenever
            self.shifts[env_prefix + env] = shift_s
        for env, series_list in world.metrics.items():
            for series in series_list:
                # integer milliseconds straight from start + i * step: no datetime per sample
                start_ms = round(series.start.timestamp() * 1000) - shift_ms
                step_ms = round(series.step.total_seconds() * 1000)
                kept = [(i, v) for i, v in enumerate(series.values) if v is not None]
                if not kept:
                    continue
                stamps = [start_ms + i * step_ms for i, _ in kept]
                labels = {**series.labels, ENV_LABEL: env_prefix + env}
                lines.append(
                    json.dumps(
                        {"metric": labels, "values": [v for _, v in kept], "timestamps": stamps}
                    )
                )
        with httpx.Client(base_url=self.url, timeout=30.0, verify=False) as client:
            for i in range(0, len(lines), _IMPORT_CHUNK):
                body = "\n".join(lines[i : i + _IMPORT_CHUNK]) + "\n"
                client.post("/api/v1/import", content=body.encode()).raise_for_status()
            client.get("/internal/force_flush").raise_for_status()
        return len(lines)


def _latest_sample(world: World) -> datetime | None:
    ends = [
        series.start + series.step * (len(series.values) - 1)
        for series_list in world.metrics.values()
        for series in series_list
        if series.values
    ]
    return max(ends) if ends else None


@functools.cache
def _shift_for(latest: datetime | None, today: date) -> int:
    if latest is None:
        return 0
    midnight = datetime(today.year, today.month, today.day, tzinfo=UTC)
    ahead = latest - (midnight - timedelta(hours=1))
    return max(0, math.ceil(ahead / timedelta(days=1))) * 86400


def world_shift(world: World) -> int:
    """Seconds (whole days) a world's samples are stored earlier than they are: none for a
    world in the past; for one in the future, enough days that its last sample is before
    the machine's today (decided per machine day, so an import and its queries agree)."""
    return _shift_for(_latest_sample(world), datetime.now(UTC).date())


def _shift_params(pairs: list[tuple[str, str]], shift_s: int) -> list[tuple[str, str]]:
    """Move the times a query names (time, start, end; RFC 3339 or Unix seconds) back."""
    if not shift_s:
        return pairs
    out = []
    for key, value in pairs:
        if key in ("time", "start", "end"):
            try:
                at = float(value)
            except ValueError:
                try:
                    at = datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
                except ValueError:
                    at = None
            if at is not None:
                value = repr(at - shift_s)
        out.append((key, value))
    return out


def _shift_answer(kind: str, payload: dict[str, Any], shift_s: int) -> None:
    """Move the sample times of a query's answer forward again, in place."""
    data = payload.get("data")
    if not shift_s or kind not in ("query", "query_range") or not isinstance(data, dict):
        return
    result = data.get("result")
    if data.get("resultType") == "scalar" and isinstance(result, list) and result:
        result[0] = result[0] + shift_s
        return
    for item in result if isinstance(result, list) else []:
        if isinstance(item.get("value"), list):
            item["value"][0] += shift_s
        for point in item.get("values") or []:
            point[0] += shift_s


class MetricsBoot:
    """Start VictoriaMetrics and import a world's series in a background thread.

    The process boots and ingests outside our interpreter, so a caller that starts it
    first and then does its own imports and set-up gets that time back (a cold `infrabot
    ask`). `vm()` waits for it: the started VictoriaMetrics, or None when the world has
    no metrics or the binary is not installed (the world then reports a gap); a failed
    start is raised there. The caller owns the process: `stop()` it.
    """

    def __init__(self, world: World) -> None:
        self._world = world
        self._vm: VictoriaMetrics | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._boot, name="infrabot-vm-boot", daemon=True)

    @classmethod
    def begin(cls, world: World) -> MetricsBoot:
        boot = cls(world)
        boot._thread.start()
        return boot

    def _boot(self) -> None:
        if not self._world.uses("metrics"):
            return
        try:
            self._vm = start_victoria_metrics()
            if self._vm is not None:
                self._vm.import_world(self._world)
        except BaseException as exc:  # handed to the caller by vm()
            self._error = exc

    def vm(self) -> VictoriaMetrics | None:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._vm

    def stop(self) -> None:
        self._thread.join()
        if self._vm is not None:
            self._vm.stop()
            self._vm = None


# --- the per-environment proxy -------------------------------------------------------


def _post_process(kind: str, payload: dict[str, Any]) -> list[Any] | None:
    """Remove world_env from the answer in place; return the list a truncation caps."""
    data = payload.get("data")
    if kind in ("query", "query_range") and isinstance(data, dict):
        result = data.get("result")
        if data.get("resultType") in ("vector", "matrix") and isinstance(result, list):
            for item in result:
                item.get("metric", {}).pop(ENV_LABEL, None)
            return result
        return None
    if kind == "series" and isinstance(data, list):
        for item in data:
            item.pop(ENV_LABEL, None)
        return data
    if kind == "labels" and isinstance(data, list):
        data[:] = [name for name in data if name != ENV_LABEL]
        return data
    if kind == "label_values" and isinstance(data, list):
        return data
    return None


def _prom_error(status: int, error_type: str, message: str) -> JSONResponse:
    return JSONResponse(
        {"status": "error", "errorType": error_type, "error": message}, status_code=status
    )


def build_app(
    world: World,
    env: str,
    faults: FaultPlan,
    query_log: QueryLog,
    vm: VictoriaMetrics | None,
    *,
    vm_env: str | None = None,
) -> Starlette:
    """The Prometheus query API of one environment, backed by the shared VictoriaMetrics.

    `vm_env` is the world_env value the environment was imported under (default: `env`).
    """
    label_value = vm_env or env

    def endpoint(kind: str) -> Any:
        async def handle(request: Request) -> Response:
            name = request.path_params.get("name", "")
            path = f"/api/v1/label/{name}/values" if kind == "label_values" else f"/api/v1/{kind}"
            pairs = list(request.query_params.multi_items())
            if request.method == "POST":  # form-encoded, as Prometheus clients send it
                pairs.extend(parse_qsl((await request.body()).decode(), keep_blank_values=True))
            recorded: dict[str, Any] = {}
            for key, value in pairs:
                prev = recorded.get(key)
                if prev is None:
                    recorded[key] = value
                else:
                    recorded[key] = [*prev, value] if isinstance(prev, list) else [prev, value]

            def record(status: int) -> None:
                query_log.add(
                    QueryRecord(
                        source="metrics",
                        env=env,
                        method=request.method,
                        path=path,
                        params=recorded,
                        status=status,
                    )
                )

            fault = faults.find("metrics", env, resource=kind)
            if fault is not None and fault.kind != "truncate":
                return await _fault_response(fault, faults, record)
            if kind == "label_values" and name == ENV_LABEL:
                record(200)  # the isolation label does not exist in an environment's view
                return JSONResponse({"status": "success", "data": []})
            if vm is None:
                record(503)
                return _prom_error(503, "unavailable", "victoria-metrics is not running")
            shift_s = vm.shifts.get(label_value, 0)  # as import_world stored this env
            upstream: list[tuple[str, str | int | float | bool | None]] = [
                (k, v) for k, v in _shift_params(pairs, shift_s) if k not in _CLIENT_FILTERS
            ]
            upstream.append(("extra_label", f"{ENV_LABEL}={label_value}"))
            try:
                resp = await vm.proxy_client().get(path, params=upstream)
            except httpx.HTTPError as exc:
                record(503)
                return _prom_error(503, "unavailable", f"victoria-metrics: {type(exc).__name__}")
            try:
                payload = resp.json()
            except ValueError:
                record(resp.status_code)
                return Response(resp.content, status_code=resp.status_code)
            if isinstance(payload, dict) and payload.get("status") == "success":
                _shift_answer(kind, payload, shift_s)
                items = _post_process(kind, payload)
                if fault is not None and items is not None:
                    _truncate(items, payload, fault.max_hits if fault.max_hits is not None else 1)
            record(resp.status_code)
            return JSONResponse(payload, status_code=resp.status_code)

        return handle

    routes = [
        Route(f"/api/v1/{kind}", endpoint(kind), methods=["GET", "POST"])
        for kind in ("query", "query_range", "series", "labels")
    ]
    routes.append(
        Route("/api/v1/label/{name}/values", endpoint("label_values"), methods=["GET", "POST"])
    )
    return Starlette(routes=routes)


def _truncate(items: list[Any], payload: dict[str, Any], limit: int) -> None:
    if len(items) <= limit:
        return
    total = len(items)
    del items[limit:]
    payload.setdefault("warnings", []).append(
        f"response truncated: {limit} of {total} results returned (series limit of the "
        "metrics proxy)"
    )


async def _fault_response(fault: Fault, faults: FaultPlan, record: Any) -> Response:
    if fault.kind == "forbidden":
        record(403)
        return _prom_error(403, "forbidden", "access to this metrics datasource is forbidden")
    if fault.kind == "unsupported":
        record(404)
        return _prom_error(404, "not_found", "this environment is not served by the metrics API")
    status = {"timeout": 504, "http_error": fault.status or 500, "malformed": 200}[fault.kind]
    record(status)
    response = await faults.generic_response(fault)
    assert response is not None
    return response


class MetricsSimulator:
    """Only the metrics side of a world, on its own port, sharing a started VictoriaMetrics.

    For tests that start VictoriaMetrics once per file and serve several worlds from it
    (each imported under its own `env_prefix`); `WorldSimulators` mounts every source.
    """

    def __init__(
        self,
        world: World,
        vm: VictoriaMetrics,
        *,
        env_prefix: str = "",
        stall_seconds: float = 30.0,
    ) -> None:
        self.world = world
        self.vm = vm
        self.env_prefix = env_prefix
        self.query_log = QueryLog()
        self.faults = FaultPlan(world.faults, stall_seconds=stall_seconds)
        self._server: BackgroundServer | None = None

    def start(self) -> MetricsSimulator:
        self.vm.import_world(self.world, env_prefix=self.env_prefix)
        routes = [
            Mount(
                f"/metrics/{env}",
                app=build_app(
                    self.world,
                    env,
                    self.faults,
                    self.query_log,
                    self.vm,
                    vm_env=self.env_prefix + env,
                ),
            )
            for env in self.world.environments
            if self.world.has(env, "metrics")
        ]
        self._server = BackgroundServer(
            Starlette(routes=routes), on_stop=self.vm.close_proxy_client
        ).start()
        return self

    def url(self, env: str) -> str:
        if self._server is None:
            raise RuntimeError("MetricsSimulator is not started")
        return f"{self._server.base_url}/metrics/{env}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def __enter__(self) -> MetricsSimulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
