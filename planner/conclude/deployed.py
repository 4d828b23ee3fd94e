"""Who changed the object and when, as the answer's first line: the deploy jobs that ran
and the changes people and CI identities made in the cluster, the latest first, each with
who and when; or that none was found between the window's bounds, with what was read; or
that it could not be determined, with the read that failed.

Said from every read of the turn (not the packet a short answer is cut to). A deploy job
counts for the object when the read that returned it was asked about the object, or when
its project or environment names it: a read of every deploy job of the environment (the
fallback when no project has the object's name) lists other services' releases, which
are no answer to "who deployed <service>?"."""

from __future__ import annotations

from datetime import UTC, datetime

from planner.conclude.changes import Change, changes_before
from planner.conclude.reads import every_fact
from planner.conclude.rule import IndexedFact, of_kind
from planner.question.deployer import ChangeAuthor
from planner.read.executor import CallRecord
from policy.facts import CiCommit, CiJob, K8sAudit
from policy.language import Bilingual, Language, phrase

_LATEST: Bilingual = (
    "The last change to {obj}{where}: {first}",
    "Последнее изменение {obj}{where}: {first}",
)
_LIST: Bilingual = (
    "Changes to {obj}{where} between {start} and {end}, the latest first: {first}",
    "Изменения {obj}{where} с {start} по {end}, сначала последние: {first}",
)
_EARLIER: Bilingual = ("; before it: {rest}", "; до него: {rest}")
_MORE: Bilingual = (" (and {n} earlier)", " (и ещё {n} раньше)")
_JOB: Bilingual = (
    "deploy job {name} #{id} started by {user} at {at}, status {status}{tag}",
    "задание деплоя {name} #{id} запустил {user} в {at}, статус {status}{tag}",
)
_JOB_NO_USER: Bilingual = ("GitLab names no user", "GitLab не называет пользователя")
_TAG: Bilingual = (", image tag {tag}", ", тег образа {tag}")
_COMMIT: Bilingual = (", commit {sha} by {author}", ", коммит {sha} автора {author}")
_AUDIT: Bilingual = (
    "{actor} did {verb} on {what} in the cluster at {at}",
    "{actor} выполнил {verb} над {what} в кластере в {at}",
)
_NOT_RUN: Bilingual = (
    "; deploy job {name} #{id} was created but never run (status {status})",
    "; задание деплоя {name} #{id} создано, но не запускалось (статус {status})",
)
_NONE: Bilingual = (
    "No deploy or change of {obj} was found{where} between {start} and {end} (read in "
    "full: {sources}){partial}",
    "Ни деплоя, ни изменения {obj}{where} с {start} по {end} не найдено (прочитано "
    "полностью: {sources}){partial}",
)
_PARTIAL: Bilingual = ("; read only in part: {reads}", "; прочитано лишь частично: {reads}")
_UNKNOWN: Bilingual = (
    "Who changed {obj}{where} and when could not be determined: {reads}",
    "Кто и когда менял {obj}{where}, установить не удалось: {reads}",
)
_IN: Bilingual = (" in {env}", " в {env}")
_ANY: Bilingual = ("the environment", "окружения")
_SHOWN = 3


def change_sentence(
    ask: ChangeAuthor,
    obj: str | None,
    envs: list[str],
    objectives: set[str],
    records: list[CallRecord],
    window: tuple[datetime, datetime],
    language: Language,
) -> str | None:
    """The changes found, the latest first; else none found (every read complete) or not
    determined (a read failed or was cut); None when no read served `objectives`."""
    reads = [r for r in records if objectives & r.objectives]
    if not reads:
        return None
    name = obj or phrase(_ANY, language)
    where = phrase(_IN, language, env=", ".join(envs)) if envs else ""
    facts = [
        IndexedFact(i, fact, env)
        for i, (env, fact) in enumerate(every_fact(reads))
        if _of_object(fact.attrs, obj, _asked_of(reads, fact.attrs, obj))
    ]
    found = list(reversed(changes_before(facts, None)))
    if found:
        return _said(ask, name, where, found, facts, window, language)
    return _nothing(name, where, reads, window, language)


