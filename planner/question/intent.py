"""What a question is about (the scope's `subject`), from keywords in Russian and English.

Each intent has weighted stems; the best score wins, ties go to the order below (the more
specific intent first). Unknown questions get `None`: the planner then runs a general
health check, or free planning when a model is configured.
"""

from __future__ import annotations

import re
from typing import Literal

from planner.question.extract import Identifiers

Intent = Literal[
    "raw_query",
    "node_health",
    "readiness",
    "http_errors",
    "release_timeline",
    "workload_startup",
    "traffic",
    "latency",
    "capacity",
    "network_check",
    "ranking",  # pods or nodes ranked by a measure (planner.question.ranking)
    "listing",  # pods or nodes in a state (planner.question.listing)
    "log_lines",  # the latest lines of a container's log (planner.question.logtail)
    "phrase_count",  # how many times a phrase was logged (planner.question.phrase)
]

_KEYWORDS: dict[Intent, list[tuple[str, float]]] = {
    "release_timeline": [
        (r"who (?:deployed|rolled|released|shipped|changed|updated)", 3),
        (
            r"кто\s+(?:\w+\s+)?"
            r"(?:выкат|деплои|задеплои|релиз|катил|обновил|(?:по)?менял|изменил|удалил)",
            3,
        ),
        (r"\bdeploy\w*|\brollout|\brolled out|\brelease[ds]?\b|\bshipped", 1.5),
        (r"выкат\w*|выкладк\w*|деплой\w*|задеплои\w*|релиз\w*|раскат\w*", 1.5),
        (r"which (?:job|pipeline)|какой (?:джоб|пайплайн)|из какого (?:джоба|пайплайна)", 2),
        (
            r"did anything change|what(?:'s| has)? changed|anything changed|any changes|"
            r"что(?:-то|-нибудь)? (?:(?:по)?менял|изменил|поменял)\w*|"
            r"какие (?:были )?изменения|были ли изменения|was (?:it|\w+) deployed",
            # beside a symptom the message names ("500 since 13:00 ... what changed?") the
            # changes are asked as its cause: the symptom leads, the changes are read too
            2.5,
        ),
    ],
    "http_errors": [
        # a status used as a verb or a plural too ("502ing", "503s")
        (r"\b5\d\d(?:s|ing|ed)?\b|\b5xxs?\b|\b4\d\d(?:s|ing|ed)?\b", 2),
        (r"\berrors?\b|\bfail(?:ed|ing|ures?)\b|bad gateway|gateway timeout|unavailable", 1),
        (r"ошиб\w*|отдава\w*|отдаёт|отдает|возвраща\w*|сбо[ий]\w*", 1),
        (r"request[_\s-]?id|реквест", 1),
    ],
    "workload_startup": [
        (
            r"crash[\s-]*loop\w*|crashloopbackoff|oom\w*|imagepull\w*|errimagepull|failedmount|pending",
            3,
        ),
        (r"restart\w*|рестарт\w*|перезапуск\w*|перезагруж\w*", 2),
        (r"не (?:стартует|запускается|поднимается|поднялся|стартовал|запустился)|падает|упал", 2.5),
        (r"(?:won'?t|doesn'?t|does not|can'?t|cannot) start|not starting|keeps? crashing", 2.5),
        (r"\bstuck\b|завис\w*|не готов\w*|not ready", 1),
        # "what broke": as generic as "what happened" beside a symptom a status code names
        (r"сломал\w*|слома\w*|\bbroke\b|\bbroken\b|what broke|не работает|isn'?t working", 1.5),
        # colloquial "it is down / what is wrong with it": start from the workload itself
        (
            r"\bлежит\b|\bлег\b|\bлёг\b|\bупал\w*|\bdown\b",
            2,
        ),
        # generic "what happened": weaker than any concrete symptom (a status code, latency)
        (r"what'?s wrong|what is wrong|что с ним|чё с|че с|что случилось|what happened", 1),
        (r"flap\w*|evict\w*|выселя\w*|эвикт\w*|перезагружа\w*", 3),
    ],
    "readiness": [
        # an HTTP symptom in the same question wins: its plan reads the endpoints too
        (r"endpoints?|эндпоинт\w*|эндпойнт\w*|readiness|готовност\w*", 2),
        (r"\bready\b|готов[аыо]?\b|были ли готовы", 0.5),
    ],
    "node_health": [
        # a word ending at most 12 letters long: unbounded, a text repeating "сетев" would
        # read the rest of its run at each repetition (quadratic)
        (
            r"retransmit\w*|ретрансмит\w*|softnet|squeez\w*|\bnic\b"
            r"|сетев\w{1,12} (?:проблем|ошибк)\w*",
            3,
        ),
    ],
    "traffic": [
        (r"\brps\b|\bqps\b|requests? per second|request rate|запрос\w{0,12} в секунду", 3),
        (r"\btraffic\b|трафик\w*|нагрузк\w*|\bload\b|сколько запросов|how many requests", 2),
    ],
    "latency": [
        (r"latenc\w*|задержк\w*|\bp9\d\b|\bp50\b|slow\w*|медленн\w*|тормоз\w*|response time", 3),
        (r"время ответа|долго отвечает|тупит|тормозит|подтормаживает|лагает", 3),
    ],
    "capacity": [
        (r"quota\w*|квот\w*|resourcequota", 3),
        (r"reserved|зарезервир\w*|резерв\w*|capacity|ёмкост\w*|емкост\w*", 2),
        (r"really used|actually used|реально (?:использ|потребл)\w*|requests? vs usage", 2),
    ],
    "network_check": [
        (r"\b(?:reachable|reachability|доступен ли|доступност\w*|tcp connect|порт\w* открыт)", 3),
        (r"\bport\b|\bпорт\b", 1),
    ],
}

