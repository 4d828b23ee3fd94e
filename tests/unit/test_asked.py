"""The value a question asks for, and its sentence from the workload's state."""

from __future__ import annotations

import pytest

from planner.question.asked import AskedValue, asked_value, asks_cause, value_sentence
from policy.facts import K8sWorkload, Negative, ReplicaSetState
from policy.results import ResultFact


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("какая версия образа сейчас у api в prod?", AskedValue.IMAGE),
        ("which image tag is api running?", AskedValue.IMAGE),
        ("сколько реплик у api?", AskedValue.REPLICAS),
        ("how many pods does api have, and which version?", AskedValue.REPLICAS),
        ("why does api return 502?", None),
        ("сколько CPU реально потребляет namespace payments против requests?", AskedValue.USAGE),
        ("how much memory does api actually use vs its limit?", AskedValue.USAGE),
    ],
)
def test_the_value_asked_for_is_the_first_one_named(
    question: str, asked: AskedValue | None
) -> None:
    assert asked_value(question) == asked


def _workload(**kw: object) -> ResultFact:
    attrs = K8sWorkload(workload_kind="Deployment", name="api", ready=3, desired=3, **kw)  # type: ignore[arg-type]
    return ResultFact(text="Deployment api", source="kubernetes/x", attrs=attrs)


def test_one_image_is_named_with_its_revision_and_readiness() -> None:
    fact = _workload(images=["reg/api:1.2"], revision="7")
    assert value_sentence(AskedValue.IMAGE, fact, "prod") == (
        "Deployment api in prod runs image reg/api:1.2 (revision 7); 3 of 3 replicas ready"
    )


def test_during_a_rollout_each_revision_says_what_it_runs() -> None:
    live = [
        ReplicaSetState(name="api-a", revision="6", ready=3, desired=3, images=["reg/api:1.1"]),
        ReplicaSetState(name="api-b", revision="7", ready=0, desired=1, images=["reg/api:1.2"]),
    ]
    fact = _workload(images=["reg/api:1.2"], revision="7", live_replicasets=live)
    sentence = value_sentence(AskedValue.IMAGE, fact, None) or ""
    assert sentence.startswith("Deployment api runs more than one image: reg/api:1.1 on 3 of 3")
    assert sentence.endswith("reg/api:1.2 on 0 of 1 ready (revision 7, the newest)")


def test_a_fact_without_the_value_gives_no_sentence() -> None:
    assert value_sentence(AskedValue.IMAGE, _workload(), None) is None
    other = ResultFact(text="x", source="s", attrs=Negative())
    assert value_sentence(AskedValue.REPLICAS, other, None) is None


@pytest.mark.parametrize(
    ("question", "why"),
    [
        ("why is api slow?", True),
        ("tariff-api answers 500 but the pods look healthy. What's going on?", True),
        ("почему api не обрабатывает задачи?", True),
        ("что происходит с api?", True),
        ("p99 latency of api in dc-a", False),
        ("сколько 502 у api за час?", False),
    ],
)
def test_a_question_for_a_cause_is_told_from_one_for_a_value(question: str, why: bool) -> None:
    assert asks_cause(question) is why


def test_how_in_russian_is_no_image() -> None:
    assert asked_value("каким образом checkout упал?") is None
    assert asked_value("какой образ у checkout?") is AskedValue.IMAGE


@pytest.mark.parametrize(
    "question",
    [
        "how many restarts did the api have in the last hour?",
        "сколько рестартов у пода за час?",
        "количество перезапусков воркера за сутки",
        "what is the restart count of the worker?",
    ],
)
def test_a_count_of_restarts_asks_the_restart_counter(question: str) -> None:
    assert asked_value(question) is AskedValue.RESTARTS


def test_why_it_restarts_asks_no_count() -> None:
    assert asked_value("why does the api keep restarting?") is None


@pytest.mark.parametrize(
    "question",
    [
        "what share of the api's requests were 5xx over the last hour?",
        "how many 502s did the api return?",
        "what is the error rate of the api?",
        "какая доля ошибок у api за час?",
        "сколько 504 отдал api сегодня?",
    ],
)
def test_a_number_of_errors_asked_is_a_value_of_the_error_rate(question: str) -> None:
    assert asked_value(question) is AskedValue.ERRORS


def test_why_it_returns_errors_asks_no_number() -> None:
    assert asked_value("why does the api return 502?") is None
