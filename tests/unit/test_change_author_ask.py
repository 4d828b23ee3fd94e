"""Who changed an object and when is read as asked, and said first from every read: the
latest change with who and when, the commit's author beside the job, none found with what
was read in full, or not determined with the read that fell short."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from planner.conclude.deployed import change_sentence
from planner.question.context import build_context
from planner.question.deployer import ChangeAuthor, change_author_asked
from planner.question.objects import InventoryItem
from planner.shapes.language import Language
from policy.facts import CiCommit, CiJob, FactAttrs, K8sAudit
from policy.results import ResultFact
from tests.unit.toolkit import read_of

NOW = datetime(2026, 7, 20, 11, 40, tzinfo=UTC)
WINDOW = (NOW - timedelta(days=7), NOW)


@pytest.mark.parametrize(
    ("question", "latest"),
    [
        ("кто и когда последний раз деплоил orders-api в prod?", True),
        ("кто задеплоил orders-api вчера?", False),
        ("who rolled out orders-api yesterday?", False),
        ("when was orders-api last deployed in prod?", True),
        ("who redeployed the gateway this morning?", False),
        ("кто последним выкатывал checkout-web в eu-north?", True),
        ("кто менял секрет db-credentials в prod?", False),
        ("последний деплой orders-api?", True),
        ("какой пайплайн выкатил orders-api?", False),
        ("who scaled down payments?", False),
    ],
)
def test_who_or_when_with_a_word_of_change_is_asked(question: str, latest: bool) -> None:
    asked = change_author_asked(question)
    assert asked is not None
    assert asked.latest is latest


@pytest.mark.parametrize(
    "question",
    [
        "what changed in prod today?",  # the changes, not who made one
        "when did orders-api restart?",  # a restart is no change anyone made
        "кто меня спрашивал про orders-api?",  # "меня" is "me", not "менять"
        "who owns orders-api?",  # no change
    ],
)
def test_no_change_author_is_read_where_none_is_asked(question: str) -> None:
    assert change_author_asked(question) is None


def test_a_name_that_looks_like_a_word_of_change_is_no_change() -> None:
    assert change_author_asked("who owns deployer?", frozenset({"deployer"})) is None
    assert change_author_asked("who owns release-api?") is None


def _scope(question: str, inventory: list[InventoryItem] | None = None) -> Any:
    items = inventory or [
        InventoryItem(env="prod", kind="deployment", namespace="shop", name="orders-api")
    ]
    return build_context(question, envs=["prod"], inventory=items, now=NOW, tz=UTC)


def test_the_ask_plans_only_the_changes_and_a_last_change_looks_back_a_month() -> None:
    context = _scope("кто и когда последний раз деплоил orders-api в prod?")
    assert isinstance(context.ask, ChangeAuthor)
    assert context.intent == "release_timeline"
    assert context.scope.time.window == timedelta(days=30)
    # a time the question gives is kept
    assert _scope("who deployed orders-api in prod yesterday?").scope.time.window < timedelta(
        days=2
    )


def test_a_cause_or_a_symptom_asked_too_is_a_cause_question() -> None:
    assert _scope("orders-api returns 502 since the deploy, who shipped it and why?").ask is None
    assert _scope("кто выкатил orders-api и почему он падает?").ask is None


def test_a_secret_the_lists_do_not_hold_is_the_object_for_the_audit_log() -> None:
    context = _scope("кто менял секрет db-credentials в prod?")
    assert context.scope.object == "db-credentials"
    assert context.absent == []


def _read(*attrs: FactAttrs, complete: bool = True, at: datetime | None = None) -> Any:
    facts = [ResultFact(text="x", attrs=a, source="s", observed_at=at) for a in attrs]
    return read_of("prod", facts, complete=complete)


def test_the_latest_change_leads_with_who_when_and_the_commit_author() -> None:
    old = CiJob(
        job_name="deploy:prod",
        job_id=1,
        user="a.petrov",
        status="success",
        started_at="2026-07-15T12:00:00Z",
        project="shop/orders-api",
    )
    new = old.model_copy(
        update={"job_id": 2, "user": "k.smirnova", "started_at": "2026-07-19T09:00:00Z"}
    )
    new = new.model_copy(update={"commit_sha": "9b1e4f27", "status": "failed"})
    commit = CiCommit(sha="9b1e4f27aa", author="d.ivanov")
    other = old.model_copy(update={"project": "shop/cart-api", "job_id": 3})
    records = [_read(old, new, commit, other)]
    said = change_sentence(
        ChangeAuthor(latest=True), "orders-api", ["prod"], {"o"}, records, WINDOW, Language.EN
    )
    assert said is not None
    assert said.startswith(
        "The last change to orders-api in prod: deploy job deploy:prod #2 started by "
        "k.smirnova at 2026-07-19T09:00:00Z, status failed, commit 9b1e4f27 by d.ivanov; "
        "before it: deploy job deploy:prod #1 started by a.petrov"
    )
    assert "#3" not in said  # another service's release is no answer


def test_a_person_changing_the_object_in_the_cluster_is_said_with_when() -> None:
    at = datetime(2026, 7, 19, 16, 20, tzinfo=UTC)
    audit = K8sAudit(
        actor="oidc:m.keller", verb="update", resource="secrets", name="db", namespace="shop"
    )
    said = change_sentence(
        ChangeAuthor(), "db", ["prod"], {"o"}, [_read(audit, at=at)], WINDOW, Language.RU
    )
    assert said is not None
    assert "oidc:m.keller выполнил update над secrets shop/db в кластере в 2026-07-19T16:20" in said


def test_none_found_names_the_window_and_the_reads_and_a_short_read_is_no_none() -> None:
    said = change_sentence(
        ChangeAuthor(), "orders-api", ["prod"], {"o"}, [_read()], WINDOW, Language.EN
    )
    assert said == (
        "No deploy or change of orders-api was found in prod between 2026-07-13T11:40:00Z "
        "and 2026-07-20T11:40:00Z (read in full: s)"
    )
    short = change_sentence(
        ChangeAuthor(),
        "orders-api",
        ["prod"],
        {"o"},
        [_read(complete=False)],
        WINDOW,
        Language.EN,
    )
    assert short is not None
    assert short.startswith("Who changed orders-api in prod and when could not be determined")
