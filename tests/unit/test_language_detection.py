"""Which language the asker wrote in: decided on their own lines, not on what they
pasted; a question in neither English nor Russian is answered in English, and says so."""

from __future__ import annotations

import pytest

from planner.shapes.language import (
    AskedLanguage,
    Language,
    Tongue,
    language_of,
    noted,
    read_language,
)
from policy.prose import asker_lines
from policy.tongues import PROFILES

# English words that are also short words of other languages, or tech words
_COMMON_ENGLISH = " a an in on no do to so me was die also per come son plus as us or if up "
_COMMON_ENGLISH += "go see ten ta vi ci pod set get put run log ok hi "
ALERT = (
    "[FIRING:1] KubePodCrashLooping (service-d dc-b orders)\n"
    "Pod dc-b/orders/service-d-7f9c-abcde (service-d) is restarting 3 times / 10 minutes.\n"
    "Labels:\n"
    " - alertname = KubePodCrashLooping\n"
    " - namespace = orders\n"
)


@pytest.mark.parametrize(
    "question",
    [
        f"что это значит?\n{ALERT}",
        f"{ALERT}\nпочему он падает?",
        "почему падает?\n2024-05-01T12:00:01Z ERROR orders: connection refused by the database",
        'почему так?\n{"level":"error","msg":"connection refused by the database server"}',
        "почему так?\n```\nError: connection refused by the database server at startup\n```",
        "почему?\n> Pod is restarting because the liveness probe failed again and again",
        "почему поды в CrashLoopBackOff?",
        "почему service-a в dc-a отдавал 502 в 14:11?",
        # the letters of names and ids are no one's language
        "растёт ли kafka consumer lag у service-c в dc-a?",
        "почему billing-api в dc-a отдал 502 в 14:02? req_id 9c0e5b7a2d1f4e3a8b6c0d9e7f1a2b3c",
    ],
)
def test_a_russian_askers_own_words_decide_over_what_they_pasted(question: str) -> None:
    assert read_language(question) == AskedLanguage(Language.RU)


@pytest.mark.parametrize(
    "question",
    [
        "why does orders fail?\n2024-05-01 12:00:01 ERROR orders: не удалось подключиться к базе",
        "what does this mean?\n```\nошибка: не удалось подключиться к базе данных\n```",
        "why?\n> не удалось подключиться к базе данных",
        ALERT,  # nothing but a paste: read whole
        "what is wrong with the checkout of платежи",
    ],
)
def test_an_english_askers_own_words_decide_over_what_they_pasted(question: str) -> None:
    assert read_language(question) == AskedLanguage(Language.EN)


@pytest.mark.parametrize(
    ("question", "tongue"),
    [
        ("Warum startet service-b in dc-a ständig neu?", Tongue.GERMAN),
        ("Pourquoi service-b redémarre-t-il sans cesse dans dc-a ?", Tongue.FRENCH),
        ("¿Por qué service-b se reinicia constantemente en dc-a?", Tongue.SPANISH),
        ("Por que o service-b reinicia constantemente no dc-a?", Tongue.PORTUGUESE),
        ("Perché service-b continua a riavviarsi in dc-a?", Tongue.ITALIAN),
        ("Waarom herstart service-b steeds opnieuw in dc-a?", Tongue.DUTCH),
        ("Dlaczego service-b ciągle się restartuje w dc-a?", Tongue.POLISH),
        ("service-b neden dc-a'da sürekli yeniden başlıyor?", Tongue.TURKISH),
        ("Чому service-b постійно перезапускається в dc-a?", Tongue.UKRAINIAN),
        ("Защо service-b в dc-a непрекъснато се рестартира?", Tongue.BULGARIAN),
        ("Зашто се service-b стално рестартује у dc-a?", Tongue.SERBIAN),
        ("为什么 service-b 在 dc-a 不断重启？", Tongue.OTHER),
        # a German asker's own line decides, not the English alert under it
        (f"Warum passiert das immer wieder?\n{ALERT}", Tongue.GERMAN),
    ],
)
def test_another_language_is_answered_in_english_and_flagged(question: str, tongue: Tongue) -> None:
    assert read_language(question) == AskedLanguage(Language.EN, other=tongue)
    assert language_of(question) is Language.EN


@pytest.mark.parametrize(
    "question",
    [
        "p99 service-a dc-a",
        "latency payments prod",
        "502?",
        "why did service-a return 502 at 14:11?",
        "why did the pod die in dc-a?",  # "die" is German's too
        "Why does Dynatrace report São Paulo latency for the Zürich cluster?",
        "is the ci pipeline of service-a green in dc-b?",
        "",
    ],
)
def test_english_and_bare_identifiers_are_never_flagged(question: str) -> None:
    assert read_language(question) == AskedLanguage(Language.EN)


@pytest.mark.parametrize("question", ["а в dc-a?", "и там?", "ну и?"])
def test_a_short_russian_follow_up_stays_russian(question: str) -> None:
    """Too few letters to weigh, but no other language writes them."""
    assert read_language(question) == AskedLanguage(Language.RU)


def test_pasted_lines_are_told_apart_by_their_shape() -> None:
    text = (
        "что это значит?\n"
        "2024-05-01 12:00:01 ERROR boom\n"
        "ts=1 level=error msg=x\n"
        "severity: critical\n"
        "[FIRING:1] X\n"
        "> quoted\n"
        "```\ncode line\n```\n"
        "service-a-7f9c dc-b/orders 10.0.0.1:8080 p99\n"
        "и почему `kubectl get pods` так говорит?"
    )
    assert asker_lines(text) == ["что это значит?", "и почему   так говорит?"]


def test_no_profile_counts_a_common_english_word() -> None:
    english = next(p.words for p in PROFILES if p.tongue is Tongue.ENGLISH)
    common = english | set(_COMMON_ENGLISH.split())
    for profile in PROFILES:
        if profile.script == "latin" and profile.tongue is not Tongue.ENGLISH:
            assert not profile.words & common, (profile.tongue, profile.words & common)


def test_the_answer_says_first_which_languages_it_is_written_in() -> None:
    german = read_language("Warum startet service-b in dc-a ständig neu?")
    assert noted("The pod was OOMKilled.", german) == (
        "Answers are in English or Russian; your question looks like German, so this one is "
        "in English. The pod was OOMKilled."
    )
    other = noted("x", AskedLanguage(Language.EN, other=Tongue.OTHER))
    assert other.startswith("Answers are in English or Russian; your question looks like another")
    assert noted("x", AskedLanguage(Language.RU)) == "x"
