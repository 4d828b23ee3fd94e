"""Numbers as a person reads them, one way everywhere: counts with the noun in its right
form, measured values to three significant digits, rates in the unit that keeps them
readable, shares that never read as none when they are some. Never scientific notation:
"6.3e-05%" and "0.000278/s" are what a program prints, not what an engineer says.

A counted noun is data (`Noun`): English singular and plural, Russian one, few and many
("1 ответ, 2 ответа, 5 ответов"), written next to the call site; nothing here guesses a
form from English text. Connectors do not know the question's language and say their
facts in English (the default); the planner passes the turn's `Language`.

Grouping: counts from a million up are grouped in threes ("1,595,981"; Russian
"1 595 981" with a narrow no-break space), where the digits can no longer be counted at a
glance. Below that a number is written as the source counted it ("48018 requests"): an
engineer searches for it and copies it into a query, and the scenario checks look for the
number as written (a required one looks for "900130" requests).
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

from policy.language import Bilingual, Language, phrase, pick

RussianForm = Literal["one", "few", "many"]

_GROUP_FROM = 1_000_000
_WHOLE_FROM = 10_000  # a measured value this large is said whole
_NARROW_NBSP = "\u202f"
_DIGITS = 3  # significant digits of a measured value
# below these a rate is said per the next larger unit: 0.00333/s is 0.2/min, 0.000278/s 1/h
_PER_MINUTE_BELOW = 0.1  # per second
_PER_HOUR_BELOW = 0.1  # per minute
_PER: dict[Literal["s", "min", "h"], Bilingual] = {
    "s": ("/s", "/с"),
    "min": ("/min", "/мин"),
    "h": ("/h", "/ч"),
}
_BETWEEN: Bilingual = ("between {low} and {high}{unit}", "от {low} до {high}{unit}")
# the smallest share said as a number; below it a share is "<0.001%", never a rounded 0
_SMALLEST_PERCENT = 0.001


class Noun(NamedTuple):
    """One counted noun in every form the answers need: English `one`/`other`, Russian
    `ru_one` (1, 21, 101), `ru_few` (2-4, 22-24) and `ru_many` (0, 5-20, 11-14, 25...)."""

    one: str
    other: str
    ru_one: str
    ru_few: str
    ru_many: str


def russian_form(n: int) -> RussianForm:
    """The Russian plural class of `n`: 1 ответ, 2 ответа, 5 ответов, 11 ответов, 21 ответ."""
    n = abs(n)
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "few"
    return "many"


def noun_for(n: int, noun: Noun, language: Language = Language.EN) -> str:
    """`noun` in the form that goes with the count `n`."""
    if language is Language.RU:
        form = russian_form(n)
        return noun.ru_one if form == "one" else noun.ru_few if form == "few" else noun.ru_many
    return noun.one if abs(n) == 1 else noun.other


def count_said(n: int, noun: Noun, language: Language = Language.EN) -> str:
    """'1 response', '3 responses', '48018 requests'; '21 ответ', '1 595 981 запрос'."""
    return f"{integer_said(n, language)} {noun_for(n, noun, language)}"


def amount_said(value: float, noun: Noun, language: Language = Language.EN) -> str:
    """A measured amount with its noun: '1 core', '0.25 cores', '1.63 cores'; Russian '1
    ядро', '2 ядра', '0.25 ядра' (a fraction takes the genitive singular, the 'few' form).
    The form follows the number as written: 0.9996 is said '1 core'."""
    said = number_said(value, language)
    whole = said.replace(",", "").replace(_NARROW_NBSP, "")
    if whole.lstrip("-").isdigit():
        return f"{said} {noun_for(int(whole), noun, language)}"
    return f"{said} {noun.ru_few if language is Language.RU else noun.other}"


def integer_said(n: int, language: Language = Language.EN) -> str:
    """A whole number, grouped in threes from a million up."""
    if abs(n) < _GROUP_FROM:
        return str(n)
    grouped = f"{n:,}"
    return grouped.replace(",", _NARROW_NBSP) if language is Language.RU else grouped


def number_said(value: float, language: Language = Language.EN) -> str:
    """A measured value: three significant digits below 100 ('26.7', '0.00333'), a tenth
    up to 10,000 ('268.4': two services' request rates a few tenths apart stay apart, and
    a rate is recognised by it), whole above ('48018', '1,595,981'); trailing zeros
    dropped; never an exponent."""
    if not math.isfinite(value):
        return str(value)
    size = abs(value)
    if round(size, 1) >= _WHOLE_FROM or value == int(value):
        return integer_said(round(value), language)
    decimals = 1 if size >= 100 else _DIGITS - 1 - math.floor(math.log10(size))
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def rate_said(
    per_second: float,
    language: Language = Language.EN,
    *,
    of: str = "",
    like: float | None = None,
) -> str:
    """An events-per-time rate in the unit that keeps it readable: '26.7/s', '0.2/min'
    (0.00333/s), '1/h' (0.000278/s); `of` names what is counted ('0.2 req/min'); `like`:
    a rate said beside it (a peak), whose unit this one takes, so one sentence keeps one
    unit ('0.05/min on average, peak 1/min')."""
    scale, unit = _rate_unit(per_second if like is None else max(abs(per_second), abs(like)))
    what = f" {of}" if of else ""
    return number_said(per_second * scale, language) + what + pick(_PER[unit], language)


def rate_range_said(
    low: float, high: float, language: Language = Language.EN, *, of: str = ""
) -> str:
    """Two rates in one unit, the larger's: 'between 0.5 and 2 req/min'."""
    scale, unit = _rate_unit(max(abs(low), abs(high)))
    return phrase(
        _BETWEEN,
        language,
        low=number_said(low * scale, language),
        high=number_said(high * scale, language),
        unit=(f" {of}" if of else "") + pick(_PER[unit], language),
    )


