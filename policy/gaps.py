"""Why something in an answer is not established: a closed set, and the sentence for each.

Every gap an answer carries is a `GapNote`: its reason, the env it is about, what it is
about (a tool, a source, an objective's title) and the detail a source gave (its error,
the coverage of a partial read). Decisions read the reason, never the sentence;
`sentence()` is the only place the words are made, so the same kind of gap reads the
same wherever it arises.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from policy.errors import ErrorKind
from policy.language import Bilingual, Language, phrase, pick


class GapReason(StrEnum):
    # the evidence was read, and is not enough
    PARTIAL_READ = "partial_read"  # nothing found, but the read was cut: absence not proven
    HISTORY_ONLY = "history_only"  # only observations older than "now": cannot confirm now
    ABSENCE_ONLY = "absence_only"  # a complete read found none: no cause is established by it
    TRUNCATED = "truncated"  # some data, but only part of it was read
    # the evidence could not be read
    SOURCE_FAILED = "source_failed"  # the call failed or the gate refused it
    SOURCE_DOWN = "source_down"  # its source failed earlier in the turn
    NO_SOURCE = "no_source"  # no configured tool serves it in this env
    NOT_ALLOWED = "not_allowed"  # the user's role may not use the tools that could
    MISSING_INPUT = "missing_input"  # the question lacks what it needs (a request id)
    NOT_OBSERVED = "not_observed"  # an entity the evidence has not yielded (a node, a pod)
    NOT_BOUND = "not_bound"  # a tool's required arguments could not be bound
    NO_CALL = "no_call"  # no call could be made for it
    OUT_OF_TIME = "out_of_time"  # the turn's time budget ran out first
    # the question itself
    AMBIGUOUS_NAME = "ambiguous_name"
    NO_SCOPE = "no_scope"  # no env, object or identifier: asked back instead of guessed
    UNKNOWN_ENV = "unknown_env"
    FUTURE_TIME = "future_time"
    MODEL = "model"  # what the model planner reported it could not do

    @property
    def leaves_unresolved(self) -> bool:
        """Open for lack of input or evidence, not for lack of a source: the objective is
        `unresolved`, not `unavailable`."""
        return self in (
            GapReason.PARTIAL_READ,
            GapReason.HISTORY_ONLY,
            GapReason.MISSING_INPUT,
            GapReason.NOT_OBSERVED,
            GapReason.NO_CALL,
            GapReason.OUT_OF_TIME,
        )


_SENTENCES: dict[GapReason, Bilingual] = {
    GapReason.PARTIAL_READ: (
        "{subject} found nothing, but the read was partial ({detail}); absence is not proven",
        "{subject} ничего не нашёл, но прочитано не всё ({detail}); отсутствие не доказано",
    ),
    GapReason.HISTORY_ONLY: (
        "{subject} has only historical data (latest observation {detail}); history cannot "
        "confirm the current state",
        "у {subject} только исторические данные (последнее наблюдение {detail}); по истории "
        "нельзя подтвердить текущее состояние",
    ),
    GapReason.ABSENCE_ONLY: (
        "no {subject} was found (complete read of {detail}), so the cause is not established by it",
        "не найдено: {subject} (прочитано полностью: {detail}), поэтому причина этим не "
        "установлена",
    ),
    GapReason.TRUNCATED: (
        "{subject} read only part of the data ({detail}); what was not read is not covered",
        "{subject} прочитал только часть данных ({detail}); непрочитанное не проверено",
    ),
    GapReason.SOURCE_FAILED: ("{subject}: {detail}", "{subject}: {detail}"),
    GapReason.SOURCE_DOWN: (
        "{subject} is unavailable in this turn: {detail}",
        "{subject} недоступен в этом ответе: {detail}",
    ),
    GapReason.NO_SOURCE: (
        "no source for {subject} is configured",
        "не настроен источник для: {subject}",
    ),
    GapReason.NOT_ALLOWED: (
        "not allowed for {subject}: {detail}",
        "не разрешено для {subject}: {detail}",
    ),
    GapReason.MISSING_INPUT: ("{detail}", "{detail}"),
    GapReason.NOT_OBSERVED: ("{detail}", "{detail}"),
    GapReason.NOT_BOUND: ("{detail}", "{detail}"),
    GapReason.NO_CALL: (
        "no call could be made for it",
        "для этого не удалось сделать ни одного вызова",
    ),
    GapReason.OUT_OF_TIME: (
        "the turn's time budget ran out before it was read",
        "время на ответ кончилось раньше, чем это было прочитано",
    ),
    GapReason.AMBIGUOUS_NAME: (
        "the name matches several objects: {detail}",
        "имени соответствует несколько объектов: {detail}",
    ),
    GapReason.NO_SCOPE: (
        "the question names no environment, object or identifier to read about",
        "в вопросе не названы ни окружение, ни объект, ни идентификатор, о которых читать",
    ),
    GapReason.UNKNOWN_ENV: ("{detail}", "{detail}"),
    GapReason.FUTURE_TIME: ("{detail}", "{detail}"),
    GapReason.MODEL: ("{detail}", "{detail}"),
}


# What a gap means for the answer, in a few words an engineer reads at a glance; the
# sentence above keeps the detail (which read, the index, the counts) for the full report.
# A reason absent here says it in its own sentence, already short and about the question.
_MEANINGS: dict[GapReason, Bilingual] = {
    GapReason.PARTIAL_READ: (
        "nothing found, but not everything was read: absence is not proven",
        "ничего не найдено, но прочитано не всё: отсутствие не доказано",
    ),
    GapReason.HISTORY_ONLY: (
        "only older data: the current state is not confirmed",
        "только старые данные: текущее состояние не подтверждено",
    ),
    GapReason.ABSENCE_ONLY: (
        "nothing found, so it does not explain the cause",
        "ничего не найдено, поэтому причину это не объясняет",
    ),
    GapReason.TRUNCATED: (
        "read only in part: the rest is not covered",
        "прочитано частично: остальное не проверено",
    ),
    GapReason.SOURCE_FAILED: ("could not be read ({why})", "не удалось прочитать ({why})"),
    GapReason.SOURCE_DOWN: (
        "not read: the source failed earlier in this answer",
        "не прочитано: источник отказал раньше в этом ответе",
    ),
    GapReason.NO_SOURCE: ("no source for it is configured", "для этого не настроен источник"),
    GapReason.NOT_ALLOWED: ("not allowed for your role", "не разрешено для вашей роли"),
    GapReason.NOT_BOUND: (
        "could not be asked: the read lacks an input",
        "не удалось запросить: чтению не хватает входных данных",
    ),
    GapReason.NO_CALL: ("no read could be made for it", "не удалось сделать ни одного чтения"),
    GapReason.OUT_OF_TIME: (
        "time ran out before it was read",
        "время на ответ кончилось раньше, чем это было прочитано",
    ),
}

# why a read failed, from its error's kind, in the words of `_MEANINGS`' SOURCE_FAILED
_WHY: dict[ErrorKind, Bilingual] = {
    ErrorKind.TIMEOUT: ("no answer in time", "нет ответа вовремя"),
    ErrorKind.UNAVAILABLE: ("the source is unavailable", "источник недоступен"),
    ErrorKind.FORBIDDEN: ("access denied", "нет доступа"),
    ErrorKind.UNSUPPORTED: ("the source does not serve it", "источник это не отдаёт"),
    ErrorKind.MALFORMED: ("an unreadable answer", "нечитаемый ответ"),
    ErrorKind.AMBIGUOUS: (
        "the name matches several objects",
        "имени соответствует несколько объектов",
    ),
    ErrorKind.INVALID_QUERY: ("the query was rejected", "запрос отклонён"),
    ErrorKind.SOURCE_UNAVAILABLE: (
        "the source failed earlier in this answer",
        "источник отказал раньше в этом ответе",
    ),
    ErrorKind.INTERNAL_ERROR: ("an internal error", "внутренняя ошибка"),
    ErrorKind.UNKNOWN_TOOL: ("refused by policy", "запрещено политикой"),
    ErrorKind.NOT_ADMITTED: ("refused by policy", "запрещено политикой"),
    ErrorKind.INVALID_ARGUMENTS: ("the read lacks a valid input", "неверные входные данные"),
    ErrorKind.CURRENT_ONLY: (
        "the source shows only the current state",
        "источник показывает только текущее состояние",
    ),
}
_FAILED_WHY_UNKNOWN: Bilingual = ("could not be read", "не удалось прочитать")
_FAILED_NOT_THERE: Bilingual = (
    "the source holds nothing under that name",
    "в источнике нет ничего под этим именем",
)


class Need(StrEnum):
    """An input a read needs: from the question, or from the evidence read so far."""

    REQUEST_ID = "request_id"
    OBJECT = "object"
    NAMESPACE = "namespace"
    PROMQL = "promql"
    LOG_QUERY = "log_query"
    JOB_ID = "job_id"
    HOST = "host"
    TERMS = "terms"
    NODE = "node"
    POD = "pod"
    FAILING_POD = "failing_pod"
    ADDRESS = "address"
    CALLED_ADDRESS = "called_address"
    DEPENDENCY = "dependency"


# what is missing, said when a MISSING_INPUT or NOT_OBSERVED note names its need
NEED_SENTENCES: dict[Need, Bilingual] = {
    Need.REQUEST_ID: ("no request_id in the question", "в вопросе нет request_id"),
    Need.OBJECT: (
        "the question names no service or workload, and the evidence points at none",
        "в вопросе не назван сервис или workload, и факты ни на один не указывают",
    ),
    Need.NAMESPACE: ("no namespace is known for the question", "namespace для вопроса неизвестен"),
    Need.PROMQL: ("no PromQL expression in the question", "в вопросе нет выражения PromQL"),
    Need.LOG_QUERY: ("no search text in the question", "в вопросе нет текста для поиска"),
    Need.JOB_ID: ("no job id in the question", "в вопросе нет номера job"),
    Need.HOST: ("no host in the question", "в вопросе нет хоста"),
    Need.TERMS: (
        "the question names nothing a metric could be about",
        "в вопросе нет ничего, к чему могла бы относиться метрика",
    ),
    Need.NODE: ("no node was identified from the evidence", "по фактам не определён ни один узел"),
    Need.POD: ("no pod was identified from the evidence", "по фактам не определён ни один pod"),
    Need.FAILING_POD: (
        "no pod was seen failing (waiting, terminated or not ready)",
        "не видно ни одного сбойного pod (waiting, terminated или not ready)",
    ),
    Need.ADDRESS: (
        "no upstream address was identified from the evidence",
        "по фактам не определён ни один адрес upstream",
    ),
    Need.DEPENDENCY: (
        "the evidence named no dependency",
        "по фактам не названа ни одна зависимость",
    ),
    Need.CALLED_ADDRESS: (
        "no failed call named an address",
        "ни один сбойный вызов не назвал адрес",
    ),
}


@dataclass(frozen=True)
class GapNote:
    """One thing not established. `env` None: not about one env (the question, a source
    serving every env), and the sentence then names none."""

    reason: GapReason
    env: str | None = None
    subject: str = ""
    detail: str = ""

    def sentence(self, language: Language = Language.EN) -> str:
        text = self._own_sentence(language)
        return f"{self.env}: {text}" if self.env else text

    def meaning(self, language: Language = Language.EN, error: ErrorKind | None = None) -> str:
        """What the gap means for the answer, short and with no internal name: the line an
        engineer reads (`error`: why a failed read failed)."""
        words = _MEANINGS.get(self.reason)
        if words is None:
            return self._own_sentence(language)
        if self.reason is GapReason.SOURCE_FAILED and error is ErrorKind.NOT_FOUND:
            words = _FAILED_NOT_THERE  # read, and the source has no such thing
        elif self.reason is GapReason.SOURCE_FAILED and error not in _WHY:
            words = _FAILED_WHY_UNKNOWN
        why = pick(_WHY[error], language) if error in _WHY else ""
        return phrase(words, language, why=why)

    def _own_sentence(self, language: Language) -> str:
        if self.reason in (GapReason.MISSING_INPUT, GapReason.NOT_OBSERVED) and (
            self.subject in NEED_SENTENCES
        ):
            return pick(NEED_SENTENCES[Need(self.subject)], language)
        return phrase(_SENTENCES[self.reason], language, subject=self.subject, detail=self.detail)
