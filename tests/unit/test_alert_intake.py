"""What the alert receiver takes in and says: Alertmanager's matchers, the notifications
of Alertmanager and Grafana (and hostile ones), the senders' credentials, the thread's
posts and the configuration's errors."""

from __future__ import annotations

import asyncio
import base64
import json
import re
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from prometheus_client import CollectorRegistry

from bot.alerts.desk import MAX_PENDING, AlertDesk
from bot.alerts.matchers import parse_matcher
from bot.alerts.meters import AlertMeters
from bot.alerts.payload import (
    MAX_ALERTS,
    AlertState,
    MalformedNotification,
    NotificationSource,
    parse_notification,
)
from bot.alerts.receiver import AlertCredentials
from bot.alerts.texts import (
    QUESTION_BUDGET,
    alert_question,
    closing_text,
    root_text,
    storm_text,
)
from bot.config_errors import ConfigFileError
from bot.settings import parse_config
from planner import MAX_QUESTION_CHARS, pasted_alert
from policy.language import Language

KSM_ALERT: dict[str, Any] = {
    "status": "firing",
    "labels": {
        "alertname": "KubePodCrashLooping",
        "severity": "critical",
        "k8s_cluster": "prod-eu-1",
        "namespace": "monitoring",
        "exported_namespace": "billing",
        "pod": "kube-state-metrics-6c8f9d7b4-x7k2p",
        "exported_pod": "invoicer-7d9c5b8f6-q2w3e",
        "container": "kube-state-metrics",
        "exported_container": "app",
        "job": "kube-state-metrics",
        "instance": "10.42.7.31:8080",
    },
    "annotations": {
        "summary": "Pod is crash looping.",
        "runbook_url": "https://runbooks.example/kubepodcrashlooping",
    },
    "startsAt": "2026-12-07T10:02:00.123456789Z",
    "endsAt": "0001-01-01T00:00:00Z",
    "generatorURL": "http://vmalert:8880/vmalert/alert?group_id=1&alert_id=2",
    "fingerprint": "9c1d0e3f4a5b6c7d",
}


def _body(*alerts: dict[str, Any], status: str = "firing", **extra: Any) -> bytes:
    return json.dumps(
        {
            "version": "4",
            "groupKey": '{}:{alertname="KubePodCrashLooping"}',
            "status": status,
            "receiver": "infrabot",
            "groupLabels": {"alertname": "KubePodCrashLooping"},
            "commonLabels": {"alertname": "KubePodCrashLooping", "severity": "critical"},
            "commonAnnotations": {},
            "externalURL": "http://alertmanager:9093",
            "alerts": list(alerts),
            **extra,
        }
    ).encode()


@pytest.mark.parametrize(
    ("text", "labels", "matches"),
    [
        ('severity="critical"', {"severity": "critical"}, True),
        ("severity=critical", {"severity": "warning"}, False),
        ('severity=~"warning|critical"', {"severity": "warning"}, True),
        ('severity=~"warn"', {"severity": "warning"}, False),  # anchored, as Alertmanager
        ('namespace!~"kube-.*"', {"namespace": "kube-system"}, False),
        ('namespace!="kube-system"', {}, True),  # an absent label is the empty value
        ('team=""', {}, True),
    ],
)
def test_matchers_read_as_alertmanager_reads_them(
    text: str, labels: dict[str, str], matches: bool
) -> None:
    assert parse_matcher(text).matches(labels) is matches


@pytest.mark.parametrize("text", ["severity", "=x", 'a=~"("', "9x=1"])
def test_a_broken_matcher_says_how_to_write_one(text: str) -> None:
    with pytest.raises(ValueError, match=r"matcher|regex"):
        parse_matcher(text)


def test_an_alertmanager_notification_is_read_with_its_group_and_fingerprints() -> None:
    n = parse_notification(_body(KSM_ALERT), NotificationSource.ALERTMANAGER)
    assert n.status is AlertState.FIRING and len(n.firing()) == 1
    alert = n.alerts[0]
    assert alert.ends_at is None and alert.key == "9c1d0e3f4a5b6c7d"
    assert alert.starts_at == datetime(2026, 12, 7, 10, 2, 0, 123456, tzinfo=UTC)
    same = parse_notification(_body(KSM_ALERT), NotificationSource.ALERTMANAGER)
    other = parse_notification(
        _body(KSM_ALERT, groupKey='{}:{alertname="KubePodNotReady"}'),
        NotificationSource.ALERTMANAGER,
    )
    assert n.group == same.group != other.group


