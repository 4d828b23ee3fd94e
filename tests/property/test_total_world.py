"""The world loader is total: any document, and any mutation of the real demo world, either
loads or is refused with `WorldError` naming the file and a key path in it; never a raw
KeyError, TypeError, AttributeError or OverflowError.

The mutations start from a small cut of evals/worlds/demo.yaml (a few objects of each
kind, every section kept), so an example costs a millisecond, not the 1 MB parse.
"""

from __future__ import annotations

import functools
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from evals.world import World, WorldError, load_world, world_from_data
from evals.worldfile import WorldFile, read_world_file
from evals.yamlload import YamlFileError, load_yaml
from tests.property._data import (
    apply_text,
    mutated,
    names_a_path,
    scratch_dir,
    text_mutations,
    values,
    vocabulary_of,
)
from tests.property._tier import TIER

DEMO = Path(__file__).resolve().parents[2] / "evals" / "worlds" / "demo.yaml"
NAME = "mini.yaml"
# a problem line of WorldError: "  world.<path>: <reason>"
PROBLEM = re.compile(r"^  world(?:\..*?)?: .+", re.S)


@functools.cache
def demo_file() -> dict[str, Any]:
    data: dict[str, Any] = load_yaml(DEMO)
    return data


def _first_of_each_kind(objs: list[dict[str, Any]], kinds: int = 4) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for obj in objs:
        seen.setdefault(obj["kind"], obj)
        if len(seen) == kinds:
            break
    return list(seen.values())


@functools.cache
def mini_world() -> dict[str, Any]:
    """Every section of the demo world, each cut to a few real entries."""
    w = demo_file()["world"]
    gitlab = w["gitlab"]
    return {
        "environments": dict(w["environments"]),
        "kubernetes": {env: _first_of_each_kind(objs) for env, objs in w["kubernetes"].items()},
        "pod_logs": {
            env: {key: text[:200] for key, text in list(streams.items())[:1]}
            for env, streams in w["pod_logs"].items()
        },
        "audit": {env: events[:1] for env, events in w["audit"].items()},
        "metrics": {
            env: [{**series[0], "values": series[0]["values"][:4]}]
            for env, series in w["metrics"].items()
        },
        "logs": {
            env: {index: docs[:1] for index, docs in list(indices.items())[:2]}
            for env, indices in w["logs"].items()
        },
        "gitlab": {
            "projects": gitlab["projects"],
            "pipelines": gitlab["pipelines"],
            "jobs": gitlab["jobs"][:2],
            "commits": gitlab["commits"][:1],
        },
        "faults": [{"source": "logs", "kind": "timeout", "env": "dc-a", "seconds": 0.5}],
    }


@functools.cache
def mini_scenario() -> dict[str, Any]:
    """The demo file's own shape (clock, zone and questions around the world) around a
    smaller cut still: one env, one object of each section, so that a YAML round trip per
    example stays a few milliseconds."""
    demo, mini = demo_file(), mini_world()
    gitlab = mini["gitlab"]
    job = gitlab["jobs"][0]
    return {
        "now": demo["now"],
        "timezone": demo["timezone"],
        "questions": demo["questions"][:2],
        "world": {
            "environments": {"dc-a": mini["environments"]["dc-a"]},
            "kubernetes": {"dc-a": mini["kubernetes"]["dc-a"][:1]},
            "pod_logs": {"dc-a": mini["pod_logs"]["dc-a"]},
            "metrics": {"dc-a": mini["metrics"]["dc-a"]},
            "logs": {"dc-a": dict(list(mini["logs"]["dc-a"].items())[:1])},
            "gitlab": {
                "projects": [{k: gitlab["projects"][0][k] for k in ("id", "path_with_namespace")}],
                "pipelines": [{k: gitlab["pipelines"][0][k] for k in ("id", "project_id", "ref")}],
                "jobs": [
                    {
                        **{k: job[k] for k in ("id", "project_id", "name")},
                        "pipeline": {"id": job["pipeline"]["id"]},
                    }
                ],
            },
            "faults": mini["faults"],
        },
    }


@functools.cache
def vocabulary() -> frozenset[str]:
    keys = vocabulary_of(mini_world()) | vocabulary_of(mini_scenario())
    return frozenset(keys | {"path", "overlay", "status", "max_hits"})


def assert_refusal(
    err: WorldError, name: str, touched: list[tuple[Any, ...]] | None, folder: str | None = None
) -> None:
    """Refused naming the file (or, for a world in another file, that file in the same
    folder), each problem with its key path, and one of the keys that were changed."""
    text = str(err)
    named = text.startswith(f"{name}:") or (folder is not None and text.startswith(folder))
    assert named, f"the file is not named: {text[:300]}"
    if text.startswith(f"{name}: invalid world:"):
        # one problem a line, or more when a key itself holds a line break
        problems = re.split(r"\n(?=  world)", text)[1:]
        assert problems, f"no problem listed: {text[:300]}"
        for line in problems:
            assert PROBLEM.match(line), f"a problem without a key path: {line[:300]!r}"
    if touched is not None:
        assert names_a_path(text, touched), f"none of {touched} named in: {text[:600]}"


def test_the_mini_world_is_a_valid_cut_of_the_demo() -> None:
    world = world_from_data(mini_world(), NAME)
    assert set(world.environments) == set(demo_file()["world"]["environments"])
    assert all(world.kubernetes[env] for env in world.environments)


