"""The ranking asked for, as the answer's first line: "Top 3 pods by memory in <env> (of
14): a 1.3 GiB, b 1.2 GiB, c 901 MiB". Written from the MetricsRank facts a ranking read
returned, in their order, once per env; the unit is the measure's (RankMeasure.unit)."""

from __future__ import annotations

from planner.conclude.reads import every_fact
from planner.question.ranking import Ranking
from planner.read.executor import CallRecord
from policy.facts import MetricsRank
from policy.language import Bilingual, Language, phrase, pick
from policy.numbers import Nouns, amount_said, number_said, percent_said, rate_said
from policy.units import bytes_said
from policy.vocabulary import RankMeasure, RankSubject

# "Top 3 pods by memory in <env> (of 14): ..." / "Топ-3 pod'ов в <env>, память (из 14): ..."
_HEAD: dict[str, Bilingual] = {
    "top": (
        "Top {count} {subjects} by {measure}{where}",
        "Топ-{count} {subjects}{where}, {measure}",
    ),
    "bottom": (
        "Lowest {count} {subjects} by {measure}{where}",
        "Последние {count} {subjects}{where}, {measure}",
    ),
}
_FIRST: dict[str, Bilingual] = {
    "top": (
        "The {subject} with the most {measure}{where}",
        "Наибольшее значение ({measure}) среди {subjects}{where}",
    ),
    "bottom": (
        "The {subject} with the least {measure}{where}",
        "Наименьшее значение ({measure}) среди {subjects}{where}",
    ),
}
_SUBJECTS: dict[RankSubject, tuple[Bilingual, Bilingual]] = {
    # (one, several)
    RankSubject.POD: (("pod", "pod"), ("pods", "pod'ов")),
    RankSubject.NODE: (("node", "узел"), ("nodes", "узлов")),
}
_MEASURES: dict[RankMeasure, Bilingual] = {
    RankMeasure.MEMORY: ("memory (working set)", "память (working set)"),
    RankMeasure.CPU: ("CPU", "CPU"),
    RankMeasure.RESTARTS: ("container restarts", "перезапуски контейнеров"),
    RankMeasure.MEMORY_OF_LIMIT: ("memory against its limit", "память относительно лимита"),
    RankMeasure.CPU_OF_REQUEST: ("CPU against its request", "CPU относительно request"),
    RankMeasure.RETRANSMITS: ("TCP retransmits", "TCP-ретрансмиты"),
}
_IN: Bilingual = (" in {env}", " в {env}")
_OF: Bilingual = (" (of {total})", " (из {total})")


def ranking_sentence(ranking: Ranking, records: list[CallRecord], language: Language) -> str | None:
    """The ranking, one clause per env that returned one; None when no read did."""
    by_env: dict[str | None, list[MetricsRank]] = {}
    for env, fact in every_fact(records):
        attrs = fact.attrs
        if isinstance(attrs, MetricsRank) and attrs.measure is ranking.measure:
            by_env.setdefault(env, []).append(attrs)
    said = [
        _clause(ranking, env, sorted(rows, key=lambda r: r.position), language)
        for env, rows in by_env.items()
    ]
    return "; ".join(said) or None


def _clause(ranking: Ranking, env: str | None, rows: list[MetricsRank], language: Language) -> str:
    where = phrase(_IN, language, env=env) if env else ""
    measure = pick(_MEASURES[ranking.measure], language)
    one, several = (pick(s, language) for s in _SUBJECTS[ranking.subject])
    total = max((r.of for r in rows), default=len(rows))
    listed = ", ".join(f"{r.name} {_value(r, language)}" for r in rows)
    if len(rows) == 1 and ranking.count == 1:
        head = phrase(
            _FIRST[ranking.order],
            language,
            subject=one,
            subjects=several,
            measure=measure,
            where=where,
        )
        return f"{head}{phrase(_OF, language, total=total)}: {listed}"
    head = phrase(
        _HEAD[ranking.order],
        language,
        count=len(rows),
        subjects=several,
        measure=measure,
        where=where,
    )
    return f"{head}{phrase(_OF, language, total=total)}: {listed}"


def _value(row: MetricsRank, language: Language) -> str:
    v = row.value
    match row.measure.unit:
        case "bytes":
            return bytes_said(v)
        case "cores":
            return amount_said(v, Nouns.CORE, language)
        case "share":
            return percent_said(v)
        case "per_second":
            return rate_said(v, language)
        case _:
            return number_said(v, language)
