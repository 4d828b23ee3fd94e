"""A running world: simulators + configuration + the real conversation path.

Used by `infrabot ask`/`demo` without configuration (the built-in demo world) and by the
evaluation runner (a fresh session per scenario run).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.conversation import Conversation
from bot.memory import WorkingMemory
from bot.settings import InfrabotConfig
from bot.wiring import build_gate, build_models
from evals.simulators.host import WorldSimulators
from evals.world import World
from evals.worldconfig import config_for_world
from evals.worldfile import WorldFile, read_world_file

__all__ = ["WorldFile", "WorldSession", "read_world_file"]


class WorldSession:
    """Start the simulators of a world and a Conversation wired to them."""

    def __init__(
        self,
        world: World,
        *,
        timezone: str = "UTC",
        admins: list[str] | None = None,
        stall_seconds: float = 30.0,
        timeout_s: float = 3.0,
        config_extra: dict[str, Any] | None = None,
        now: datetime | None = None,
        shared_vm: Any = None,
        vm_prefix: str = "",
        vm_preloaded: bool = False,
        latency_s: float = 0.0,
        real_time: bool = False,
    ) -> None:
        self.world = world
        self.now = now
        self.simulators = WorldSimulators(
            world,
            stall_seconds=stall_seconds,
            shared_vm=shared_vm,
            vm_prefix=vm_prefix,
            preloaded=vm_preloaded,
            latency_s=latency_s,
            real_time=real_time,
        )
        self._timezone = timezone
        self._admins = admins or ["admin"]
        self._timeout_s = timeout_s
        self._extra = config_extra
        self.config: InfrabotConfig | None = None
        self.conversation: Conversation | None = None
        self._clock_now: datetime | None = now

    def set_clock(self, now: datetime) -> None:
        self._clock_now = now

    def clock(self) -> datetime:
        return self._clock_now or datetime.now().astimezone()

    def start(self) -> WorldSession:
        self.simulators.start()
        try:
            return self._wire()
        except BaseException:
            self.simulators.stop()  # never leave a VictoriaMetrics process behind
            raise

    def _wire(self) -> WorldSession:
        self.config = config_for_world(
            self.world,
            self.simulators.endpoints,
            timezone=self._timezone,
            timeout_s=self._timeout_s,
            admins=self._admins,
            extra=self._extra,
        )
        gate = build_gate(self.config, environ={})
        memory = WorkingMemory.from_settings(self.config.memory, clock=self.clock)
        self.conversation = Conversation(
            config=self.config, gate=gate, memory=memory, models=build_models(self.config)
        )
        return self

    def stop(self) -> None:
        self.simulators.stop()

    def __enter__(self) -> WorldSession:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
