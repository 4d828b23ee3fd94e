"""A bad world or scenario file is refused with the loader's own error, naming the file and
the key path (or, for YAML that cannot be read, the line); the cases the totality
property in tests/property/test_total_world.py found, one row each."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from bot.strict_yaml import ComplexKeyError, NestingError, load_strict
from evals.parsecache import ParseCache
from evals.world import WorldError, load_world
from evals.worldfile import read_world_file
from evals.yamlload import YamlFileError, load_yaml

K8S = "environments: {dc-a: [kubernetes]}\nkubernetes:\n  dc-a:\n    - {apiVersion: v1, kind: Pod, "
GITLAB = "environments: {dc-a: [gitlab]}\ngitlab:\n  projects: [{id: 1}]\n"
SERIES = (
    "environments: {dc-a: [metrics]}\nmetrics:\n  dc-a:\n    - labels: {__name__: up}\n"
    "      start: '2026-07-20T14:00:00Z'\n      values: [1]\n      step: "
)
SCENARIO = "world: {environments: {dc-a: [kubernetes]}}\n"
DEEP = 50_000

Reader = Callable[[Path], object]


def _cached(path: Path) -> object:
    return load_yaml(path, cache=ParseCache(path.parent / "cache", min_bytes=0))


CASES: list[tuple[str, str, Reader, type[Exception], str]] = [
    # (case, text of world.yaml, reader, error, key path or line in the message)
    ("metadata-int", K8S + "metadata: 5}\n", load_world, WorldError,
     "world: Value error, kubernetes.dc-a[0].metadata: must be a mapping"),
    ("metadata-null", K8S + "metadata: null}\n", load_world, WorldError,
     "kubernetes.dc-a[0].metadata: must be a mapping"),
    ("project-id-list", GITLAB.replace("id: 1", "id: [1]"), load_world, WorldError,
     "gitlab.projects[0].id: must be a number or a string"),
    ("pipeline-id-list", GITLAB + "  pipelines: [{id: [1], project_id: 1}]\n", load_world,
     WorldError, "gitlab.pipelines[0].id: must be a number or a string"),
    ("project-id-ref-list", GITLAB + "  pipelines: [{id: 1, project_id: [1]}]\n", load_world,
     WorldError, "gitlab.pipelines[0].project_id: [1] is not a project id"),
    ("job-pipeline-str", GITLAB + "  jobs: [{project_id: 1, pipeline: x}]\n", load_world,
     WorldError, "gitlab.jobs[0].pipeline: must be a mapping"),
    ("job-pipeline-id-list",
     GITLAB + "  pipelines: [{id: 1, project_id: 1}]\n"
     "  jobs: [{project_id: 1, pipeline: {id: [1]}}]\n", load_world,
     WorldError, "gitlab.jobs[0].pipeline.id: [1] is not a pipeline id"),
    ("step-overflow", SERIES + "99999999999d\n", load_world, WorldError,
     "world.metrics.dc-a.0.step: Value error, step '99999999999d': longer than"),
    ("complex-key", "? [k]\n: v\n", load_world, WorldError,
     "a key is a list or a mapping\n  in \"<unicode string>\", line 1"),
    ("complex-key-yaml", "? [k]\n: v\n", load_yaml, YamlFileError, "line 1, column 3"),
    ("bad-tag", "environments: !!int abc\n", load_yaml, YamlFileError,
     "cannot read tag:yaml.org,2002:int value"),
    ("now-text", "now: not a time\n" + SCENARIO, read_world_file, WorldError,
     "now: 'not a time': expected a time with an offset"),
    ("now-bool", "now: true\n" + SCENARIO, read_world_file, WorldError,
     "now: expected a time with an offset"),
    ("questions-int", "questions: 5\n" + SCENARIO, read_world_file, WorldError,
     "questions: must be a list"),
    ("questions-item", "questions: [why?, {a: 1}]\n" + SCENARIO, read_world_file, WorldError,
     "questions[1]: must be a string"),
    ("world-path-int", "world: {path: 5}\n", read_world_file, WorldError,
     "world.path: expected a file path"),
    ("world-path-int-load", "world: {path: 5}\n", load_world, WorldError,
     "world.path: expected a file path"),
    ("world-path-nul", 'world: "\\0"\n', read_world_file, WorldError,
     "world: "),
    ("world-path-missing", "world: {path: nope.yaml}\n", load_world, WorldError,
     "world.path: "),
    ("now-naive", "now: '2026-07-20T14:40:00'\n" + SCENARIO, read_world_file, WorldError,
     "now: '2026-07-20T14:40:00' has no offset"),
    ("now-no-zone", "now: '2026-07-20T14:40:00+23:00'\n" + SCENARIO, read_world_file,
     WorldError, "now: no time zone has its offset"),
    ("timezone-mars", "timezone: Mars/Olympus\n" + SCENARIO, read_world_file, WorldError,
     "timezone: 'Mars/Olympus' is not a time zone"),
    ("timezone-int", "timezone: 5\n" + SCENARIO, read_world_file, WorldError,
     "timezone: 5 is not a time zone"),
    ("deep-json", "[" * DEEP + "]" * DEEP, load_world, WorldError,
     "exceeded maximum nesting depth\n  in \"<unicode string>\", line 1"),
    ("deep-mapping", "{a: " * 300 + "}" * 300, load_yaml, YamlFileError,
     "invalid YAML: nested too deeply"),
    ("deep-mapping-world", "world: " + "{a: " * 300 + "}" * 300, read_world_file, WorldError,
     "invalid YAML: nested too deeply"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "text", "read", "error", "where"), CASES, ids=[c[0] for c in CASES]
)
def test_a_bad_file_is_refused_naming_the_file_and_the_key(
    tmp_path: Path, case: str, text: str, read: Reader, error: type[Exception], where: str
) -> None:
    path = tmp_path / "world.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(error) as caught:
        read(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message[:300]
    assert where in message, message[:600]


def test_data_too_deep_for_the_parse_cache_still_loads(tmp_path: Path) -> None:
    """999 nested lists: libyaml reads them, the cache's JSON round trip cannot."""
    path = tmp_path / "deep.yaml"
    path.write_text("[" * 999 + "]" * 999, encoding="utf-8")
    data = _cached(path)
    depth = 0
    while isinstance(data, list) and data:
        data, depth = data[0], depth + 1
    assert (data, depth) == ([], 998)


def test_strict_yaml_names_its_own_errors() -> None:
    """bot.settings reads the same loader: each refusal is a yaml.YAMLError with its line."""
    with pytest.raises(ComplexKeyError) as complex_key:
        load_strict("a: 1\n? {b: 2}\n: v\n")
    assert complex_key.value.problem_mark is not None
    assert complex_key.value.problem_mark.line + 1 == 2
    with pytest.raises(NestingError):
        load_strict("{a: " * 300 + "}" * 300)
    with pytest.raises(yaml.YAMLError, match="line 1"):
        load_strict("a: !!bool maybe\n")


def test_a_valid_scenario_clock_zone_and_questions_still_load(tmp_path: Path) -> None:
    path = tmp_path / "world.yaml"
    path.write_text(
        "now: '2026-07-20T14:40:00+03:00'\nquestions: [why?]\n" + SCENARIO, encoding="utf-8"
    )
    loaded = read_world_file(path)
    assert loaded.timezone == "Etc/GMT-3"
    assert loaded.now is not None and loaded.now.utcoffset() is not None
    assert loaded.questions == ["why?"]
