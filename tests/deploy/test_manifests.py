"""The Helm chart and the kustomize overlay, rendered for real and checked as a cluster
admin would before applying them: read-only RBAC that is exactly what the Kubernetes
connector reads, no Secrets, a non-root read-only pod under the restricted Pod Security
Standard, probes on /healthz and /readyz, resources, a pinned image, a configuration the
bot itself accepts (with the identity the values give it), /metrics on a port of its own,
a NetworkPolicy that admits to each port only the peers named (never every pod), and
defaults that stop with the value to set.

The chart is rendered with Helm's own Go SDK (the `helm-python-sdk` wheel, a dev
dependency); the overlay with `kubectl kustomize` (Debian's kubernetes-client, which
.ci/run installs)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import helm_python as helm
import pytest
import yaml

from bot.settings import parse_config
from connectors.kubernetes.rbac import read_rules

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "infrabot"
OVERLAY = ROOT / "deploy" / "kustomize" / "overlays" / "example"
READ_VERBS = {"get", "list", "watch"}
OAUTH2_PROXY = {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "oauth2-proxy"}}}
MONITORING = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}

VALUES: dict[str, Any] = {
    "existingSecret": "infrabot-secrets",
    "replicas": 3,
    "config": {
        "timezone": "Europe/Moscow",
        "environments": {
            "prod": {
                "kubernetes": {"in_cluster": True},
                "metrics": {"url": "http://vmselect.monitoring:8481/select/0/prometheus"},
            }
        },
        "mattermost": {"url": "https://mm.example.com", "team": "sre", "channels": ["ops"]},
    },
}


def _render(values: dict[str, Any]) -> list[dict[str, Any]]:
    with helm.Chart.load(str(CHART)) as chart:
        out = chart.render(values, name="infrabot", namespace="sre")
    return [
        doc
        for path, text in out.items()
        if path.endswith(".yaml")
        for doc in yaml.safe_load_all(text)
        if doc
    ]


def _kustomize() -> list[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed (apt-get install -y kubernetes-client)")
    done = subprocess.run(
        [kubectl, "kustomize", str(OVERLAY)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def _fails(values: dict[str, Any]) -> str:
    with pytest.raises(helm.HelmError) as failed:
        _render(values)
    return str(failed.value)


@pytest.fixture(scope="module", params=["helm", "kustomize"])
def manifests(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    return _render(VALUES) if request.param == "helm" else _kustomize()


def _one(docs: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    [doc] = [d for d in docs if d["kind"] == kind]
    return doc


def _rules(rules: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {
        (group, resource, verb)
        for rule in rules
        for group in rule.get("apiGroups", [])
        for resource in rule.get("resources", [])
        for verb in rule.get("verbs", [])
    }


def test_the_defaults_stop_with_the_value_to_set() -> None:
    assert "config.environments is empty" in _fails({})
    no_secret = VALUES | {"existingSecret": ""}
    assert "existingSecret" in _fails(no_secret) and "INFRABOT_MM_TOKEN" in _fails(no_secret)
    latest = VALUES | {"image": {"repository": "r/infrabot", "tag": "latest"}}
    assert "image.tag" in _fails(latest)


def test_rbac_is_read_only_and_exactly_what_the_connector_reads(
    manifests: list[dict[str, Any]],
) -> None:
    # the one write: the replicas' Leases in the release's namespace (test below)
    roles = [
        d
        for d in manifests
        if d["kind"] in ("Role", "ClusterRole") and not d["metadata"]["name"].endswith("-shares")
    ]
    assert roles
    for role in roles:
        granted = _rules(role["rules"])
        assert {verb for _, _, verb in granted} <= READ_VERBS, role["metadata"]["name"]
        assert not any(r in ("secrets", "*") or r.startswith("secrets/") for _, r, _ in granted)
        assert not any(r in ("pods/exec", "pods/attach", "pods/portforward") for _, r, _ in granted)
    cluster_role = _one(manifests, "ClusterRole")
    assert _rules(cluster_role["rules"]) == _rules(read_rules())
    binding = _one(manifests, "ClusterRoleBinding")
    account = _one(manifests, "ServiceAccount")
    [subject] = binding["subjects"]
    assert subject["name"] == account["metadata"]["name"]
    assert subject["namespace"] == account["metadata"]["namespace"]
    assert binding["roleRef"]["name"] == cluster_role["metadata"]["name"]


def test_replicas_hold_their_shares_as_leases_in_their_namespace_only() -> None:
    """Several replicas: the config asks for Leases and the one Role granted to write is
    namespaced and covers leases alone; one replica gets neither."""
    manifests = _render(VALUES)
    role = next(d for d in manifests if d["metadata"]["name"].endswith("-shares"))
    assert role["kind"] == "Role" and role["metadata"]["namespace"] == "sre"
    assert _rules(role["rules"]) == {
        ("coordination.k8s.io", "leases", verb) for verb in ("get", "create", "update")
    }
    config = yaml.safe_load(_one(manifests, "ConfigMap")["data"]["config.yaml"])
    assert config["mattermost"]["leases"] == {"duration_s": 15}
    single = _render(VALUES | {"replicas": 1})
    assert not any(d["metadata"]["name"].endswith("-shares") for d in single)
    one = yaml.safe_load(_one(single, "ConfigMap")["data"]["config.yaml"])
    assert "leases" not in one["mattermost"]


def test_the_audit_api_is_granted_only_when_asked_for() -> None:
    docs = _render(VALUES | {"rbac": {"create": True, "auditApi": True}})
    assert _rules(_one(docs, "ClusterRole")["rules"]) == _rules(read_rules(audit_api=True))
    assert _rules(read_rules(audit_api=True)) - _rules(read_rules())


def test_the_pod_is_non_root_read_only_and_probed(manifests: list[dict[str, Any]]) -> None:
    workload = _one(manifests, "StatefulSet")
    pod = workload["spec"]["template"]["spec"]
    security = pod["securityContext"]
    assert security["runAsNonRoot"] is True and security["runAsUser"] != 0
    assert security["seccompProfile"] == {"type": "RuntimeDefault"}
    for container in pod["containers"]:
        own = container["securityContext"]
        assert own["readOnlyRootFilesystem"] is True
        assert own["allowPrivilegeEscalation"] is False
        assert own["capabilities"]["drop"] == ["ALL"]
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
        resources = container["resources"]
        assert {"cpu", "memory"} <= set(resources["requests"]) and "memory" in resources["limits"]
        image = container["image"]
        assert ":" in image and not image.endswith((":latest", ":"))
        mounted = {m["mountPath"] for m in container["volumeMounts"]}
        assert "/tmp" in mounted  # a writable /tmp on a read-only root
    assert not [d for d in manifests if d["kind"] == "Secret"]  # never made or copied


def test_the_configuration_is_one_the_bot_accepts(manifests: list[dict[str, Any]]) -> None:
    workload = _one(manifests, "StatefulSet")
    data = _one(manifests, "ConfigMap")["data"]["config.yaml"]
    config = parse_config(yaml.safe_load(data), "rendered config.yaml")
    assert config.web.host == "0.0.0.0"  # reachable from the Service, not only the pod
    # the knowledge file is on the mounted volume, not the read-only root
    container = workload["spec"]["template"]["spec"]["containers"][0]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert str(config.memory.knowledge_path).startswith(mounts["knowledge"] + "/")
    # every replica knows how many share the bot account
    assert config.mattermost is not None
    assert config.mattermost.replicas == workload["spec"]["replicas"]
    ports = {p["containerPort"] for p in container["ports"]}
    assert config.web.port in ports
    service = next(d for d in manifests if d["kind"] == "Service" and "clusterIP" not in d["spec"])
    assert service["spec"]["ports"][0]["targetPort"] == "http"
    # a web chat thread lives in the replica that served it
    assert service["spec"]["sessionAffinity"] == "ClientIP"


def test_metrics_are_served_on_a_port_of_their_own(manifests: list[dict[str, Any]]) -> None:
    """/metrics is kept off the chat's port: the config names its own port, the pod
    declares it as `metrics`, every Service exposes it by that name, and the probes stay
    on the chat's port."""
    data = _one(manifests, "ConfigMap")["data"]["config.yaml"]
    config = parse_config(yaml.safe_load(data), "rendered config.yaml")
    assert config.web.metrics_port is not None and config.web.metrics_port != config.web.port
    [container] = _one(manifests, "StatefulSet")["spec"]["template"]["spec"]["containers"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"http": config.web.port, "metrics": config.web.metrics_port}
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        assert container[probe]["httpGet"]["port"] == "http"
    services = [d for d in manifests if d["kind"] == "Service"]
    assert len(services) == 2
    for service in services:
        by_name = {p["name"]: p for p in service["spec"]["ports"]}
        assert by_name["metrics"]["targetPort"] == "metrics"
        assert by_name["metrics"]["port"] == config.web.metrics_port
        assert by_name["http"]["targetPort"] == "http"


