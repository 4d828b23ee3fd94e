"""Answers people read, on the demo world's own example questions (the ones the web chat
offers): the conclusion first, then hypotheses, gaps and next steps, the evidence last;
at most 2,500 characters of Markdown before the evidence; the frame in the question's
language; every time in the configured timezone (the offset said once); links labelled
by what they open; a reading within its normal range kept out of the short answer."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import pytest

from bot.mattermost import render_reply
from bot.presentation import TABLE_MIN, present
from bot.render import markdown_of, md_text, render_head, render_markdown
from evals.worldfile import DEMO_WORLD, read_world_file
from planner.shapes.answer import Answer
from planner.shapes.language import Language, language_of
from policy.gaps import GapReason
from policy.numbers import Noun, Nouns
from tests.e2e.demo_thread import ask_in_one_thread

HEAD_BUDGET = 2_500
README_QUESTION = "почему service-a в dc-a отдавал 502 в 14:11?"  # the quick start's
# a zoned ISO time written as UTC: every time a person reads is in the answer's timezone
_UTC_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?Z")
_LINK_TARGET = re.compile(r"\]\([^)\s]*(?:\([^)\s]*\)[^)\s]*)*\)")


# README's "More to try" questions whose answers are mostly numbers: a tiny share, a rate
# of a few an hour, counts of one
MORE_TO_TRY = (
    "p99 latency of catalog-api in dc-a, last hour",
    "what share of service-a requests in dc-a were 5xx over the last hour?",
    "how many restarts did service-d have in dc-b in the last hour?",
    "how many times did service-d in dc-b log 'missing required env DATABASE_URL' in the "
    "last hour?",
    "show the last 3 log lines of service-a-5d8f7c9b4-x2k9p in dc-a",
    "что не так в dc-b прямо сейчас?",
)
# numbers as a program prints them: an exponent, a plural left open, one of many
_EXPONENT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]\d+\b")
_OPEN_PLURAL = re.compile(r"\w\((?:s|es)\)")
_PLURALS = sorted({n.other for n in vars(Nouns).values() if isinstance(n, Noun)})
_ONE_OF_MANY = re.compile(
    r"(?<![\d.,/-])\b1 (?:status \d{3} |other |log |error |warning )?(?:"
    + "|".join(map(re.escape, _PLURALS))
    + r")\b"
)


@dataclass(frozen=True)
class Asked:
    question: str
    answer: Answer


@pytest.fixture(scope="module")
def demo_answers() -> list[Asked]:
    questions = read_world_file(None).questions
    assert len(questions) >= 10
    # one thread: "the same for dc-b" follows the question before it
    asked = [*questions, README_QUESTION]
    return [Asked(q, a) for q, a in zip(asked, ask_in_one_thread(*asked), strict=True)]


@pytest.fixture(scope="module")
def more_answers() -> list[Asked]:
    return [Asked(q, a) for q, a in zip(MORE_TO_TRY, ask_in_one_thread(*MORE_TO_TRY), strict=True)]


def test_numbers_read_as_a_person_writes_them(
    demo_answers: list[Asked], more_answers: list[Asked]
) -> None:
    """No '6.3e-05%', no 'line(s)', no '1 responses' in a fact: counts agree with their
    noun, tiny rates and shares are said in readable units."""
    said = [
        (asked.question, f.text)
        for asked in [*demo_answers, *more_answers]
        for f in asked.answer.facts
    ]
    assert any("%" in text for _, text in said) and any("/min" in text for _, text in said)
    # a source's own words stay as it wrote them ("1 node(s) were unschedulable")
    sources = resources.files("evals").joinpath(DEMO_WORLD).read_text(encoding="utf-8")
    for question, text in said:
        for wrong in (_EXPONENT, _OPEN_PLURAL, _ONE_OF_MANY):
            ours = [
                m.group()
                for m in wrong.finditer(text)
                if text[max(0, m.start() - 8) : m.end() + 8] not in sources
            ]
            assert not ours, (question, ours, text)


def test_each_demo_answer_fits_its_budget_before_the_evidence(demo_answers: list[Asked]) -> None:
    for asked in demo_answers:
        head = render_head(asked.answer)
        assert len(head) <= HEAD_BUDGET, (asked.question, len(head))
        full = render_markdown(asked.answer)
        assert full.startswith(head.rstrip()), asked.question
        # the first line is the conclusion, and the evidence comes after everything else
        first = full.splitlines()[0]
        assert first.startswith("**") and len(first) > 10, asked.question


def test_the_frame_is_in_the_questions_language(demo_answers: list[Asked]) -> None:
    russian = [a for a in demo_answers if language_of(a.question) is Language.RU]
    english = [a for a in demo_answers if language_of(a.question) is Language.EN]
    assert russian and english
    for asked in russian:
        text = render_markdown(asked.answer)
        assert asked.answer.language is Language.RU
        assert "Область:" in text and "Scope:" not in text, asked.question
        for english_heading in ("#### Evidence", "#### Gaps", "#### Hypotheses", "#### Next"):
            assert english_heading not in text, (asked.question, english_heading)
    for asked in english:
        text = render_markdown(asked.answer)
        assert "Scope:" in text and "Область" not in text, asked.question


def test_every_time_shown_is_local_with_the_offset_said_once(demo_answers: list[Asked]) -> None:
    for asked in demo_answers:
        text = render_markdown(asked.answer)
        shown = _LINK_TARGET.sub("](…)", text)  # a link's own URL is not read by people
        assert not _UTC_ISO.search(shown), (asked.question, _UTC_ISO.findall(shown)[:3])
        scope_line = next(
            line
            for line in text.splitlines()
            if line.startswith("_Scope" if asked.answer.lang is Language.EN else "_Область")
        )
        assert "UTC+03:00" in scope_line, asked.question  # the demo's timezone: Moscow


def test_links_are_labelled_and_each_shown_once(demo_answers: list[Asked]) -> None:
    for asked in demo_answers:
        p = present(asked.answer)
        links = [f.link for f in p.evidence if f.link]
        assert len(links) == len(set(links)), asked.question
        for f in p.evidence:
            if f.link:
                assert f.label and f.label != "link", (asked.question, f.link)


def test_the_502_answer_is_short_and_leads_with_the_cause(demo_answers: list[Asked]) -> None:
    asked = next(a for a in demo_answers if a.question == README_QUESTION)
    reply = render_reply(asked.answer)
    first = reply.message.splitlines()[0]
    assert "302" in first and "502" in first and "too big header" in first
    # the short post leaves facts to the attached full report, which numbers every one
    assert reply.attachment is not None
    numbered = {line.split(".", 1)[0] for line in reply.attachment.splitlines()}
    assert {str(i + 1) for i in range(len(asked.answer.facts))} <= numbered
    # near-peer node readings are left out of the short answer, kept in the full report
    quiet = [f for f in asked.answer.facts if not f.signal]
    assert quiet and all("retransmit" in f.text.lower() for f in quiet)
    assert all(f.text[:30] not in reply.message for f in quiet)


_CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)
# gaps whose sentence is only what a source or the model said (an error, a note)
_SAID_BY_OTHERS = {GapReason.SOURCE_FAILED, GapReason.MODEL, GapReason.NOT_BOUND}


def test_the_codes_own_sentences_are_in_the_questions_language(
    demo_answers: list[Asked],
) -> None:
    """Not only the headings: the conclusion, each hypothesis, each next step and each gap
    the code writes are Russian for a Russian question, and English ones have no Russian."""
    russian = [a.answer for a in demo_answers if language_of(a.question) is Language.RU]
    assert any(a.hypotheses for a in russian) and any(a.gaps for a in russian)
    assert any(a.recommendations for a in russian)
    for asked in demo_answers:
        a = asked.answer
        # a value question's first line may be the fact read, quoted as its source said it
        quoted = any(a.conclusion.startswith(f.text[:60]) for f in a.facts)
        made = [] if quoted else [a.conclusion]
        made += [h.text for h in a.hypotheses] + a.recommendations
        made += [g.reason for g in a.gaps if g.kind not in _SAID_BY_OTHERS]
        if language_of(asked.question) is Language.RU:
            for text in made:
                assert _CYRILLIC.search(text), (asked.question, text)
        else:
            for text in made:
                assert not _CYRILLIC.search(text), (asked.question, text)


def test_rows_of_one_kind_are_a_table_and_quoted_lines_stay_lines(
    demo_answers: list[Asked],
) -> None:
    """Pods, nodes, jobs: four or more facts of one kind from one source, each made of
    typed values, are a table (a column per value); a fact quoting a log line or an event
    message is never a row, its words being the evidence."""
    tables = 0
    for asked in demo_answers:
        a = asked.answer
        p = present(a)
        text = markdown_of(a, p)
        in_tables: set[int] = set()
        for t in p.tables:
            tables += 1
            assert len(t.rows) >= TABLE_MIN and all(len(r) == len(t.columns) for r in t.rows)
            numbers = [int(r[0]) for r in t.rows]
            assert {a.facts[i].kind for i in t.indexes} == {t.kind}
            assert "| " + " | ".join(md_text(c) for c in t.columns) + " |" in text
            in_tables |= set(t.indexes)
            # numbered on from the lines above it, in the order shown
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        # a fact is shown once: as a line or as a row
        assert not in_tables & {f.index for f in p.evidence}, asked.question
        assert [f.number for f in p.evidence] == list(range(1, len(p.evidence) + 1))
        for f in a.facts:
            # a cell is a value, never prose
            assert all(len(str(v).split()) <= 3 for v in f.fields.values()), f.text
    assert tables
    logs = [f for asked in demo_answers for f in asked.answer.facts if f.kind == "k8s.log"]
    assert logs and not any(f.fields for f in logs)  # a quoted log line is never a row
    pods = next(
        t for asked in demo_answers for t in present(asked.answer).tables if t.kind == "k8s.pod"
    )
    assert {"pod", "node"} <= set(pods.columns)
