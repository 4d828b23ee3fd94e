"""A running world: simulators + configuration + the real conversation path.

Used by `infrabot ask`/`demo` without configuration (the built-in demo world) and by the
evaluation runner (a fresh session per scenario run).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from bot.conversation import Conversation
from bot.memory import WorkingMemory
from bot.settings import InfrabotConfig
from bot.wiring import build_gate
from evals.parsecache import ParseCache
from evals.simulators.host import WorldSimulators
from evals.world import World, WorldError, resolve_world_data, world_from_data
from evals.worldconfig import config_for_world
from evals.yamlload import YamlFileError, load_yaml

DEMO_WORLD = "worlds/demo.yaml"


@dataclass
class WorldFile:
    world: World
    now: datetime | None = None
    timezone: str = "UTC"
    questions: list[str] = field(default_factory=list)


def read_world_file(path: Path | None = None, *, cache: ParseCache | None = None) -> WorldFile:
    """A world file (bare world, demo file or scenario file); None means the demo world.
    With `cache`, large files parsed before are read back from it (see evals.parsecache)."""
    if path is None:
        ref = resources.files("evals").joinpath(DEMO_WORLD)
        with resources.as_file(ref) as real:
            return read_world_file(Path(real), cache=cache)
    try:
        data = load_yaml(path, cache=cache)
    except YamlFileError as exc:
        raise WorldError(str(exc)) from None
    if not isinstance(data, dict):
        raise WorldError(f"{path}: a world file must be a mapping")
    now = None
    timezone = str(data.get("timezone") or "UTC")
    questions = [str(q) for q in data.get("questions") or []]
    if "world" in data and "environments" not in data:
        if data.get("now"):
            now = datetime.fromisoformat(str(data["now"]).replace("Z", "+00:00"))
            if data.get("timezone") is None and now.utcoffset() is not None:
                timezone = _zone_for_offset(now)
        world_data = resolve_world_data(data["world"], path.parent, cache=cache)
    else:
        world_data = data
    return WorldFile(world_from_data(world_data, str(path)), now, timezone, questions)


def _zone_for_offset(now: datetime) -> str:
    """A fixed-offset zone name for a scenario clock like 14:40+03:00 ("Etc/GMT-3")."""
    offset = now.utcoffset()
    assert offset is not None
    hours = int(offset.total_seconds() // 3600)
    if offset.total_seconds() % 3600 or hours == 0:
        return "UTC"
    return f"Etc/GMT{-hours:+d}"


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
    ) -> None:
        self.world = world
        self.now = now
        self.simulators = WorldSimulators(
            world, stall_seconds=stall_seconds, shared_vm=shared_vm, vm_prefix=vm_prefix
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
        self.conversation = Conversation(config=self.config, gate=gate, memory=memory)
        return self

    def stop(self) -> None:
        self.simulators.stop()

    def __enter__(self) -> WorldSession:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