def _asked_of(reads: list[CallRecord], attrs: object, obj: str | None) -> bool:
    """The read that returned these attributes named the object in its arguments."""
    return obj is not None and any(
        obj in map(str, r.call.arguments.values())
        for r in reads
        if any(f.attrs is attrs for f in r.result.facts)
    )


def _of_object(attrs: object, obj: str | None, asked: bool) -> bool:
    if obj is None:
        return True
    if isinstance(attrs, CiJob):
        named = (attrs.project or "").rsplit("/", 1)[-1] == obj or obj in (attrs.environment or "")
        return asked or named
    if isinstance(attrs, K8sAudit):
        return obj in (attrs.name, attrs.mounted_by)
    return isinstance(attrs, CiCommit)  # said only beside the job that deployed it


def _said(
    ask: ChangeAuthor,
    name: str,
    where: str,
    found: list[Change],
    facts: list[IndexedFact],
    window: tuple[datetime, datetime],
    language: Language,
) -> str:
    authors = {c.a.sha or "": c.a.author for c in of_kind(facts, CiCommit) if c.a.author}
    texts = [_change_text(c, authors, language) for c in found]
    head = (
        phrase(_LATEST, language, obj=name, where=where, first=texts[0])
        if ask.latest
        else phrase(
            _LIST,
            language,
            obj=name,
            where=where,
            start=_stamp(window[0]),
            end=_stamp(window[1]),
            first=texts[0],
        )
    )
    rest = texts[1:_SHOWN]
    if rest:
        head += phrase(_EARLIER, language, rest="; ".join(rest))
    if len(texts) > _SHOWN:
        head += phrase(_MORE, language, n=len(texts) - _SHOWN)
    for job in of_kind(facts, CiJob):
        if job.a.in_scope and not job.a.ran:
            head += phrase(
                _NOT_RUN, language, name=job.a.job_name, id=job.a.job_id, status=job.a.status
            )
            break
    return head


def _change_text(change: Change, authors: dict[str, str], language: Language) -> str:
    """A job: who started it, when, its status, tag and the commit's author (who wrote the
    change is not who deployed it); an audit entry: who did what to which object, when."""
    a = change.a
    at = _stamp(change.fact.observed_at)
    if isinstance(a, CiJob):
        started = a.started_at or (at if change.fact.observed_at else "?")
        return phrase(
            _JOB,
            language,
            name=a.job_name,
            id=a.job_id,
            user=a.user or phrase(_JOB_NO_USER, language),
            at=started,
            status=a.status,
            tag=phrase(_TAG, language, tag=a.image_tag) if a.image_tag else "",
        ) + _commit(a.commit_sha, authors, language)
    what = f"{a.resource} {a.namespace + '/' if a.namespace else ''}{a.name}"
    return phrase(_AUDIT, language, actor=a.actor, verb=a.verb, what=what, at=at)


def _nothing(
    name: str,
    where: str,
    reads: list[CallRecord],
    window: tuple[datetime, datetime],
    language: Language,
) -> str:
    start, end = _stamp(window[0]), _stamp(window[1])
    short = [r for r in reads if r.result.failed or not r.result.coverage.complete_for_negative]
    complete = sorted({r.result.coverage.source for r in reads if r not in short})
    reasons = "; ".join(dict.fromkeys(_why_short(r) for r in short))
    if not complete:
        return phrase(_UNKNOWN, language, obj=name, where=where, reads=reasons)
    partial = phrase(_PARTIAL, language, reads=reasons) if short else ""
    return phrase(
        _NONE,
        language,
        obj=name,
        where=where,
        start=start,
        end=end,
        sources=", ".join(complete),
        partial=partial,
    )


def _why_short(record: CallRecord) -> str:
    """A read that failed says why; one cut short says which source it read."""
    result = record.result
    return f"{record.call.tool} ({result.error or result.coverage.source})"


def _commit(sha: str | None, authors: dict[str, str], language: Language) -> str:
    if not sha:
        return ""
    author = next((who for full, who in authors.items() if full and full.startswith(sha)), None)
    author = author or next((who for full, who in authors.items() if sha.startswith(full)), None)
    return phrase(_COMMIT, language, sha=sha[:8], author=author) if author else ""


def _stamp(at: datetime | None) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if at else "?"
