"""World files: a bare world, the demo world file, or a scenario file, read into a World.

Kept apart from `evals.session` (which wires the whole product) so that the command line
can read a world, and start what it needs, before the heavy imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path

from evals.parsecache import ParseCache
from evals.world import World, WorldError, resolve_world_data, world_from_data
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
