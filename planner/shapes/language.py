"""The language an answer is written in, and the phrases the code itself writes in it.

A question in Russian gets its answer's frame (headings, the scope line, what is partial,
what was held back, labels) in Russian, one in English in English; the words are typed
(`Phrase`), never looked up by their English text. Texts that come from sources (log
lines, event messages, commit titles) stay as the source wrote them.
"""

from __future__ import annotations

from enum import StrEnum

from policy.language import AskedLanguage, Language, Tongue, language_of, pick, read_language
from policy.language import phrase as fill
from policy.tongues import name_of

__all__ = [
    "AskedLanguage",
    "Language",
    "Phrase",
    "Tongue",
    "language_of",
    "noted",
    "read_language",
    "say",
]


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
    NOTHING_FOUND = "nothing_found"
    THE_SOURCE = "the_source"
    THE_QUESTION = "the_question"
    NO_CAUSE = "no_cause"
    NOTHING_ESTABLISHED = "nothing_established"
    MORE_BELOW = "more_below"
    ALSO_FOUND = "also_found"
    FUTURE = "future"
    TOO_LONG = "too_long"
    UNKNOWN_ENV = "unknown_env"
    WHICH_SCOPE = "which_scope"
    A_QUESTION = "a_question"
    COMMAND_HELP = "command_help"
    COMMAND_NOT_HERE = "command_not_here"
    COMMAND_TAKEN = "command_taken"
    COMMAND_ASKED = "command_asked"
    YES = "yes"
    INVESTIGATING = "investigating"
    PROGRESS_START = "progress_start"
    READS_DONE = "reads_done"
    READS_FAILED = "reads_failed"
    READING_NOW = "reading_now"
    NO = "no"
    TIME = "time"
    LINKS = "links"
    ASKED_IN = "asked_in"
    ASKED_IN_ANOTHER = "asked_in_another"


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
        "more facts in the full report: {count}",
        "ещё фактов в полном отчёте: {count}",
    ),
    Phrase.HELD_BACK: (
        "readings within the normal range, in the full report: {count}",
        "показаний в пределах нормы: {count}, они в полном отчёте",
    ),
    Phrase.PARTIAL: ("Partial answer: ", "Неполный ответ: "),
    Phrase.NOT_CHECKED: (
        " Not checked or not proven: {count}, see gaps.",
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
    Phrase.NOTHING_FOUND: (
        "No {what} found in {env} (complete read of {read})",
        "В {env} не найдено: {what} (прочитано полностью: {read})",
    ),
    Phrase.THE_SOURCE: ("the source", "источник"),
    Phrase.THE_QUESTION: ("the question", "предмете вопроса"),
    Phrase.NO_CAUSE: (
        "{count} observations about {where} in {env}; no cause is established.",
        "Наблюдений о {where} в {env}: {count}; причина не установлена.",
    ),
    Phrase.NOTHING_ESTABLISHED: (
        "Nothing about {where} in {env} could be established.",
        "Ничего о {where} в {env} установить не удалось.",
    ),
    Phrase.ALSO_FOUND: ("Also found (not asked): ", "Также найдено (не спрашивалось): "),
    Phrase.MORE_BELOW: (
        " (more observations below: {count}.)",
        " (ещё наблюдений ниже: {count}.)",
    ),
    Phrase.FUTURE: (
        "The time asked about starts at {start}, after the current time {now}: nothing can be "
        "observed yet.",
        "Время в вопросе начинается в {start}, позже текущего {now}: наблюдать ещё нечего.",
    ),
    Phrase.TOO_LONG: (
        "The message is {length} characters long; at most {most} are read. Ask about one thing "
        "(a service, an environment, a time) and paste only the lines that matter.",
        "Сообщение длиной {length} символов; читается не больше {most}. Спросите об одном "
        "(сервис, окружение, время) и вставьте только нужные строки.",
    ),
    Phrase.UNKNOWN_ENV: (
        "Environment {unknown} is not configured, so nothing there can be read. Configured "
        "environments: {configured}.",
        "Окружение {unknown} не настроено, читать там нечего. Настроенные окружения: {configured}.",
    ),
    Phrase.A_QUESTION: ("why does it return 502", "почему он отдаёт 502"),
    Phrase.WHICH_SCOPE: (
        "Which environment and which service do you mean? The question names neither, and an "
        "answer about all {count} environments would mix them up, so I have read nothing yet. "
        'Environments: {envs}. For example: "{example}"',
        "О каком окружении и каком сервисе речь? В вопросе нет ни того, ни другого, а ответ "
        "сразу про все окружения ({count}) смешал бы их, поэтому я пока ничего не читал. "
        'Окружения: {envs}. Например: "{example}"',
    ),
    Phrase.INVESTIGATING: ("Investigating…", "Разбираюсь…"),
    Phrase.PROGRESS_START: (
        "Investigating… reading the sources; the answer follows as a reply.",
        "Разбираюсь… читаю источники, ответ придёт следующим сообщением.",
    ),
    Phrase.READS_DONE: ("{done} of {total} reads done", "готово чтений: {done} из {total}"),
    Phrase.READS_FAILED: (", {count} failed", ", с ошибкой: {count}"),
    Phrase.READING_NOW: ("Reading now: {names}", "Сейчас читаю: {names}"),
    Phrase.COMMAND_HELP: (
        "Ask about a service, an environment and a time, e.g. `/infrabot why did <service> "
        "in <env> return 502 at 14:11?` The answer comes as a thread in this "
        "channel; ask follow-ups there with an @mention.",
        "Спросите о сервисе, окружении и времени, например `/infrabot почему <сервис> в "
        "<окружение> отдавал 502 в 14:11?` Ответ придёт тредом в этом канале; уточнения — там же, "
        "через @упоминание.",
    ),
    Phrase.COMMAND_NOT_HERE: (
        "I cannot answer in this channel: add me to it (or ask in a channel I serve).",
        "Я не могу ответить в этом канале: добавьте меня в него (или спросите в моём канале).",
    ),
    Phrase.COMMAND_TAKEN: (
        "Investigating; the answer comes as a thread in this channel.",
        "Разбираюсь; ответ придёт тредом в этом канале.",
    ),
    Phrase.COMMAND_ASKED: ("@{user} asked: {question}", "@{user} спрашивает: {question}"),
    Phrase.YES: ("yes", "да"),
    Phrase.NO: ("no", "нет"),
    Phrase.TIME: ("time", "время"),
    Phrase.LINKS: ("links", "ссылки"),
    Phrase.ASKED_IN: (
        "Answers are in English or Russian; your question looks like {name}, so this one is "
        "in English.",
        "Ответы — на английском или русском; вопрос, похоже, на {name}, поэтому этот ответ "
        "на английском.",
    ),
    Phrase.ASKED_IN_ANOTHER: (
        "Answers are in English or Russian; your question looks like another language, so "
        "this one is in English.",
        "Ответы — на английском или русском; вопрос, похоже, на другом языке, поэтому этот "
        "ответ на английском.",
    ),
    Phrase.REPORT_ATTACHED: (
        "The full report ({facts} facts, {gaps} gaps, {calls} tool calls) is attached as {name}.",
        "Полный отчёт ({facts} фактов, {gaps} пробелов, {calls} вызовов) во вложении {name}.",
    ),
}


def say(phrase: Phrase, language: Language, /, **fields: object) -> str:
    """The phrase in `language`, its {fields} filled."""
    return fill(_TEXT[phrase], language, **fields)


def noted(summary: str, asked: AskedLanguage) -> str:
    """`summary`, led by the line that says the answers' languages when the asker wrote
    in another one (the language named where its profile recognised it). It leads the
    summary, so every surface shows it first, in the summary's one paragraph."""
    if asked.other is None:
        return summary
    name = name_of(asked.other)
    line = (
        say(Phrase.ASKED_IN, asked.answer, name=pick(name, asked.answer))
        if name is not None
        else say(Phrase.ASKED_IN_ANOTHER, asked.answer)
    )
    return f"{line} {summary}" if summary else line
