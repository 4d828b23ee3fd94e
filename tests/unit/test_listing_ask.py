"""A list of pods or nodes in a state is read as asked, and said from what a sweep read:
the ones in the state, or that none of the N read is."""

from __future__ import annotations

from typing import Any

import pytest

from planner.conclude.listed import listing_sentence
from planner.question.listing import Listing, ListState, listing_asked
from planner.shapes.language import Language
from policy.facts import FactAttrs, K8sNodeCondition, K8sPod, K8sSweep
from policy.results import ResultFact
from policy.vocabulary import RankSubject
from tests.unit.toolkit import read_of

NODE, POD = RankSubject.NODE, RankSubject.POD
S = ListState


@pytest.mark.parametrize(
    ("question", "subject", "state"),
    [
        ("which nodes in dc-a are under memory pressure?", NODE, S.MEMORY_PRESSURE),
        ("на каких нодах в eu-north сейчас disk pressure?", NODE, S.DISK_PRESSURE),
        ("какие ноды в stage сейчас cordoned?", NODE, S.CORDONED),
        ("перечисли поды в dc-b, которые сейчас не Ready", POD, S.NOT_READY),
        ("which pods in prod are pending?", POD, S.PENDING),
        ("list the pods in CrashLoopBackOff in dc-b", POD, S.CRASH_LOOP),
        ("any nodes not ready in dc-a?", NODE, S.NOT_READY),
        ("какие поды в prod сегодня выселило?", POD, S.EVICTED),
        ("which pods got evicted in dc-b today?", POD, S.EVICTED),
    ],
)
def test_a_list_asked_is_read_with_what_and_which_state(
    question: str, subject: RankSubject, state: ListState
) -> None:
    assert listing_asked(question) == Listing(subject, state)


@pytest.mark.parametrize(
    "question",
    [
        "why is service-b not ready in dc-a?",  # a cause
        "the node is under memory pressure",  # no list asked
        "which pods use the most memory?",  # a ranking, not a state
    ],
)
def test_no_list_is_read_where_none_is_asked(question: str) -> None:
    assert listing_asked(question) is None


def _fact(attrs: FactAttrs) -> Any:
    return read_of("dc-a", [ResultFact(text="x", attrs=attrs, source="kubernetes")])


def test_the_nodes_in_the_state_are_listed_with_how_many_were_read() -> None:
    facts = [
        _fact(K8sSweep(nodes=4, pods=30)),
        _fact(K8sNodeCondition(node="n3", condition="MemoryPressure", status="True")),
        _fact(K8sNodeCondition(node="n1", condition="DiskPressure", status="True")),
    ]
    said = listing_sentence(Listing(NODE, S.MEMORY_PRESSURE), facts, Language.EN)
    assert said == "Nodes under memory pressure in dc-a: n3 (1 of 4 nodes read)"


def test_none_in_the_state_is_said_with_what_was_read_and_never_without_a_sweep() -> None:
    sweep = _fact(K8sSweep(nodes=6, pods=40))
    said = listing_sentence(Listing(NODE, S.MEMORY_PRESSURE), [sweep], Language.RU)
    assert said == "Ни один узел в dc-a не под MemoryPressure (прочитано узлов: 6)"
    assert listing_sentence(Listing(NODE, S.MEMORY_PRESSURE), [], Language.EN) is None


def test_pods_not_ready_are_the_running_unready_and_the_not_running() -> None:
    facts = [
        _fact(K8sSweep(nodes=3, pods=21)),
        _fact(K8sPod(pod="a", phase="Running", ready=False)),
        _fact(K8sPod(pod="b", phase="Pending", ready=False)),
        _fact(K8sPod(pod="c", phase="Running", ready=True)),
        _fact(K8sPod(pod="d", phase="Succeeded", ready=False)),
    ]
    said = listing_sentence(Listing(POD, S.NOT_READY), facts, Language.EN)
    assert said == "Pods not Ready in dc-a: a, b (2 of 21 pods read)"


def test_evicted_pods_are_those_the_kubelet_evicted_not_any_failed_one() -> None:
    facts = [
        _fact(K8sSweep(nodes=3, pods=18)),
        _fact(K8sPod(pod="a", phase="Failed", pod_reason="Evicted", ready=False)),
        _fact(K8sPod(pod="b", phase="Failed", ready=False)),
        _fact(K8sPod(pod="c", phase="Running", ready=True)),
    ]
    said = listing_sentence(Listing(POD, S.EVICTED), facts, Language.EN)
    assert said == "Pods evicted in dc-a: a (1 of 18 pods read)"


def test_a_sweep_cut_short_says_what_it_read_and_never_none() -> None:
    sweep = ResultFact(text="x", attrs=K8sSweep(nodes=6, pods=40), source="kubernetes")
    said = listing_sentence(
        Listing(NODE, S.MEMORY_PRESSURE), [read_of("dc-a", [sweep], complete=False)], Language.EN
    )
    assert said == (
        "None of the 6 nodes read in dc-a is under memory pressure, but the read was cut "
        "short: others may be"
    )


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("сколько подов в неймспейсе billing?", RankSubject.POD),
        ("how many pods are running in east?", RankSubject.POD),
        ("how many nodes does east have?", RankSubject.NODE),
        ("количество нод в west", RankSubject.NODE),
    ],
)
def test_a_count_of_pods_or_nodes_with_no_state_counts_every_one(
    question: str, subject: RankSubject
) -> None:
    assert listing_asked(question) == Listing(subject, ListState.ALL)


def test_a_count_in_a_state_stays_that_state() -> None:
    assert listing_asked("how many pods are pending in east?") == Listing(
        RankSubject.POD, ListState.PENDING
    )
