"""One question back when the message says neither where nor what: the demo world has
three environments, and "why is checkout slow?" names none of them and no object, so an
answer would be about whatever fails anywhere. The reply completes the question."""

from __future__ import annotations

from planner.shapes.answer import Answer
from policy.gaps import GapReason
from tests.e2e.demo_thread import ask_in_one_thread

_thread = ask_in_one_thread


def _asks_back(answer: Answer) -> bool:
    return any(g.kind is GapReason.NO_SCOPE for g in answer.gaps)


def _read_tools(answer: Answer) -> list[str]:
    """What the turn read beyond the list of names every turn starts from."""
    return [c.tool for c in answer.tool_calls if c.tool != "k8s.inventory"]


def test_no_env_and_no_object_is_asked_back_and_the_reply_completes_it() -> None:
    asked, completed = _thread("why is checkout slow?", "dc-b, service-d")
    assert _asks_back(asked)
    assert not asked.facts and not asked.hypotheses and not _read_tools(asked)
    for env in ("dc-a", "dc-b", "stage"):
        assert env in asked.summary
    # the reply is read with the question it answers
    assert not _asks_back(completed)
    assert completed.question.startswith("why is checkout slow?")
    assert completed.scope.env == "dc-b" and completed.scope.object == "service-d"
    assert completed.facts and _read_tools(completed)


def test_a_russian_question_is_asked_back_in_russian() -> None:
    (asked,) = _thread("почему всё тормозит?")
    assert _asks_back(asked)
    assert "О каком окружении" in asked.summary
    assert "Which environment" not in asked.summary


def test_what_locates_the_question_is_not_asked_back() -> None:
    """An env, an object, every env on purpose, or an identifier a source finds in any env."""
    answers = _thread(
        "what is wrong in dc-b right now?",
        "why does service-b keep restarting?",
        "how many 502 in all DCs in the last hour?",
        "why did request 7f9e2c21a4b84d0c9e51b0d3f6a27c85 fail?",
    )
    for answer in answers:
        assert not _asks_back(answer), answer.question
        assert _read_tools(answer), answer.question


def test_a_reply_that_is_a_question_of_its_own_is_read_alone() -> None:
    """Asked back about "what broke at 09:00?", the user asks something else whole: it
    is not read with the old question's time."""
    _, alone = _thread("what broke at 09:00?", "why does service-b in dc-a keep restarting?")
    assert alone.question == "why does service-b in dc-a keep restarting?"
    assert alone.scope.time.mode == "now" and alone.hypotheses


def test_replies_never_pile_up_into_one_question() -> None:
    answers = _thread("why is it slow?", "thanks", "hmm?", "dc-b, service-d")
    assert all(_asks_back(a) for a in answers[:3])
    # each reply is joined to the first question only, never to the replies before it
    assert answers[2].question == "why is it slow?\nhmm?"
    assert answers[3].question == "why is it slow?\ndc-b, service-d"
    assert answers[3].scope.env == "dc-b" and not _asks_back(answers[3])


def test_a_node_or_a_thread_with_history_is_not_asked_back() -> None:
    (node,) = _thread("compare TCP retransmits on worker-17 with its peers")
    assert not _asks_back(node) and _read_tools(node)
    first, follow_up = _thread(
        "how many 502 in all DCs in the last hour?", "and in the last 3 hours?"
    )
    assert not _asks_back(first) and not _asks_back(follow_up)
