"""A pasted alert is read into its subject, its ask and its start (planner.question.alert),
and the scope of the question is the alerted object, never the exporter that measured it
(planner.question.context)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from planner.question.alert import (
    AlertStatus,
    alert_time,
    asker_words,
    pasted_alert,
    scope_words,
    subject_of,
)
from planner.question.context import InventoryItem, ScopeField, build_context
from planner.shapes.language import Language, language_of

TZ = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 7, 20, 14, 40, tzinfo=TZ)
ENVS = ["dc-a", "dc-b"]
INV = [
    InventoryItem(env="dc-a", namespace="shop", name="cart-api", kind="deployment"),
    InventoryItem(env="dc-b", namespace="shop", name="cart-api", kind="deployment"),
    InventoryItem(env="dc-b", namespace="shop", name="pay-worker", kind="deployment"),
    InventoryItem(env="dc-a", namespace="shop", name="cart-web", kind="ingress"),
    InventoryItem(env="dc-a", namespace=None, name="shop", kind="namespace"),
    InventoryItem(env="dc-b", namespace=None, name="shop", kind="namespace"),
    # the exporter is listed too: its names must never become the scope
    InventoryItem(env="dc-a", namespace="monitoring", name="kube-state-metrics", kind="deployment"),
    InventoryItem(env="dc-b", namespace="monitoring", name="kube-state-metrics", kind="deployment"),
    InventoryItem(env="dc-a", namespace=None, name="monitoring", kind="namespace"),
    InventoryItem(env="dc-b", namespace=None, name="monitoring", kind="namespace"),
    InventoryItem(
        env="dc-b", namespace=None, name="node-b-07", kind="node", addresses=("10.42.3.17",)
    ),
]


def ctx(text: str):
    return build_context(text, envs=ENVS, inventory=INV, now=NOW, tz=TZ)


# Alertmanager's Slack/Mattermost blocks (kube-prometheus' popular template), labels sorted
SLACK = """[FIRING:1] KubePodCrashLooping (dc-b shop warning)
*Alert:* Pod is crash looping. - `warning`
*Description:* Pod shop/pay-worker-7b6c9f5d84-r2vxk (app) is in waiting state.
*Details:*
  • *alertname:* `KubePodCrashLooping`
  • *cluster:* `dc-b`
  • *container:* `kube-state-metrics`
  • *exported_container:* `app`
  • *exported_namespace:* `shop`
  • *exported_pod:* `pay-worker-7b6c9f5d84-r2vxk`
  • *instance:* `10.42.7.31:8080`
  • *job:* `kube-state-metrics`
  • *namespace:* `monitoring`
  • *pod:* `kube-state-metrics-6c8f9d7b4-x7k2p`
  • *severity:* `warning`
почему?"""

# the default email/text template: Labels and Annotations blocks, two alerts grouped
TEXT = """[FIRING:2] KubeDeploymentReplicasMismatch (shop)
Labels:
 - alertname = KubeDeploymentReplicasMismatch
 - cluster = dc-b
 - container = kube-state-metrics
 - deployment = pay-worker
 - exported_namespace = shop
 - instance = 10.42.7.31:8080
 - job = kube-state-metrics
 - namespace = monitoring
 - pod = kube-state-metrics-6c8f9d7b4-x7k2p
 - severity = warning
Annotations:
 - description = Deployment shop/pay-worker has not had its replicas for longer than 15 minutes.
 - summary = Deployment has not matched the expected number of replicas.
Source: http://prometheus.example.com/graph?g0.expr=kube_deployment_spec_replicas&g0.tab=1
Labels:
 - alertname = KubeDeploymentReplicasMismatch
 - deployment = cart-api
 - exported_namespace = shop
"""

GRAFANA = """**Firing**

Value: A=7.3, C=1
Labels:
 - alertname = NginxHighHttp5xxErrorRate
 - env = dc-a
 - grafana_folder = Ingress
 - ingress = cart-web
 - exported_namespace = shop
Annotations:
 - summary = 5xx above 5% on cart-web