def test_a_metrics_port_on_the_chats_port_stops_with_the_value_to_set() -> None:
    assert "metrics.port" in _fails(VALUES | {"metrics": {"port": 8080}})
    moved = _render(VALUES | {"metrics": {"port": 9100}})
    data = _one(moved, "ConfigMap")["data"]["config.yaml"]
    assert parse_config(yaml.safe_load(data), "rendered config.yaml").web.metrics_port == 9100


def test_a_web_identity_in_the_values_reaches_the_bot() -> None:
    """The chart sets web.host and web.port; the identity (and allowed_hosts) an
    operator writes in config.web must survive that, or the chat answers no one."""
    web = {
        "allowed_hosts": ["infrabot.example.com"],
        "identity": {
            "mode": "proxy",
            "trusted_proxies": ["10.244.0.0/16"],
            "user_header": "X-Forwarded-Preferred-Username",
            "admin_groups": ["sre-leads"],
        },
    }
    values = VALUES | {
        "config": VALUES["config"] | {"web": web},
        "networkPolicy": {"ingressFrom": [OAUTH2_PROXY]},
    }
    data = _one(_render(values), "ConfigMap")["data"]["config.yaml"]
    config = parse_config(yaml.safe_load(data), "rendered config.yaml")
    assert config.web.identity.mode.value == "proxy"
    assert [str(n) for n in config.web.identity.trusted_proxies] == ["10.244.0.0/16"]
    assert config.web.identity.user_header == "X-Forwarded-Preferred-Username"
    assert config.web.identity.admin_groups == ["sre-leads"]
    assert config.web.allowed_hosts == ["infrabot.example.com"]
    assert (config.web.host, config.web.port) == ("0.0.0.0", 8080)  # still the chart's