@TIER
@given(doc=values(["environments", "kubernetes", "metrics", "gitlab", "faults", "dc-a"]))
@example(doc={"environments": {"dc-a": ["kubernetes"]}, "gitlab": {"projects": [{"id": [1]}]}})
def test_any_document_loads_or_is_refused_naming_a_key(doc: Any) -> None:
    try:
        world = world_from_data(doc, NAME)
    except WorldError as err:
        assert_refusal(err, NAME, None)
    else:
        assert isinstance(world, World)


@TIER
@given(case=mutated(mini_world(), vocabulary()))
@example(case=({**mini_world(), "faults": [{"source": "logs", "kind": "timeout", "env": 3}]},
               [("faults", 0, "env")]))  # fmt: skip
# found by this property: a non-mapping `metadata`, `pipeline`, or an unhashable gitlab
# `id` (TypeError/AttributeError from World._references), a step too long for timedelta
@example(
    case=(
        {
            **mini_world(),
            "kubernetes": {"dc-a": [{"apiVersion": "v1", "kind": "Pod", "metadata": 5}]},
        },
        [("kubernetes", "dc-a", 0, "metadata")],
    )
)
@example(
    case=(
        {
            **mini_world(),
            "gitlab": {**mini_world()["gitlab"], "jobs": [{"project_id": 398, "pipeline": "x"}]},
        },
        [("gitlab", "jobs", 0, "pipeline")],
    )
)
@example(
    case=(
        {**mini_world(), "gitlab": {**mini_world()["gitlab"], "projects": [{"id": [398]}]}},
        [("gitlab", "projects", 0, "id")],
    )
)
@example(
    case=(
        {
            **mini_world(),
            "metrics": {"dc-a": [{**mini_world()["metrics"]["dc-a"][0], "step": "99999999999d"}]},
        },
        [("metrics", "dc-a", 0, "step")],
    )
)
def test_a_mutated_demo_world_loads_or_names_the_key(
    case: tuple[dict[str, Any], list[tuple[Any, ...]]],
) -> None:
    doc, touched = case
    try:
        world = world_from_data(doc, NAME)
    except WorldError as err:
        assert_refusal(err, NAME, touched)
    else:
        assert set(world.environments) <= {str(k) for k in doc["environments"]}


# memory-backed where there is one: a file is written per example
_DIR = Path(tempfile.mkdtemp(prefix="infrabot-world-prop-", dir=scratch_dir()))


@TIER
@given(
    case=mutated(mini_scenario(), vocabulary(), max_ops=1),
    edit=text_mutations(),
    read=st.sampled_from([read_world_file, load_world]),  # the CLI's reader, the eval runner's
)
# found by this property: raw ValueError/TypeError from `now`, `questions` and `world.path`
@example(
    case=({**mini_scenario(), "now": "not a time"}, [("now",)]),
    edit=("", 0, 0),
    read=read_world_file,
)
@example(
    case=({**mini_scenario(), "questions": 5}, [("questions",)]),
    edit=("", 0, 0),
    read=read_world_file,
)
@example(
    case=({**mini_scenario(), "world": {"path": 5}}, [("world", "path")]),
    edit=("", 0, 0),
    read=read_world_file,
)
@example(
    case=({**mini_scenario(), "world": "\x00"}, [("world",)]), edit=("", 0, 0), read=read_world_file
)
@example(
    case=(mini_scenario(), []), edit=("? [k]\n: v\n", 0, 0), read=load_world
)  # an unhashable key
# loaded, but unusable by the session that reads it next: a clock without an offset, a zone
# that does not exist
@example(
    case=({**mini_scenario(), "now": "2026-07-20T14:40:00"}, [("now",)]),
    edit=("", 0, 0),
    read=read_world_file,
)
@example(
    case=({**mini_scenario(), "timezone": "Mars/Olympus"}, [("timezone",)]),
    edit=("", 0, 0),
    read=read_world_file,
)
def test_a_world_file_reads_or_is_refused_naming_the_file(
    case: tuple[dict[str, Any], list[tuple[Any, ...]]],
    edit: tuple[str, int, int],
    read: Callable[[Path], World | WorldFile],
) -> None:
    doc, _ = case
    try:
        text = yaml.dump(doc, Dumper=yaml.CSafeDumper, allow_unicode=True, sort_keys=False)
    except yaml.YAMLError:
        text = yaml.dump(doc, Dumper=yaml.CSafeDumper, allow_unicode=False, sort_keys=False)
    path = _DIR / "world.yaml"
    path.write_text(apply_text(text, edit), encoding="utf-8", errors="surrogatepass")
    try:
        loaded = read(path)
    except (WorldError, YamlFileError) as err:
        # a world file's own error types, each naming the file (the CLI prints it)
        assert_refusal(err, str(path), None, folder=str(path.parent))
    else:
        if isinstance(loaded, WorldFile):
            # what the session then uses: a zone it can open and an aware clock
            ZoneInfo(loaded.timezone)  # raises for a zone the loader should have refused
            assert loaded.now is None or loaded.now.utcoffset() is not None, loaded.now
            assert all(isinstance(q, str) for q in loaded.questions)
            loaded = loaded.world
        assert isinstance(loaded, World)