Source: https://grafana.example.com/alerting/grafana/cdzq1/view?orgId=1
Silence: https://grafana.example.com/alerting/silence/new?alertmanager=grafana&matcher=alertname%3DNginxHighHttp5xxErrorRate&matcher=ingress%3Dcart-web&orgId=1
"""

URL = (
    "what is this? https://alertmanager.example.com/#/alerts?silenced=false&filter="
    "%7Balertname%3D%22KubeContainerWaiting%22%2C%20cluster%3D%22dc-b%22%2C%20"
    "namespace%3D%22shop%22%2C%20pod%3D%22pay-worker-7b6c9f5d84-r2vxk%22%7D"
)


def test_slack_blocks_read_the_exported_pod_not_the_exporters() -> None:
    alert = pasted_alert(SLACK)
    assert alert is not None
    assert alert.status is AlertStatus.FIRING and alert.alertname == "KubePodCrashLooping"
    assert alert.severity == "warning"
    assert alert.annotations["description"].startswith("Pod shop/pay-worker")
    s = alert.subject
    assert (s.pod, s.namespace, s.container) == ("pay-worker-7b6c9f5d84-r2vxk", "shop", "app")
    assert (s.env, s.env_label) == ("dc-b", "cluster")
    assert alert.ask == "workload_startup"
    assert alert.own_words == "почему?"


def test_slack_alert_scopes_the_workload_in_its_cluster_and_asks_in_russian() -> None:
    c = ctx(SLACK)
    assert (c.scope.env, c.scope.namespace, c.scope.object) == ("dc-b", "shop", "pay-worker")
    assert c.intent == "workload_startup" and c.asks_cause
    assert language_of(asker_words(SLACK)) is Language.RU


def test_text_template_takes_the_first_alert_and_its_deployment() -> None:
    alert = pasted_alert(TEXT)
    assert alert is not None and alert.alerts == 2
    assert alert.subject.workload == "pay-worker" and alert.subject.namespace == "shop"
    assert alert.own_words == ""
    c = ctx(TEXT)
    assert (c.scope.env, c.scope.object) == ("dc-b", "pay-worker")
    assert c.intent == "workload_startup"
    # "for longer than 15 minutes" in the description is not the question's window
    assert c.scope.time.window == timedelta(hours=1)


def test_grafana_message_reads_labels_and_asks_about_http_errors() -> None:
    alert = pasted_alert(GRAFANA)
    assert alert is not None and alert.status is AlertStatus.FIRING
    assert alert.alertname == "NginxHighHttp5xxErrorRate" and alert.ask == "http_errors"
    assert alert.subject.ingress == "cart-web" and alert.subject.env == "dc-a"
    c = ctx(GRAFANA)
    assert (c.scope.env, c.scope.object, c.intent) == ("dc-a", "cart-web", "http_errors")


def test_alertmanager_link_holds_the_labels() -> None:
    alert = pasted_alert(URL)
    assert alert is not None and alert.alertname == "KubeContainerWaiting"
    assert alert.own_words == "what is this?"
    c = ctx(URL)
    assert (c.scope.env, c.scope.object, c.intent) == ("dc-b", "pay-worker", "workload_startup")


def test_grafana_silence_link_alone_is_read() -> None:
    alert = pasted_alert(
        "https://grafana.example.com/alerting/silence/new?alertmanager=grafana"
        "&matcher=alertname%3DKubeJobFailed&matcher=job_name%3Dnightly-report&orgId=1"
    )
    assert alert is not None and alert.alertname == "KubeJobFailed"
    assert alert.subject.workload == "nightly-report" and alert.ask == "workload_startup"


def test_label_set_in_braces_after_the_alert_name() -> None:
    text = 'why? KubePodNotReady{namespace="shop", pod="cart-api-5d8f7c9b4-x2k9p", cluster="dc-a"}'
    c = ctx(text)
    assert (c.scope.env, c.scope.namespace, c.scope.object) == ("dc-a", "shop", "cart-api")
    assert c.intent == "workload_startup"


def test_the_askers_own_words_choose_the_ask() -> None:
    c = ctx(SLACK.replace("почему?", "who deployed it last?"))
    assert c.intent == "release_timeline" and c.scope.object == "pay-worker"
    # a generic "what's wrong?" asks nothing else: the alert's ask stands
    assert ctx(GRAFANA + "what's wrong?").intent == "http_errors"
    assert ctx(GRAFANA + "is it slow too? what is the p99 latency").intent == "latency"
    assert language_of(asker_words(SLACK.replace("почему?", "who deployed it?"))) is Language.EN


def test_the_alerts_start_is_the_onset() -> None:
    started = "\nStarts at: 2026-07-20 11:20:05.123 +0000 UTC"
    c = ctx(TEXT + started)
    onset = datetime(2026, 7, 20, 11, 20, 5, tzinfo=UTC)
    assert c.onset == onset and ScopeField.TIME in c.explicit
    assert c.scope.time.mode == "now"  # a firing alert goes on: from its start until now
    start = c.scope.time.at - c.scope.time.window / 2
    assert start < onset and c.scope.time.at + c.scope.time.window / 2 == NOW
    resolved = pasted_alert(TEXT.replace("FIRING", "RESOLVED") + started)
    assert resolved is not None
    spec = alert_time(resolved, NOW)
    assert spec is not None and spec.mode == "historical" and spec.at == onset


def test_exporter_rule_honours_labels_kept_by_the_scrape() -> None:
    # kube-prometheus keeps the object's labels (honor_labels): pod and namespace are its
    kept = subject_of(
        {
            "job": "kube-state-metrics",
            "pod": "cart-api-5d8f7c9b4-x2k9p",
            "namespace": "shop",
            "instance": "10.42.1.176:8080",
            "service": "kube-prometheus-stack-kube-state-metrics",
        }
    )
    assert (kept.pod, kept.namespace, kept.service) == ("cart-api-5d8f7c9b4-x2k9p", "shop", None)
    # the exporter's own pod: neither it nor its namespace is the subject
    own = subject_of({"pod": "kube-state-metrics-6c8f9d7b4-x7k2p", "namespace": "monitoring"})
    assert (own.pod, own.namespace) == (None, None)
    # a node-exporter's instance is the node it runs on
    assert subject_of({"job": "node-exporter", "instance": "node-b-07:9100"}).node == "node-b-07"


def test_unknown_alert_name_asks_from_its_words_or_labels() -> None:
    words = pasted_alert("[FIRING:1] CheckoutLatencyHigh\nLabels: alertname=CheckoutLatencyHigh")
    assert words is not None and words.ask == "latency"
    reason = pasted_alert('{alertname="TeamPodBroken", reason="OOMKilled", pod="cart-api-1"}')
    assert reason is not None and reason.ask == "workload_startup"
    silent = pasted_alert("[FIRING:1] Watchdog\nLabels: alertname=Watchdog, severity=none")
    assert silent is not None and silent.ask is None


def test_a_node_exporter_alert_naming_the_node_by_address_scopes_the_node() -> None:
    """kube-prometheus-stack scrapes node-exporter by the node's IP: the alert's
    `instance: 10.42.3.17:9100` is the node listed with that InternalIP."""
    alert = (
        '{"labels": {"alertname": "NodeFilesystemSpaceFillingUp", "cluster": "dc-b", '
        '"job": "node-exporter", "instance": "10.42.3.17:9100", "mountpoint": "/", '
        '"namespace": "monitoring", "pod": "node-exporter-9rxcl"}, "status": "firing"}'
    )
    c = ctx(alert)
    assert c.nodes == ["node-b-07"] and c.intent == "node_health" and c.scope.env == "dc-b"
    assert ctx(alert.replace("10.42.3.17", "10.42.3.1")).nodes == []  # never a prefix


def test_node_alert_scopes_the_node() -> None:
    text = "[FIRING:1] KubeNodeNotReady\nLabels: alertname=KubeNodeNotReady, node=node-b-07, "
    text += "cluster=dc-b"
    c = ctx(text)
    assert c.nodes == ["node-b-07"] and c.intent == "node_health" and c.scope.env == "dc-b"


@pytest.mark.parametrize(
    "text",
    [
        "почему cart-api в dc-a отдавал 502 в 14:11?",
        'what is the p99 latency of cart-api? {le="0.5"}',
        "Labels are confusing, summary: nothing",
        "",
    ],
)
def test_questions_without_an_alert_are_read_as_before(text: str) -> None:
    assert pasted_alert(text) is None
    assert asker_words(text) == text


@pytest.mark.parametrize(
    "text",
    [
        '\x00[FIRING:\n{alertname="\n' * 500,
        "• *" * 50_000,
        "Labels:\n - " * 20_000,
        "{" + 'a="b", ' * 100_000 + "}",
        "https://x/#/alerts?filter=%7B" + "%22" * 100_000,
        "LABELS = map[" + "k:v " * 100_000,
    ],
)
def test_hostile_text_is_read_quickly_and_never_raises(text: str) -> None:
    started = time.process_time()
    pasted_alert(text)
    ctx(text[:8000])
    assert time.process_time() - started < 2.0


def test_a_title_pasted_alone_names_its_subject_by_its_values() -> None:
    c = ctx("[FIRING:1] KubePodCrashLooping (dc-b shop pay-worker warning)\nчто с ним?")
    assert (c.scope.env, c.scope.object, c.intent) == ("dc-b", "pay-worker", "workload_startup")


def test_the_envs_to_list_and_names_to_find_leave_the_exporter_out() -> None:
    words = scope_words(SLACK)
    assert "pay-worker" in words and "dc-b" in words and "почему?" in words
    assert "kube-state-metrics" not in words and "monitoring" not in words
    assert "10.42.7.31" not in words


WEBHOOK = """what broke here?
{"receiver": "team", "status": "firing", "alerts": [{"status": "firing",
  "labels": {"alertname": "KubePodCrashLooping", "cluster": "dc-b", "container": "app",
             "job": "kube-state-metrics", "namespace": "shop",
             "pod": "pay-worker-7b6c9f5d84-r2vxk", "severity": "warning"},
  "annotations": {"description": "Pod shop/pay-worker-7b6c9f5d84-r2vxk (app) is restarting."},
  "startsAt": "2026-07-20T11:18:10.123456789Z", "endsAt": "0001-01-01T00:00:00Z"}],
 "commonLabels": {"alertname": "KubePodCrashLooping"}, "version": "4"}"""


def test_alertmanager_webhook_json_is_read() -> None:
    alert = pasted_alert(WEBHOOK)
    assert alert is not None and alert.status is AlertStatus.FIRING
    assert alert.starts_at == datetime(2026, 7, 20, 11, 18, 10, tzinfo=UTC)
    assert alert.own_words == "what broke here?"
    c = ctx(WEBHOOK)
    assert (c.scope.env, c.scope.object, c.intent) == ("dc-b", "pay-worker", "workload_startup")
    api = '[{"labels": {"alertname": "KubeNodeNotReady", "node": "node-b-07"}, '
    api += '"status": {"state": "active"}, "startsAt": "2026-07-20T11:00:00Z"}]'
    listed = pasted_alert(api)
    assert listed is not None and listed.subject.node == "node-b-07"
    assert listed.status is AlertStatus.FIRING and listed.ask == "node_health"
    assert pasted_alert('{"a": [[[[' * 10_000) is None


def test_emoji_before_a_notifications_lines_is_markup() -> None:
    text = ":rotating_light: [FIRING:1] KubePodCrashLooping (dc-b shop)\n"
    text += "📢 *Alert:* Pod is crash looping. - `critical`\n"
    text += "  • *exported_pod:* `pay-worker-7b6c9f5d84-r2vxk`\n"
    text += "что с ним?"
    alert = pasted_alert(text)
    assert alert is not None and alert.alertname == "KubePodCrashLooping"
    assert alert.severity == "critical" and alert.own_words == "что с ним?"
    assert alert.annotations["summary"] == "Pod is crash looping."


@pytest.mark.parametrize(
    ("name", "ask"),
    [
        ("KubernetesPodCrashLooping", "workload_startup"),  # awesome-prometheus-alerts
        ("KubernetesContainerOomKiller", "workload_startup"),
        ("HostOomKillDetected", "node_health"),  # a host's, not a pod's
        ("HostHighCpuLoad", "node_health"),
        ("NginxHighHttp4xxErrorRate", "http_errors"),
        ("NginxLatencyHigh", "latency"),
        ("KubernetesHpaScaleMaximum", "capacity"),
        ("NGINXTooMany500s", "http_errors"),  # ingress-nginx's chart
        ("NGINXTooMany400s", "http_errors"),
        ("NGINXConfigFailed", "workload_startup"),
    ],
)
def test_alert_names_outside_the_table_ask_by_their_words(name: str, ask: str) -> None:
    alert = pasted_alert(f"[FIRING:1] {name}\nLabels: alertname={name}")
    assert alert is not None and alert.ask == ask
