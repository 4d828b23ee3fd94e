"""What a progress surface writes while a turn reads: "Reading events and logs of X in
prod", in the question's language.

The one home of the words for each kind of read (`ReadKind`) and of the subject a read is
about, both languages. The reads under way are merged by what they are about (a subject
in an environment), each kind named once, and capped: a note names a few and counts the
rest. Both surfaces (the Mattermost progress note, the web chat's live lines) write these.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from planner.shapes.language import Language, Phrase, say
from planner.shapes.progress import CallState, ProgressEvent, ReadKind, ReadSubject, SubjectKind
from policy.language import Bilingual, phrase, pick

NOW_SHOWN = 4  # groups of reads named as under way; the rest are counted

# each read as the object of "reading" (Russian in the accusative, after "читаю")
_READS: dict[ReadKind, Bilingual] = {
    ReadKind.STATE: ("the state", "состояние"),
    ReadKind.ENDPOINTS: ("ready endpoints", "готовые эндпоинты"),
    ReadKind.RESTARTS: ("restarts", "перезапуски"),
    ReadKind.EVENTS: ("events", "события"),
    ReadKind.LOGS: ("logs", "логи"),
    ReadKind.ERROR_LINES: ("logged errors", "ошибки в логах"),
    ReadKind.PROXY_LOGS: ("proxy logs", "логи прокси"),
    ReadKind.REQUESTS: ("requests", "запросы"),
    ReadKind.ERRORS: ("the error rate", "долю ошибок"),
    ReadKind.LATENCY: ("latency", "задержки"),
    ReadKind.RESOURCES: ("resource use", "потребление ресурсов"),
    ReadKind.QUOTAS: ("quotas", "квоты"),
    ReadKind.PLACEMENT: ("placement", "размещение"),
    ReadKind.NETWORK: ("the network", "сеть"),
    ReadKind.AUDIT: ("the audit trail", "журнал аудита"),
    ReadKind.RELEASES: ("releases", "выкатки"),
    ReadKind.CHANGES: ("changes", "изменения"),
    ReadKind.HEALTH: ("health", "здоровье"),
    ReadKind.RANKING: ("the top pods and nodes", "топ подов и узлов"),
    ReadKind.NAMES: ("names of namespaces and workloads", "имена пространств имён и нагрузок"),
    ReadKind.METRICS: ("metrics", "метрики"),
    ReadKind.REACHABILITY: ("reachability", "доступность"),
}
# a subject after "of" (Russian in the genitive, after the read's noun)
_SUBJECTS: dict[SubjectKind, Bilingual] = {
    SubjectKind.WORKLOAD: ("{name}", "{name}"),
    SubjectKind.POD: ("pod {name}", "пода {name}"),
    SubjectKind.NODE: ("node {name}", "узла {name}"),
    SubjectKind.NAMESPACE: ("namespace {name}", "пространства имён {name}"),
    SubjectKind.PROJECT: ("project {name}", "проекта {name}"),
}
_OF: Bilingual = ("{what} of {subject}", "{what} {subject}")
_IN: Bilingual = ("{what} in {env}", "{what} в {env}")
_FROM: Bilingual = ("{source} data", "данные {source}")  # a read with no words of its own
_AND: Bilingual = ("{most} and {last}", "{most} и {last}")
_READING: Bilingual = ("Reading {what}", "Читаю {what}")
_MORE: Bilingual = ("+{count} more", "и ещё {count}")


class ProgressSummary(BaseModel):
    """The reads of a turn so far, as a surface shows them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    done: int
    total: int
    failed: int
    now: list[str]  # what is read now, merged: "events and logs of X in prod"
    more: int  # groups under way not named


Group = tuple[ReadSubject | None, str | None]  # what a read is about, where
What = tuple[ReadKind | None, str]  # the kind of a read, or (None, its source)


def summarize(
    events: Iterable[ProgressEvent], language: Language, *, shown: int = NOW_SHOWN
) -> ProgressSummary:
    """`events`: the last event of each read (surfaces key them by `ProgressEvent.key`)."""
    events = list(events)
    groups: dict[Group, list[What]] = {}
    for event in events:
        if event.state is not CallState.READING:
            continue
        what = (event.read, "" if event.read else event.source)
        kinds = groups.setdefault((event.subject, event.env), [])
        if what not in kinds:
            kinds.append(what)
    said = [_group_said(group, kinds, language) for group, kinds in groups.items()]
    return ProgressSummary(
        done=sum(1 for e in events if e.state is not CallState.READING),
        total=len(events),
        failed=sum(1 for e in events if e.state is CallState.FAILED),
        now=said[:shown],
        more=max(0, len(said) - shown),
    )


def counted(summary: ProgressSummary, language: Language) -> str:
    """ "Investigating… 3 of 7 reads done, 1 failed"."""
    text = say(Phrase.READS_DONE, language, done=summary.done, total=summary.total)
    if summary.failed:
        text += say(Phrase.READS_FAILED, language, count=summary.failed)
    return f"{say(Phrase.INVESTIGATING, language)} {text}"


def reading_now(summary: ProgressSummary, language: Language) -> str:
    """ "Reading now: events and logs of X in prod; requests of Y in prod (+2)", or ""."""
    if not summary.now:
        return ""
    names = "; ".join(summary.now)
    if summary.more:
        names += f" (+{summary.more})"
    return say(Phrase.READING_NOW, language, names=names)


def reading_lines(summary: ProgressSummary, language: Language) -> list[str]:
    """One line per group under way, "Reading events and logs of X in prod", and the count
    of the rest."""
    lines = [phrase(_READING, language, what=what) for what in summary.now]
    if summary.more:
        lines.append(phrase(_MORE, language, count=summary.more))
    return lines


def _group_said(group: Group, kinds: list[What], language: Language) -> str:
    subject, env = group
    names = [
        pick(_READS[kind], language) if kind else phrase(_FROM, language, source=source)
        for kind, source in kinds
    ]
    what = names[0]
    if len(names) > 1:
        what = phrase(_AND, language, most=", ".join(names[:-1]), last=names[-1])
    if subject is not None:
        named = phrase(_SUBJECTS[subject.kind], language, name=subject.name)
        what = phrase(_OF, language, what=what, subject=named)
    return phrase(_IN, language, what=what, env=env) if env else what