def test_a_grafana_contact_point_notification_is_read_the_same_way() -> None:
    grafana = {
        "receiver": "infrabot",
        "status": "firing",
        "orgId": 1,
        "alerts": [
            {
                "status": "firing",
                "labels": {"alertname": "High 5xx rate", "grafana_folder": "shop"},
                "annotations": {"summary": "5xx above 5%"},
                "startsAt": "2026-12-07T10:00:00Z",
                "endsAt": "0001-01-01T00:00:00Z",
                "generatorURL": "https://grafana.example/alerting/grafana/abc/view",
                "fingerprint": "57c6d9296de2ad39",
                "silenceURL": "https://grafana.example/alerting/silence/new",
                "dashboardURL": "https://grafana.example/d/shop",
                "panelURL": "https://grafana.example/d/shop?viewPanel=3",
                "valueString": "[ var='B' labels={} value=7.3 ]",
            }
        ],
        "groupLabels": {"alertname": "High 5xx rate"},
        "commonLabels": {"alertname": "High 5xx rate"},
        "commonAnnotations": {},
        "externalURL": "https://grafana.example/",
        "version": "1",
        "groupKey": '{}:{alertname="High 5xx rate"}',
        "truncatedAlerts": 0,
        "title": "[FIRING:1] High 5xx rate",
        "state": "alerting",
        "message": "...",
    }
    n = parse_notification(json.dumps(grafana).encode(), NotificationSource.GRAFANA)
    assert n.source is NotificationSource.GRAFANA and n.alerts[0].dashboard_url.endswith("/d/shop")
    text = root_text(n, "", UTC, Language.EN)
    assert "[dashboard](https://grafana.example/d/shop)" in text


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b"[1, 2]", "not a JSON object"),
        (b'{"alerts": []}', "status"),
        (b'{"status": "burning", "alerts": []}', "status"),
        (b'{"status": "firing", "alerts": [{"status": "firing", "labels": 7}]}', "alerts.0.labels"),
        (b"{" * 100_000, "not JSON"),
    ],
)
def test_a_body_that_is_not_a_notification_names_the_field(body: bytes, field: str) -> None:
    with pytest.raises(MalformedNotification, match=field.replace(".", r"\.")):
        parse_notification(body, NotificationSource.ALERTMANAGER)


def test_a_hostile_notification_is_bounded() -> None:
    huge = {**KSM_ALERT, "labels": {**KSM_ALERT["labels"], "x": "y" * 100_000}}
    n = parse_notification(_body(*[huge] * (MAX_ALERTS + 500)), NotificationSource.ALERTMANAGER)
    assert len(n.alerts) == MAX_ALERTS
    assert max(len(v) for v in n.alerts[0].labels.values()) <= 1_000


def test_credentials_admit_the_configured_token_or_basic_auth_only() -> None:
    bearer = AlertCredentials(token="s3cret")
    assert bearer.admit("Bearer s3cret") and bearer.admit("bearer s3cret")
    assert not bearer.admit("Bearer s3cre") and not bearer.admit("") and not bearer.admit("s3cret")
    basic = AlertCredentials(username="am", password="pw:with:colons")
    good = base64.b64encode(b"am:pw:with:colons").decode()
    assert basic.admit(f"Basic {good}")
    assert not basic.admit(f"Basic {base64.b64encode(b'am:pw').decode()}")
    assert not basic.admit("Basic %%%not-base64") and not basic.admit("Bearer pw:with:colons")


def test_the_question_is_the_alert_with_its_environment_under_the_label_the_reader_knows() -> None:
    n = parse_notification(_body(KSM_ALERT), NotificationSource.ALERTMANAGER)
    question = alert_question(n.alerts[0], n, "k8s_cluster", {"prod-eu-1": "eu1"})
    read = pasted_alert(question)
    assert read is not None and read.subject.env == "eu1"
    # the subject is the crash-looping pod, not kube-state-metrics that reported it
    assert read.subject.pod == "invoicer-7d9c5b8f6-q2w3e" and read.subject.namespace == "billing"
    assert read.ask == "workload_startup"


def test_the_root_post_names_the_alerted_object_and_its_links_in_the_threads_language() -> None:
    n = parse_notification(_body(KSM_ALERT), NotificationSource.ALERTMANAGER)
    zone = ZoneInfo("Europe/Moscow")
    text = root_text(n, "eu1", zone, Language.EN)
    assert text.startswith("**FIRING** · `KubePodCrashLooping` · critical · eu1")
    assert "billing/invoicer-7d9c5b8f6-q2w3e" in text and "kube-state-metrics" not in text
    assert "since 2026-12-07 13:02 MSK" in text
    assert "[runbook](https://runbooks.example/kubepodcrashlooping)" in text
    assert root_text(n, "eu1", zone, Language.RU).startswith("**ГОРИТ**")
    resolved = {**KSM_ALERT, "status": "resolved", "endsAt": "2026-12-07T10:31:00Z"}
    done = parse_notification(_body(resolved, status="resolved"), NotificationSource.ALERTMANAGER)
    assert root_text(done, "eu1", zone, Language.EN).startswith("**RESOLVED**")
    closing = closing_text(done, datetime.now(UTC), zone, Language.EN)
    assert closing.startswith("Resolved at 2026-12-07 13:31 MSK (firing for 29 min)")


def test_a_storm_summary_lists_the_groups_beyond_the_limit() -> None:
    groups = [
        parse_notification(
            _body({**KSM_ALERT, "labels": {**KSM_ALERT["labels"], "exported_pod": f"w-{i}"}}),
            NotificationSource.ALERTMANAGER,
        )
        for i in range(45)
    ]
    text = storm_text(groups, first=5, window_s=300, language=Language.EN)
    assert "50 alert groups arrived within 5 min" in text
    assert "billing/w-0" in text and "billing/w-39" in text and "billing/w-40" not in text
    assert text.endswith("and 5 more")


