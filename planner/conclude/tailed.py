"""The log lines asked for, as the answer's first line: which pod and container, which
run, how many lines follow, and the latest of them. The lines themselves are the facts
below, oldest first (the read returns the latest lines the question asked for)."""

from __future__ import annotations

from planner.conclude.reads import every_fact
from planner.question.logtail import LogTail
from planner.read.executor import CallRecord
from policy.facts import K8sLog
from policy.language import Bilingual, Language, phrase, pick

_HEAD: Bilingual = (
    "The last {count} log line(s) of {pod} ({containers}){where}{run} are below, oldest "
    "first; the latest: {latest}",
    "Последние строки лога {pod} ({containers}){where}{run}, {count}, ниже, от старых к "
    "новым; последняя: {latest}",
)
_ERROR: Bilingual = ("; the last error: {line}", "; последняя ошибка: {line}")
_ERROR_BEFORE: Bilingual = ("; the error before it: {line}", "; ошибка перед ней: {line}")
_PREVIOUS: Bilingual = (", previous run", ", предыдущий запуск")
_ERROR_LEVELS = frozenset({"ERROR", "FATAL", "CRITICAL", "PANIC", "EMERGENCY", "ALERT"})
_IN: Bilingual = (" in {env}", " в {env}")


def tail_sentence(tail: LogTail, records: list[CallRecord], language: Language) -> str | None:
    """One clause per pod whose lines were read; None when no line was."""
    by_pod: dict[tuple[str | None, str], list[K8sLog]] = {}
    # the latest line is the one observed last, whatever order the reads returned
    timed = sorted(
        ((env, f) for env, f in every_fact(records) if isinstance(f.attrs, K8sLog)),
        key=lambda ef: (ef[1].observed_at is not None, ef[1].observed_at or 0),
    )
    for env, fact in timed:
        attrs = fact.attrs
        if isinstance(attrs, K8sLog) and attrs.pod:
            by_pod.setdefault((env, attrs.pod), []).append(attrs)
    said = []
    for (env, pod), lines in by_pod.items():
        containers = ", ".join(dict.fromkeys(str(line.container) for line in lines))
        last_error = _last_error(lines, language)
        said.append(
            phrase(
                _HEAD,
                language,
                count=len(lines),
                pod=pod,
                containers=containers,
                where=phrase(_IN, language, env=env) if env else "",
                run=pick(_PREVIOUS, language) if tail.previous else "",
                latest=_text(lines[-1]),
            )
            + last_error
        )
    return "; ".join(said) or None


def _is_error(line: K8sLog) -> bool:
    return str(line.level or "").upper() in _ERROR_LEVELS


def _last_error(lines: list[K8sLog], language: Language) -> str:
    """The last error line before the latest, which the latest line alone may not say
    ("exiting with code 1" after "missing required env ...")."""
    earlier = [line for line in lines[:-1] if _is_error(line)]
    if not earlier:
        return ""
    said = _ERROR_BEFORE if _is_error(lines[-1]) else _ERROR
    return phrase(said, language, line=_text(earlier[-1]))


def _text(line: K8sLog) -> str:
    return str(line.line or line.message or "").strip()
