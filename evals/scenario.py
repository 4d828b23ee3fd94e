"""Scenario files: load, validate and collect them (the format: the README, "Evaluation").

Every problem of a file is reported at once, each with its path in the file
(`turns[1].expect.queried[0].source: ...`). Duplicate YAML keys are rejected
(evals.yamlload). A scenario's `world:` is inline, a path relative to the file, or
`{path, overlay}`; the world is validated here too, so a bad world is a file error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from bot.alerts.payload import Notification
from bot.alerts.texts import alert_question
from evals.parsecache import ParseCache
from evals.world import SourceName, World, resolve_world_data
from evals.yamlload import YamlFileError, load_yaml
from planner import ObjectiveStatus
from policy.language import Language
from policy.toolset import Role

_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_WORLD_REF_KEYS = {"path", "overlay"}


class _Strict(BaseModel):
    # numbers are accepted where text is expected: `answer_contains: [502]` means "502"
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, populate_by_name=True)


class UserSpec(_Strict):
    name: str = Field(min_length=1)
    role: Role = "engineer"


class QuerySpec(_Strict):
    """A read the simulators must (queried) or must not (not_queried) have served."""

    source: SourceName
    env: str | None = None  # None: any environment; always None for gitlab

    def label(self) -> str:
        return f"{self.source}/{self.env}" if self.env else f"{self.source}/*"


class Expect(_Strict):
    # the answer's summary (its headline: the asked thing comes first) holds each
    summary_contains: list[str] = Field(default_factory=list)
    answer_contains: list[str] = Field(default_factory=list)
    answer_not_contains: list[str] = Field(default_factory=list)
    facts_contain: list[str] = Field(default_factory=list)
    hypotheses_contain: list[str] = Field(default_factory=list)
    gaps_contain: list[str] = Field(default_factory=list)
    no_fact_contains: list[str] = Field(default_factory=list)
    queried: list[QuerySpec] = Field(default_factory=list)
    not_queried: list[QuerySpec] = Field(default_factory=list)
    objectives_status: dict[str, ObjectiveStatus] = Field(default_factory=dict)
    max_tool_calls: int | None = Field(default=None, ge=0)

    @field_validator(
        "summary_contains",
        "answer_contains",
        "answer_not_contains",
        "facts_contain",
        "hypotheses_contain",
        "gaps_contain",
        "no_fact_contains",
    )
    @classmethod
    def _no_empty(cls, value: list[str]) -> list[str]:
        for i, text in enumerate(value):
            if not text.strip():
                raise ValueError(f"item {i} is empty (an empty text matches everything)")
        return value


class ScenarioTurn(_Strict):
    user: str | None = Field(default=None, min_length=1, description="what the user writes")
    alert: Notification | None = Field(
        default=None,
        description="instead of a message: an alert group's notification as Alertmanager's "
        "webhook (or Grafana's contact point) POSTs it; its first firing alert is "
        "investigated as the alert desk does, the environment read from its `cluster` label",
    )
    language: Language | None = Field(
        default=None, description="an alert's thread language (its route's); default en"
    )
    as_: UserSpec | None = Field(default=None, alias="as")
    at: AwareDatetime | None = None
    expect: Expect | None = None

    @model_validator(mode="after")
    def _one_message(self) -> ScenarioTurn:
        if (self.user is None) == (self.alert is None):
            raise ValueError("a turn has either `user` (a message) or `alert`, not both")
        return self

    @property
    def question(self) -> str:
        """What the turn asks: the message, or the alert as the desk asks it."""
        if self.alert is None:
            assert self.user is not None
            return self.user
        alerts = self.alert.firing() or self.alert.alerts
        if not alerts:
            return self.alert.model_dump_json()
        return alert_question(alerts[0], self.alert, "cluster", {})


class ScenarioSpec(_Strict):
    id: str
    title: str = ""
    required: bool = False
    runs: int = Field(default=1, ge=1, le=50)
    tags: list[str] = Field(default_factory=list)
    now: AwareDatetime
    timezone: str | None = None  # default: a fixed zone for `now`'s offset
    user: UserSpec = Field(default_factory=lambda: UserSpec(name="eval-user"))
    world: Any
    turns: list[ScenarioTurn] = Field(min_length=1)

    @field_validator("id")
    @classmethod
    def _kebab(cls, value: str) -> str:
        if not _KEBAB.match(value):
            raise ValueError(f"{value!r} is not kebab-case (a-z, 0-9 and single dashes)")
        return value

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"{value!r} is not an IANA time zone") from None
        return value


@dataclass
class Scenario:
    """A validated scenario file: its spec, its resolved world and where it came from."""

    spec: ScenarioSpec
    world: World
    path: Path
    timezone: str

    @property
    def id(self) -> str:
        return self.spec.id

    def admins(self) -> list[str]:
        users = [self.spec.user] + [t.as_ for t in self.spec.turns if t.as_ is not None]
        return sorted({u.name for u in users if u.role == "admin"})


class ScenarioError(ValueError):
    """One or more scenario files are invalid; the message names each file and path."""

    def __init__(self, message: str, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)


@dataclass
class Suite:
    scenarios: list[Scenario] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)  # YAML in a folder that is no scenario


def format_loc(loc: Iterable[Any], prefix: str = "") -> str:
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not re.match(r"^[\w-]+$", str(part)):
            out += f"[{str(part)!r}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _format_errors(exc: ValidationError, prefix: str = "") -> list[str]:
    problems: list[str] = []
    for err in exc.errors():
        where = format_loc(err["loc"], prefix) or "(top level)"
        msg = err["msg"]
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        inp = err.get("input")
        if err["type"] not in ("missing", "extra_forbidden", "value_error") and isinstance(
            inp, str | int | float | bool
        ):
            msg += f" (got {inp!r})"
        if not err["loc"] and prefix == "world":
            # World's cross-reference check joins its own paths with "; "
            problems.extend(f"world.{part}" for part in msg.split("; "))
        else:
            problems.append(f"{where}: {msg}")
    return problems


def zone_for(now: datetime) -> str:
    """A fixed-offset zone for a scenario clock like 14:40+03:00 ("Etc/GMT-3")."""
    offset = now.utcoffset()
    seconds = offset.total_seconds() if offset is not None else 0
    if seconds == 0 or seconds % 3600:
        return "UTC"
    return f"Etc/GMT{-int(seconds // 3600):+d}"


def _world(raw: Any, base: Path, problems: list[str], cache: ParseCache | None) -> World | None:
    if isinstance(raw, dict) and "path" in raw and "environments" not in raw:
        for key in sorted(set(raw) - _WORLD_REF_KEYS, key=str):
            problems.append(f"world.{key}: not allowed in a world reference (path, overlay)")
        if not isinstance(raw["path"], str):
            problems.append("world.path: expected a file path relative to the scenario")
            return None
        if raw.get("overlay") is not None and not isinstance(raw["overlay"], dict):
            problems.append("world.overlay: expected a mapping merged over the world file")
            return None
    try:
        data = resolve_world_data(raw, base, cache=cache)
    except YamlFileError as exc:
        where = "world.path" if isinstance(raw, dict) else "world"
        problems.append(f"{where}: {exc}")
        return None
    try:
        return World.model_validate(data)
    except ValidationError as exc:
        problems.extend(_format_errors(exc, "world"))
        return None


def _cross_checks(spec: ScenarioSpec, world: World, problems: list[str]) -> None:
    clock = spec.now
    has_gitlab = bool(world.gitlab.projects) or any(
        "gitlab" in s for s in world.environments.values()
    )
    for i, turn in enumerate(spec.turns):
        if turn.at is not None:
            if turn.at < clock:
                problems.append(
                    f"turns[{i}].at: {turn.at.isoformat()} is earlier than the clock "
                    f"({clock.isoformat()}); the clock only moves forward"
                )
            clock = turn.at
        if turn.expect is None:
            continue
        for key in ("queried", "not_queried"):
            for j, q in enumerate(getattr(turn.expect, key)):
                where = f"turns[{i}].expect.{key}[{j}]"
                if q.source == "gitlab":
                    if q.env is not None:
                        problems.append(
                            f"{where}.env: gitlab is one instance for all environments; "
                            "leave env out"
                        )
                    elif key == "queried" and not has_gitlab:
                        problems.append(f"{where}.source: the world has no gitlab")
                    continue
                if q.env is not None and q.env not in world.environments:
                    problems.append(
                        f"{where}.env: {q.env!r} is not an environment of the world "
                        f"({', '.join(world.environments)})"
                    )
                elif key == "queried" and q.env is not None and not world.has(q.env, q.source):
                    problems.append(
                        f"{where}: {q.env} has no {q.source} source in the world, "
                        "so it can never be queried"
                    )
                elif (
                    key == "queried"
                    and q.env is None
                    and not any(world.has(env, q.source) for env in world.environments)
                ):
                    problems.append(f"{where}.source: no environment has {q.source}")


def scenario_from_data(data: Any, path: Path, *, cache: ParseCache | None = None) -> Scenario:
    problems: list[str] = []
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: a scenario file must be a mapping", ["(top level)"])
    spec: ScenarioSpec | None = None
    try:
        spec = ScenarioSpec.model_validate(data)
    except ValidationError as exc:
        problems.extend(_format_errors(exc))
    world = None
    if "world" in data:
        world = _world(data["world"], path.parent, problems, cache)
    if spec is not None and world is not None:
        _cross_checks(spec, world, problems)
    if problems or spec is None or world is None:
        text = "\n".join(f"  {p}" for p in problems)
        raise ScenarioError(f"{path}: invalid scenario:\n{text}", problems)
    return Scenario(spec, world, path, spec.timezone or zone_for(spec.now))


def load_scenario(path: Path, *, cache: ParseCache | None = None) -> Scenario:
    try:
        data = load_yaml(path, cache=cache)
    except YamlFileError as exc:
        raise ScenarioError(str(exc), [str(exc)]) from None
    return scenario_from_data(data, path, cache=cache)


def builtin_suite() -> Path:
    """The built-in scenario folder shipped with the package (evals/scenarios/)."""
    ref = resources.files("evals").joinpath("scenarios")
    return ref if isinstance(ref, Path) else Path(str(ref))


def _looks_like_scenario(path: Path, cache: ParseCache | None) -> bool:
    """In a folder scan, YAML without `id` and `turns` (a shared world) is not a scenario."""
    try:
        data = load_yaml(path, cache=cache)
    except YamlFileError:
        return True  # reported as an error by load_scenario
    return not isinstance(data, dict) or "id" in data or "turns" in data


def discover(
    paths: Sequence[Path], *, cache: ParseCache | None = None
) -> tuple[list[Path], list[Path], list[str]]:
    """Scenario files named or found (recursively) in folders, YAML files skipped, and
    the paths that do not exist."""
    files: list[Path] = []
    skipped: list[Path] = []
    missing: list[str] = []
    for path in paths:
        if path.is_dir():
            for found in sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml")):
                (files if _looks_like_scenario(found, cache) else skipped).append(found)
        elif path.is_file():
            files.append(path)
        else:
            missing.append(f"{path}: no such file or folder")
    return files, skipped, missing


def load_suite(paths: Sequence[Path], *, cache: ParseCache | None = None) -> Suite:
    """Load every scenario under `paths`; raise one ScenarioError listing every problem.
    With `cache`, large files parsed before are read back from it (evals.parsecache)."""
    files, skipped, errors = discover(paths, cache=cache)
    suite = Suite(skipped=skipped)
    seen: dict[str, Path] = {}
    for path in dict.fromkeys(files):  # a file named twice is loaded once
        try:
            scenario = load_scenario(path, cache=cache)
        except ScenarioError as exc:
            errors.append(str(exc))
            continue
        if scenario.id in seen:
            errors.append(f"{path}: id: {scenario.id!r} is also the id of {seen[scenario.id]}")
            continue
        seen[scenario.id] = path
        suite.scenarios.append(scenario)
    if errors:
        raise ScenarioError("\n".join(errors), errors)
    return suite