def _config(alerts: dict[str, Any], *, mattermost: bool = True) -> dict[str, Any]:
    data: dict[str, Any] = {
        "environments": {"prod": {"aliases": ["eu1"]}},
        "alerts": alerts,
    }
    if mattermost:
        data["mattermost"] = {"url": "https://mm.example.com", "team": "ops"}
    return data


@pytest.mark.parametrize(
    ("alerts", "says"),
    [
        ({"routes": [{"channel": "a"}]}, "alerts.auth: required, but not given"),
        ({"auth": {}, "routes": [{"channel": "a"}]}, "alerts.auth.token_env: set token_env"),
        (
            {"auth": {"token_env": "T", "password_env": "P"}, "routes": [{"channel": "a"}]},
            "alerts.auth.password_env: use either",
        ),
        ({"auth": {"token_env": "T"}, "routes": []}, "alerts.routes"),
        (
            {"auth": {"token_env": "T"}, "routes": [{"channel": "a", "matchers": ["sev"]}]},
            "alerts.routes[0].matchers[0]: 'sev' is not a matcher",
        ),
        (
            {"auth": {"token_env": "T"}, "routes": [{"channel": "a", "language": "de"}]},
            "alerts.routes[0].language: Input should be 'en' or 'ru'",
        ),
        (
            {"auth": {"token_env": "T"}, "routes": [{"channel": "a"}], "env_values": {"x": "nope"}},
            "alerts.env_values.x: 'nope' is no environment",
        ),
    ],
)
def test_a_broken_alerts_section_names_the_key(alerts: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigFileError, match=re.escape(says)):
        parse_config(_config(alerts))


def test_alerts_without_mattermost_say_where_they_would_be_posted() -> None:
    alerts = {"auth": {"token_env": "T"}, "routes": [{"channel": "a"}]}
    with pytest.raises(ConfigFileError, match="alerts: alerts are posted in Mattermost"):
        parse_config(_config(alerts, mattermost=False))
    assert parse_config(_config(alerts)).alerts is not None


class _StalledMattermost:
    """Failure injection: a Mattermost that never answers."""

    def __init__(self) -> None:
        self.never = asyncio.Event()

    async def channel_id(self, name: str) -> str:
        await self.never.wait()
        return name

    async def post(self, channel_id: str, text: str, *, root_id: str = "", props: Any) -> str:
        raise AssertionError("nothing is posted while Mattermost stalls")

    async def patch(self, post_id: str, text: str, props: Any) -> None:
        raise AssertionError

    async def find_thread(self, channel_id: str, group: str) -> None:
        return None

    async def investigate(self, *args: Any) -> None:
        raise AssertionError


async def test_a_stalled_mattermost_bounds_the_notifications_in_hand() -> None:
    """Alertmanager keeps sending while Mattermost stalls: at most MAX_PENDING are held,
    the next is refused (503, and Alertmanager retries), none is lost silently."""
    settings = parse_config(
        _config({"auth": {"token_env": "T"}, "routes": [{"channel": "a"}]})
    ).alerts
    assert settings is not None
    registry = CollectorRegistry()
    desk = AlertDesk(
        settings,
        _StalledMattermost(),
        AlertMeters(registry),
        clock=lambda: datetime.now(UTC),
        zone=UTC,
    )
    n = parse_notification(_body(KSM_ALERT), NotificationSource.ALERTMANAGER)
    taken = [desk.accept(n) for _ in range(MAX_PENDING + 5)]
    assert taken.count(True) == MAX_PENDING and taken[-5:] == [False] * 5
    labels = {"source": "alertmanager", "status": "firing"}
    assert registry.get_sample_value("infrabot_alert_notifications_total", labels) == MAX_PENDING
    await desk.aclose()


def test_a_huge_alert_still_asks_a_question_a_turn_reads() -> None:
    """A runbook pasted into the description and dozens of long labels: the question
    stays within what a turn reads, keeping the name, the environment and the subject."""
    huge = {
        **KSM_ALERT,
        "labels": {
            **KSM_ALERT["labels"],
            **{f"team_label_{i}": "x" * 900 for i in range(60)},
        },
        "annotations": {
            "description": "step " * 3000,
            "summary": "Pod is crash looping.",
            "runbook": "y" * 4000,
        },
    }
    n = parse_notification(_body(huge), NotificationSource.ALERTMANAGER)
    question = alert_question(n.alerts[0], n, "k8s_cluster", {"prod-eu-1": "eu1"})
    assert len(question) <= QUESTION_BUDGET < MAX_QUESTION_CHARS
    read = pasted_alert(question)
    assert read is not None and read.alertname == "KubePodCrashLooping"
    assert read.subject.env == "eu1" and read.subject.pod == "invoicer-7d9c5b8f6-q2w3e"
    assert read.annotations["summary"] == "Pod is crash looping."