def test_a_proxy_identity_without_its_addresses_stops_with_the_value_to_set() -> None:
    web = {"identity": {"mode": "proxy"}}
    failed = _fails(VALUES | {"config": VALUES["config"] | {"web": web}})
    assert "config.web.identity.trusted_proxies" in failed
    # a pod CIDR trusted, and no peer named: every pod of the namespace could name itself
    web = {"identity": {"mode": "proxy", "trusted_proxies": ["10.244.0.0/16"]}}
    failed = _fails(VALUES | {"config": VALUES["config"] | {"web": web}})
    assert "networkPolicy.ingressFrom" in failed


def test_network_disruption_and_storage_are_declared(manifests: list[dict[str, Any]]) -> None:
    policy = _one(manifests, "NetworkPolicy")
    assert set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    # the API server refuses a peer with no selector ("must specify a peer")
    peers = [
        p
        for rule in policy["spec"]["ingress"] + policy["spec"]["egress"]
        for p in rule.get("from", rule.get("to", []))
    ]
    assert all(peers) and all(rule.get("ports") for rule in policy["spec"]["ingress"])
    dns = policy["spec"]["egress"][0]
    assert {p["port"] for p in dns["ports"]} == {53}
    assert _one(manifests, "PodDisruptionBudget")["spec"]["maxUnavailable"] == 1
    claims = _one(manifests, "StatefulSet")["spec"].get("volumeClaimTemplates", [])
    assert [c["metadata"]["name"] for c in claims] == ["knowledge"]


def _admitting(policy: dict[str, Any], port: str) -> list[list[dict[str, Any]] | None]:
    """The `from` of each ingress rule that reaches `port` (None: from anywhere)."""
    return [
        rule.get("from")
        for rule in policy["spec"]["ingress"]
        if any(p["port"] == port for p in rule.get("ports", [{"port": port}]))
    ]


def _every_pod(peer: dict[str, Any]) -> bool:
    """A peer that admits every pod of the cluster."""
    return (
        "namespaceSelector" in peer
        and not peer["namespaceSelector"]
        and not peer.get("podSelector")
    )


def test_no_port_is_open_to_every_pod(manifests: list[dict[str, Any]]) -> None:
    """The chat's port and /metrics are each admitted by their own rule, each naming who."""
    policy = _one(manifests, "NetworkPolicy")
    for port in ("http", "metrics"):
        for peers in _admitting(policy, port):
            assert peers, f"a rule admits every pod to {port}"
            assert not [p for p in peers if _every_pod(p)], port
    for rule in policy["spec"]["ingress"]:
        assert len(rule["ports"]) == 1  # the chat's peers never reach /metrics, nor back


def test_by_default_only_the_releases_namespace_reaches_the_chat() -> None:
    policy = _one(_render(VALUES), "NetworkPolicy")
    assert _admitting(policy, "http") == [[{"podSelector": {}}]]  # this namespace's pods
    assert _admitting(policy, "metrics") == []  # no scraper named: no one


