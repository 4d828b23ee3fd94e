"""A cause asked about an object the evidence shows healthy is answered as healthy, read
from typed facts only: every desired replica ready, no pod not ready, no restart in the
window. Any sign against it leaves the answer as it was."""

from __future__ import annotations

from typing import Any

from planner.conclude.healthy import health_of, healthy_sentence
from planner.conclude.rule import IndexedFact
from planner.shapes.language import Language
from policy.results import ResultFact


def _fact(n: int, kind: str, env: str = "prod", **attrs: Any) -> IndexedFact:
    return IndexedFact(n, ResultFact(text=f"fact {n}", source="s", kind=kind, attrs=attrs), env)


def _evidence(**overrides: Any) -> list[IndexedFact]:
    workload = {"name": "web", "ready": 2, "desired": 2, "image": "reg.example.com/shop/web:2.3.1"}
    workload.update(overrides.pop("workload", {}))
    return [
        _fact(0, "k8s.workload", **workload),
        _fact(1, "k8s.pod", pod="web-1", ready=overrides.pop("pod_ready", True)),
        _fact(2, "metrics.restarts", pod="web-1", increase=overrides.pop("increase", 0.0)),
        _fact(3, "k8s.workload", env="stage", name="web", ready=0, desired=2),
    ]


def test_a_ready_workload_with_no_restarts_is_healthy_in_both_languages() -> None:
    health = health_of(_evidence(), "web", "prod")
    assert health is not None
    assert healthy_sentence(health, "web", "prod", Language.EN) == (
        "web in prod looks healthy: 2/2 ready, image web:2.3.1, no restarts in the window; "
        "no cause of a failure is seen there"
    )
    assert healthy_sentence(health, "web", "prod", Language.RU).startswith(
        "web в prod выглядит исправным: готово 2/2, образ web:2.3.1, перезапусков за окно нет"
    )


def test_any_sign_against_health_leaves_it_unsaid() -> None:
    assert health_of(_evidence(workload={"ready": 1}), "web", "prod") is None
    assert health_of(_evidence(workload={"ready": 0, "desired": 0}), "web", "prod") is None
    assert health_of(_evidence(pod_ready=False), "web", "prod") is None
    assert health_of(_evidence(increase=3.0), "web", "prod") is None
    assert health_of(_evidence(), "api", "prod") is None  # no workload of that name read
    assert health_of(_evidence(), "web", "stage") is None  # another env's evidence


def test_restarts_not_read_are_said_so() -> None:
    health = health_of(_evidence()[:2], "web", "prod")
    assert health is not None and not health.restarts_read
    assert "restarts not read" in healthy_sentence(health, "web", "prod", Language.EN)
