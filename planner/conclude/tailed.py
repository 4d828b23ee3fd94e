"""The log lines asked for, as the answer's first line: which pod and container, which
run, how many lines follow, and the latest of them. The lines themselves are the facts
below, oldest first (the read returns the latest lines the question asked for).

The error lines asked for ("errors in the logs of <service>") are said the same way,
counted apart from the warnings the read brings with them; with no error line, the first
line says so per env with what was read: in full (a "no" the reads prove) or cut short
(why, so that "none in what was read" is never taken for "none")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from planner.conclude.reads import every_fact
from planner.question.logtail import LogTail
from planner.read.executor import CallRecord
from policy.facts import AppLog, K8sLog
from policy.language import Bilingual, Language, phrase, pick
from policy.numbers import Noun, count_said
from policy.results import ResultFact

_HEAD: Bilingual = (
    "The last {lines} of {pod} ({containers}){where}{run} are below, oldest "
    "first; the latest: {latest}",
    "Последние строки лога {pod} ({containers}){where}{run}, {count}, ниже, от старых к "
    "новым; последняя: {latest}",
)
_ERRORS_HEAD: Bilingual = (
    "{lines} in the log of {pod} ({containers}){where}{run} between {start} and "
    "{end}, oldest first below; the latest: {latest}",
    "Строк с ошибками в логе {pod} ({containers}){where}{run} с {start} по {end}: {count}, "
    "ниже от старых к новым; последняя: {latest}",
)
_ERROR: Bilingual = ("; the last error: {line}", "; последняя ошибка: {line}")
_ERROR_BEFORE: Bilingual = ("; the error before it: {line}", "; ошибка перед ней: {line}")
_PREVIOUS: Bilingual = (", previous run", ", предыдущий запуск")
_IN: Bilingual = (" in {env}", " в {env}")
_NO_ERRORS: Bilingual = (
    "no error lines in the log of {obj}{where} between {start} and {end} ({source}, read in full)",
    "строк с ошибками в логе {obj}{where} с {start} по {end} нет ({source}, прочитано полностью)",
)
_NO_ERRORS_PART: Bilingual = (
    "no error lines in what was read of the log of {obj}{where} between {start} and {end}, but "
    "not all of it was read: {why}",
    "в прочитанной части лога {obj}{where} с {start} по {end} строк с ошибками нет, но "
    "прочитано не всё: {why}",
)
_WARNINGS: Bilingual = (
    "; {lines}, the latest: {line}",
    "; строк с предупреждениями: {count}, последняя: {line}",
)
# counted in the English sentences; the Russian ones put the count after a colon
LOG_LINES = Noun("log line", "log lines", "строка лога", "строки лога", "строк лога")
ERROR_LINES = Noun(
    "error line", "error lines", "строка с ошибкой", "строки с ошибками", "строк с ошибками"
)
WARNING_LINES = Noun(
    "warning line",
    "warning lines",
    "строка с предупреждением",
    "строки с предупреждениями",
    "строк с предупреждениями",
)
_ERROR_LEVELS = frozenset(
    {"ERROR", "ERR", "FATAL", "CRITICAL", "CRIT", "PANIC", "EMERGENCY", "EMERG", "ALERT", "SEVERE"}
)
# a level written in the line itself: a logfmt or JSON pair ("level=warn", "lvl":"error"),
# else a level word standing alone (" ERROR ", "[fatal]"); "err=" is a field, not a level
_LEVEL_PAIR = re.compile(r"(?<![a-z])(?:level|lvl|severity)\W{1,3}([a-z]+)", re.I)
_ERROR_WORD = re.compile(r"(?<![a-z=])(?:error|fatal|critical|panic|severe)(?![a-z=])", re.I)
# pino's and bunyan's numeric levels: 50 error, 60 fatal
_ERROR_NUMBER = 50


@dataclass(frozen=True)
class _Line:
    """A log line from a container's log or a log index, as the first line says it."""

    pod: str
    container: str
    level: str
    text: str
    previous: bool = False  # read from the run before the container's current one

    @property
    def is_error(self) -> bool:
        """At an error level; a line whose level no field held is read by its words."""
        level = self.level
        if not level:
            pair = _LEVEL_PAIR.search(self.text)
            if pair is None:
                return _ERROR_WORD.search(self.text) is not None
            level = pair.group(1).upper()
        return level in _ERROR_LEVELS or (level.isdigit() and int(level) >= _ERROR_NUMBER)


