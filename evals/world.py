"""The world: a simulated infrastructure, written the way the real systems return data.

The scenario file format: the README, "Evaluation". `load_world` validates a file and
reports every problem with its path in the file (`metrics.<env>[3].values: ...`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from evals.parsecache import ParseCache
from evals.yamlload import YamlFileError, load_yaml

SourceName = Literal["kubernetes", "metrics", "logs", "gitlab"]
FaultKind = Literal["timeout", "http_error", "forbidden", "truncate", "unsupported", "malformed"]


def _parse_step(value: object) -> object:
    if isinstance(value, str):
        units = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
        for unit in ("ms", "s", "m", "h", "d"):
            if value.endswith(unit) and value[: -len(unit)].replace(".", "", 1).isdigit():
                try:
                    return timedelta(seconds=float(value[: -len(unit)]) * units[unit])
                except OverflowError:
                    raise ValueError(f"step {value!r}: longer than a timedelta holds") from None
        raise ValueError(f"step {value!r}: expected a duration like 60s, 5m or 1h")
    return value


class MetricSeries(BaseModel):
    model_config = ConfigDict(extra="forbid")

    labels: dict[str, str]
    start: datetime
    step: timedelta
    values: list[float | None]

    @field_validator("step", mode="before")
    @classmethod
    def _step(cls, value: object) -> object:
        return _parse_step(value)

    @field_validator("start")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("timestamp needs an explicit offset (Z or +03:00)")
        return value

    @field_validator("labels")
    @classmethod
    def _name(cls, value: dict[str, str]) -> dict[str, str]:
        if not value.get("__name__"):
            raise ValueError("labels need __name__")
        return {k: str(v) for k, v in value.items()}

    @field_validator("values")
    @classmethod
    def _values(cls, value: list[float | None]) -> list[float | None]:
        if not value:
            raise ValueError("a series needs at least one value")
        return value

    def samples(self) -> list[tuple[datetime, float]]:
        return [(self.start + i * self.step, v) for i, v in enumerate(self.values) if v is not None]


class Fault(BaseModel):
    """Something that goes wrong while the bot investigates, applied at the HTTP layer."""

    model_config = ConfigDict(extra="forbid")

    source: SourceName
    kind: FaultKind
    env: str | None = None  # None: every environment of that source
    status: int | None = None  # http_error
    index: str | None = None  # logs: index name or pattern with *
    resource: str | None = None  # kubernetes: pods, events, endpointslices, ... ; gitlab: jobs
    max_hits: int | None = None  # truncate
    seconds: float | None = None  # timeout: how long to stall (default: longer than any client)


class GitLabWorld(BaseModel):
    model_config = ConfigDict(extra="forbid")

    projects: list[dict[str, Any]] = Field(default_factory=list)
    pipelines: list[dict[str, Any]] = Field(default_factory=list)
    jobs: list[dict[str, Any]] = Field(default_factory=list)
    commits: list[dict[str, Any]] = Field(default_factory=list)
    deployments: list[dict[str, Any]] = Field(default_factory=list)
    environments: list[dict[str, Any]] = Field(default_factory=list)


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _ids(items: list[dict[str, Any]], where: str, problems: list[str]) -> set[Any]:
    """The `id`s of gitlab projects or pipelines; a list or a mapping as an id is a problem."""
    ids: set[Any] = set()
    for i, item in enumerate(items):
        value = item.get("id")
        if _hashable(value):
            ids.add(value)
        else:
            problems.append(f"{where}[{i}].id: must be a number or a string")
    return ids


class World(BaseModel):
    model_config = ConfigDict(extra="forbid")

    environments: dict[str, list[SourceName]]
    kubernetes: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    pod_logs: dict[str, dict[str, str]] = Field(default_factory=dict)
    audit: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    metrics: dict[str, list[MetricSeries]] = Field(default_factory=dict)
    logs: dict[str, dict[str, list[dict[str, Any]]]] = Field(default_factory=dict)
    gitlab: GitLabWorld = Field(default_factory=GitLabWorld)
    faults: list[Fault] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references(self) -> World:
        problems: list[str] = []
        envs = set(self.environments)
        for section in ("kubernetes", "pod_logs", "audit", "metrics", "logs"):
            for env in getattr(self, section):
                if env not in envs:
                    problems.append(f"{section}.{env}: environment not in `environments`")
        for env, objs in self.kubernetes.items():
            for i, obj in enumerate(objs):
                for key in ("apiVersion", "kind", "metadata"):
                    if key not in obj:
                        problems.append(f"kubernetes.{env}[{i}]: missing {key}")
                metadata = obj.get("metadata", {})
                if not isinstance(metadata, dict):
                    problems.append(f"kubernetes.{env}[{i}].metadata: must be a mapping")
                elif "name" not in metadata:
                    problems.append(f"kubernetes.{env}[{i}].metadata: missing name")
        for env, streams in self.pod_logs.items():
            for key in streams:
                parts = key.split("/")
                if not (len(parts) == 3 or (len(parts) == 4 and parts[3] == "previous")):
                    problems.append(
                        f"pod_logs.{env}.{key}: expected namespace/pod/container"
                        " or namespace/pod/container/previous"
                    )
        for env, docs_by_index in self.logs.items():
            for index, docs in docs_by_index.items():
                for i, doc in enumerate(docs):
                    if "@timestamp" not in doc:
                        problems.append(f"logs.{env}.{index}[{i}]: missing @timestamp")
        project_ids = _ids(self.gitlab.projects, "gitlab.projects", problems)
        pipeline_ids = _ids(self.gitlab.pipelines, "gitlab.pipelines", problems)
        for kind in ("pipelines", "jobs", "commits", "deployments"):
            for i, item in enumerate(getattr(self.gitlab, kind)):
                pid = item.get("project_id")
                if kind != "commits" and not (_hashable(pid) and pid in project_ids):
                    problems.append(f"gitlab.{kind}[{i}].project_id: {pid!r} is not a project id")
        for i, job in enumerate(self.gitlab.jobs):
            pipeline = job.get("pipeline") or {}
            if not isinstance(pipeline, dict):
                problems.append(f"gitlab.jobs[{i}].pipeline: must be a mapping")
                continue
            pipe = pipeline.get("id")
            if not (_hashable(pipe) and pipe in pipeline_ids):
                problems.append(f"gitlab.jobs[{i}].pipeline.id: {pipe!r} is not a pipeline id")
        for i, fault in enumerate(self.faults):
            if fault.env is not None and fault.env not in envs:
                problems.append(f"faults[{i}].env: {fault.env!r} is not an environment")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def has(self, env: str, source: SourceName) -> bool:
        return source in self.environments.get(env, [])

    def uses(self, source: SourceName) -> bool:
        """Some environment of the world has this source."""
        return any(source in sources for sources in self.environments.values())


class WorldError(ValueError):
    """A world file is invalid; the message lists every problem with its path."""


def _format_validation(exc: ValidationError, prefix: str) -> str:
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        where = f"{prefix}.{loc}" if prefix and loc else (prefix or loc)
        lines.append(f"  {where}: {err['msg']}")
    return "\n".join(lines)


def world_from_data(data: Any, name: str = "world", prefix: str = "world") -> World:
    try:
        return World.model_validate(data)
    except ValidationError as exc:
        raise WorldError(f"{name}: invalid world:\n{_format_validation(exc, prefix)}") from None
    except RecursionError:
        raise WorldError(f"{name}: invalid world:\n  {prefix}: nested too deeply") from None


def deep_merge(base: Any, overlay: Any) -> Any:
    """Overlay wins; mappings merge key by key; lists and scalars are replaced."""
    if isinstance(base, dict) and isinstance(overlay, dict):
        out = dict(base)
        for key, value in overlay.items():
            out[key] = deep_merge(base.get(key), value) if key in base else value
        return out
    return overlay


def resolve_world_data(spec: Any, relative_to: Path, *, cache: ParseCache | None = None) -> Any:
    """A world is inline, or `path` (relative to the scenario), optionally with `overlay`;
    the file is a bare world or one that holds it under `world:` (the demo world file)."""
    if isinstance(spec, str):
        return _world_in(load_yaml(relative_to / spec, cache=cache))
    if isinstance(spec, dict) and "path" in spec and "environments" not in spec:
        base = _world_in(load_yaml(relative_to / spec["path"], cache=cache))
        return deep_merge(base, spec.get("overlay") or {})
    return spec


def _world_in(data: Any) -> Any:
    if isinstance(data, dict) and "world" in data and "environments" not in data:
        return data["world"]
    return data


def world_data_of(spec: Any, path: Path, *, cache: ParseCache | None = None) -> Any:
    """`resolve_world_data` for the `world:` of the file `path`: a reference that cannot be
    read is a WorldError naming that file and the key (`world.path`)."""
    ref = isinstance(spec, dict) and "path" in spec and "environments" not in spec
    key = "world.path" if ref else "world"
    if ref and not isinstance(spec["path"], str):
        raise WorldError(f"{path}: {key}: expected a file path relative to the scenario")
    try:
        return resolve_world_data(spec, path.parent, cache=cache)
    except YamlFileError as exc:
        raise WorldError(f"{path}: {key}: {exc}") from None
    except RecursionError:  # deep_merge of an overlay
        raise WorldError(f"{path}: world.overlay: nested too deeply") from None


def load_world(path: Path, *, cache: ParseCache | None = None) -> World:
    """Load a world file (a bare world, or a scenario file whose `world:` is used)."""
    try:
        data = load_yaml(path, cache=cache)
    except YamlFileError as exc:
        raise WorldError(str(exc)) from None
    if isinstance(data, dict) and "world" in data and "environments" not in data:
        data = world_data_of(data["world"], path, cache=cache)
    return world_from_data(data, str(path))
