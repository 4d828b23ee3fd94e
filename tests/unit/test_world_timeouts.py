"""A world's sources wait as long as the product does unless a fault stalls them: the
simulators share the bot's process, so a short timeout on a healthy source turns a loaded
runner into a gap the world does not hold (a required scenario failed in CI that way)."""

from __future__ import annotations

from evals.simulators.host import EnvEndpoints, WorldEndpoints
from evals.world import Fault, World
from evals.worldconfig import HEALTHY_TIMEOUT_S, config_for_world

ENDPOINTS = WorldEndpoints(
    envs={
        env: EnvEndpoints(
            kubernetes="http://127.0.0.1:1", logs="http://127.0.0.1:2", metrics="http://127.0.0.1:3"
        )
        for env in ("dc-a", "dc-b")
    },
    gitlab="http://127.0.0.1:4",
)


def _world(*faults: Fault) -> World:
    sources = ["kubernetes", "metrics", "logs"]
    return World(environments={"dc-a": sources, "dc-b": sources}, faults=list(faults))


def _timeouts(world: World) -> dict[str, float]:
    config = config_for_world(world, ENDPOINTS, timeout_s=1.0)
    out = {"gitlab": config.gitlab.timeout_s} if config.gitlab else {}
    for env, entry in config.environments.items():
        for source in ("kubernetes", "metrics", "logs"):
            target = getattr(entry, source)
            out[f"{source}/{env}"] = target.timeout_s
    return out


def test_a_world_without_stalls_waits_as_long_as_the_product() -> None:
    assert set(_timeouts(_world()).values()) == {HEALTHY_TIMEOUT_S}


def test_only_the_stalled_source_in_its_environment_gives_up_early() -> None:
    timeouts = _timeouts(_world(Fault(source="logs", kind="timeout", env="dc-b")))
    assert timeouts.pop("logs/dc-b") == 1.0
    assert set(timeouts.values()) == {HEALTHY_TIMEOUT_S}


def test_a_stall_without_an_environment_covers_every_one_and_other_faults_none() -> None:
    timeouts = _timeouts(
        _world(
            Fault(source="metrics", kind="timeout"),
            Fault(source="kubernetes", kind="http_error", status=503),
        )
    )
    assert timeouts["metrics/dc-a"] == timeouts["metrics/dc-b"] == 1.0
    assert timeouts["kubernetes/dc-a"] == timeouts["gitlab"] == HEALTHY_TIMEOUT_S
