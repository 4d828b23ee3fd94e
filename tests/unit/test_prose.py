"""The finalizer model's prose and its evidence guard: what a model writes reaches a user
only where the facts it cites bear it out."""

from __future__ import annotations

from datetime import UTC, datetime

from planner.answer import Answer, AnswerFact, Gap, Hypothesis
from planner.model import ModelError, ModelTurn, ScriptedModel
from planner.modelroles import ModelSet
from planner.prose import evidence_items, guard, write_prose
from policy.scope import Scope

AT = datetime(2026, 7, 20, 11, 11, 5, tzinfo=UTC)


def answer() -> Answer:
    return Answer(
        question="why did the checkout return 502 at 11:11?",
        scope=Scope(),
        summary="The edge proxy returned 502 because the upstream headers were too big.",
        facts=[
            AnswerFact(
                text="edge error: upstream sent too big header (host pay.example.com)",
                source="elasticsearch/edge-error",
                observed_at=AT,
                scope={"env": "east-1"},
            ),
            AnswerFact(
                text="pipeline 4412 deploy job started by bob at 10:52",
                source="gitlab",
                observed_at=AT,
            ),
        ],
        hypotheses=[Hypothesis(text="the Location header grew past 1191 bytes", supported_by=[0])],
        gaps=[Gap(objective="k8s.endpoints", reason="kubernetes API in west-2 timed out")],
    )


def check(text: str) -> tuple[list[str], int]:
    a = answer()
    return guard(text, evidence_items(a, UTC), a.question, {"H1": "medium"})


def test_a_sentence_citing_nothing_or_a_missing_item_is_dropped() -> None:
    kept, dropped = check("The proxy failed. The proxy failed again [F9]. Headers were big [F1].")
    assert kept == ["Headers were big [1]."]
    assert dropped == 2


def test_names_numbers_and_times_must_be_in_the_cited_facts() -> None:
    kept, dropped = check(
        "Alice started pipeline 4412 [F2]. "
        "Pipeline 4413 was started by bob [F2]. "
        "The deploy job started at 10:53 [F2]. "
        "The deploy job of pipeline 4412 was started by bob at 10:52 [F2]."
    )
    assert kept == ["The deploy job of pipeline 4412 was started by bob at 10:52 [2]."]
    assert dropped == 3


def test_a_fact_cited_for_another_facts_content_does_not_carry_it() -> None:
    kept, _ = check("Bob's pipeline 4412 hit a too big header on pay.example.com [F1].")
    assert kept == []


def test_a_hypothesis_keeps_its_confidence_in_the_prose() -> None:
    kept, _ = check("The Location header likely grew past 1191 bytes [H1].")
    assert kept == [
        "The Location header likely grew past 1191 bytes [H1: hypothesis, medium confidence]."
    ]


def test_a_citation_split_off_its_sentence_and_other_languages_are_kept() -> None:
    kept, dropped = check(
        "Прокси вернул 502 из-за слишком большого заголовка. [C] "
        "API kubernetes в west-2 не ответил [G1]."
    )
    assert kept == [
        "Прокси вернул 502 из-за слишком большого заголовка.",
        "API kubernetes в west-2 не ответил.",
    ]
    assert dropped == 0


async def test_write_prose_replaces_the_summary_only_with_guarded_sentences() -> None:
    def script(messages, tools):
        assert tools == []  # the finalizer plans nothing
        assert "[F2] pipeline 4412" in messages[-1].content
        return ModelTurn(content="Bob started pipeline 4412 [F2]. Carol approved it [F2].")

    desk = ModelSet(planner=ScriptedModel(script, name="m1")).desk()
    out = await write_prose(answer(), question="who deployed?", desk=desk, budget_s=5)
    assert out.summary == "Bob started pipeline 4412 [2]."
    assert (out.kept, out.dropped, out.model) == (1, 1, "m1")


async def test_a_failed_finalizer_leaves_the_deterministic_summary_and_names_the_model() -> None:
    def broken(messages, tools):
        raise ModelError("model m1: InternalServerError (HTTP 500)")

    desk = ModelSet(planner=ScriptedModel(broken, name="m1")).desk()
    out = await write_prose(answer(), question="q", desk=desk, budget_s=5)
    assert out.summary is None
    assert out.notes and "m1" in out.notes[0]
    assert len(desk.ledger.calls) == 2  # one retry, no other model to fall back on


def test_a_known_environment_name_must_be_the_one_the_citation_holds() -> None:
    a = answer()
    items = evidence_items(a, UTC)
    kept, dropped = guard(
        "The edge in east-1 logged a too big header [F1]. The edge in west-2 did too [F1].",
        items,
        a.question,
        {},
        names={"east-1", "west-2"},
    )
    assert kept == ["The edge in east-1 logged a too big header [1]."]
    assert dropped == 1


def test_a_plain_word_that_names_a_known_environment_is_checked_too() -> None:
    a = answer()
    a.facts[0].scope["env"] = "east"
    kept, _ = guard(
        "The proxy in west logged a too big header [F1].",
        evidence_items(a, UTC),
        a.question,
        {},
        names={"east", "west"},
    )
    assert kept == []
