"""The language an answer is written in, and the phrases the code itself writes in it.

A question in Russian gets its answer's frame (headings, the scope line, what is partial,
what was held back, labels) in Russian, one in English in English; the words are typed
(`Phrase`), never looked up by their English text. Texts that come from sources (log
lines, event messages, commit titles) stay as the source wrote them.
"""

from __future__ import annotations

from enum import StrEnum

# share of a question's letters that are Cyrillic from which it is read as Russian: names
# of services, hosts and environments are Latin in either language ("почему checkout в
# prod отдавал 502" is over half Cyrillic, "what is wrong with платежи" a fifth)
_CYRILLIC_SHARE = 0.3


class Language(StrEnum):
    EN = "en"
    RU = "ru"


def language_of(text: str) -> Language:
    """Russian when enough of the text's letters are Cyrillic, else English."""
    cyrillic = latin = 0
    for ch in text:
        if not ch.isalpha():
            continue
        if "а" <= ch.lower() <= "я" or ch in "ёЁ":
            cyrillic += 1
        elif ch.isascii():
            latin += 1
    letters = cyrillic + latin
    return Language.RU if letters and cyrillic / letters >= _CYRILLIC_SHARE else Language.EN


class Phrase(StrEnum):
    SCOPE = "scope"
    NO_OBJECT = "no_object"
    AROUND = "around"
    WINDOW = "window"
    LAST = "last"
    MODE_NOW = "mode_now"
    MODE_HISTORICAL = "mode_historical"
    TIMES_IN = "times_in"
    HYPOTHESES = "hypotheses"
    GAPS = "gaps"
    NEXT_STEPS = "next_steps"
    EVIDENCE = "evidence"
    CONFIDENCE = "confidence"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    FACTS_REF = "facts_ref"
    TIME_UNKNOWN = "time_unknown"
    KNOWLEDGE = "knowledge"
    SIMILAR = "similar"
    MORE_EVIDENCE = "more_evidence"
    HELD_BACK = "held_back"
    PARTIAL = "partial"
    NOT_CHECKED = "not_checked"
    LINK = "link"
    REPORT_ATTACHED = "report_attached"
    READ_ONLY = "read_only"
    HUMAN_STEP = "human_step"


# (English, Russian); {name} fields are filled by `say`
_TEXT: dict[Phrase, tuple[str, str]] = {
    Phrase.SCOPE: ("Scope", "Область"),
    Phrase.NO_OBJECT: ("no object", "без объекта"),
    Phrase.AROUND: ("around {at} (window {span})", "около {at} (окно {span})"),
    Phrase.WINDOW: ("window {span}", "окно {span}"),
    Phrase.LAST: ("last {span}", "последние {span}"),
    Phrase.MODE_NOW: ("now", "сейчас"),
    Phrase.MODE_HISTORICAL: ("in the past", "в прошлом"),
    Phrase.TIMES_IN: ("times in {tz}", "время {tz}"),
    Phrase.HYPOTHESES: ("Hypotheses", "Гипотезы"),
    Phrase.GAPS: ("Gaps — not checked or not proven", "Пробелы — не проверено или не доказано"),
    Phrase.NEXT_STEPS: ("Next steps", "Что сделать дальше"),
    Phrase.EVIDENCE: ("Evidence", "Факты"),
    Phrase.CONFIDENCE: ("confidence {level}", "уверенность: {level}"),
    Phrase.LOW: ("low", "низкая"),
    Phrase.MEDIUM: ("medium", "средняя"),
    Phrase.HIGH: ("high", "высокая"),
    Phrase.FACTS_REF: ("facts {refs}", "факты {refs}"),
    Phrase.TIME_UNKNOWN: ("time unknown", "время неизвестно"),
    Phrase.KNOWLEDGE: ("knowledge", "знание"),
    Phrase.SIMILAR: ("and {count} more like it", "и ещё {count} таких же"),
    Phrase.MORE_EVIDENCE: (
        "{count} more fact(s) in the full report",
        "ещё фактов в полном отчёте: {count}",
    ),
    Phrase.HELD_BACK: (
        "{count} reading(s) within the normal range are in the full report",
        "показаний в пределах нормы: {count}, они в полном отчёте",
    ),
    Phrase.PARTIAL: ("Partial answer: ", "Неполный ответ: "),
    Phrase.NOT_CHECKED: (
        " Not checked or not proven: {count} item(s), see gaps.",
        " Не проверено или не доказано: {count}, см. пробелы.",
    ),
    Phrase.LINK: ("link", "ссылка"),
    Phrase.READ_ONLY: (
        "I only read, so I changed nothing ({action} is for a person to do). ",
        "Я только читаю и ничего не менял ({action} делает человек). ",
    ),
    Phrase.HUMAN_STEP: (
        "If the evidence below supports the {action}, a person with access can run: {step}",
        "Если факты ниже подтверждают, что нужен {action}, человек с доступом может выполнить: "
        "{step}",
    ),
    Phrase.REPORT_ATTACHED: (
        "The full report ({facts} facts, {gaps} gaps, {calls} tool calls) is attached as {name}.",
        "Полный отчёт ({facts} фактов, {gaps} пробелов, {calls} вызовов) во вложении {name}.",
    ),
}


def say(phrase: Phrase, language: Language, **fields: object) -> str:
    """The phrase in `language`, its {fields} filled."""
    english, russian = _TEXT[phrase]
    text = russian if language is Language.RU else english
    return text.format(**fields) if fields else text
