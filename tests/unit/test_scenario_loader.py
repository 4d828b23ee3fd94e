"""Scenario files: every problem is reported with its path, worlds resolve, ids are unique."""

from __future__ import annotations

import textwrap
from datetime import datetime
from pathlib import Path

import pytest

from evals.scenario import ScenarioError, builtin_suite, load_scenario, load_suite

WORLD = """\
world:
  environments:
    dc-a: [kubernetes, logs]
    dc-b: [kubernetes]
  kubernetes:
    dc-a:
      - {apiVersion: apps/v1, kind: Deployment, metadata: {name: service-x, namespace: shop}}
"""

BARE_WORLD = textwrap.dedent(WORLD.split("\n", 1)[1])

GOOD = (
    """\
id: oom-restarts
title: service-x restarts
required: true
runs: 2
tags: [kubernetes]
now: "2026-07-20T14:40:00+03:00"
user: {name: alice, role: engineer}
"""
    + WORLD
    + """\
turns:
  - user: "why does service-x restart in dc-a?"
    expect:
      answer_contains: [OOMKilled, 137]
      queried: [{source: kubernetes, env: dc-a}]
      not_queried: [{source: logs}]
      objectives_status: {k8s.restarts: resolved}
      max_tool_calls: 8
  - user: "remember: service-x needs 2Gi"
    as: {name: bob, role: admin}
    at: "2026-07-20T14:45:00+03:00"
"""
)


def write(tmp_path: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(path: Path) -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert str(path) in message  # every error names its file
    return message


def test_a_good_scenario_loads_with_its_clock_users_and_world(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, GOOD))
    spec = scenario.spec
    assert scenario.id == "oom-restarts" and spec.required and spec.runs == 2
    assert spec.now == datetime.fromisoformat("2026-07-20T14:40:00+03:00")
    assert spec.now.utcoffset() is not None
    assert scenario.timezone == "Etc/GMT-3"  # a fixed zone for the +03:00 clock
    assert spec.turns[1].as_ is not None and spec.turns[1].as_.name == "bob"
    assert spec.turns[1].at is not None and spec.turns[1].at.minute == 45
    assert scenario.admins() == ["bob"]
    expect = spec.turns[0].expect
    assert expect is not None
    assert expect.answer_contains == ["OOMKilled", "137"]  # numbers are read as text
    assert expect.queried[0].source == "kubernetes" and expect.queried[0].env == "dc-a"
    assert scenario.world.has("dc-a", "logs") and not scenario.world.has("dc-b", "logs")


def test_duplicate_yaml_key_is_rejected_with_its_line(tmp_path: Path) -> None:
    text = GOOD.replace("runs: 2\n", "runs: 2\nruns: 3\n")
    message = problems_of(write(tmp_path, text))
    assert "duplicate key 'runs'" in message and "line" in message


def test_duplicate_key_inside_an_expectation_is_rejected(tmp_path: Path) -> None:
    text = GOOD.replace(
        "      max_tool_calls: 8\n", "      max_tool_calls: 8\n      max_tool_calls: 9\n"
    )
    assert "duplicate key 'max_tool_calls'" in problems_of(write(tmp_path, text))


def test_unknown_expectation_key_is_reported_with_its_path(tmp_path: Path) -> None:
    text = GOOD.replace("answer_contains:", "answer_contain:")
    message = problems_of(write(tmp_path, text))
    assert "turns[0].expect.answer_contain: Extra inputs are not permitted" in message


def test_unknown_source_name_is_reported_with_its_path(tmp_path: Path) -> None:
    text = GOOD.replace("{source: logs}", "{source: elasticsearch}")
    message = problems_of(write(tmp_path, text))
    assert "turns[0].expect.not_queried[0].source:" in message
    assert "'elasticsearch'" in message and "'logs'" in message


def test_missing_turns_is_reported(tmp_path: Path) -> None:
    text = GOOD.split("turns:\n")[0]
    assert "turns: Field required" in problems_of(write(tmp_path, text))


def test_every_problem_of_a_file_is_reported_at_once(tmp_path: Path) -> None:
    text = (
        GOOD.replace("id: oom-restarts", "id: OOM_restarts")
        .replace("runs: 2", "runs: 0")
        .replace("role: admin", "role: root")
        .replace("k8s.restarts: resolved", "k8s.restarts: done")
        .replace("max_tool_calls: 8", "max_tool_calls: -1")
        .replace('now: "2026-07-20T14:40:00+03:00"', 'now: "2026-07-20T14:40:00"')
    )
    message = problems_of(write(tmp_path, text))
    for where in (
        "\n  id: ",
        "\n  runs: ",
        "\n  now: ",
        "\n  turns[1].as.role: ",
        "\n  turns[0].expect.objectives_status['k8s.restarts']: ",
        "\n  turns[0].expect.max_tool_calls: ",
    ):
        assert where in message, where


def test_empty_text_in_a_contains_list_is_rejected(tmp_path: Path) -> None:
    text = GOOD.replace("[OOMKilled, 137]", '[OOMKilled, ""]')
    assert "turns[0].expect.answer_contains: item 1 is empty" in problems_of(write(tmp_path, text))