def test_the_chats_port_admits_exactly_the_peers_named() -> None:
    mattermost = {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "mattermost"}},
        "podSelector": {"matchLabels": {"app": "mattermost"}},
    }
    named = {
        "ingressNamespaces": ["ingress-nginx", "chat"],
        "ingressFrom": [OAUTH2_PROXY, mattermost],
    }
    policy = _one(_render(VALUES | {"networkPolicy": named}), "NetworkPolicy")
    by_name = {
        "namespaceSelector": {
            "matchExpressions": [
                {
                    "key": "kubernetes.io/metadata.name",
                    "operator": "In",
                    "values": ["ingress-nginx", "chat"],
                }
            ]
        }
    }
    assert _admitting(policy, "http") == [[by_name, OAUTH2_PROXY, mattermost]]
    assert _admitting(policy, "metrics") == []
    only_pods = _one(
        _render(VALUES | {"networkPolicy": {"ingressFrom": [OAUTH2_PROXY]}}), "NetworkPolicy"
    )
    assert _admitting(only_pods, "http") == [[OAUTH2_PROXY]]  # not the namespace besides


def test_metrics_admit_only_the_scrapers_named() -> None:
    scrapers = {"metricsNamespaces": ["monitoring"], "metricsFrom": [MONITORING]}
    policy = _one(_render(VALUES | {"networkPolicy": scrapers}), "NetworkPolicy")
    by_name = {
        "namespaceSelector": {
            "matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["monitoring"]}
            ]
        }
    }
    assert _admitting(policy, "metrics") == [[by_name, MONITORING]]
    assert _admitting(policy, "http") == [[{"podSelector": {}}]]  # the chat's peers unchanged


def test_a_peer_that_would_open_the_pod_stops_with_the_value_to_set() -> None:
    assert "networkPolicy.ingressFrom" in _fails(VALUES | {"networkPolicy": {"ingressFrom": [{}]}})
    everyone = {"metricsFrom": [{"namespaceSelector": {}}]}
    assert "networkPolicy.metricsNamespaces" in _fails(VALUES | {"networkPolicy": everyone})


def test_knowledge_can_live_in_an_empty_dir_instead() -> None:
    docs = _render(VALUES | {"knowledge": {"persistence": False}})
    workload = _one(docs, "StatefulSet")
    assert "volumeClaimTemplates" not in workload["spec"]
    volumes = {v["name"]: v for v in workload["spec"]["template"]["spec"]["volumes"]}
    assert "emptyDir" in volumes["knowledge"]


def test_the_kustomize_base_is_the_chart_rendered() -> None:
    """deploy/kustomize/base is generated from the chart: stale means someone edited one
    without the other (`dev/render_kustomize_base.py` rewrites it)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "dev" / "render_kustomize_base.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_runbook_says_what_to_do_for_every_gap_reason() -> None:
    """A new gap reason is not done until operators are told what it means."""
    from policy.gaps import GapReason

    runbook = (ROOT / "docs" / "runbook.md").read_text()
    missing = [r.value for r in GapReason if f"| `{r.value}` |" not in runbook]
    assert not missing, missing


def test_the_configuration_reference_is_current() -> None:
    """docs/configuration.md is written from the settings models (`infrabot
    config-reference`): a key added without regenerating it fails here."""
    from bot.config_reference import reference

    assert (ROOT / "docs" / "configuration.md").read_text() == reference()


def test_the_image_is_multi_stage_non_root_and_pinned() -> None:
    """What the Dockerfile promises (no daemon here to build it): dependencies from the
    hashed lock file, a final stage without build tools or the eval simulators, a
    non-root user, a health check."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    stages = dockerfile.split("\nFROM ")[1:]  # what comes before the first is comments
    assert len(stages) == 2, "a build stage and a final stage"
    final = stages[1]
    assert "--require-hashes" in stages[0] and "requirements.lock" in stages[0]
    assert "COPY --from=build /opt/infrabot /opt/infrabot" in final
    assert "pip install" not in final and "apt-get" not in final
    assert "USER 10001" in final and "HEALTHCHECK" in final
    assert "COPY evals" not in dockerfile and "simulators" not in stages[0].split("RUN")[-1]
    lock = (ROOT / "deploy" / "requirements.lock").read_text()
    pinned = [line for line in lock.splitlines() if "==" in line and not line.startswith("#")]
    assert pinned and all("--hash=sha256:" in lock for _ in pinned[:1])
    assert "helm-python-sdk" not in lock and "pytest" not in lock  # runtime only
    ignore = (ROOT / ".dockerignore").read_text().splitlines()
    assert ignore[ignore.index("*") + 1 :] and "!evals/" not in ignore and "!tests/" not in ignore
