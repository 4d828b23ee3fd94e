"""A request to change something is told apart from a question about a change, in both
languages; the language of a question; link labels; local times in the presentation."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from bot.mattermost._progress import progress_text
from bot.presentation import link_label, present, span_text
from planner.question.change import ChangeAction, change_asked, human_step, version_asked
from planner.shapes.answer import Answer, AnswerFact, Hypothesis
from planner.shapes.language import Language, language_of
from planner.shapes.progress import (
    CallState,
    ProgressEvent,
    ReadKind,
    ReadSubject,
    SubjectKind,
)
from policy.gaps import GapNote, GapReason, Need
from policy.scope import Scope, TimeSpec


@pytest.mark.parametrize(
    ("message", "action"),
    [
        ("rollback service-d in dc-b to 2.3.1", ChangeAction.ROLLBACK),
        ("@infrabot please restart notify-push in stage", ChangeAction.RESTART),
        ("can you scale checkout up to 6?", ChangeAction.SCALE),
        ("what changed? Roll back the last release", ChangeAction.ROLLBACK),
        ("откати service-d в dc-b на 2.3.1", ChangeAction.ROLLBACK),
        ("перезапустите notify-push в stage", ChangeAction.RESTART),
        ("redeploy service-d in dc-b", ChangeAction.DEPLOY),
    ],
)
def test_a_request_to_change_is_recognised(message: str, action: ChangeAction) -> None:
    assert change_asked(message) is action


@pytest.mark.parametrize(
    "message",
    [
        "who restarted service-a?",
        "why does service-b keep restarting?",
        "restart count of service-b?",
        "Restart loop in dc-a?",
        "кто откатил service-c вчера?",
        "почему рестарт у notify-push?",
        "deployments of service-d today",
        "выкатка service-d сломала оплату",
    ],
)
def test_a_question_about_a_change_is_not_a_request(message: str) -> None:
    assert change_asked(message) is None


def test_the_human_step_names_the_object_where_it_runs() -> None:
    step = human_step(ChangeAction.RESTART, env="stage", namespace="push", name="notify-push")
    assert step == "kubectl --context stage -n push rollout restart deployment/notify-push"
    assert "<name>" in human_step(ChangeAction.ROLLBACK, env=None, namespace=None, name=None)
    rollback = human_step(ChangeAction.ROLLBACK, env="b", namespace="o", name="d", version="2.3.1")
    assert "rollout undo deployment/d" in rollback and "2.3.1" in rollback
    assert version_asked("откати service-d в dc-b на 2.3.1") == "2.3.1"
    assert version_asked("rollback billing-api to v5.3.2 please") == "v5.3.2"
    assert version_asked("why did 2.3.1 fail?") is None


def test_language_follows_the_letters_of_the_question() -> None:
    assert language_of("почему service-a в dc-a отдавал 502 в 14:11?") is Language.RU
    assert language_of("why did service-a return 502 at 14:11?") is Language.EN
    assert language_of("what is wrong with the checkout of платежи") is Language.EN
    assert language_of("502?") is Language.EN


def test_links_are_labelled_by_what_they_open() -> None:
    assert link_label("https://kb.example.com/app/discover#/?_g=()") == "Kibana"
    assert link_label("https://gitlab.example.com/orders/svc/-/jobs/5531195") == (
        "GitLab job #5531195"
    )
    assert link_label("https://vm.example.com/vmui/#/?g0.expr=up") == "VMUI"
    assert link_label("https://grafana.example.com/explore?left=x") == "Grafana"
    assert link_label("https://wiki.example.com/rb/1") == "wiki.example.com"


def test_times_are_shown_in_the_answers_timezone_with_the_offset_once() -> None:
    at = datetime(2026, 7, 20, 11, 11, tzinfo=UTC)
    answer = Answer(
        question="why did x return 502 at 14:11?",
        scope=Scope(env="dc-a", object="x", time=TimeSpec(at=at, mode="historical")),
        summary="502 from 2026-07-20T11:10:00Z to 2026-07-20T11:12:00.000Z",
        facts=[
            AnswerFact(text="seen at 2026-07-20T11:10:26.512Z", source="s", observed_at=at),
            AnswerFact(text="a reading within its range", source="m", signal=False),
        ],
        hypotheses=[Hypothesis(text="cause", supported_by=[0])],
        timezone="Europe/Moscow",
    )
    p = present(answer)
    assert p.conclusion == "502 from 14:10:00 to 14:12:00"
    assert p.evidence[0].text == "seen at 14:10:26" and p.evidence[0].when == "14:11:00"
    assert "UTC+03:00" in p.scope and p.scope.count("+03:00") == 1
    assert [f.number for f in p.evidence] == [1] and p.held_back == 1 and p.more == 1
    full = present(answer, evidence=None)
    assert [f.number for f in full.evidence] == [1, 2]
    assert span_text(timedelta(minutes=90), Language.RU) == "1 ч 30 мин"


def test_a_range_that_starts_on_another_day_dates_both_ends() -> None:
    at = datetime(2026, 7, 20, 11, 40, tzinfo=UTC)
    answer = Answer(
        question="what changed in x on July 13?",
        scope=Scope(env="dc-a", object="x", time=TimeSpec(at=at, mode="historical")),
        summary="changes between 2026-07-13T11:40:00Z and 2026-07-20T11:40:00Z; "
        "at 2026-07-20T11:00:00Z",
        timezone="Europe/Moscow",
    )
    # one sentence: both ends dated; the other one, all on the answer's day, stays short
    assert present(answer).conclusion == (
        "changes between 2026-07-13 14:40:00 and 2026-07-20 14:40:00; at 2026-07-20 14:00:00"
    )
    same_day = answer.model_copy(
        update={"summary": "from 2026-07-20T11:00:00Z to 2026-07-20T11:40:00Z"}
    )
    assert present(same_day).conclusion == "from 14:00:00 to 14:40:00"


_CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


@pytest.mark.parametrize("reason", list(GapReason))
def test_every_gap_reads_in_both_languages(reason: GapReason) -> None:
    """A gap the code words itself is Russian for a Russian question; one that is only
    what a source or the question said ({detail}) is passed on as it came."""
    note = GapNote(reason, "prod", "k8s.events", "HTTP 503 from the API server")
    english, russian = note.sentence(Language.EN), note.sentence(Language.RU)
    assert english.startswith("prod: ") and russian.startswith("prod: ")
    assert not _CYRILLIC.search(english)
    if english == "prod: HTTP 503 from the API server" or reason is GapReason.SOURCE_FAILED:
        assert russian == english  # the source's own words
    else:
        assert _CYRILLIC.search(russian), russian


@pytest.mark.parametrize("need", list(Need))
def test_a_missing_input_says_which_in_the_questions_language(need: Need) -> None:
    note = GapNote(GapReason.MISSING_INPUT, "prod", subject=need)
    assert _CYRILLIC.search(note.sentence(Language.RU))
    assert not _CYRILLIC.search(note.sentence(Language.EN)) and note.sentence() != "prod: "


def test_a_kibana_link_carries_the_window_in_the_answers_zone() -> None:
    link = (
        "https://kibana.example.com/app/discover#/?_g=(time:(from:'2026-07-08T09:12:30.000Z',"
        "to:'2026-07-08T09:27:30.000Z'))&_a=(index:'app-*')"
    )
    vmui = "https://vm.example.com/vmui/#/?g0.end_input=2026-07-08T09:27:30"
    answer = Answer(
        question="q",
        scope=Scope(),
        summary="s",
        timezone="Asia/Yekaterinburg",
        facts=[
            AnswerFact(text="a", source="es", link=link),
            AnswerFact(text="b", source="vm", link=vmui),
        ],
    )
    shown = [f.link for f in present(answer).evidence]
    # the same moments at +05:00; "+" encoded, since Kibana reads "+" in its hash as a space
    assert shown[0] == link.replace("09:12:30.000Z", "14:12:30.000%2B05:00").replace(
        "09:27:30.000Z", "14:27:30.000%2B05:00"
    )
    assert shown[1] == vmui  # VMUI reads g0.end_input as UTC itself


def test_the_progress_note_counts_reads_and_says_what_is_read_now_of_which_object() -> None:
    def event(tool: str, source: str, read: ReadKind, state: CallState) -> ProgressEvent:
        subject = ReadSubject(kind=SubjectKind.WORKLOAD, name="svc-x")
        return ProgressEvent(
            tool=tool, source=source, env="prod", state=state, read=read, subject=subject
        )

    reads = [
        event("k8s.pods", "kubernetes", ReadKind.STATE, CallState.DONE),
        event("k8s.events", "kubernetes", ReadKind.EVENTS, CallState.READING),
        event("k8s.pod_logs", "kubernetes", ReadKind.LOGS, CallState.READING),
        event("logs.app_logs", "elasticsearch", ReadKind.LOGS, CallState.READING),
        event("metrics.http_errors", "victoriametrics", ReadKind.ERRORS, CallState.FAILED),
    ]
    english = progress_text(reads, Language.EN)
    assert "2 of 5 reads done, 1 failed" in english
    assert "done, 1 failed. Reading now: events and logs of svc-x in prod._" in english
    russian = progress_text(reads, Language.RU)
    assert "готово чтений: 2 из 5, с ошибкой: 1" in russian
    assert "Сейчас читаю: события и логи svc-x в prod._" in russian
    assert "Reading" not in progress_text([], Language.RU)
