"""The log lines asked for, as the answer's first line: which pod and container, which
run, how many lines follow, and the latest of them. The lines themselves are the facts
below, oldest first (the read returns the latest lines the question asked for)."""

from __future__ import annotations

from planner.conclude.rule import IndexedFact
from planner.question.logtail import LogTail
from policy.facts import K8sLog
from policy.language import Bilingual, Language, phrase, pick

_HEAD: Bilingual = (
    "The last {count} log line(s) of {pod} ({containers}){where}{run} are below, oldest "
    "first; the latest: {latest}",
    "Последние строки лога {pod} ({containers}){where}{run}, {count}, ниже, от старых к "
    "новым; последняя: {latest}",
)
_PREVIOUS: Bilingual = (", previous run", ", предыдущий запуск")
_IN: Bilingual = (" in {env}", " в {env}")


def tail_sentence(tail: LogTail, indexed: list[IndexedFact], language: Language) -> str | None:
    """One clause per pod whose lines were read; None when no line was."""
    by_pod: dict[tuple[str | None, str], list[K8sLog]] = {}
    for item in indexed:
        attrs = item.fact.attrs
        if isinstance(attrs, K8sLog) and attrs.pod:
            by_pod.setdefault((item.env, attrs.pod), []).append(attrs)
    said = []
    for (env, pod), lines in by_pod.items():
        containers = ", ".join(dict.fromkeys(str(line.container) for line in lines))
        said.append(
            phrase(
                _HEAD,
                language,
                count=len(lines),
                pod=pod,
                containers=containers,
                where=phrase(_IN, language, env=env) if env else "",
                run=pick(_PREVIOUS, language) if tail.previous else "",
                latest=str(lines[-1].line or lines[-1].message or "").strip(),
            )
        )
    return "; ".join(said) or None
