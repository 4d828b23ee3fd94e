"""Scope extraction (failure class "wrong scope"): explicit beats memory, follow-ups,
only configured environments, tolerant names, Russian and English."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.question.context import InventoryItem, ScopeField, build_context
from planner.question.envs import envs_named

TZ = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 7, 20, 14, 40, tzinfo=TZ)
ENVS = ["dc-a", "dc-b", "stage"]
INV = [
    InventoryItem(env="dc-a", namespace="payments", name="service-a", kind="deployment"),
    InventoryItem(env="dc-b", namespace="payments", name="service-a", kind="deployment"),
    InventoryItem(env="dc-a", namespace="catalog", name="catalog-api", kind="deployment"),
    InventoryItem(env="dc-b", namespace="catalog", name="catalog-api", kind="deployment"),
    InventoryItem(env="dc-b", namespace="orders", name="service-c", kind="deployment"),
    InventoryItem(env="dc-a", namespace=None, name="payments", kind="namespace"),
]


def ctx(text: str, previous=None):
    return build_context(text, envs=ENVS, inventory=INV, now=NOW, tz=TZ, previous=previous)


def test_russian_question_with_env_object_time_and_code() -> None:
    c = ctx("почему service-a в dc-a отдавал 502 в 14:11?")
    assert c.scope.env == "dc-a"
    assert c.scope.object == "service-a" and c.scope.namespace == "payments"
    assert c.scope.time.at == datetime(2026, 7, 20, 14, 11, tzinfo=TZ)
    assert c.scope.time.mode == "historical"
    assert c.intent == "http_errors" and c.identifiers.http_codes == ["502"]


def test_tolerant_object_names() -> None:
    for text in (
        "что с сервис а в dc-a",
        "svc a in dc-a errors",
        "Service A dc-a",
        "service_a dc-a",
    ):
        assert ctx(text).scope.object == "service-a", text


def test_follow_up_same_in_other_env_switches_env_keeps_subject_and_object() -> None:
    first = ctx("какой средний RPS у catalog-api в dc-a за последний час?")
    second = ctx("проверь то же самое в dc-b", previous=first)
    assert second.scope.env == "dc-b" and second.envs == ["dc-b"]
    assert second.scope.object == "catalog-api"
    assert second.intent == "traffic"
    assert second.scope.time.window == first.scope.time.window


def test_explicit_env_beats_memory_and_memory_fills_when_silent() -> None:
    first = ctx("ошибки service-a в dc-b за последний час")
    assert ctx("а теперь в dc-a?", previous=first).scope.env == "dc-a"
    assert ctx("а какие там ошибки?", previous=first).scope.env == "dc-b"


def test_now_drops_a_remembered_historical_moment() -> None:
    first = ctx("почему service-a в dc-a отдавал 502 в 14:11?")
    assert first.scope.time.at is not None
    now = ctx("а сейчас?", previous=first)
    assert now.scope.time.at is None and now.scope.time.mode == "now"
    assert now.scope.object == "service-a"


def test_explicit_names_the_fields_the_message_states() -> None:
    first = ctx("почему service-a в dc-a отдавал 502 в 14:11?")
    assert first.explicit == {ScopeField.ENV, ScopeField.OBJECT, ScopeField.TIME}
    follow = ctx("а какие там ошибки?", previous=first)
    assert follow.explicit == frozenset()  # all of it carried over from the thread
    assert ctx("ошибки в namespace payments").explicit == {ScopeField.NAMESPACE}
    assert ctx("ошибки во всех ДЦ").explicit == {ScopeField.ENV}


def test_the_env_of_the_scope_is_the_first_env_named() -> None:
    text = "сравни ошибки service-a в dc-b и в dc-a"
    assert envs_named(text, ENVS, {}) == ["dc-b", "dc-a"]
    c = ctx(text)
    assert c.scope.env == "dc-b" and c.envs == ["dc-b", "dc-a"]


def test_unconfigured_env_is_reported_never_invented() -> None:
    c = ctx("что с service-a в dc-c?")
    assert c.unknown_envs == ["dc-c"]
    assert c.scope.env in (None, "dc-a", "dc-b")  # never dc-c
    assert c.scope.env != "dc-c"


def test_object_in_one_env_only_selects_that_env() -> None:
    c = ctx("кто вчера выкатывал service-c?")
    assert c.scope.env == "dc-b"
    assert c.intent == "release_timeline"
    assert c.scope.time.mode == "historical"


def test_request_id_is_extracted_and_selects_http_errors() -> None:
    c = ctx("trace request_id 7f9e2c21a4b84d0c9e51b0d3f6a27c85 in dc-a")
    assert c.identifiers.request_ids == ["7f9e2c21a4b84d0c9e51b0d3f6a27c85"]
    assert c.intent == "http_errors"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_parser_never_crashes_and_never_invents_an_env(text: str) -> None:
    c = ctx(text)
    assert c.scope.env is None or c.scope.env in ENVS
    assert all(e in ENVS for e in c.envs)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "dc-a",
                "dc-b",
                "dc-x",
                "stage",
                "prod",
                "в",
                "14:11",
                "вчера",
                "service-a",
                "сейчас",
                "то же самое",
                "502",
                "last 2h",
            ]
        ),
        max_size=8,
    )
)
def test_parser_on_question_like_word_salad(words: list[str]) -> None:
    first = ctx(" ".join(words))
    c = ctx(" ".join(reversed(words)), previous=first)
    assert c.scope.env is None or c.scope.env in ENVS
    assert "dc-x" not in c.envs


def test_both_dcs_reads_every_env_where_the_object_exists() -> None:
    c = ctx("сколько 502 у service-a в обоих ДЦ за последний час?")
    assert c.unknown_envs == []
    assert sorted(c.envs) == ["dc-a", "dc-b"]


def test_two_objects_are_both_kept_and_namespace_is_not_read_from_a_name() -> None:
    inv = [
        *INV,
        InventoryItem(env="dc-b", namespace="search", name="search-api", kind="deployment"),
        InventoryItem(env="dc-b", namespace="auth", name="auth-api", kind="deployment"),
        InventoryItem(env="dc-b", namespace=None, name="auth", kind="namespace"),
    ]
    c = build_context(
        "почему search-api и auth-api в dc-b отдавали 502 с 13:05 до 13:12?",
        envs=ENVS,
        inventory=inv,
        now=NOW,
        tz=TZ,
    )
    assert [o.name for o in c.objects] == ["search-api", "auth-api"]
    assert c.scope.namespace == "search"  # not "auth" out of "auth-api"
    start, end = c.scope.time.bounds(NOW)
    assert (start.hour, start.minute, end.hour, end.minute) == (13, 5, 13, 12)


def test_a_new_question_without_an_object_refers_back_to_the_thread() -> None:
    first = ctx("почему service-c в dc-b падает?")
    second = ctx("а кто её выкатил?", previous=first)
    assert second.intent == "release_timeline"
    assert second.scope.object == "service-c" and second.scope.env == "dc-b"


def test_raw_queries_are_routed_as_given() -> None:
    c = ctx('выполни в dc-a promql max(queue_depth{queue="refunds"}) и скажи значение')
    assert c.intent == "raw_query"
    assert c.identifiers.promql == 'max(queue_depth{queue="refunds"})'
    logs = ctx("найди во всех логах dc-a OutOfMemoryError за последний час")
    assert logs.identifiers.log_query == "OutOfMemoryError" and logs.scope.env == "dc-a"


def test_unknown_workload_name_is_kept_when_the_inventory_failed() -> None:
    c = build_context(
        "канарейка checkout-web-canary в dc-a сейчас запущена?",
        envs=ENVS,
        inventory=[],
        now=NOW,
        tz=TZ,
        guess_names=True,
    )
    assert c.scope.object == "checkout-web-canary" and c.scope.env == "dc-a"
    assert ctx("канарейка checkout-web-canary в dc-a сейчас запущена?").scope.object is None


def test_an_object_no_complete_list_has_is_reported_absent() -> None:
    """Class "an object the environment lacks is replaced by another": it is reported
    absent where it was looked for."""
    assert ctx("why is payment-gateway in dc-a returning 503?").absent == ["payment-gateway"]
    assert ctx("что с billing-api в dc-b?").absent == ["billing-api"]


def test_no_absent_object_from_pasted_words_a_found_object_or_lists_that_were_cut() -> None:
    pasted = 'curl -H "content-type: json" https://shop/v2/monthly-usage gives 403 in dc-a'
    assert ctx(pasted).absent == []
    assert ctx("why does service-a in dc-a return 502?").absent == []
    guessed = build_context(
        "why is payment-gateway in dc-a slow?",
        envs=["dc-a", "dc-b"],
        inventory=INV,
        now=NOW,
        tz=TZ,
        guess_names=True,
    )
    assert guessed.absent == []


@pytest.mark.parametrize(
    ("follow_up", "hours"),
    [
        ("and an hour earlier?", -1),
        ("а часом раньше?", -1),
        ("two hours later?", 2),
        ("на 2 часа раньше", -2),
    ],
)
def test_a_follow_up_moves_the_threads_moment_by_what_it_says(follow_up: str, hours: int) -> None:
    """Class "a time relative to the previous turn": not the thread's time again."""
    first = ctx("сколько рестартов у service-a в dc-a в 14:00?")
    again = ctx(follow_up, previous=first)
    assert first.scope.time.at is not None and again.scope.time.at is not None
    assert again.scope.time.at - first.scope.time.at == timedelta(hours=hours)
    assert again.scope.time.mode == "historical" and again.scope.object == "service-a"


def test_a_follow_up_that_asks_nothing_of_its_own_keeps_the_exact_ask() -> None:
    """Class "а в <env>?" after a ranking: the same measure and count, ranked there."""
    first = ctx("какие 3 пода в dc-b больше всех жрут CPU?")
    second = ctx("а в dc-a?", previous=first)
    assert first.ask is not None and second.ask == first.ask
    assert second.envs == ["dc-a"]
    # a follow-up with a question of its own asks that instead
    assert ctx("а сколько было 502 в dc-a?", previous=first).ask != first.ask
