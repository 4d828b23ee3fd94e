"""The Answer: one structure every surface renders, and `infrabot ask --json` prints.

Shape fixed for every surface and the evaluation: question, scope, summary, facts, hypotheses, gaps,
recommendations, objectives, tool_calls, timings. `supported_by` indexes `facts`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from planner.shapes.language import Language, language_of
from policy.errors import ErrorKind
from policy.gaps import GapNote, GapReason
from policy.results import ResultStatus
from policy.scope import Scope

ObjectiveStatus = Literal["resolved", "unavailable", "unresolved"]


class AnswerFact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    source: str
    observed_at: datetime | None = None
    link: str | None = None
    scope: dict[str, Any] = Field(default_factory=dict)
    kind: str | None = None
    knowledge: bool = Field(
        default=False, description="confirmed operational knowledge, not a live observation"
    )
    fields: dict[str, str | int | float | bool] = Field(
        default_factory=dict,
        description="the fact's typed attributes that fit a table cell (pod, node, status...)",
    )
    signal: bool = Field(
        default=True,
        description="False for a reading within its normal range that nothing cites: kept "
        "in the structure and the full report, left out of the short answer",
    )


class Hypothesis(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    supported_by: list[int] = Field(default_factory=list)
    confidence: Literal["low", "medium", "high"] = "medium"


class Gap(BaseModel):
    """What is not established, for which objective. `reason` is the sentence a person
    reads; `kind` is what a program reads (policy/gaps.py)."""

    model_config = ConfigDict(extra="forbid")

    objective: str
    reason: str
    kind: GapReason = GapReason.NO_CALL
    # the line an engineer reads: what could not be checked (the objective's title), where,
    # what it means; `reason` is its detail. Empty in an answer made before they existed.
    title: str = ""
    env: str | None = None
    meaning: str = ""
    source: str = Field(default="", description="the source that could not be read, if one")

    @classmethod
    def of(
        cls,
        objective: str,
        note: GapNote,
        language: Language = Language.EN,
        *,
        title: str = "",
        source: str = "",
        error: ErrorKind | None = None,
    ) -> Gap:
        return cls(
            objective=objective,
            reason=note.sentence(language),
            kind=note.reason,
            title=title,
            env=note.env,
            meaning=note.meaning(language, error),
            source=source,
        )


class ObjectiveReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    required: bool
    status: ObjectiveStatus
    sources: list[str] = Field(default_factory=list)


class ModelTally(BaseModel):
    """What one model did in a turn (model mode)."""

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ms: int = 0
    format_errors: int = 0


class Timings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    total_ms: int = 0
    model_ms: int = 0
    tools_ms: int = 0
    # model mode only (all zero without a model): what the turn asked of its models
    model_calls: int = 0
    model_failed_calls: int = Field(
        default=0, description="model calls that gave no usable turn (retried or fallen back)"
    )
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_format_errors: int = Field(
        default=0, description="tool calls a model wrote as text instead of as calls"
    )
    model_denied_calls: int = Field(
        default=0, description="tool calls the code refused: unknown name, bad arguments, scope"
    )
    by_model: dict[str, ModelTally] = Field(default_factory=dict)


class ToolCallRecord(BaseModel):
    """One read of the turn as the Answer lists it: the investigation's calls and the
    inventory's (purpose "inventory"; a list kept from a turn moments ago is `cached`,
    with the time it was read)."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    arguments: dict[str, Any]
    purpose: Literal["inventory"] | None = None
    source: str
    env: str | None
    status: ResultStatus
    duration_ms: int
    call_id: str | None = None
    objectives: list[str] | None = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    cached: bool = False
    observed_at: str | None = None

    @model_serializer(mode="wrap")
    def _only_what_applies(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A field that does not apply to this call is left out, not written as null (an
        env of None is the call's own: a tool with no env argument)."""
        data: dict[str, Any] = handler(self)
        return {
            k: v
            for k, v in data.items()
            if k == "env" or not (v is None or (k == "cached" and v is False))
        }


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str
    scope: Scope
    summary: str
    facts: list[AnswerFact] = Field(default_factory=list)
    hypotheses: list[Hypothesis] = Field(default_factory=list)
    gaps: list[Gap] = Field(default_factory=list)
    recommendations: list[str] = Field(default_factory=list)
    objectives: list[ObjectiveReport] = Field(default_factory=list)
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    timings: Timings = Field(default_factory=Timings)
    final: bool = Field(
        default=True, description="False when the turn ended before every objective was settled"
    )
    language: Language | None = Field(
        default=None, description="what the answer is written in: the question's language"
    )
    timezone: str = Field(default="UTC", description="the times shown to people are in this")
    # the summary's conclusion before the code framed it (partial, gaps): what the
    # finalizer model may rewrite (planner.model.prose); not part of the printed structure
    _conclusion: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _language(self) -> Answer:
        if self.language is None:
            self.language = language_of(self.question)
        return self

    @property
    def lang(self) -> Language:
        return self.language or language_of(self.question)

    @property
    def conclusion(self) -> str:
        return self._conclusion if self._conclusion is not None else self.summary

    @conclusion.setter
    def conclusion(self, value: str) -> None:
        self._conclusion = value
