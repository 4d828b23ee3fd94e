"""World files: a bare world, the demo world file, or a scenario file, read into a World.

Kept apart from `evals.session` (which wires the whole product) so that the command line
can read a world, and start what it needs, before the heavy imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from evals.parsecache import ParseCache
from evals.world import World, WorldError, world_data_of, world_from_data
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
    timezone = _timezone(data.get("timezone"), path)
    questions = _questions(data.get("questions"), path)
    if "world" in data and "environments" not in data:
        if data.get("now") is not None:
            now = _now(data["now"], path)
            if data.get("timezone") is None:
                timezone = _zone_for_offset(now)
                if not _opens(timezone):  # +23:00: no Etc/GMT zone for it
                    raise WorldError(f"{path}: now: no time zone has its offset; set `timezone`")
        world_data = world_data_of(data["world"], path, cache=cache)
    else:
        world_data = data
    return WorldFile(world_from_data(world_data, str(path)), now, timezone, questions)


def _now(value: object, path: Path) -> datetime:
    """The scenario clock: an ISO 8601 time with its offset (the session needs an aware one)."""
    expected = "expected a time with an offset, like 2026-07-20T14:40:00+03:00"
    if not isinstance(value, str):
        raise WorldError(f"{path}: now: {expected}")
    try:
        now = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise WorldError(f"{path}: now: {value!r}: {expected}") from None
    if now.utcoffset() is None:
        raise WorldError(f"{path}: now: {value!r} has no offset; {expected}")
    return now


def _timezone(value: object, path: Path) -> str:
    """The zone answers are written in: one the session could not open is refused here."""
    if value is None:
        return "UTC"
    if isinstance(value, str) and _opens(value):
        return value
    raise WorldError(f"{path}: timezone: {value!r} is not a time zone name like Europe/Moscow")


def _opens(zone: str) -> bool:
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


def _questions(value: object, path: Path) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise WorldError(f"{path}: questions: must be a list of questions")
    for i, question in enumerate(value):
        if not isinstance(question, str):
            raise WorldError(f"{path}: questions[{i}]: must be a string")
    return value


def _zone_for_offset(now: datetime) -> str:
    """A fixed-offset zone name for a scenario clock like 14:40+03:00 ("Etc/GMT-3")."""
    offset = now.utcoffset()
    assert offset is not None
    hours = int(offset.total_seconds() // 3600)
    if offset.total_seconds() % 3600 or hours == 0:
        return "UTC"
    return f"Etc/GMT{-hours:+d}"