_ORDER: list[Intent] = [
    "release_timeline",
    "workload_startup",
    "http_errors",
    "readiness",
    "node_health",
    "capacity",
    "latency",
    "traffic",
    "network_check",
]


# a second kind of question the message also asks, strongly enough to read for it too
ALSO_SCORE = 2.0


def classify_all(text: str, ids: Identifiers) -> list[Intent]:
    """Every kind of question the message asks, the best first; the others only when they
    score at least ALSO_SCORE ("who deployed X, and why does it return 502?": both)."""
    if ids.promql or ids.log_query:
        return ["raw_query"]  # the user gave the query itself
    scores = _scores(text, ids)
    if not scores:
        return []
    best = max(scores.values())
    first = next(i for i in _ORDER if scores.get(i) == best)
    return [first, *(i for i in _ORDER if i != first and scores.get(i, 0) >= ALSO_SCORE)]


def classify_strong(text: str, ids: Identifiers) -> list[Intent]:
    """The kinds of question the text asks at least ALSO_SCORE strongly, the best first: a
    symptom or a kind of question named, not a generic "what happened?" (a pasted alert's
    own ask gives way only to these)."""
    if ids.promql or ids.log_query:
        return ["raw_query"]
    scores = _scores(text, ids)
    strong = [i for i in _ORDER if scores.get(i, 0) >= ALSO_SCORE]
    return sorted(strong, key=lambda i: -scores[i])


def asks_generically(text: str, ids: Identifiers) -> bool:
    """The message asks what happened, or what is wrong, and names no symptom or kind of
    question strongly: the kind it was read as is a guess."""
    return bool(_scores(text, ids)) and not classify_strong(text, ids)


def _scores(text: str, ids: Identifiers) -> dict[Intent, float]:
    low = text.lower()
    scores: dict[Intent, float] = {}
    for intent, patterns in _KEYWORDS.items():
        score = sum(weight for rx, weight in patterns if re.search(rx, low))
        if score:
            scores[intent] = score
    if ids.request_ids:
        scores["http_errors"] = scores.get("http_errors", 0) + 2
    if ids.job_ids or ids.pipeline_ids:
        scores["release_timeline"] = scores.get("release_timeline", 0) + 1.5
    return scores
