"""What later notifications of an alert group do to its thread, posted the way
Alertmanager posts them: a new alert of the group is said and investigated in the same
thread, the group's hourly limit holds the next one back (and says so), a resolve closes
the thread, firing again reopens it, and after a restart the thread is found again."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from prometheus_client import CollectorRegistry

from bot.alerts.desk import AlertDesk
from bot.alerts.meters import AlertMeters
from bot.alerts.payload import Notification, NotificationSource, parse_notification
from bot.mattermost import MattermostAlerts, MattermostApi, MattermostListener
from bot.settings import AlertLimitSettings, AlertPostChannelSettings
from evals.simulators.server import BackgroundServer
from policy.language import Language
from tests.e2e.alert_world import CRASHING, HEALTHY, LOG_CAUSE
from tests.e2e.mattermost_sim import MattermostSim
from tests.e2e.test_alert_pipeline import (
    TOKEN,
    _alerts,
    _metrics,
    _replies,
    _roots,
    _serve,
    _sim,
    _stop,
    _world,
)
from tests.e2e.test_mattermost import eventually
from tests.e2e.test_serve import _sample

GROUP_KEY = '{}/{severity=~"warning|critical"}:{alertname="KubePodCrashLooping", namespace="shop"}'


def _alert(pod: str, status: str, fingerprint: str) -> dict[str, Any]:
    return {
        "status": status,
        "labels": {
            "alertname": "KubePodCrashLooping",
            "severity": "warning",
            "namespace": "shop",
            "pod": pod,
            "container": "app",
            "job": "kube-state-metrics",
            "service": "kube-state-metrics",
            "world_env": "prod-1",
        },
        "annotations": {"summary": "Pod is crash looping. @channel @alice look"},
        "startsAt": "2026-12-08T00:00:00Z",
        "endsAt": "0001-01-01T00:00:00Z" if status == "firing" else "2026-12-08T00:20:00Z",
        "generatorURL": "http://vmalert.example:8880/vmalert/alert?group_id=1",
        "fingerprint": fingerprint,
    }


def _group(*alerts: dict[str, Any]) -> dict[str, Any]:
    firing = any(a["status"] == "firing" for a in alerts)
    return {
        "version": "4",
        "groupKey": GROUP_KEY,
        "status": "firing" if firing else "resolved",
        "receiver": "infrabot",
        "groupLabels": {"alertname": "KubePodCrashLooping", "namespace": "shop"},
        "commonLabels": {"alertname": "KubePodCrashLooping", "severity": "warning"},
        "commonAnnotations": {"summary": "Pod is crash looping."},
        "externalURL": "http://alertmanager.example:9093",
        "alerts": list(alerts),
    }


async def _post(url: str, body: dict[str, Any]) -> None:
    async with httpx.AsyncClient() as http:
        got = await http.post(
            url + "alerts/alertmanager", json=body, headers={"Authorization": f"Bearer {TOKEN}"}
        )
    assert got.status_code == 202, got.text


def _notes(sim: MattermostSim, root: str) -> list[str]:
    return [p["message"] for p in _replies(sim, root, "alert_note")]


async def test_later_notifications_update_the_same_thread_within_the_group_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim, channel = _sim()
    one, two, three = (
        _alert(CRASHING, "firing", "a1"),
        _alert(HEALTHY, "firing", "a2"),
        _alert("checkout-6f7d8c9b5-q9w3e", "firing", "a3"),
    )
    alerts = _alerts(AlertLimitSettings(per_group_per_hour=3))
    with _world() as session, BackgroundServer(sim.app) as mm:
        task, url = await _serve(session, mm.base_url, tmp_path, alerts, capsys)
        try:
            await _post(url, _group(one))
            [root] = await eventually(lambda: _roots(sim, channel))
            await eventually(lambda: _replies(sim, root["id"], "answer"), 60)
            # the alert's text notifies no one
            assert "@channel" not in root["message"] and "@alice" not in root["message"]
            assert "look" in root["message"]
            # the same alert again: nothing
            await _post(url, _group(one))
            # a second pod of the group: said, investigated in the same thread
            await _post(url, _group(one, two))
            await eventually(lambda: len(_replies(sim, root["id"], "answer")) == 2, 60)
            assert any(HEALTHY in note for note in _notes(sim, root["id"]))
            assert HEALTHY in sim.posts[root["id"]]["message"]
            # resolved: one closing reply; firing again: said, investigated (the third run)
            await _post(
                url, _group(_alert(CRASHING, "resolved", "a1"), _alert(HEALTHY, "resolved", "a2"))
            )
            await eventually(lambda: _replies(sim, root["id"], "alert_resolved"))
            assert "RESOLVED" in sim.posts[root["id"]]["message"]
            await _post(url, _group(one))
            await eventually(lambda: len(_replies(sim, root["id"], "answer")) == 3, 60)
            assert any(n.startswith("Firing again") for n in _notes(sim, root["id"]))
            # a fourth investigation in the hour is held back, and the thread says why
            await _post(url, _group(one, three))
            await eventually(lambda: any("Not investigated" in n for n in _notes(sim, root["id"])))
            text = await _metrics(url)
            assert (
                _sample(text, 'infrabot_alert_investigations_held_total{valve="group_limit"}') == 1
            )
            assert _sample(text, "infrabot_alert_investigations_total") == 3
            assert _sample(text, "infrabot_alert_duplicates_total") == 1
            assert len(_roots(sim, channel)) == 1  # never a second thread
        finally:
            await _stop(task)
        # after a restart (a new desk, knowing nothing), the group's thread is found again
        # among the channel's posts: a repeat adds nothing, the resolve closes that thread
        api = MattermostApi(mm.base_url, "token-infrabot")
        await api.login()
        desk = AlertDesk(
            alerts,
            MattermostAlerts(api, cast(MattermostListener, None), "ops"),
            AlertMeters(registry := CollectorRegistry()),
            clock=lambda: datetime.now(UTC),
            zone=UTC,
        )
        await desk.handle(_notification(_group(one, three)))
        await desk.handle(
            _notification(_group(_alert(CRASHING, "resolved", "a1"), _alert("x", "resolved", "a3")))
        )
        assert len(_replies(sim, root["id"], "alert_resolved")) == 2
        assert registry.get_sample_value("infrabot_alert_duplicates_total") == 1
        assert registry.get_sample_value("infrabot_alert_investigations_total") == 0
        assert len(_roots(sim, channel)) == 1


def _notification(body: dict[str, Any]) -> Notification:
    return parse_notification(json.dumps(body).encode(), NotificationSource.ALERTMANAGER)


def _slack_post(status: str) -> dict[str, Any]:
    """What Alertmanager's slack_configs posts through a Mattermost incoming webhook (the
    kube-prometheus template: the title, the labels in the text)."""
    text = (
        "*Alert:* Pod is crash looping. - `warning`\n"
        f"*Description:* Pod shop/{CRASHING} (app) is in waiting state.\n"
        "*Details:*\n"
        "  • *alertname:* `KubePodCrashLooping`\n"
        "  • *cluster:* `prod-1`\n"
        "  • *container:* `app`\n"
        "  • *job:* `kube-state-metrics`\n"
        "  • *namespace:* `shop`\n"
        f"  • *pod:* `{CRASHING}`\n"
        "  • *severity:* `warning`"
    )
    title = f"[{status.upper()}:1] KubePodCrashLooping (prod-1 shop warning)"
    return {
        "from_webhook": "true",
        "override_username": "alertmanager",
        "attachments": [{"title": title, "text": text, "fallback": title, "color": "danger"}],
    }


async def test_alerts_posted_by_an_incoming_webhook_are_investigated_where_opted_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim, channel = _sim()
    other = sim.add_channel("random", ["infrabot", "alice"])
    with _world() as session, BackgroundServer(sim.app) as mm:
        task, _ = await _serve(
            session,
            mm.base_url,
            tmp_path,
            _alerts(),
            capsys,
            post_channels=[AlertPostChannelSettings(channel="alerts", language=Language.RU)],
        )
        try:
            await eventually(lambda: sim.open_sockets() == 1)
            posted = sim.user_post("alice", channel, "", props=_slack_post("firing"))
            [answer] = await eventually(lambda: _replies(sim, posted["id"], "answer"), 60)
            assert "CrashLoopBackOff" in answer["message"] and LOG_CAUSE in answer["message"]
            assert "Область" in answer["message"]  # the channel's language
            # the notification's repeat, a resolve, and the same alert where no one opted in
            again = sim.user_post("alice", channel, "", props=_slack_post("firing"))
            done = sim.user_post("alice", channel, "", props=_slack_post("resolved"))
            elsewhere = sim.user_post("alice", other, "", props=_slack_post("firing"))
            human = sim.user_post("alice", channel, "[FIRING:1] KubePodCrashLooping, why?")
            await asyncio.sleep(3)
            for post in (again, done, elsewhere, human):
                assert not _replies(sim, post["id"], "answer")
        finally:
            await _stop(task)