def test_world_errors_carry_the_world_path(tmp_path: Path) -> None:
    text = GOOD.replace(
        "metadata: {name: service-x, namespace: shop}", "metadata: {namespace: shop}"
    )
    text = text.replace("    dc-b: [kubernetes]\n", "    dc-b: [kubernetes, mongo]\n")
    message = problems_of(write(tmp_path, text))
    assert "world.environments.dc-b[1]:" in message


def test_world_cross_reference_problems_are_listed(tmp_path: Path) -> None:
    text = GOOD.replace(
        "metadata: {name: service-x, namespace: shop}", "metadata: {namespace: shop}"
    )
    assert "world.kubernetes.dc-a[0].metadata: missing name" in problems_of(write(tmp_path, text))


def test_world_by_relative_path_with_overlay(tmp_path: Path) -> None:
    write(tmp_path, WORLD, "worlds/base.yaml")
    overlay = (
        "world:\n  path: ../worlds/base.yaml\n  overlay:\n"
        "    faults: [{source: kubernetes, env: dc-b, kind: timeout}]\n"
    )
    text = GOOD.replace(WORLD, overlay)
    scenario = load_scenario(write(tmp_path, text, "suite/oom.yaml"))
    assert scenario.world.faults[0].kind == "timeout"
    assert scenario.world.kubernetes["dc-a"][0]["metadata"]["name"] == "service-x"


def test_world_as_a_bare_relative_path(tmp_path: Path) -> None:
    write(tmp_path, BARE_WORLD, "base.yaml")
    text = GOOD.replace(WORLD, "world: base.yaml\n")
    assert load_scenario(write(tmp_path, text)).world.has("dc-a", "kubernetes")


def test_world_reference_problems(tmp_path: Path) -> None:
    text = GOOD.replace(WORLD, "world: {path: missing.yaml, overlays: {}}\n")
    message = problems_of(write(tmp_path, text))
    assert "world.overlays: not allowed in a world reference" in message
    assert "world.path:" in message and "missing.yaml" in message


def test_expectations_must_fit_the_world(tmp_path: Path) -> None:
    text = GOOD.replace(
        "queried: [{source: kubernetes, env: dc-a}]",
        "queried: [{source: kubernetes, env: dc-x}, {source: logs, env: dc-b}, "
        "{source: gitlab, env: dc-a}]",
    )
    message = problems_of(write(tmp_path, text))
    assert "turns[0].expect.queried[0].env: 'dc-x' is not an environment" in message
    assert "turns[0].expect.queried[1]: dc-b has no logs source" in message
    assert "turns[0].expect.queried[2].env: gitlab is one instance" in message


def test_clock_only_moves_forward(tmp_path: Path) -> None:
    text = GOOD.replace('at: "2026-07-20T14:45:00+03:00"', 'at: "2026-07-20T14:30:00+03:00"')
    assert "turns[1].at: " in problems_of(write(tmp_path, text))


def test_ids_are_unique_across_a_run(tmp_path: Path) -> None:
    write(tmp_path, GOOD, "a/one.yaml")
    write(tmp_path, GOOD, "b/two.yaml")
    with pytest.raises(ScenarioError) as info:
        load_suite([tmp_path])
    assert "id: 'oom-restarts' is also the id of" in str(info.value)
    assert "two.yaml" in str(info.value) and "one.yaml" in str(info.value)


def test_folder_scan_finds_scenarios_and_skips_shared_worlds(tmp_path: Path) -> None:
    write(tmp_path, GOOD, "suite/deep/oom.yaml")
    write(tmp_path, BARE_WORLD, "suite/w.yaml")
    suite = load_suite([tmp_path / "suite"])
    assert [s.id for s in suite.scenarios] == ["oom-restarts"]
    assert [p.name for p in suite.skipped] == ["w.yaml"]


def test_every_bad_file_of_a_suite_is_reported(tmp_path: Path) -> None:
    write(tmp_path, GOOD.replace("answer_contains:", "answer_contain:"), "one.yaml")
    write(tmp_path, GOOD.replace("id: oom-restarts", "id: other").split("turns:\n")[0], "two.yaml")
    with pytest.raises(ScenarioError) as info:
        load_suite([tmp_path])
    assert "one.yaml" in str(info.value) and "two.yaml" in str(info.value)
    assert len(info.value.problems) == 2


def test_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such file or folder"):
        load_suite([tmp_path / "nope.yaml"])


def test_builtin_suite_is_the_packaged_scenarios_folder() -> None:
    import evals

    folder = builtin_suite()
    assert folder.name == "scenarios"
    assert folder.parent == Path(evals.__file__).parent


def test_a_world_path_may_name_a_file_that_holds_the_world_under_world(tmp_path: Path) -> None:
    """The demo world file (now, questions, world) can be a scenario's world by its path."""
    write(tmp_path, 'now: "2026-07-20T14:40:00+03:00"\nquestions: [q]\n' + WORLD, "demo.yaml")
    text = GOOD.replace(WORLD, "world: ../demo.yaml\n")
    scenario = load_scenario(write(tmp_path, text, "sets/one.yaml"))
    assert scenario.world.has("dc-a", "logs") and not scenario.world.has("dc-b", "logs")
