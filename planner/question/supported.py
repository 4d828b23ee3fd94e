"""The questions the deterministic plans answer, as a person would ask them, and the ones
closest to a question none of them read.

A question no grammar reads (`ContextState.uncovered`: no object, no kind of question)
gets the environment's health check, said as such; without a model, the answer also says
which questions it does answer, the closest first, so the next message can be one. Closest
is the most word stems shared with the question (both languages, `wordforms.stem`); with
none shared, the order below (a cause, then a ranking) stands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.question.wordforms import stem
from planner.shapes.language import Language
from policy.language import Bilingual, phrase

__all__ = ["closest_questions"]


@dataclass(frozen=True)
class _Form:
    """One kind of supported question: how it is asked, and words that ask it."""

    asked: Bilingual  # with {env} and {service}
    words: tuple[str, ...]


_FORMS: tuple[_Form, ...] = (
    _Form(
        ("why does {service} in {env} return 5xx?", "почему {service} в {env} отдаёт 5xx?"),
        ("why", "error", "fail", "broken", "down", "почему", "ошибка", "падает", "лежит"),
    ),
    _Form(
        ("top 5 pods by memory in {env}", "топ-5 pod'ов по памяти в {env}"),
        ("top", "most", "memory", "cpu", "usage", "топ", "больше", "память", "процессор"),
    ),
    _Form(
        ("which pods in {env} are not ready?", "какие pod'ы в {env} не в Ready?"),
        ("which", "list", "pods", "nodes", "ready", "pending", "список", "поды", "готовы"),
    ),
    _Form(
        ("who deployed {service} in {env}, and when?", "кто и когда деплоил {service} в {env}?"),
        ("who", "deploy", "release", "version", "rollout", "кто", "деплой", "релиз", "версия"),
    ),
    _Form(
        ("what changed in {env} today?", "что менялось в {env} сегодня?"),
        ("changed", "change", "today", "менялось", "изменения", "сегодня"),
    ),
    _Form(
        (
            "show the last 20 log lines of {service} in {env}",
            "покажи последние 20 строк лога {service} в {env}",
        ),
        ("log", "logs", "lines", "show", "лог", "логи", "строки", "покажи"),
    ),
    _Form(
        (
            "what is the p95 latency of {service} in {env}?",
            "какая p95 задержка у {service} в {env}?",
        ),
        ("latency", "slow", "p95", "rps", "traffic", "задержка", "медленно", "тормозит", "трафик"),
    ),
    _Form(
        (
            "how many restarts did {service} in {env} have?",
            "сколько перезапусков у {service} в {env}?",
        ),
        ("restarts", "restart", "crash", "how", "many", "перезапуски", "рестарты", "сколько"),
    ),
)

_SERVICE: Bilingual = ("<service>", "<сервис>")
_WORD = re.compile(r"[a-zа-яё0-9]+", re.I)
_STEMS = tuple(frozenset(stem(w) for w in form.words) for form in _FORMS)
_SHOWN = 2


def closest_questions(question: str, env: str, language: Language) -> list[str]:
    """The two supported questions closest to `question`, about `env`, in `language`."""
    asked = {stem(w.lower()) for w in _WORD.findall(question)}
    order = sorted(range(len(_FORMS)), key=lambda i: -len(_STEMS[i] & asked))
    service = phrase(_SERVICE, language)
    return [phrase(_FORMS[i].asked, language, env=env, service=service) for i in order[:_SHOWN]]
