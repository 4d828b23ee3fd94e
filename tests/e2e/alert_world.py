"""A world for the alert pipeline tests, set at the real clock (vmalert evaluates rules at
the machine's time): in prod-1, the Deployment checkout has one pod crash-looping on a
missing config file beside a healthy one, kube-state-metrics' waiting-reason series says
so; `storm_pods` more pods crash-loop in namespace batch for a storm."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from evals.world import World, world_from_data

ENV = "prod-1"
CRASHING = "checkout-6f7d8c9b5-x7k2p"
HEALTHY = "checkout-6f7d8c9b5-m4n8q"
LOG_CAUSE = "open /etc/checkout/config.yaml: no such file or directory"
_KSM = {"job": "kube-state-metrics", "instance": "10.1.0.9:8080", "service": "kube-state-metrics"}


def _z(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pod(name: str, now: datetime, *, crashing: bool) -> dict[str, Any]:
    started = now - timedelta(minutes=40)
    state: dict[str, Any]
    if crashing:
        state = {
            "ready": False,
            "started": False,
            "restartCount": 7,
            "state": {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off 5m0s restarting failed container=app pod={name}_shop",
                }
            },
            "lastState": {
                "terminated": {
                    "exitCode": 1,
                    "reason": "Error",
                    "startedAt": _z(now - timedelta(minutes=3)),
                    "finishedAt": _z(now - timedelta(minutes=3) + timedelta(seconds=1)),
                }
            },
        }
    else:
        state = {
            "ready": True,
            "started": True,
            "restartCount": 0,
            "state": {"running": {"startedAt": _z(started)}},
        }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "shop",
            "uid": f"uid-{name}",
            "creationTimestamp": _z(started),
            "labels": {"app": "checkout", "pod-template-hash": "6f7d8c9b5"},
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "checkout-6f7d8c9b5",
                 "uid": "uid-rs-checkout", "controller": True}
            ],
        },
        "spec": {
            "nodeName": "worker-02",
            "containers": [{"name": "app", "image": "registry.example.com/shop/checkout:3.2.0"}],
        },
        "status": {
            "phase": "Running",
            "startTime": _z(started),
            "containerStatuses": [
                {"name": "app", "image": "registry.example.com/shop/checkout:3.2.0", **state}
            ],
        },
    }  # fmt: skip


def _objects(now: datetime) -> list[dict[str, Any]]:
    labels = {"app": "checkout"}
    return [
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "checkout", "namespace": "shop", "uid": "uid-checkout",
                         "generation": 5, "labels": labels,
                         "creationTimestamp": _z(now - timedelta(days=30))},
            "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": [
                         {"name": "app", "image": "registry.example.com/shop/checkout:3.2.0"}]}}},
            "status": {"observedGeneration": 5, "replicas": 2, "updatedReplicas": 2,
                       "readyReplicas": 1, "availableReplicas": 1, "unavailableReplicas": 1},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": "checkout-6f7d8c9b5", "namespace": "shop",
                         "uid": "uid-rs-checkout",
                         "labels": {**labels, "pod-template-hash": "6f7d8c9b5"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                              "name": "checkout", "uid": "uid-checkout",
                                              "controller": True}]},
            "spec": {"replicas": 2, "selector": {"matchLabels": labels}},
            "status": {"replicas": 2, "readyReplicas": 1, "availableReplicas": 1},
        },
        _pod(CRASHING, now, crashing=True),
        _pod(HEALTHY, now, crashing=False),
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{CRASHING}.17a2b3c4d5e6f708", "namespace": "shop"},
            "involvedObject": {"kind": "Pod", "namespace": "shop", "name": CRASHING,
                               "uid": f"uid-{CRASHING}", "fieldPath": "spec.containers{app}"},
            "reason": "BackOff",
            "message": "Back-off restarting failed container app in pod "
                       f"{CRASHING}_shop(uid-{CRASHING})",
            "type": "Warning",
            "count": 31,
            "firstTimestamp": _z(now - timedelta(minutes=35)),
            "lastTimestamp": _z(now - timedelta(minutes=1)),
            "source": {"component": "kubelet", "host": "worker-02"},
        },
    ]  # fmt: skip


def _waiting(pod: str, namespace: str, now: datetime) -> dict[str, Any]:
    """kube-state-metrics' series: 1 from 20 min ago until 15 min ahead, every 30 s."""
    start = now - timedelta(minutes=20)
    return {
        "labels": {
            "__name__": "kube_pod_container_status_waiting_reason",
            **_KSM,
            "namespace": namespace,
            "pod": pod,
            "container": "app",
            "reason": "CrashLoopBackOff",
            "uid": f"uid-{pod}",
        },
        "start": _z(start),
        "step": "30s",
        "values": [1] * 70,
    }


def alert_world(now: datetime, *, storm_pods: int = 0) -> World:
    log = (
        f"{_z(now - timedelta(minutes=3))} INFO starting checkout 3.2.0\n"
        f"{_z(now - timedelta(minutes=3))} ERROR config: {LOG_CAUSE}\n"
        f"{_z(now - timedelta(minutes=3))} FATAL exiting with code 1\n"
    )
    series = [_waiting(CRASHING, "shop", now)]
    series += [_waiting(f"worker-{i:02d}-5c4d", "batch", now) for i in range(storm_pods)]
    data = {
        "environments": {ENV: ["kubernetes", "metrics"]},
        "kubernetes": {ENV: _objects(now)},
        "pod_logs": {ENV: {f"shop/{CRASHING}/app": log}},
        "metrics": {ENV: series},
    }
    return world_from_data(data, name="alert world")


# kubernetes-mixin's KubePodCrashLooping (alerts/apps_alerts.libsonnet), with `for: 0s`
# instead of 15m so that the test needs no quarter of an hour
CRASH_LOOPING_RULES: dict[str, Any] = {
    "groups": [
        {
            "name": "kubernetes-apps",
            "rules": [
                {
                    "alert": "KubePodCrashLooping",
                    "expr": 'max_over_time(kube_pod_container_status_waiting_reason{reason="'
                    'CrashLoopBackOff", job="kube-state-metrics"}[5m]) >= 1',
                    "for": "0s",
                    "labels": {"severity": "warning"},
                    "annotations": {
                        "description": "Pod {{ $labels.namespace }}/{{ $labels.pod }} "
                        "({{ $labels.container }}) is in waiting state "
                        '(reason: "CrashLoopBackOff").',
                        "runbook_url": "https://runbooks.prometheus-operator.dev/runbooks/"
                        "kubernetes/kubepodcrashlooping",
                        "summary": "Pod is crash looping.",
                    },
                }
            ],
        }
    ]
}
