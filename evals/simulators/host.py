"""All simulators of one world behind one local HTTP server.

Layout of URLs (one port):
    /kubernetes/<env>/...   Kubernetes API (objects, pod logs, audit)
    /logs/<env>/...         Elasticsearch search API
    /metrics/<env>/...      Prometheus query API -> real VictoriaMetrics
    /gitlab/...             GitLab API v4 (one instance for all envs)
Each is served by the module of the same name under evals.simulators.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass, field
from typing import Any

import structlog
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.types import ASGIApp, Receive, Scope, Send

from evals.simulators.faults import FaultPlan
from evals.simulators.querylog import QueryLog
from evals.simulators.server import BackgroundServer
from evals.world import World

log = structlog.get_logger(__name__)


@dataclass
class EnvEndpoints:
    kubernetes: str | None = None
    logs: str | None = None
    metrics: str | None = None


@dataclass
class WorldEndpoints:
    envs: dict[str, EnvEndpoints] = field(default_factory=dict)
    gitlab: str | None = None
    unavailable: dict[str, str] = field(default_factory=dict)  # "metrics/dc-a" -> why


class WorldSimulators:
    """Start with `start()` (or as a context manager); read `endpoints` and `query_log`.

    `shared_vm` is a VictoriaMetrics already running that this world's series are imported
    into, under `vm_prefix` + env (the evaluation runner keeps one for the whole suite:
    starting one per scenario run cost more than the run), or were imported already when
    `preloaded` (`MetricsBoot`); it is not stopped with the world. Without it, a world
    with metrics starts and stops its own."""

    def __init__(
        self,
        world: World,
        *,
        stall_seconds: float = 30.0,
        shared_vm: Any = None,
        vm_prefix: str = "",
        preloaded: bool = False,
        latency_s: float = 0.0,
        real_time: bool = False,
    ) -> None:
        self.world = world
        self.real_time = real_time  # the world is set at the machine's clock: never shifted
        self.query_log = QueryLog()
        self.faults = FaultPlan(world.faults, stall_seconds=stall_seconds)
        self.endpoints = WorldEndpoints()
        self._server: BackgroundServer | None = None
        self._vm: Any = shared_vm
        self._owns_vm = shared_vm is None
        self._vm_prefix = vm_prefix if shared_vm is not None else ""
        self._preloaded = preloaded and shared_vm is not None  # series already imported
        self._latency_s = latency_s  # added to every request: a network for benchmarks

    @property
    def victoria_metrics_url(self) -> str | None:
        """The VictoriaMetrics behind the metrics proxies (each series labelled
        `world_env=<env>`), for a test that points vmalert at it; None without metrics."""
        return str(self._vm.url) if self._vm is not None else None

    def start(self) -> WorldSimulators:
        routes: list[Mount] = []
        mounts: dict[tuple[str, str], str] = {}
        world = self.world
        needs_metrics = world.uses("metrics")
        if needs_metrics and self._vm is None:
            vm_mod = importlib.import_module("evals.simulators.victoriametrics")
            self._vm = vm_mod.start_victoria_metrics()
        if needs_metrics and self._vm is not None and not self._preloaded:
            self._vm.import_world(world, env_prefix=self._vm_prefix, shift=not self.real_time)
        for env, sources in world.environments.items():
            for source in sources:
                if source == "gitlab":
                    continue
                if source == "metrics" and self._vm is None:
                    self.endpoints.unavailable[f"metrics/{env}"] = (
                        "victoria-metrics is not installed on this machine"
                    )
                    continue
                module = importlib.import_module(_MODULES[source])
                if source == "metrics":
                    app = module.build_app(
                        world,
                        env,
                        self.faults,
                        self.query_log,
                        self._vm,
                        vm_env=self._vm_prefix + env,
                    )
                else:
                    app = module.build_app(world, env, self.faults, self.query_log)
                prefix = f"/{source}/{env}"
                routes.append(Mount(prefix, app=self._delayed(app)))
                mounts[(source, env)] = prefix
        uses_gitlab = bool(world.gitlab.projects) or any(
            "gitlab" in s for s in world.environments.values()
        )
        if uses_gitlab:
            module = importlib.import_module(_MODULES["gitlab"])
            app = module.build_app(world, self.faults, self.query_log)
            routes.append(Mount("/gitlab", app=self._delayed(app)))
        vm = self._vm
        self._server = BackgroundServer(
            Starlette(routes=routes), on_stop=vm.close_proxy_client if vm is not None else None
        ).start()
        base = self._server.base_url
        for (mounted, env), prefix in mounts.items():
            setattr(self.endpoints.envs.setdefault(env, EnvEndpoints()), mounted, base + prefix)
        if uses_gitlab:
            self.endpoints.gitlab = base + "/gitlab"
        return self

    def _delayed(self, app: ASGIApp) -> ASGIApp:
        return _Latency(app, self._latency_s) if self._latency_s > 0 else app

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._vm is not None and self._owns_vm:
            self._vm.stop()
        self._vm = None

    def __enter__(self) -> WorldSimulators:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Latency:
    """Answer every HTTP request `seconds` later, like a source across a network (the
    latency benchmark gives each source 200 ms)."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await asyncio.sleep(self.seconds)
        await self.app(scope, receive, send)


_MODULES = {
    "kubernetes": "evals.simulators.kubernetes",
    "logs": "evals.simulators.elasticsearch",
    "metrics": "evals.simulators.victoriametrics",
    "gitlab": "evals.simulators.gitlab",
}