def _line(fact: ResultFact) -> _Line | None:
    a = fact.attrs
    if isinstance(a, K8sLog) and a.pod:
        # what the line says: a JSON line's message, not its braces and epoch stamps
        text = str(a.message or a.line or "").strip()
        return _Line(a.pod, str(a.container), str(a.level or "").upper(), text, bool(a.previous))
    if isinstance(a, AppLog) and a.pod:
        return _Line(str(a.pod), a.index or "", str(a.level or "").upper(), str(a.message or ""))
    return None


def tail_sentence(
    tail: LogTail,
    records: list[CallRecord],
    language: Language,
    obj: str = "",
    window: tuple[datetime, datetime] | None = None,
) -> str | None:
    """One clause per pod whose lines were read; for the error lines asked, the error lines
    alone, and with none, one clause per env read (`obj` and `window` say where and when);
    None when nothing is to be said."""
    by_pod: dict[tuple[str | None, str], list[_Line]] = {}
    # the latest line is the one observed last, whatever order the reads returned
    timed = sorted(every_fact(records), key=lambda ef: (ef[1].observed_at is not None, _at(ef[1])))
    for env, fact in timed:
        line = _line(fact)
        if line is not None:
            by_pod.setdefault((env, line.pod), []).append(line)
    start, end = (_stamp(window[0]), _stamp(window[1])) if window else ("?", "?")
    if tail.errors:
        read = [x for lines in by_pod.values() for x in lines]
        errors = {k: [x for x in v if x.is_error] for k, v in by_pod.items()}
        by_pod = {k: v for k, v in errors.items() if v}
        if not by_pod and window is not None:
            return _no_errors(obj, records, (start, end), read, language)
    said = []
    for (env, pod), lines in by_pod.items():
        containers = ", ".join(dict.fromkeys(line.container for line in lines if line.container))
        said.append(
            phrase(
                _ERRORS_HEAD if tail.errors else _HEAD,
                language,
                count=len(lines),
                lines=count_said(len(lines), ERROR_LINES if tail.errors else LOG_LINES),
                pod=pod,
                containers=containers or "?",
                where=phrase(_IN, language, env=env) if env else "",
                # the run read, not the one asked: a pod never restarted has its failed
                # run as its current log
                run=pick(_PREVIOUS, language) if any(x.previous for x in lines) else "",
                latest=lines[-1].text,
                start=start,
                end=end,
            )
            + _last_error(lines, language)
        )
    return "; ".join(said) or None


def _at(fact: ResultFact) -> datetime:
    return fact.observed_at or datetime.min.replace(tzinfo=UTC)


def _last_error(lines: list[_Line], language: Language) -> str:
    """The last error line before the latest, which the latest line alone may not say
    ("exiting with code 1" after "missing required env ...")."""
    earlier = [line for line in lines[:-1] if line.is_error]
    if not earlier:
        return ""
    said = _ERROR_BEFORE if lines[-1].is_error else _ERROR
    return phrase(said, language, line=earlier[-1].text)


def _no_errors(
    obj: str,
    records: list[CallRecord],
    window: tuple[str, str],
    lines: list[_Line],
    language: Language,
) -> str | None:
    """No error line read: per env, none in a complete read, or none in what a read cut
    short returned (with why it was cut); nothing for a read that failed (its gap says).
    The warnings read beside them are counted, the latest quoted."""
    warned = [x for x in lines if not x.is_error]
    warnings = (
        phrase(
            _WARNINGS,
            language,
            count=len(warned),
            lines=count_said(len(warned), WARNING_LINES),
            line=warned[-1].text,
        )
        if warned
        else ""
    )
    said = []
    for rec in records:
        result = rec.result
        if result.failed:
            continue
        env = result.scope.env or rec.call.env
        where = phrase(_IN, language, env=env) if env else ""
        fields = {"obj": obj, "where": where, "start": window[0], "end": window[1]}
        if result.coverage.complete_for_negative:
            text = phrase(_NO_ERRORS, language, source=result.coverage.source, **fields)
        else:
            why = "; ".join(result.warnings) or result.coverage.source
            text = phrase(_NO_ERRORS_PART, language, why=why, **fields)
        said.append(text)
    text = "; ".join(said) + warnings
    return text[:1].upper() + text[1:] if said else None


def _stamp(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