def _rate_unit(per_second: float) -> tuple[int, Literal["s", "min", "h"]]:
    if per_second == 0 or abs(per_second) >= _PER_MINUTE_BELOW:
        return 1, "s"
    if abs(per_second) * 60 >= _PER_HOUR_BELOW:
        return 60, "min"
    return 3600, "h"


def percent_said(fraction: float) -> str:
    """A share (0.37 for 37%) as a percentage: whole from 10% ('37%', '645%'), one decimal
    from 1% ('2.5%'), two significant digits below ('0.0062%'), and '<0.001%' for a share
    too small to say, so that a share that is some never reads as none."""
    pct = 100 * fraction
    if pct == 0 or not math.isfinite(pct):
        return f"{abs(pct):.0f}%"
    size = abs(pct)
    if size >= 10:
        return f"{pct:.0f}%"
    if size >= 1:
        text = f"{pct:.1f}".rstrip("0").rstrip(".")
        return f"{text}%"
    if size < _SMALLEST_PERCENT:
        return f"{'>-' if pct < 0 else '<'}{_SMALLEST_PERCENT:g}%"
    decimals = 1 - math.floor(math.log10(size))
    text = f"{pct:.{decimals}f}".rstrip("0").rstrip(".")
    return f"{text}%"


def share_said(part: float, whole: float) -> str:
    """`part` of `whole` as a percentage (`percent_said`); 3 of 48018 is '0.0062%'."""
    return percent_said(part / whole) if whole else "0%"


class Nouns:
    """The counted nouns more than one module says; a noun one module alone counts is
    written next to its call site."""

    CALL = Noun("call", "calls", "вызов", "вызова", "вызовов")
    CONTAINER = Noun("container", "containers", "контейнер", "контейнера", "контейнеров")
    CORE = Noun("core", "cores", "ядро", "ядра", "ядер")
    DEPLOYMENT = Noun("deployment", "deployments", "выкатка", "выкатки", "выкаток")
    DOCUMENT = Noun("document", "documents", "документ", "документа", "документов")
    EVENT = Noun("event", "events", "событие", "события", "событий")
    LINE = Noun("line", "lines", "строка", "строки", "строк")
    MINUTE = Noun("minute", "minutes", "минута", "минуты", "минут")
    NAMESPACE = Noun("namespace", "namespaces", "namespace", "namespace", "namespace")
    NODE = Noun("node", "nodes", "узел", "узла", "узлов")
    OBJECT = Noun("object", "objects", "объект", "объекта", "объектов")
    PIPELINE = Noun("pipeline", "pipelines", "пайплайн", "пайплайна", "пайплайнов")
    POD = Noun("pod", "pods", "pod", "pod'а", "pod'ов")
    PROJECT = Noun("project", "projects", "проект", "проекта", "проектов")
    RECORD = Noun("record", "records", "запись", "записи", "записей")
    REPLICA = Noun("replica", "replicas", "реплика", "реплики", "реплик")
    REQUEST = Noun("request", "requests", "запрос", "запроса", "запросов")
    RESPONSE = Noun("response", "responses", "ответ", "ответа", "ответов")
    RESTART = Noun("restart", "restarts", "перезапуск", "перезапуска", "перезапусков")
    SOURCE = Noun("source", "sources", "источник", "источника", "источников")
    TIME = Noun("time", "times", "раз", "раза", "раз")
