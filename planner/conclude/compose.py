"""The one place an investigated turn's Answer is written: from the code's conclusions,
what a model added (its prose for the summary, its notes as gaps, what it cost), and
what the turn adds around the investigation (the inventory's reads, the lists that came
back cut short, confirmed knowledge). The early answers that read nothing are written
by planner.turn.early.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.conclude.finalizer import Conclusions
from planner.shapes.answer import Answer, AnswerFact, Gap, Timings, ToolCallRecord
from planner.shapes.language import AskedLanguage, Language, Phrase, noted, say
from policy.gaps import GapNote, GapReason
from policy.scope import Scope


@dataclass(frozen=True)
class TurnParts:
    """What the turn adds around the investigation: the inventory's reads (listed first
    among the calls), a note for each list of names cut short in the question's envs
    (what the question names may be missing from it), confirmed knowledge (after the
    live facts, so `supported_by` indexes stay valid; never stored as observed), and what
    the question was asked in (asked in neither English nor Russian, the summary says so
    first)."""

    inventory_calls: list[ToolCallRecord] = field(default_factory=list)
    cut_lists: list[GapNote] = field(default_factory=list)
    knowledge: list[AnswerFact] = field(default_factory=list)
    asked: AskedLanguage | None = None


@dataclass(frozen=True)
class ModelPart:
    """What a configured model added to the turn: a summary it wrote (checked against
    the citations; None when it wrote none that held), notes on what it could not do, and
    what the turn asked of the models (the model fields of Timings)."""

    summary: str | None
    notes: list[str]
    timings: Timings


def compose(
    conclusions: Conclusions,
    *,
    question: str,
    scope: Scope,
    parts: TurnParts,
    model: ModelPart | None,
    total_ms: int,
) -> Answer:
    language = conclusions.language
    model_gaps = [
        Gap.of("model", GapNote(GapReason.MODEL, detail=note), language)
        for note in (model.notes if model else [])
    ]
    gaps = [*conclusions.gaps, *model_gaps]
    prose = model.summary if model else None
    # the model's prose follows what the code states of the asked thing, never replaces it
    head = f"{conclusions.lead}{prose}" if prose else conclusions.conclusion
    # the frame counts what the investigation left open; a cut list of names is a gap of
    # the turn's first read, said after them
    summary = frame_summary(head, len(gaps), conclusions.final, language)
    if parts.asked is not None:
        summary = noted(summary, parts.asked)
    timings = (model.timings if model else Timings()).model_copy(
        update={
            "total_ms": total_ms,
            "tools_ms": sum(c.duration_ms for c in conclusions.tool_calls),
        }
    )
    answer = Answer(
        question=question,
        scope=scope,
        summary=summary,
        facts=[*conclusions.facts, *parts.knowledge],
        hypotheses=conclusions.hypotheses,
        gaps=[*gaps, *(Gap.of("scope", note, language) for note in parts.cut_lists)],
        recommendations=conclusions.recommendations,
        objectives=conclusions.objectives,
        tool_calls=[*parts.inventory_calls, *conclusions.tool_calls],
        timings=timings,
        final=conclusions.final,
        language=language,
    )
    answer.conclusion = conclusions.conclusion
    return answer


def frame_summary(head: str, gaps: int, final: bool, language: Language = Language.EN) -> str:
    """The summary around its conclusion: what is partial and what was not checked is
    said by the code, whoever wrote the conclusion (the finalizer model's prose too), in
    the question's language."""
    if gaps:
        if head and head.rstrip()[-1:] not in ".!?…":
            head = head.rstrip() + "."
        head += say(Phrase.NOT_CHECKED, language, count=gaps)
    if not final:
        head = say(Phrase.PARTIAL, language) + head
    return head
