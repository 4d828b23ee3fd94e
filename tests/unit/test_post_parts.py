"""The parts of a post people read, from an Answer: a hypothesis the summary states is not
listed again (its confidence and facts follow the headline), facts are numbered in the
order shown and hypotheses cite those numbers, and each gap is one line in the answer's
language with no internal id, grouped by the source it is about, its detail kept for the
full report."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.presentation import present
from bot.render import render_head, render_markdown, render_plain
from planner.shapes.answer import Answer, AnswerFact, Gap, Hypothesis
from planner.shapes.language import Language
from policy.errors import ErrorKind
from policy.gaps import GapNote, GapReason
from policy.scope import Scope

AT = datetime(2026, 7, 20, 11, 0, tzinfo=UTC)
CAUSE = "Pod web-1 is in CrashLoopBackOff: its log says DATABASE_URL is not set."
OTHER = "The quota refuses new pods: requests.cpu=3800m of 4."


def _fact(n: int, source: str = "kubernetes/prod") -> AnswerFact:
    return AnswerFact(text=f"reading number {n}", source=source, observed_at=AT, kind=f"k{n % 3}")


def _answer(question: str = "why is web failing in prod?", **fields: object) -> Answer:
    data: dict[str, object] = {
        "question": question,
        "scope": Scope(env="prod", object="web"),
        "summary": f"{CAUSE} Not checked or not proven: 2, see gaps.",
        "facts": [_fact(n) for n in range(12)],
        "hypotheses": [
            Hypothesis(text=CAUSE, supported_by=[9, 4], confidence="high"),
            Hypothesis(text=OTHER, supported_by=[7], confidence="medium"),
        ],
    }
    data.update(fields)
    return Answer.model_validate(data)


def test_a_hypothesis_the_headline_states_is_not_listed_again() -> None:
    p = present(_answer())
    assert [h.text for h in p.hypotheses] == [OTHER]
    assert p.lead is not None and p.lead.confidence == "high"
    head = render_head(_answer())
    assert head.count("DATABASE\\_URL") == 1  # said once, in the headline
    assert "confidence high; facts 1, 2" in head.splitlines()[0]


def test_facts_are_numbered_in_the_order_shown_and_cited_by_those_numbers() -> None:
    p = present(_answer())
    assert [f.number for f in p.evidence] == list(range(1, len(p.evidence) + 1))
    # the cited facts lead, in citation order: 10 and 5 of the answer are 1 and 2 here
    assert [f.index for f in p.evidence[:3]] == [9, 4, 7]
    assert p.lead is not None and p.lead.refs == [1, 2]
    assert p.hypotheses[0].refs == [3]
    full = render_plain(_answer())
    assert "  1. reading number 9" in full and "  3. reading number 7" in full


def _gaps(language: Language) -> list[Gap]:
    changes = "changes in the day before (releases, people's changes)"
    return [
        Gap.of(
            "changes.before",
            GapNote(GapReason.SOURCE_FAILED, "prod", "gitlab.release_timeline", "HTTP 503"),
            language,
            title=changes,
            source="gitlab",
            error=ErrorKind.TIMEOUT,
        ),
        Gap.of(
            "object.events",
            GapNote(GapReason.PARTIAL_READ, "prod", "k8s.events", "events kept for 1h"),
            language,
            title="what the cluster said about the object",
            source="kubernetes",
        ),
        Gap.of(
            "object.failing_logs",
            GapNote(GapReason.NOT_OBSERVED, "prod", "failing_pod"),
            language,
            title="log of the object's failing pods",
        ),
    ]


def test_each_gap_is_one_line_an_engineer_reads_grouped_by_source() -> None:
    answer = _answer(gaps=_gaps(Language.EN))
    p = present(answer)
    assert [g.source for g in p.gaps] == ["", "GitLab", "Kubernetes"]
    assert (
        p.gaps[1].line == "Changes in the day before (prod): could not be read (no answer in time)"
    )
    assert p.gaps[2].line == (
        "What the cluster said about the object (prod): nothing found, but not everything "
        "was read: absence is not proven"
    )
    head = render_head(answer)
    for internal in ("changes.before", "gitlab.release_timeline", "k8s.events", "failing_pod"):
        assert internal not in head
    # the detail (which read, what it said) is in the full report, not the post
    assert "HTTP 503" not in head
    assert "HTTP 503" in render_markdown(answer, evidence=None)
    # a gap whose sentence is its meaning has no detail to repeat it
    assert [bool(g.detail) for g in p.gaps] == [False, True, True]


def test_gap_lines_are_in_the_answers_language() -> None:
    answer = _answer(question="почему web падает в prod?", gaps=_gaps(Language.RU))
    lines = [g.line for g in present(answer).gaps]
    # the titles are the catalogue's (its title_ru in a real turn); what they mean is said
    # in the question's language
    assert lines[0].endswith(
        "(prod): не видно ни одного сбойного pod (waiting, terminated или not ready)"
    )
    assert lines[1].endswith("(prod): не удалось прочитать (нет ответа вовремя)")
    assert lines[2].endswith("ничего не найдено, но прочитано не всё: отсутствие не доказано")


def test_an_answer_from_before_gap_lines_shows_its_sentence() -> None:
    old = Gap(
        objective="k8s.events", reason="prod: k8s.events found nothing", kind=GapReason.PARTIAL_READ
    )
    p = present(_answer(gaps=[old]))
    assert p.gaps[0].line == "prod: k8s.events found nothing"
