"""The planner's public surface: what the surfaces (bot) and the evaluation hand in and
get back. A turn runs as stages, each a sub-package that imports only the ones below it
(the import-linter contract "Planner stages" in pyproject.toml):

    turn      the stages in order: inventory, scope, plan, reads, conclusions, Answer
    model     what a configured model adds: free planning, rerank, prose
    conclude  objective statuses, the evidence packet, diagnosis, the Answer
    read      the executor, the turn workspace, the inventory cache
    plan      objectives from the scope, and the calls that can settle them
    question  the message read into a scope: env, object, time, identifiers, the ask
    shapes    the types every stage shares: Turn, Answer, language, progress events
"""

from planner.model.catalogue import trimmed_spec
from planner.model.client import OpenAICompatibleModel, ProviderSettings
from planner.model.roles import ModelRole, ModelSet, RoleLimits
from planner.question.alert import ENV_LABELS, AlertSubject, PastedAlert, pasted_alert, subject_of
from planner.question.alertlines import AlertStatus
from planner.question.context import ContextState
from planner.read.inventory_cache import InventoryCache
from planner.shapes.answer import Answer, AnswerFact, ObjectiveStatus, ToolCallRecord
from planner.shapes.language import Language, Phrase, language_of, say
from planner.shapes.progress import (
    CallState,
    ProgressEvent,
    ProgressKey,
    ProgressSink,
    ReadKind,
    ReadSubject,
    SubjectKind,
)
from planner.shapes.progress_said import (
    ProgressSummary,
    counted,
    reading_lines,
    reading_now,
    summarize,
)
from planner.shapes.turn import ThreadMessage, Turn
from planner.turn.conduct import MAX_QUESTION_CHARS, TurnOutcome, TurnSettings, answer_turn
from planner.turn.investigation import InvestigationSettings, Planning

__all__ = [
    "ENV_LABELS",
    "MAX_QUESTION_CHARS",
    "AlertStatus",
    "AlertSubject",
    "Answer",
    "AnswerFact",
    "CallState",
    "ContextState",
    "InventoryCache",
    "InvestigationSettings",
    "Language",
    "ModelRole",
    "ModelSet",
    "ObjectiveStatus",
    "OpenAICompatibleModel",
    "PastedAlert",
    "Phrase",
    "Planning",
    "ProgressEvent",
    "ProgressKey",
    "ProgressSink",
    "ProgressSummary",
    "ProviderSettings",
    "ReadKind",
    "ReadSubject",
    "RoleLimits",
    "SubjectKind",
    "ThreadMessage",
    "ToolCallRecord",
    "Turn",
    "TurnOutcome",
    "TurnSettings",
    "answer_turn",
    "counted",
    "language_of",
    "pasted_alert",
    "reading_lines",
    "reading_now",
    "say",
    "subject_of",
    "summarize",
    "trimmed_spec",
]
