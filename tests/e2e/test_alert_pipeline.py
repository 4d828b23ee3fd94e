"""Alerts in, investigations out, with the real pipeline: VictoriaMetrics holding a world's
series, vmalert evaluating the kubernetes-mixin's rule, Debian's prometheus-alertmanager
routing to `infrabot serve`'s webhook, and the Mattermost simulator where the threads are
read back."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from pydantic import SecretStr

from bot.serve import serve
from bot.settings import (
    AlertAuthSettings,
    AlertLimitSettings,
    AlertPostChannelSettings,
    AlertRouteSettings,
    AlertsSettings,
    MattermostSettings,
    MemorySettings,
    Secrets,
    WebSettings,
)
from evals.session import WorldSession
from evals.simulators.server import BackgroundServer
from tests.e2e.alert_stack import ALERTMANAGER, VMALERT, AlertStack, alert_stack
from tests.e2e.alert_world import CRASH_LOOPING_RULES, CRASHING, LOG_CAUSE, alert_world
from tests.e2e.mattermost_sim import MattermostSim
from tests.e2e.test_mattermost import eventually
from tests.e2e.test_serve import _sample

pytestmark = pytest.mark.skipif(
    ALERTMANAGER is None or VMALERT is None,
    reason="needs Debian's prometheus-alertmanager and vmalert (bash dev/setup.sh --dev)",
)

TOKEN = "alert-webhook-token-5f1c"
ZONE = "Europe/Moscow"


@contextlib.contextmanager
def _world(storm_pods: int = 0) -> Iterator[WorldSession]:
    now = datetime.now(UTC).replace(microsecond=0)
    world = alert_world(now, storm_pods=storm_pods)
    with WorldSession(world, timezone=ZONE, now=now, real_time=True) as s:
        yield s


def _alerts(limits: AlertLimitSettings | None = None) -> AlertsSettings:
    return AlertsSettings(
        auth=AlertAuthSettings(token_env="INFRABOT_ALERT_TOKEN"),
        routes=[AlertRouteSettings(matchers=['severity=~"warning|critical"'], channel="alerts")],
        env_label="world_env",  # the label the world's VictoriaMetrics gives every series
        limits=limits or AlertLimitSettings(),
    )


async def _serve(
    session: WorldSession,
    sim_url: str,
    tmp: Path,
    alerts: AlertsSettings,
    out: Any,
    post_channels: list[AlertPostChannelSettings] | None = None,
) -> tuple[asyncio.Task[None], str]:
    assert session.config is not None
    mattermost = MattermostSettings(
        url=sim_url, team="ops", channels=["alerts"], alert_post_channels=post_channels or []
    )
    config = session.config.model_copy(
        update={
            "mattermost": mattermost,
            "web": WebSettings(host="127.0.0.1", port=0),
            "memory": MemorySettings(knowledge_path=tmp / "kb.jsonl"),
            "alerts": alerts,
        }
    )
    zone = ZoneInfo(ZONE)
    task = asyncio.create_task(
        serve(
            config,
            Secrets(mm_token=SecretStr("token-infrabot")),
            clock=lambda: datetime.now(zone),  # vmalert's alerts start at the real time
            environ={"INFRABOT_ALERT_TOKEN": TOKEN},
        )
    )
    found = await eventually(lambda: re.search(r"web chat on (\S+)", out.readouterr().out))
    return task, found.group(1)


def _pipeline(
    session: WorldSession, tmp: Path, serve_url: str, group_by: list[str]
) -> contextlib.AbstractContextManager[AlertStack]:
    """vmalert over the world's VictoriaMetrics, Alertmanager grouping by `group_by` and
    posting to the served webhook with the token."""
    vm_url = session.simulators.victoria_metrics_url
    assert vm_url is not None
    return alert_stack(
        tmp,
        vm_url=vm_url,
        rules=CRASH_LOOPING_RULES,
        webhook_url=serve_url + "alerts/alertmanager",
        token=TOKEN,
        group_by=group_by,
    )


def _sim() -> tuple[MattermostSim, str]:
    sim = MattermostSim(team_name="ops")
    sim.add_user("infrabot", is_bot=True)
    sim.add_user("alice")
    return sim, sim.add_channel("alerts", ["infrabot", "alice"])


def _roots(sim: MattermostSim, channel: str, kind: str = "alert") -> list[dict[str, Any]]:
    bot = sim.user_id("infrabot")
    return [
        p
        for p in sim.posts.values()
        if p["channel_id"] == channel
        and not p.get("root_id")
        and p["user_id"] == bot
        and p["props"].get("infrabot") == kind
        and not p.get("delete_at")
    ]


def _replies(sim: MattermostSim, root: str, kind: str) -> list[dict[str, Any]]:
    return [p for p in sim.thread(root) if p.get("root_id") and p["props"].get("infrabot") == kind]


async def _metrics(url: str) -> str:
    async with httpx.AsyncClient() as http:
        return (await http.get(url + "metrics")).text


async def _stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def test_a_firing_alert_opens_one_investigated_thread_and_its_resolve_closes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim, channel = _sim()
    with _world() as session, BackgroundServer(sim.app) as mm:
        task, url = await _serve(session, mm.base_url, tmp_path, _alerts(), capsys)
        vm_url = session.simulators.victoria_metrics_url
        assert vm_url is not None
        stack: AlertStack | None = None
        try:
            with _pipeline(session, tmp_path, url, ["alertname", "namespace"]) as stack:
                [root] = await eventually(lambda: _roots(sim, channel), timeout=60)
                assert "KubePodCrashLooping" in root["message"] and "prod-1" in root["message"]
                # the subject is the crash-looping pod, not kube-state-metrics that reported it
                assert CRASHING in root["message"] and "kube-state-metrics" not in root["message"]
                [answer] = await eventually(lambda: _replies(sim, root["id"], "answer"), 90)
                assert "CrashLoopBackOff" in answer["message"]
                assert LOG_CAUSE in answer["message"]
                # Alertmanager repeats the notification (repeat_interval 3s): nothing is added
                text = await _eventually_metric(url, "infrabot_alert_duplicates_total", 2)
                assert _sample(text, 'infrabot_alert_groups_total{outcome="thread"}') == 1
                assert len(_roots(sim, channel)) == 1
                assert len(_replies(sim, root["id"], "answer")) == 1
                # the series goes away: vmalert resolves, Alertmanager says so, the thread closes
                httpx.post(
                    f"{vm_url}/api/v1/admin/tsdb/delete_series",
                    data={"match[]": "kube_pod_container_status_waiting_reason"},
                ).raise_for_status()
                [closing] = await eventually(
                    lambda: _replies(sim, root["id"], "alert_resolved"), timeout=60
                )
                assert closing["message"].startswith("Resolved at")
                assert "RESOLVED" in sim.posts[root["id"]]["message"]
                await asyncio.sleep(4)  # a repeat of the resolve closes nothing twice
                assert len(_replies(sim, root["id"], "alert_resolved")) == 1
                assert len(_roots(sim, channel)) == 1
                # an engineer follows up in the thread: the alert's scope is already set
                sim.user_post("alice", channel, "@infrabot what do its logs say?", root["id"])
                answers = await eventually(
                    lambda: _replies(sim, root["id"], "answer")[1:], timeout=60
                )
                assert LOG_CAUSE in answers[0]["message"] and "shop" in answers[0]["message"]
        except AssertionError:
            if stack is not None:
                print(stack.tail())
            raise
        finally:
            await _stop(task)


async def _eventually_metric(url: str, name: str, at_least: float, timeout: float = 30) -> str:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        text = await _metrics(url)
        if _sample(text, name) >= at_least:
            return text
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{name} < {at_least}:\n{text}")
        await asyncio.sleep(0.2)


async def test_a_storm_of_fifty_groups_stays_within_the_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """50 pods crash-loop at once, each its own group: 5 threads (the storm limit), one
    summary post listing the other 45, never more than 2 investigations at a time."""
    sim, channel = _sim()
    limits = AlertLimitSettings(concurrent=2, storm_groups=5, storm_window_s=300)
    with _world(storm_pods=49) as session, BackgroundServer(sim.app) as mm:
        task, url = await _serve(session, mm.base_url, tmp_path, _alerts(limits), capsys)
        try:
            with _pipeline(session, tmp_path, url, ["alertname", "namespace", "pod"]) as stack:
                await _eventually_metric(
                    url, 'infrabot_alert_groups_total{outcome="storm"}', 45, timeout=90
                )
                text = await _eventually_metric(
                    url, 'infrabot_alert_groups_total{outcome="thread"}', 5
                )
                assert _sample(text, 'infrabot_alert_groups_total{outcome="thread"}') == 5
                assert _sample(text, 'infrabot_alert_groups_total{outcome="storm"}') == 45
                roots = _roots(sim, channel)
                assert len(roots) == 5
                [storm] = _roots(sim, channel, "alert_storm")
                assert "50 alert groups" in storm["message"]
                assert storm["message"].count("`KubePodCrashLooping`") == 40  # and 5 more
                assert "and 5 more" in storm["message"]
                # every thread gets its investigation, two at a time at most
                for root in roots:
                    await eventually(lambda r=root: _replies(sim, r["id"], "answer"), 120)
                text = await _metrics(url)
                assert _sample(text, "infrabot_alert_investigations_peak") == 2
                assert _sample(text, "infrabot_alert_investigations_total") == 5
                assert _sample(text, "infrabot_alert_storm_channels") == 1
                # Alertmanager's repeats of the 50 groups add nothing
                await _eventually_metric(url, "infrabot_alert_duplicates_total", 50)
                assert len(_roots(sim, channel)) == 5
                assert len(_roots(sim, channel, "alert_storm")) == 1
                assert stack.alerts()
        finally:
            await _stop(task)


def _notification(status: str = "firing", **labels: str) -> dict[str, Any]:
    alert_labels = {
        "alertname": "KubePodCrashLooping",
        "severity": "warning",
        "namespace": "shop",
        "pod": CRASHING,
        "world_env": "prod-1",
        **labels,
    }
    return {
        "version": "4",
        "groupKey": '{}:{alertname="KubePodCrashLooping", namespace="shop"}',
        "status": status,
        "receiver": "infrabot",
        "groupLabels": {"alertname": "KubePodCrashLooping", "namespace": "shop"},
        "commonLabels": alert_labels,
        "commonAnnotations": {"summary": "Pod is crash looping."},
        "externalURL": "http://alertmanager.example:9093",
        "alerts": [
            {
                "status": status,
                "labels": alert_labels,
                "annotations": {"summary": "Pod is crash looping."},
                "startsAt": datetime.now(UTC).isoformat(),
                "endsAt": "0001-01-01T00:00:00Z",
                "generatorURL": "http://vmalert.example:8880/alert",
                "fingerprint": "7c1d2e3f4a5b6c7d",
            }
        ],
    }


async def test_the_receiver_refuses_what_is_not_an_authenticated_notification(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim, channel = _sim()
    alerts = _alerts().model_copy(update={"max_body_bytes": 4096})
    with _world() as session, BackgroundServer(sim.app) as mm:
        task, url = await _serve(session, mm.base_url, tmp_path, alerts, capsys)
        hook = url + "alerts/alertmanager"
        good = {"Authorization": f"Bearer {TOKEN}"}
        try:
            async with httpx.AsyncClient() as http:
                wrong = await http.post(
                    hook, json=_notification(), headers={"Authorization": "Bearer x"}
                )
                none = await http.post(hook, json=_notification())
                big = _notification(filler="x" * 5000)
                large = await http.post(hook, json=big, headers=good)
                bad = await http.post(hook, json={"alerts": []}, headers=good)
                junk = await http.post(hook, content=b"{not json", headers=good)
            assert wrong.status_code == none.status_code == 401
            assert large.status_code == 413
            assert bad.status_code == 400 and "status" in bad.json()["error"]
            assert junk.status_code == 400 and "not JSON" in junk.json()["error"]
            text = await _metrics(url)
            assert _sample(text, 'infrabot_alert_rejected_total{reason="unauthorized"}') == 2
            assert _sample(text, 'infrabot_alert_rejected_total{reason="too_large"}') == 1
            assert _sample(text, 'infrabot_alert_rejected_total{reason="malformed"}') == 2
            assert not _roots(sim, channel)
            # Grafana's contact point, with basic auth refused when a bearer token is set
            async with httpx.AsyncClient() as http:
                grafana = await http.post(
                    url + "alerts/grafana", json=_notification(), auth=("grafana", TOKEN)
                )
            assert grafana.status_code == 401
        finally:
            await _stop(task)
