"""Write evals/worlds/demo.yaml, the built-in demo world, deterministically.

Run: `.venv/bin/python evals/worlds/make_demo.py` (`--check` exits 1 when the committed
file differs from what this script writes). Standard library and PyYAML only; every
"random" value (ids, noise, request ids) comes from sha256 of a name, so the output is
the same on every machine and Python version.

The bot's clock is 2026-07-20T14:40:00+03:00 (11:40Z). Data times are UTC; the user
speaks Moscow time (+03:00). Metric samples cover 09:50Z-11:40Z (12:50-14:40 local) at
60 s (counters, story gauges) or 300 s (flat kube-state-metrics gauges).

Stories
 1. dc-a, payments/service-a, 14:11 local: the app answered 302 with a 1,191-byte
    Location (3-D Secure), edge-02 logged "upstream sent too big header" on connection
    *884213 (no request_id in the error log), the access log has request_id
    7f9e2c21a4b84d0c9e51b0d3f6a27c85 with status 502. Two more such 502s at 11:10:26Z
    (edge-01) and 11:12:41Z (edge-02). Decoys: a 413 on the same host (other connection)
    and an upstream timeout on shop.example.net. Endpoints ready, no restarts.
 2. dc-a, orders/service-b: pod service-b-6f9c8d7b5-q8n4t (worker-06) OOMKilled 7 times
    since 10:29Z (limit 512Mi, exit 137), memory working set climbs to the limit before
    each kill, restarts counter 0 -> 7, BackOff events; each kill cut 1-2 requests (edge
    502, "upstream prematurely closed connection").
 3. dc-b, orders/service-d: tag v2.4.0 rolled out at 10:52:13Z (13:52 local) by GitLab job
    5531195 deploy:dc-b (job user k.smirnova, commit author d.ivanov, audit actor
    system:serviceaccount:ci:svc-deployer); the new pods crash-loop ("missing required
    env DATABASE_URL", exit 1), the old ReplicaSet (2.3.1) still serves; the job failed
    when `rollout status` timed out; deploy:dc-a (5531194) is still manual.
 4. dc-b, node worker-17: search-api and auth-api got 502s at 10:05-10:12Z (13:05-13:12
    local) only through their pods on worker-17 ("upstream prematurely closed connection",
    "recv() failed (104: Connection reset by peer)"); worker-17 shows TCP retransmits and
    softnet squeezes, peers worker-15/16/18 are clean; endpoints stayed ready.
 5. stage, notifications: ResourceQuota notifications-quota at pods 19/20, requests.cpu
    3800m/4, requests.memory 3840Mi/4Gi; notify-push scaled 6 -> 9 at 11:18:40Z, one new
    pod runs, one is Pending (FailedScheduling: no node has room; stage-worker-03 is
    cordoned), the ninth is refused ("exceeded quota", FailedCreate on the ReplicaSet).
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).with_name("demo.yaml")
# The Kubernetes simulator serves `namespace/pod/container/previous`, but evals/world.py
# accepts only `namespace/pod/container` keys today. Flip once the loader allows it.
PREVIOUS_LOGS = False

NOW = datetime(2026, 7, 20, 11, 40, tzinfo=UTC)
T0 = datetime(2026, 7, 20, 9, 50, tzinfo=UTC)
N_FAST = 111  # 60 s samples, 09:50Z .. 11:40Z
N_SLOW = 23  # 300 s samples, same span
DAY = "2026.07.20"
GITLAB = "https://gitlab.example.com"
REGISTRY = "registry.example.com"
ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # what Kubernetes uses for generated suffixes
MI = 1024 * 1024

QUESTIONS = [
    "почему service-a в dc-a отдавал 502 в 14:11? request_id 7f9e2c21a4b84d0c9e51b0d3f6a27c85",
    "были ли ещё такие 502 у service-a в dc-a за последний час?",
    "why does service-b in dc-a keep restarting?",
    "сколько памяти ест service-b в dc-a относительно лимита?",
    "что сломалось после выкатки service-d в dc-b?",
    "кто выкатывал service-d в dc-b сегодня и из какой джобы?",
    "почему search-api и auth-api в dc-b отдавали 502 с 13:05 до 13:12?",
    "compare TCP retransmits on worker-17 with the other nodes in dc-b",
    "почему в stage не поднимаются новые поды notify-push?",
    "how much of the notifications quota in stage is used?",
    "какой средний RPS у catalog-api в dc-a за последний час?",
    "the same for dc-b",
]


# --- deterministic helpers -------------------------------------------------------------


def h(*parts: object) -> str:
    return hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()


def frac(*parts: object) -> float:
    """A stable pseudo-random number in [0, 1)."""
    return int(h(*parts)[:13], 16) / 16**13


def pick(seq: list[Any] | tuple[Any, ...], *parts: object) -> Any:
    return seq[int(h(*parts)[:8], 16) % len(seq)]


def suffix(n: int, *parts: object) -> str:
    d = h("suffix", *parts)
    return "".join(ALPHABET[int(d[2 * i : 2 * i + 2], 16) % len(ALPHABET)] for i in range(n))


def uid(*parts: object) -> str:
    d = h("uid", *parts)
    return f"{d[:8]}-{d[8:12]}-4{d[13:16]}-{'89ab'[int(d[16], 16) % 4]}{d[17:20]}-{d[20:32]}"


def rv(*parts: object) -> str:
    return str(100_000_000 + int(h("rv", *parts)[:8], 16) % 900_000_000)


def at(hms: str, day: int = 20, month: int = 7, year: int = 2026) -> datetime:
    """'10:52:13.302' on <year>-<month>-<day> UTC (default: the demo's day)."""
    main, _, ms = hms.partition(".")
    hh, mm, ss = (int(x) for x in main.split(":"))
    return datetime(year, month, day, hh, mm, ss, int((ms or "0").ljust(6, "0")), tzinfo=UTC)


def z(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def zms(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def zus(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def msk(t: datetime) -> str:
    """GitLab commit dates as the example world writes them (+03:00, millis)."""
    local = t + timedelta(hours=3)
    return local.strftime("%Y-%m-%dT%H:%M:%S.") + f"{local.microsecond // 1000:03d}+03:00"


def cpu_m(q: str) -> int:
    return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)


def mem_b(q: str) -> int:
    units = {"Ki": 1024, "Mi": MI, "Gi": 1024 * MI}
    return int(q[:-2]) * units[q[-2:]] if q[-2:] in units else int(q)


def cpu_q(m: int) -> str:
    return str(m // 1000) if m % 1000 == 0 else f"{m}m"


def mem_q(b: int) -> str:
    return f"{b // (1024 * MI)}Gi" if b % (1024 * MI) == 0 else f"{b // MI}Mi"


def fast_times() -> list[datetime]:
    return [T0 + timedelta(seconds=60 * i) for i in range(N_FAST)]


def series(labels: dict[str, str], values: list[Any], *, start: datetime = T0, step: int = 60):
    return {"labels": labels, "start": z(start), "step": f"{step}s", "values": values}


def cumulative(base: int, increments: list[int]) -> list[int]:
    out, total = [], base
    for inc in increments:
        total += inc
        out.append(total)
    return out


# --- the model of one cluster ------------------------------------------------------------


@dataclass
class Svc:
    name: str
    ns: str
    container: str
    req: tuple[str, str]
    lim: tuple[str, str]
    port: int = 8080
    http: bool = True
    mem_mi: int = 300  # typical working set
    cpu: float = 0.1  # typical usage, cores

    def image(self, tag: str) -> str:
        return f"{REGISTRY}/{self.ns}/{self.name}:{tag}"


SVCS = {
    s.name: s
    for s in [
        Svc("service-a", "payments", "app", ("500m", "512Mi"), ("2", "1Gi"), mem_mi=610, cpu=0.42),
        Svc("service-b", "orders", "app", ("250m", "256Mi"), ("1", "512Mi"), mem_mi=280, cpu=0.14),
        Svc("service-c", "orders", "app", ("250m", "384Mi"), ("1", "768Mi"), mem_mi=350, cpu=0.21),
        Svc("service-d", "orders", "app", ("250m", "256Mi"), ("1", "512Mi"), mem_mi=190, cpu=0.09),
        Svc("catalog-api", "catalog", "api", ("1", "1Gi"), ("2", "2Gi"), mem_mi=1180, cpu=0.77),
        Svc("search-api", "search", "api", ("500m", "1Gi"), ("2", "2Gi"), mem_mi=1320, cpu=0.58),
        Svc(
            "search-indexer",
            "search",
            "indexer",
            ("500m", "1Gi"),
            ("1", "2Gi"),
            http=False,
            mem_mi=890,
            cpu=0.31,
        ),
        Svc("auth-api", "auth", "api", ("250m", "256Mi"), ("1", "512Mi"), mem_mi=240, cpu=0.16),
        Svc(
            "notify-push",
            "notifications",
            "app",
            ("250m", "256Mi"),
            ("500m", "512Mi"),
            http=False,
            mem_mi=170,
            cpu=0.06,
        ),
        Svc(
            "notify-email",
            "notifications",
            "app",
            ("200m", "192Mi"),
            ("400m", "384Mi"),
            http=False,
            mem_mi=150,
            cpu=0.05,
        ),
        Svc(
            "notify-sms",
            "notifications",
            "app",
            ("100m", "112Mi"),
            ("200m", "256Mi"),
            http=False,
            mem_mi=90,
            cpu=0.02,
        ),
    ]
}
STAGE_REQ = {"service-a": ("250m", "256Mi"), "catalog-api": ("250m", "512Mi")}


@dataclass
class NodeInfo:
    name: str
    ip: str
    cidr: str  # "10.42.3" -> 10.42.3.0/24
    cpus: int
    alloc_cpu: str
    mem_ki: int
    alloc_mem_ki: int
    zone: str
    created: datetime
    extra_labels: dict[str, str] = field(default_factory=dict)
    provider: str | None = None
    cordoned_at: datetime | None = None


@dataclass
class Instance:
    """One container instance (one containerd container) of a pod."""

    cid: str
    start: datetime
    end: datetime | None  # None: running now


@dataclass
class PodInfo:
    ns: str
    name: str
    uid: str
    svc: Svc
    node: str | None
    ip: str | None
    image: str
    created: datetime
    req: tuple[str, str]
    lim: tuple[str, str]
    instances: list[Instance]
    restarts: list[datetime] = field(default_factory=list)  # when restartCount went up
    ready: bool = True
    phase: str = "Running"
    mem_profile: Any = None  # callable(instance_index, t) -> bytes | None


@dataclass
class Cluster:
    env: str
    k8s_ver: str
    nodes: dict[str, NodeInfo] = field(default_factory=dict)
    objects: list[dict[str, Any]] = field(default_factory=list)
    pods: list[PodInfo] = field(default_factory=list)
    metrics: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    pod_logs: dict[str, str] = field(default_factory=dict)
    logs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    audit: list[dict[str, Any]] = field(default_factory=list)
    used_ips: set[str] = field(default_factory=set)
    story: dict[str, Any] = field(default_factory=dict)  # what the signals need from the objects
    created: dict[str, datetime] = field(default_factory=dict)  # Deployment creation by name

    def alloc_ip(self, node: str, key: str) -> str:
        prefix = self.nodes[node].cidr
        n = 10 + int(h("ip", self.env, key)[:6], 16) % 230
        while f"{prefix}.{n}" in self.used_ips:
            n = 10 + (n - 9) % 230
        ip = f"{prefix}.{n}"
        self.used_ips.add(ip)
        return ip


def cid(*parts: object) -> str:
    return "containerd://" + h("cid", *parts)[:64]


def digest(image: str) -> str:
    repo = image.rsplit(":", 1)[0]
    return f"{repo}@sha256:{h('digest', image)[:64]}"


# --- Kubernetes objects --------------------------------------------------------------------


def owner(kind: str, api: str, name: str, owner_uid: str) -> dict[str, Any]:
    return {
        "apiVersion": api,
        "kind": kind,
        "name": name,
        "uid": owner_uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


def node_obj(cl: Cluster, n: NodeInfo) -> dict[str, Any]:
    beat = NOW - timedelta(seconds=40 + int(frac("beat", n.name) * 200))
    since = at("03:14:51", 28, 6) + timedelta(seconds=int(frac("boot", cl.env, n.name) * 9000))
    labels = {
        "kubernetes.io/hostname": n.name,
        "kubernetes.io/os": "linux",
        "node-role.kubernetes.io/worker": "",
        "topology.kubernetes.io/zone": n.zone,
        **n.extra_labels,
    }
    spec: dict[str, Any] = {"podCIDR": f"{n.cidr}.0/24"}
    if n.provider:
        spec["providerID"] = n.provider
    if n.cordoned_at:
        spec["taints"] = [
            {
                "key": "node.kubernetes.io/unschedulable",
                "effect": "NoSchedule",
                "timeAdded": z(n.cordoned_at),
            }
        ]
        spec["unschedulable"] = True

    def cond(kind: str, status: str, reason: str, message: str) -> dict[str, Any]:
        return {
            "type": kind,
            "status": status,
            "reason": reason,
            "message": message,
            "lastHeartbeatTime": z(beat),
            "lastTransitionTime": z(since),
        }

    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": n.name,
            "uid": uid(cl.env, "node", n.name),
            "resourceVersion": rv(cl.env, "node", n.name),
            "creationTimestamp": z(n.created),
            "labels": labels,
        },
        "spec": spec,
        "status": {
            "addresses": [
                {"type": "InternalIP", "address": n.ip},
                {"type": "Hostname", "address": n.name},
            ],
            "capacity": {"cpu": str(n.cpus), "memory": f"{n.mem_ki}Ki", "pods": "110"},
            "allocatable": {"cpu": n.alloc_cpu, "memory": f"{n.alloc_mem_ki}Ki", "pods": "110"},
            "conditions": [
                cond(
                    "MemoryPressure",
                    "False",
                    "KubeletHasSufficientMemory",
                    "kubelet has sufficient memory available",
                ),
                cond(
                    "DiskPressure",
                    "False",
                    "KubeletHasNoDiskPressure",
                    "kubelet has no disk pressure",
                ),
                cond(
                    "PIDPressure",
                    "False",
                    "KubeletHasSufficientPID",
                    "kubelet has sufficient PID available",
                ),
                cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "nodeInfo": {
                "kubeletVersion": cl.k8s_ver,
                "containerRuntimeVersion": "containerd://1.7.20",
                "kernelVersion": "6.1.0-23-amd64",
                "osImage": "Debian GNU/Linux 12 (bookworm)",
                "architecture": "amd64",
                "operatingSystem": "linux",
            },
        },
    }


def container_spec(
    svc: Svc,
    image: str,
    req: tuple[str, str],
    lim: tuple[str, str],
    env: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    c: dict[str, Any] = {"name": svc.container, "image": image}
    if svc.http:
        c["ports"] = [{"name": "http", "containerPort": svc.port, "protocol": "TCP"}]
    else:
        c["ports"] = [{"name": "metrics", "containerPort": 9090, "protocol": "TCP"}]
    if env:
        c["env"] = env
    c["resources"] = {
        "requests": {"cpu": req[0], "memory": req[1]},
        "limits": {"cpu": lim[0], "memory": lim[1]},
    }
    return c


@dataclass
class RS:
    hash: str
    revision: int
    tag: str
    created: datetime
    replicas: int  # spec.replicas now
    pods: list[PodInfo] = field(default_factory=list)
    uid: str = ""


def workload(
    cl: Cluster,
    svc_name: str,
    *,
    replicas: int,
    generation: int,
    created: datetime,
    sets: list[RS],
    ci: dict[str, str] | None = None,
    conditions: list[dict[str, Any]] | None = None,
    env_vars: list[dict[str, Any]] | None = None,
    max_surge: str | int = "25%",
    uid_override: str | None = None,
) -> str:
    """Deployment + ReplicaSets (+ their pods, already built) as objects; returns the
    Deployment uid. The first entry of `sets` is the newest ReplicaSet."""
    svc = SVCS[svc_name]
    req, lim = (
        (STAGE_REQ.get(svc.name, svc.req), svc.lim) if cl.env == "stage" else (svc.req, svc.lim)
    )
    dep_uid = uid_override or uid(cl.env, "deploy", svc.ns, svc.name)
    cl.created[svc.name] = created
    new = sets[0]
    sel = {"app.kubernetes.io/name": svc.name}
    annotations = {"deployment.kubernetes.io/revision": str(new.revision)}
    if ci:
        annotations.update(ci)
    all_pods = [p for s in sets for p in s.pods]
    ready = sum(1 for p in all_pods if p.ready)
    updated = len(new.pods)
    status: dict[str, Any] = {
        "observedGeneration": generation,
        "replicas": len(all_pods),
        "updatedReplicas": updated,
        "readyReplicas": ready,
        "availableReplicas": ready,
    }
    if len(all_pods) - ready > 0 or replicas > ready:
        status["unavailableReplicas"] = max(len(all_pods), replicas) - ready
    if conditions is None:
        conditions = [
            {
                "type": "Available",
                "status": "True",
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability.",
                "lastUpdateTime": z(new.created + timedelta(seconds=31)),
                "lastTransitionTime": z(new.created + timedelta(seconds=31)),
            },
            {
                "type": "Progressing",
                "status": "True",
                "reason": "NewReplicaSetAvailable",
                "message": f'ReplicaSet "{svc.name}-{new.hash}" has successfully progressed.',
                "lastUpdateTime": z(new.created + timedelta(seconds=47)),
                "lastTransitionTime": z(created),
            },
        ]
    status["conditions"] = conditions
    cspec = container_spec(svc, svc.image(new.tag), req, lim, env_vars)
    if svc.http:
        cspec["readinessProbe"] = {
            "httpGet": {"path": "/healthz/ready", "port": svc.port},
            "periodSeconds": 5,
            "failureThreshold": 3,
        }
    cl.objects.append(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {
                "name": svc.name,
                "namespace": svc.ns,
                "uid": dep_uid,
                "resourceVersion": rv(cl.env, "deploy", svc.name, generation),
                "generation": generation,
                "creationTimestamp": z(created),
                "labels": {"app.kubernetes.io/name": svc.name, "app.kubernetes.io/part-of": svc.ns},
                "annotations": annotations,
            },
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": sel},
                "progressDeadlineSeconds": 600,
                "revisionHistoryLimit": 10,
                "strategy": {
                    "type": "RollingUpdate",
                    "rollingUpdate": {"maxSurge": max_surge, "maxUnavailable": 0},
                },
                "template": {"metadata": {"labels": sel}, "spec": {"containers": [cspec]}},
            },
            "status": status,
        }
    )
    for rs in sets:
        name = f"{svc.name}-{rs.hash}"
        labels = {"app.kubernetes.io/name": svc.name, "pod-template-hash": rs.hash}
        rs_ready = sum(1 for p in rs.pods if p.ready)
        rs_status: dict[str, Any] = {
            "replicas": len(rs.pods),
            "observedGeneration": 1 if rs is new else 3,
        }
        if rs.pods:
            rs_status.update(
                {
                    "fullyLabeledReplicas": len(rs.pods),
                    "readyReplicas": rs_ready,
                    "availableReplicas": rs_ready,
                }
            )
        if (
            rs is new
            and replicas > len(all_pods)
            and conditions
            and any(c["type"] == "ReplicaFailure" for c in conditions)
        ):
            failure = next(c for c in conditions if c["type"] == "ReplicaFailure")
            rs_status["conditions"] = [
                {
                    "type": "ReplicaFailure",
                    "status": "True",
                    "reason": "FailedCreate",
                    "message": failure["message"],
                    "lastTransitionTime": failure["lastTransitionTime"],
                }
            ]
        cl.objects.append(
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {
                    "name": name,
                    "namespace": svc.ns,
                    "uid": rs.uid,
                    "resourceVersion": rv(cl.env, "rs", name),
                    "creationTimestamp": z(rs.created),
                    "labels": labels,
                    "annotations": {
                        "deployment.kubernetes.io/revision": str(rs.revision),
                        "deployment.kubernetes.io/desired-replicas": str(replicas),
                        "deployment.kubernetes.io/max-replicas": str(
                            replicas + (2 if max_surge == "50%" else 1)
                        ),
                    },
                    "ownerReferences": [owner("Deployment", "apps/v1", svc.name, dep_uid)],
                },
                "spec": {
                    "replicas": rs.replicas,
                    "selector": {"matchLabels": labels},
                    "template": {
                        "metadata": {"labels": labels},
                        "spec": {
                            "containers": [
                                container_spec(svc, svc.image(rs.tag), req, lim, env_vars)
                            ]
                        },
                    },
                },
                "status": rs_status,
            }
        )
        for p in rs.pods:
            cl.objects.append(pod_obj(cl, p, rs, env_vars))
    return dep_uid


def make_pod(
    cl: Cluster,
    svc_name: str,
    rs: RS,
    node: str | None,
    *,
    created: datetime,
    ip: str | None = None,
    name: str | None = None,
    pod_uid: str | None = None,
    instances: list[Instance] | None = None,
    ready: bool = True,
    phase: str = "Running",
    restarts: list[datetime] | None = None,
) -> PodInfo:
    svc = SVCS[svc_name]
    name = name or f"{svc.name}-{rs.hash}-{suffix(5, cl.env, svc.name, rs.hash, node, created)}"
    if node and ip is None:
        ip = cl.alloc_ip(node, name)
    elif ip:
        cl.used_ips.add(ip)
    req = STAGE_REQ.get(svc.name, svc.req) if cl.env == "stage" else svc.req
    if instances is None:
        instances = (
            []
            if node is None
            else [Instance(cid(cl.env, name, 0), created + timedelta(seconds=4), None)]
        )
    p = PodInfo(
        ns=svc.ns,
        name=name,
        uid=pod_uid or uid(cl.env, "pod", name),
        svc=svc,
        node=node,
        ip=ip,
        image=svc.image(rs.tag),
        created=created,
        req=req,
        lim=svc.lim,
        instances=instances,
        restarts=restarts or [],
        ready=ready,
        phase=phase,
    )
    rs.pods.append(p)
    cl.pods.append(p)
    return p


def pod_obj(
    cl: Cluster, p: PodInfo, rs: RS, env_vars: list[dict[str, Any]] | None
) -> dict[str, Any]:
    svc = p.svc
    labels = {"app.kubernetes.io/name": svc.name, "pod-template-hash": rs.hash}
    spec: dict[str, Any] = {}
    if p.node:
        spec["nodeName"] = p.node
    spec["containers"] = [container_spec(svc, p.image, p.req, p.lim, env_vars)]
    spec["restartPolicy"] = "Always"
    meta = {
        "name": p.name,
        "generateName": f"{svc.name}-{rs.hash}-",
        "namespace": p.ns,
        "uid": p.uid,
        "resourceVersion": rv(cl.env, "pod", p.name),
        "creationTimestamp": z(p.created),
        "labels": labels,
        "ownerReferences": [owner("ReplicaSet", "apps/v1", f"{svc.name}-{rs.hash}", rs.uid)],
    }
    qos = "Burstable"
    if p.phase == "Pending":
        status = {
            "phase": "Pending",
            "qosClass": qos,
            "conditions": [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "lastProbeTime": None,
                    "lastTransitionTime": z(p.created),
                    "reason": "Unschedulable",
                    "message": STAGE_UNSCHEDULABLE,
                }
            ],
        }
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
    node = cl.nodes[p.node]
    cur = p.instances[-1]
    ready_at = p.instances[-1].start + timedelta(seconds=12)
    cs: dict[str, Any] = {"name": svc.container, "image": p.image, "imageID": digest(p.image)}
    if cur.end is None:
        cs.update(
            {
                "containerID": cur.cid,
                "ready": True,
                "started": True,
                "restartCount": len(p.restarts),
                "state": {"running": {"startedAt": z(cur.start)}},
            }
        )
    else:  # waiting after a crash
        cs.update(
            {
                "containerID": cur.cid,
                "ready": False,
                "started": False,
                "restartCount": len(p.restarts),
                "state": {
                    "waiting": {
                        "reason": "CrashLoopBackOff",
                        "message": f"back-off 5m0s restarting failed container="
                        f"{svc.container} pod={p.name}_{p.ns}({p.uid})",
                    }
                },
            }
        )
    if len(p.instances) > 1 or cur.end is not None:
        last = p.instances[-1] if cur.end is not None else p.instances[-2]
        term = LAST_TERMINATION[p.name]
        cs["lastState"] = {
            "terminated": {
                "exitCode": term[0],
                "reason": term[1],
                "startedAt": z(last.start),
                "finishedAt": z(last.end),
                "containerID": last.cid,
            }
        }
    else:
        cs["lastState"] = {}
    ready_cond = {
        "type": "Ready",
        "status": "True" if p.ready else "False",
        "lastProbeTime": None,
        "lastTransitionTime": z(
            ready_at if p.ready else p.instances[0].start + timedelta(seconds=2)
        ),
    }
    cready = dict(ready_cond, type="ContainersReady")
    if not p.ready:
        reason = {
            "reason": "ContainersNotReady",
            "message": f"containers with unready status: [{svc.container}]",
        }
        ready_cond.update(reason)
        cready.update(reason)
    status = {
        "phase": "Running",
        "hostIP": node.ip,
        "hostIPs": [{"ip": node.ip}],
        "podIP": p.ip,
        "podIPs": [{"ip": p.ip}],
        "startTime": z(p.created),
        "qosClass": qos,
        "conditions": [
            {
                "type": "PodReadyToStartContainers",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": z(p.created + timedelta(seconds=2)),
            },
            {
                "type": "Initialized",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": z(p.created),
            },
            ready_cond,
            cready,
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": z(p.created),
            },
        ],
        "containerStatuses": [cs],
    }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


LAST_TERMINATION: dict[str, tuple[int, str]] = {}
# ids of objects that also appear in the public example worlds
EXAMPLE_IDS = {
    "dc-a/Service/service-a": "0d6b2e9f-4a1c-4e73-8f5d-b2c9a7e1d046",
    "dc-a/EndpointSlice/service-a": "e7a3c1b9-6d0f-4b52-9e84-1f3a5c7d9b20",
    "dc-a/Node/worker-04": "2f8c6a1d-9e3b-4d75-a0c2-7b5e9f1d3a68",
    "dc-a/Node/worker-05": "6c1a9d4e-2b7f-4e08-93d5-a8f2c6b0e417",
}
EXAMPLE_SLICES = {"dc-a/service-a": "service-a-7h2kd"}


def service_objs(cl: Cluster, svc_name: str) -> None:
    svc = SVCS[svc_name]
    svc_uid = EXAMPLE_IDS.get(f"{cl.env}/Service/{svc.name}") or uid(
        cl.env, "svc", svc.ns, svc.name
    )
    slice_name = (
        EXAMPLE_SLICES.get(f"{cl.env}/{svc.name}")
        or f"{svc.name}-{suffix(5, cl.env, 'eps', svc.name)}"
    )
    slice_uid = EXAMPLE_IDS.get(f"{cl.env}/EndpointSlice/{svc.name}") or uid(
        cl.env, "eps", svc.name
    )
    net = {"dc-a": "10.96", "dc-b": "10.112", "stage": "10.128"}[cl.env]
    d = h("clusterip", cl.env, svc.name)
    cl.objects.append(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {
                "name": svc.name,
                "namespace": svc.ns,
                "uid": svc_uid,
                "resourceVersion": rv(cl.env, "svc", svc.name),
                "creationTimestamp": z(cl.created[svc.name]),
                "labels": {"app.kubernetes.io/name": svc.name},
            },
            "spec": {
                "type": "ClusterIP",
                "clusterIP": f"{net}.{int(d[2:4], 16) % 250 + 1}.{int(d[4:6], 16) % 250 + 1}",
                "selector": {"app.kubernetes.io/name": svc.name},
                "ports": [{"name": "http", "port": 80, "targetPort": svc.port, "protocol": "TCP"}],
            },
        }
    )
    endpoints = []
    for p in cl.pods:
        if p.svc is not svc or p.ip is None:
            continue
        endpoints.append(
            {
                "addresses": [p.ip],
                "conditions": {"ready": p.ready, "serving": p.ready, "terminating": False},
                "nodeName": p.node,
                "targetRef": {"kind": "Pod", "name": p.name, "namespace": p.ns, "uid": p.uid},
            }
        )
    cl.objects.append(
        {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "name": slice_name,
                "namespace": svc.ns,
                "uid": slice_uid,
                "resourceVersion": rv(cl.env, "eps", svc.name),
                "creationTimestamp": z(cl.created[svc.name] + timedelta(seconds=1)),
                "generateName": f"{svc.name}-",
                "labels": {
                    "kubernetes.io/service-name": svc.name,
                    "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
                },
                "ownerReferences": [owner("Service", "v1", svc.name, svc_uid)],
            },
            "addressType": "IPv4",
            "endpoints": endpoints,
            "ports": [{"name": "http", "port": svc.port, "protocol": "TCP"}],
        }
    )


def namespace_obj(cl: Cluster, ns: str) -> dict[str, Any]:
    oldest = min(cl.created[p.svc.name] for p in cl.pods if p.ns == ns)
    created = oldest - timedelta(days=2, minutes=int(frac("ns", cl.env, ns) * 600))
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": ns,
            "uid": uid(cl.env, "ns", ns),
            "resourceVersion": rv(cl.env, "ns", ns),
            "creationTimestamp": z(created),
            "labels": {"kubernetes.io/metadata.name": ns},
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


def quota_obj(cl: Cluster, ns: str, name: str, hard: dict[str, str]) -> dict[str, Any]:
    pods = [p for p in cl.pods if p.ns == ns]
    used = {
        "pods": str(len(pods)),
        "requests.cpu": cpu_q(sum(cpu_m(p.req[0]) for p in pods)),
        "requests.memory": mem_q(sum(mem_b(p.req[1]) for p in pods)),
    }
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {
            "name": name,
            "namespace": ns,
            "uid": uid(cl.env, "quota", ns),
            "resourceVersion": rv(cl.env, "quota", ns, len(pods)),
            "creationTimestamp": z(at("10:20:00", 2, 6)),
        },
        "spec": {"hard": hard},
        "status": {"hard": hard, "used": {k: used[k] for k in hard}},
    }


def event(
    cl: Cluster,
    ns: str,
    obj: dict[str, str],
    reason: str,
    message: str,
    *,
    first: datetime,
    last: datetime | None = None,
    count: int = 1,
    type_: str = "Normal",
    component: str = "kubelet",
    host: str | None = None,
    field_path: str | None = None,
) -> None:
    last = last or first
    inv = {
        "apiVersion": obj.get("apiVersion", "v1"),
        "kind": obj["kind"],
        "name": obj["name"],
        "namespace": ns,
        "uid": obj["uid"],
        "resourceVersion": rv(cl.env, "inv", obj["name"]),
    }
    if field_path:
        inv["fieldPath"] = field_path
    nanos = int(first.timestamp()) * 10**9 + int(frac("ev", obj["name"], reason, first) * 10**9)
    cl.events.append(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{obj['name']}.{nanos:x}",
                "namespace": ns,
                "uid": uid(cl.env, "event", obj["name"], reason, first),
                "resourceVersion": rv(cl.env, "event", obj["name"], reason, last),
                "creationTimestamp": z(first),
            },
            "involvedObject": inv,
            "reason": reason,
            "message": message,
            "source": {"component": component, **({"host": host} if host else {})},
            "firstTimestamp": z(first),
            "lastTimestamp": z(last),
            "count": count,
            "type": type_,
            "eventTime": None,
            "reportingComponent": component,
            "reportingInstance": host or "",
        }
    )


def scheduler_event(
    cl: Cluster,
    p: PodInfo,
    reason: str,
    message: str,
    *,
    first: datetime,
    type_: str = "Normal",
    series_count: int = 0,
    last: datetime | None = None,
    instance: str = "default-scheduler",
) -> None:
    """events.k8s.io/v1 events (the scheduler's) as the core/v1 API shows them: no
    first/lastTimestamp, an eventTime and, when repeated, a series."""
    nanos = int(first.timestamp()) * 10**9 + int(frac("sev", p.name, reason) * 10**9)
    ev: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{p.name}.{nanos:x}",
            "namespace": p.ns,
            "uid": uid(cl.env, "event", p.name, reason),
            "resourceVersion": rv(cl.env, "event", p.name, reason),
            "creationTimestamp": z(first),
        },
        "involvedObject": {
            "apiVersion": "v1",
            "kind": "Pod",
            "name": p.name,
            "namespace": p.ns,
            "uid": p.uid,
            "resourceVersion": rv(cl.env, "inv", p.name),
        },
        "reason": reason,
        "message": message,
        "source": {},
        "firstTimestamp": None,
        "lastTimestamp": None,
        "type": type_,
        "eventTime": zus(first),
        "action": "Scheduling" if reason == "FailedScheduling" else "Binding",
        "reportingComponent": "default-scheduler",
        "reportingInstance": instance,
    }
    if series_count and last:
        ev["series"] = {"count": series_count, "lastObservedTime": zus(last)}
    cl.events.append(ev)


def pod_ref(p: PodInfo) -> dict[str, str]:
    return {"kind": "Pod", "name": p.name, "uid": p.uid}


def container_events(cl: Cluster, p: PodInfo, *, pulled_first: str | None = None) -> None:
    """Pulled / Created / Started for every instance; BackOff between crashes."""
    fp = f"spec.containers{{{p.svc.container}}}"
    starts = [i.start for i in p.instances]
    if pulled_first:
        event(
            cl,
            p.ns,
            pod_ref(p),
            "Pulling",
            f'Pulling image "{p.image}"',
            first=p.created + timedelta(seconds=1),
            host=p.node,
            field_path=fp,
        )
        event(
            cl,
            p.ns,
            pod_ref(p),
            "Pulled",
            pulled_first.format(image=p.image),
            first=starts[0] - timedelta(seconds=1),
            host=p.node,
            field_path=fp,
        )
        if len(starts) > 1:
            event(
                cl,
                p.ns,
                pod_ref(p),
                "Pulled",
                f'Container image "{p.image}" already present on machine',
                first=starts[1] - timedelta(seconds=1),
                last=starts[-1] - timedelta(seconds=1),
                count=len(starts) - 1,
                host=p.node,
                field_path=fp,
            )
        first_cs = starts[0]
        n = len(starts)
    else:  # the pod's first start is older than the event TTL: only restarts remain
        event(
            cl,
            p.ns,
            pod_ref(p),
            "Pulled",
            f'Container image "{p.image}" already present on machine',
            first=starts[1] - timedelta(seconds=1),
            last=starts[-1] - timedelta(seconds=1),
            count=len(starts) - 1,
            host=p.node,
            field_path=fp,
        )
        first_cs = starts[1]
        n = len(starts) - 1
    event(
        cl,
        p.ns,
        pod_ref(p),
        "Created",
        f"Created container {p.svc.container}",
        first=first_cs - timedelta(milliseconds=400),
        last=starts[-1] - timedelta(milliseconds=400),
        count=n,
        host=p.node,
        field_path=fp,
    )
    event(
        cl,
        p.ns,
        pod_ref(p),
        "Started",
        f"Started container {p.svc.container}",
        first=first_cs,
        last=starts[-1],
        count=n,
        host=p.node,
        field_path=fp,
    )
    ends = [i.end for i in p.instances if i.end is not None]
    if ends:
        waiting = p.instances[-1].end is not None
        resumed = [*starts[1:], NOW] if waiting else starts[1:]
        count = sum(
            max(1, int((nxt - end).total_seconds() // 10))
            for end, nxt in zip(ends, resumed, strict=True)
        )
        last = NOW - timedelta(seconds=7) if waiting else starts[-1] - timedelta(seconds=2)
        event(
            cl,
            p.ns,
            pod_ref(p),
            "BackOff",
            f"Back-off restarting failed container {p.svc.container} in pod {p.name}_{p.ns}({p.uid})",
            first=ends[0] + timedelta(seconds=1),
            last=last,
            count=count,
            type_="Warning",
            host=p.node,
            field_path=fp,
        )


# --- metrics ---------------------------------------------------------------------------------


def ksm(name: str, **labels: str) -> dict[str, str]:
    return {"__name__": name, "job": "kube-state-metrics", **labels}


def pod_metrics(cl: Cluster, p: PodInfo) -> None:
    """kube-state-metrics and cAdvisor series for one pod."""
    svc = p.svc
    times = fast_times()
    slow_start = max(T0, p.created)
    slow_start = T0 + timedelta(seconds=300 * -(-int((slow_start - T0).total_seconds()) // 300))
    n_slow = int((NOW - slow_start).total_seconds() // 300) + 1
    base = {"namespace": p.ns, "pod": p.name, "uid": p.uid, "container": svc.container}
    restarts_changing = any(r >= T0 for r in p.restarts)
    if restarts_changing:
        first = max(0, next(i for i, t in enumerate(times) if t >= p.created))
        vals = [sum(1 for r in p.restarts if r <= t) for t in times[first:]]
        cl.metrics.append(
            series(
                ksm("kube_pod_container_status_restarts_total", **base), vals, start=times[first]
            )
        )
    elif p.node:
        cl.metrics.append(
            series(
                ksm("kube_pod_container_status_restarts_total", **base),
                [len(p.restarts)] * n_slow,
                start=slow_start,
                step=300,
            )
        )
    node_label = p.node or ""
    for kind in ("requests", "limits"):
        q = p.req if kind == "requests" else p.lim
        for resource, unit, value in (
            ("cpu", "core", cpu_m(q[0]) / 1000),
            ("memory", "byte", mem_b(q[1])),
        ):
            cl.metrics.append(
                series(
                    ksm(
                        f"kube_pod_container_resource_{kind}",
                        **base,
                        node=node_label,
                        resource=resource,
                        unit=unit,
                    ),
                    [value] * n_slow,
                    start=slow_start,
                    step=300,
                )
            )
    if p.node is None:
        return
    node = cl.nodes[p.node]
    for idx, inst in enumerate(p.instances):
        end = inst.end or NOW + timedelta(seconds=1)
        if (end - inst.start).total_seconds() < 30 or end <= T0:
            continue
        grid = [t for t in times if inst.start + timedelta(seconds=15) <= t < end]
        if not grid:
            continue
        slice_id = (
            f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
            f"{p.uid.replace('-', '_')}.slice/cri-containerd-{inst.cid[13:]}.scope"
        )
        labels = {
            "job": "kubelet",
            "metrics_path": "/metrics/cadvisor",
            "instance": node.ip + ":10250",
            "node": p.node,
            "namespace": p.ns,
            "pod": p.name,
            "container": svc.container,
            "id": slice_id,
        }
        if p.mem_profile is None and not p.restarts:  # a flat gauge: 300 s is enough
            grid = [t for t in grid if int((t - T0).total_seconds()) % 300 == 0] or grid[:1]
        mem = []
        for t in grid:
            if p.mem_profile is not None:
                mem.append(p.mem_profile(idx, t))
            else:
                wobble = 1 + 0.04 * (frac("mem", cl.env, p.name, t) - 0.5)
                mem.append(int(svc.mem_mi * MI * wobble * (0.93 + 0.14 * frac("memlvl", p.name))))
        cl.metrics.append(
            series(
                {"__name__": "container_memory_working_set_bytes", **labels},
                mem,
                start=grid[0],
                step=int((grid[1] - grid[0]).total_seconds()) if len(grid) > 1 else 60,
            )
        )
        grid = [t for t in times if inst.start + timedelta(seconds=15) <= t < end]
        level = svc.cpu * (0.8 + 0.4 * frac("cpulvl", p.name))
        if cl.env == "dc-b" and svc.name in ("search-api", "auth-api", "catalog-api"):
            level *= 0.45
        total = (grid[0] - inst.start).total_seconds() * level
        cpu = []
        for i, t in enumerate(grid):
            if i:
                rate = level * (0.85 + 0.3 * frac("cpu", cl.env, p.name, t))
                if p.mem_profile is not None:
                    rate *= 1.6
                total += 60 * rate
            cpu.append(round(total, 3))
        cl.metrics.append(
            series({"__name__": "container_cpu_usage_seconds_total", **labels}, cpu, start=grid[0])
        )


INGRESS_BASE = {
    "job": "ingress-nginx",
    "controller_class": "k8s.io/ingress-nginx",
    "controller_namespace": "ingress-nginx",
}
CONTROLLER = {
    "dc-a": "ingress-nginx-controller-6f8d9c7b5-zq4mt",
    "dc-b": "ingress-nginx-controller-7b9c5d8f6-h2wnp",
}
BUCKETS = ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10"]
LATENCY_CDF = {
    "service-a": ([0.01, 0.06, 0.38, 0.71, 0.9, 0.975, 0.993, 0.998, 0.9995, 0.9999, 1.0], 0.046),
    "catalog-api": ([0.04, 0.21, 0.62, 0.86, 0.95, 0.985, 0.996, 0.999, 0.9998, 1.0, 1.0], 0.027),
}


@dataclass
class Route:
    svc: str
    host: str
    path: str
    method: str
    status: str
    rps: float  # steady rate; 0 for event-only series
    base: int  # counter value before the window


def ingress_metrics(
    cl: Cluster, routes: list[Route], events: dict[tuple[str, str, str], list[datetime]]
) -> None:
    """nginx_ingress_controller_requests per route; `events` adds discrete requests
    (502s, 413s ...) by (service, method, status) so counters match the edge logs."""
    times = fast_times()
    for r in routes:
        svc = SVCS[r.svc]
        labels = {
            "__name__": "nginx_ingress_controller_requests",
            **INGRESS_BASE,
            "controller_pod": CONTROLLER[cl.env],
            "namespace": svc.ns,
            "ingress": svc.name,
            "service": svc.name,
            "host": r.host,
            "path": r.path,
            "method": r.method,
            "status": r.status,
            "canary": "",
        }
        incs = []
        extra = events.get((r.svc, r.method, r.status), [])
        for i, t in enumerate(times):
            n = r.rps * 60 * (0.985 + 0.03 * frac("rps", cl.env, r.svc, r.method, r.status, t))
            inc = int(n) if i else 0
            if i:
                inc += sum(1 for e in extra if times[i - 1] < e <= t)
            incs.append(inc)
        values = cumulative(r.base, incs)
        cl.metrics.append(series(labels, values))
        if r.status == "200" and r.svc in LATENCY_CDF and r.method == "GET" and r.path == "/":
            cdf, mean = LATENCY_CDF[r.svc]
            hist = {k: v for k, v in labels.items() if k != "__name__"}
            for le, share in [*zip(BUCKETS, cdf, strict=True), ("+Inf", 1.0)]:
                cl.metrics.append(
                    series(
                        {
                            "__name__": "nginx_ingress_controller_request_duration_seconds_bucket",
                            **hist,
                            "le": le,
                        },
                        [int(v * share) for v in values],
                    )
                )
            cl.metrics.append(
                series(
                    {"__name__": "nginx_ingress_controller_request_duration_seconds_count", **hist},
                    values,
                )
            )
            cl.metrics.append(
                series(
                    {"__name__": "nginx_ingress_controller_request_duration_seconds_sum", **hist},
                    [round(v * mean * (1 + 0.002 * frac("sum", cl.env, r.svc)), 3) for v in values],
                )
            )


def node_network_metrics(
    cl: Cluster, *, softnet: bool, spike_node: str | None = None, spike: list[int] | None = None
) -> None:
    """node_exporter TCP and softnet counters per node. `spike` is the per-minute extra
    retransmitted segments on `spike_node` for the minutes ending 10:04 .. 10:13Z."""
    times = fast_times()
    spike_from = at("10:04:00")
    for name, n in cl.nodes.items():
        inst = {"job": "node-exporter", "instance": f"{name}:9100", "node": name}
        retr, outs = [], []
        for i, t in enumerate(times):
            base_rate = 22 + 14 * frac("retr", cl.env, name)
            r = int(60 * base_rate * (0.85 + 0.3 * frac("retr", cl.env, name, t))) if i else 0
            o = int(60 * 21000 * (0.9 + 0.2 * frac("out", cl.env, name, t))) if i else 0
            if name == spike_node and spike and spike_from <= t:
                k = int((t - spike_from).total_seconds() // 60)
                if k < len(spike):
                    r += spike[k]
            retr.append(r)
            outs.append(o)
        cl.metrics.append(
            series(
                {"__name__": "node_netstat_Tcp_RetransSegs", **inst},
                cumulative(int(h("rb", name)[:7], 16) + 40_000_000, retr),
            )
        )
        cl.metrics.append(
            series(
                {"__name__": "node_netstat_Tcp_OutSegs", **inst},
                cumulative(int(h("ob", name)[:9], 16) + 9_000_000_000, outs),
            )
        )
        if not softnet:
            continue
        for cpu in range(n.cpus):
            incs = []
            for i, t in enumerate(times):
                inc = 1 if i and frac("sq", cl.env, name, cpu, t) < 0.03 else 0
                if name == spike_node and spike and i:
                    k = int((t - spike_from).total_seconds() // 60)
                    if 0 <= k < len(spike):
                        inc += int(spike[k] / 420 * (0.6 + 0.8 * frac("sqs", cpu, k)))
                incs.append(inc)
            cl.metrics.append(
                series(
                    {"__name__": "node_softnet_times_squeezed_total", **inst, "cpu": str(cpu)},
                    cumulative(int(h("sb", name, cpu)[:4], 16) % 900, incs),
                )
            )


def workload_metrics(cl: Cluster, deployments: dict[str, tuple[int, int]]) -> None:
    """kube_deployment_spec_replicas / status_replicas_available (300 s)."""
    for name, (spec, available) in deployments.items():
        svc = SVCS[name]
        lab = {"namespace": svc.ns, "deployment": name}
        cl.metrics.append(
            series(ksm("kube_deployment_spec_replicas", **lab), [spec] * N_SLOW, step=300)
        )
        cl.metrics.append(
            series(
                ksm("kube_deployment_status_replicas_available", **lab),
                [available] * N_SLOW,
                step=300,
            )
        )


def endpoint_metrics(cl: Cluster, svc_name: str) -> None:
    svc = SVCS[svc_name]
    for p in cl.pods:
        if p.svc is svc and p.ip:
            start = max(T0, p.created)
            start = T0 + timedelta(seconds=300 * -(-int((start - T0).total_seconds()) // 300))
            n = int((NOW - start).total_seconds() // 300) + 1
            cl.metrics.append(
                series(
                    ksm(
                        "kube_endpoint_address",
                        namespace=svc.ns,
                        endpoint=svc.name,
                        ip=p.ip,
                        ready="true" if p.ready else "false",
                    ),
                    [1] * n,
                    start=start,
                    step=300,
                )
            )


# --- logs ------------------------------------------------------------------------------------

UAS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "okhttp/4.12.0",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
]
CLIENT_NETS = ["198.51.100", "203.0.113", "192.0.2"]


def client_ip(*parts: object) -> str:
    return f"{pick(CLIENT_NETS, 'net', *parts)}.{2 + int(h('cip', *parts)[:4], 16) % 250}"


def req_id(*parts: object) -> str:
    return h("reqid", *parts)[:32]


def access_doc(
    t: datetime,
    rid: str,
    edge: str,
    conn: int,
    host: str,
    method: str,
    path: str,
    status: int,
    upstream: str | None,
    ustatus: str,
    rtime: float,
    *,
    creqs: int = 1,
    client: str | None = None,
    header_time: str | None = None,
    bytes_sent: int = 0,
    ua: str | None = None,
    location: str | None = None,
    connect: str | None = None,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "@timestamp": zms(t),
        "request_id": rid,
        "edge_node": edge,
        "connection": conn,
        "connection_requests": creqs,
        "remote_addr": client or client_ip(rid),
        "host": host,
        "method": method,
        "path": path,
        "status": status,
        "upstream_status": ustatus,
        "upstream_addr": upstream or "-",
        "request_time": rtime,
    }
    if upstream:
        doc["upstream_connect_time"] = connect or ("0.001" if frac("ct", rid) < 0.7 else "0.000")
        doc["upstream_header_time"] = (
            header_time if header_time is not None else f"{max(rtime - 0.001, 0):.3f}"
        )
        doc["upstream_response_time"] = f"{max(rtime - 0.001, 0):.3f}"
    else:
        doc["upstream_response_time"] = "-"
    doc["bytes_sent"] = bytes_sent or (552 if status >= 500 else 400 + int(frac("b", rid) * 9000))
    if location:
        doc["upstream_redirect_location"] = location
    doc["user_agent"] = ua or pick(UAS, "ua", rid)
    return doc


def error_doc(
    t: datetime,
    edge: str,
    pid: int,
    conn: int,
    client: str,
    host: str,
    request: str,
    upstream: str | None,
    text: str,
    level: str = "error",
) -> dict[str, Any]:
    stamp = t.strftime("%Y/%m/%d %H:%M:%S")
    doc: dict[str, Any] = {
        "@timestamp": zms(t.replace(microsecond=0)),
        "edge_node": edge,
        "level": level,
        "pid": pid,
        "connection": conn,
        "client": client,
        "server": host,
        "host": host,
        "request": request,
    }
    tail = f', upstream: "{upstream}"' if upstream else ""
    if upstream:
        doc["upstream"] = upstream
    doc["message"] = (
        f"{stamp} [{level}] {pid}#{pid}: *{conn} {text}, client: {client}, server: {host}, "
        f'request: "{request}"{tail}, host: "{host}"'
    )
    return doc


def app_doc(
    t: datetime,
    svc: str,
    p: PodInfo | None,
    message: str,
    *,
    level: str = "INFO",
    logger: str = "http.access",
    rid: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    doc: dict[str, Any] = {"@timestamp": zms(t), "level": level, "logger": logger, "service": svc}
    if rid:
        doc["request_id"] = rid
    doc["message"] = message
    doc.update(extra)
    if p is not None:
        doc["kubernetes"] = {
            "namespace": p.ns,
            "pod": p.name,
            "container": p.svc.container,
            "node": p.node,
        }
    return doc


@dataclass
class Connections:
    """nginx connection ids (`*884213`): one counter per edge node, rising with time."""

    anchors: dict[str, tuple[datetime, int, float]]  # edge -> (time, id at that time, per second)
    used: set[int] = field(default_factory=set)

    def at(self, edge: str, t: datetime) -> int:
        when, base, rate = self.anchors[edge]
        n = base + int(rate * (t - when).total_seconds())
        while n in self.used:
            n += 1
        self.used.add(n)
        return n


def acs_location(target: int, *parts: object) -> str:
    """A 3-D Secure ACS redirect of exactly `target` bytes."""
    trans = uid("3ds", *parts)
    order = f"ORD-20260720-{558000 + int(h('ord', *parts)[:4], 16) % 999}"
    head = "https://acs.bank.example.net/3ds/v2/challenge?creq="
    tail = (
        f"&threeDSServerTransID={trans}&returnUrl=https%3A%2F%2Fpay.example.com%2Fcheckout"
        f"%2F3ds-return%3Forder%3D{order}"
    )
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    need = target - len(head) - len(tail)
    creq, i = [], 0
    while len(creq) < need:
        for ch in h("creq", i, *parts):
            if len(creq) < need:
                creq.append(alphabet[(int(ch, 16) * 7 + len(creq)) % len(alphabet)])
        i += 1
    return head + "".join(creq) + tail


# --- clusters --------------------------------------------------------------------------------


def dc_a() -> Cluster:
    cl = Cluster("dc-a", "v1.30.4")
    for i, (cidr, zone) in enumerate(
        [
            ("10.42.0", "r1"),
            ("10.42.1", "r1"),
            ("10.42.2", "r2"),
            ("10.42.3", "r2"),
            ("10.42.5", "r3"),
            ("10.42.8", "r3"),
        ],
        start=1,
    ):
        name = f"worker-0{i}"
        cl.nodes[name] = NodeInfo(
            name,
            f"10.20.1.{10 + i}",
            cidr,
            16,
            "15800m",
            65843516,
            64192828,
            f"dc-a-{zone}",
            at("10:01:33", 2, 6, 2025) + timedelta(minutes=2 * i),
        )
    # story 1 objects keep the names and ids of the public example world
    a_rs = RS(
        "5d8f7c9b4", 31, "3.12.4", at("09:40:51", 17), 2, uid="c41e9a0d-7b3f-4f62-8d25-1e6a9c7b4f03"
    )
    a_old = RS(
        "7c6b5d4f8",
        30,
        "3.12.3",
        at("08:22:14", 14),
        0,
        uid=uid("dc-a", "rs", "service-a-7c6b5d4f8"),
    )
    make_pod(
        cl,
        "service-a",
        a_rs,
        "worker-04",
        created=at("09:40:51", 17),
        ip="10.42.3.17",
        name="service-a-5d8f7c9b4-x2k9p",
        pod_uid="8e2d4c61-0f5a-4b97-a3c8-6d1e7f2b9a54",
        instances=[
            Instance(
                "containerd://1b7e4c9d2a5f8e0c3b6d9a2f5e8c1b4d7a0e3f6c9b2d5a8e1f4c7b0d3a6e9f2c5",
                at("09:40:56", 17),
                None,
            )
        ],
    )
    make_pod(
        cl,
        "service-a",
        a_rs,
        "worker-05",
        created=at("09:41:10", 17),
        ip="10.42.5.22",
        name="service-a-5d8f7c9b4-m7q4d",
        pod_uid="3a9f1e7c-5d2b-4c80-b6e4-0c8d2a5f7b91",
        instances=[
            Instance(
                "containerd://9d2c5f8a1e4b7d0c3f6a9e2b5d8c1f4a7e0b3d6c9f2a5e8b1d4c7f0a3e6b9d2c8",
                at("09:41:14", 17),
                None,
            )
        ],
    )
    workload(
        cl,
        "service-a",
        replicas=2,
        generation=31,
        created=at("08:12:40", 3, 11, 2025),
        sets=[a_rs, a_old],
        uid_override="5b0e3f7a-2c41-4d8e-9a16-7f3c0b9d2e58",
        ci={
            "ci.example.com/pipeline-url": f"{GITLAB}/payments/service-a/-/pipelines/88412",
            "ci.example.com/job-url": f"{GITLAB}/payments/service-a/-/jobs/5469710",
            "ci.example.com/commit-sha": COMMITS["a2"],
        },
    )

    # story 2: service-b
    b_rs = RS(
        "6f9c8d7b5",
        12,
        "1.9.3",
        at("07:12:20", 18),
        2,
        uid=uid("dc-a", "rs", "service-b-6f9c8d7b5"),
    )
    b_old = RS(
        "85c7d9f4b", 11, "1.9.2", at("13:05:44", 9), 0, uid=uid("dc-a", "rs", "service-b-85c7d9f4b")
    )
    runs = [478, 441, 503, 462, 437, 455]  # seconds each restarted instance lived
    backoff = [10, 20, 40, 80, 160, 300, 300]
    ooms = [at("10:29:07")]
    starts = [at("07:12:36", 18)]
    for k in range(7):
        starts.append(ooms[k] + timedelta(seconds=backoff[k] + 2))
        if k < 6:
            ooms.append(starts[-1] + timedelta(seconds=runs[k]))
    name_b = "service-b-6f9c8d7b5-q8n4t"
    inst = [
        Instance(cid("dc-a", name_b, k), starts[k], ooms[k] if k < 7 else None) for k in range(8)
    ]
    leak_from = at("10:16:00")

    def b_mem(k: int, t: datetime) -> int:
        floor, limit = 190 * MI, 536_870_912
        if k == 0 and t < leak_from:
            return int(236 * MI * (1 + 0.03 * (frac("bmem", t) - 0.5)))
        begin = leak_from if k == 0 else starts[k] + timedelta(seconds=20)
        lo = 236 * MI if k == 0 else floor
        end = ooms[k] if k < 7 else starts[k] + timedelta(seconds=640)
        share = max(0.0, (t - begin).total_seconds() / (end - begin).total_seconds())
        return min(
            int(lo + (limit - lo) * share * (0.985 + 0.03 * frac("bm", k, t))), limit - 2 * MI
        )

    pb = make_pod(
        cl,
        "service-b",
        b_rs,
        "worker-06",
        created=at("07:12:31", 18),
        name=name_b,
        instances=inst,
        restarts=starts[1:],
    )
    pb.mem_profile = b_mem
    LAST_TERMINATION[name_b] = (137, "OOMKilled")
    make_pod(
        cl,
        "service-b",
        b_rs,
        "worker-02",
        created=at("07:12:49", 18),
        name="service-b-6f9c8d7b5-jw2xl",
    )
    workload(
        cl,
        "service-b",
        replicas=2,
        generation=12,
        created=at("14:02:11", 22, 9, 2025),
        sets=[b_rs, b_old],
        conditions=[
            {
                "type": "Progressing",
                "status": "True",
                "reason": "NewReplicaSetAvailable",
                "message": 'ReplicaSet "service-b-6f9c8d7b5" has successfully progressed.',
                "lastUpdateTime": z(at("07:13:20", 18)),
                "lastTransitionTime": z(at("14:02:11", 22, 9, 2025)),
            },
            {
                "type": "Available",
                "status": "True",
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability.",
                "lastUpdateTime": z(starts[7] + timedelta(seconds=12)),
                "lastTransitionTime": z(starts[7] + timedelta(seconds=12)),
            },
        ],
    )
    container_events(cl, pb)
    cl.story["b"] = (ooms, starts)

    c_rs = RS(
        "58b4d6c7f9",
        17,
        "1.13.2",
        at("10:57:48", 17),
        3,
        uid=uid("dc-a", "rs", "service-c-58b4d6c7f9"),
    )
    for i, node in enumerate(["worker-01", "worker-03", "worker-05"]):
        make_pod(
            cl, "service-c", c_rs, node, created=at("10:57:48", 17) + timedelta(seconds=14 * i)
        )
    workload(
        cl,
        "service-c",
        replicas=3,
        generation=17,
        created=at("12:20:05", 10, 9, 2025),
        sets=[c_rs],
        ci={
            "ci.example.com/pipeline-url": f"{GITLAB}/orders/service-c/-/pipelines/89950",
            "ci.example.com/job-url": f"{GITLAB}/orders/service-c/-/jobs/5480320",
            "ci.example.com/commit-sha": COMMITS["c1"],
        },
        max_surge=1,
    )
    d_rs = RS(
        "5f7d8c6b9",
        23,
        "2.3.1",
        at("12:41:33", 15),
        2,
        uid=uid("dc-a", "rs", "service-d-5f7d8c6b9"),
    )
    for i, node in enumerate(["worker-02", "worker-04"]):
        make_pod(
            cl, "service-d", d_rs, node, created=at("12:41:33", 15) + timedelta(seconds=17 * i)
        )
    workload(
        cl,
        "service-d",
        replicas=2,
        generation=23,
        created=at("09:15:27", 2, 2),
        sets=[d_rs],
        env_vars=SERVICE_D_ENV,
        ci={
            "ci.example.com/pipeline-url": f"{GITLAB}/orders/service-d/-/pipelines/89811",
            "ci.example.com/job-url": f"{GITLAB}/orders/service-d/-/jobs/5461402",
            "ci.example.com/commit-sha": COMMITS["d1"],
        },
        max_surge="50%",
    )
    cat_rs = RS(
        "6d9f8b7c5",
        42,
        "7.3.0",
        at("08:20:14", 9),
        6,
        uid=uid("dc-a", "rs", "catalog-api-6d9f8b7c5"),
    )
    for i in range(6):
        node = f"worker-0{i + 1}"
        make_pod(
            cl,
            "catalog-api",
            cat_rs,
            node,
            created=at("08:20:14", 9) + timedelta(seconds=19 * i),
            ip="10.42.8.31" if node == "worker-06" else None,
        )
    workload(
        cl,
        "catalog-api",
        replicas=6,
        generation=42,
        created=at("07:30:12", 14, 4, 2025),
        sets=[cat_rs],
        uid_override="3c8e1a5f-9b2d-4f70-a4e6-d1b7c9f2e085",
    )
    s_rs = RS(
        "79c5b8d6f4",
        26,
        "5.8.1",
        at("15:02:09", 13),
        3,
        uid=uid("dc-a", "rs", "search-api-79c5b8d6f4"),
    )
    for i, node in enumerate(["worker-02", "worker-03", "worker-06"]):
        make_pod(
            cl, "search-api", s_rs, node, created=at("15:02:09", 13) + timedelta(seconds=23 * i)
        )
    workload(
        cl, "search-api", replicas=3, generation=26, created=at("11:48:30", 20, 1), sets=[s_rs]
    )
    au_rs = RS(
        "5b8f6d9c7", 19, "4.2.0", at("06:45:50", 16), 2, uid=uid("dc-a", "rs", "auth-api-5b8f6d9c7")
    )
    au_pods = [
        make_pod(
            cl, "auth-api", au_rs, node, created=at("06:45:50", 16) + timedelta(seconds=16 * i)
        )
        for i, node in enumerate(["worker-01", "worker-04"])
    ]
    workload(
        cl, "auth-api", replicas=2, generation=19, created=at("10:05:00", 8, 12, 2025), sets=[au_rs]
    )
    # noise: one slow readiness probe, no restart
    event(
        cl,
        "auth",
        pod_ref(au_pods[0]),
        "Unhealthy",
        f'Readiness probe failed: Get "http://{au_pods[0].ip}:8080/healthz/ready": context deadline '
        "exceeded (Client.Timeout exceeded while awaiting headers)",
        first=at("11:24:31"),
        type_="Warning",
        host=au_pods[0].node,
        field_path="spec.containers{api}",
    )
    return cl


SERVICE_D_ENV = [
    {
        "name": "ORDERS_DB_DSN",
        "valueFrom": {"secretKeyRef": {"name": "service-d-db", "key": "dsn"}},
    },
    {"name": "LOG_LEVEL", "value": "info"},
]


def dc_b() -> Cluster:
    cl = Cluster("dc-b", "v1.30.4")
    for i, nn in enumerate([15, 16, 17, 18]):
        name = f"worker-{nn}"
        cl.nodes[name] = NodeInfo(
            name,
            f"10.61.2.{nn}",
            f"10.52.{nn}",
            8,
            "7800m",
            32863784,
            31712312,
            f"dc-b-r{1 + i // 2}",
            at("11:20:07", 9, 3) + timedelta(minutes=3 * i),
            extra_labels={
                "node.kubernetes.io/instance-type": "vm-8c32g",
                "infra.example.com/hypervisor": f"esx-b-0{3 + i}",
            },
            provider=f"vsphere://{uid('vm', name)}",
        )
    a_rs = RS(
        "5d8f7c9b4",
        29,
        "3.12.4",
        at("09:46:12", 17),
        2,
        uid=uid("dc-b", "rs", "service-a-5d8f7c9b4"),
    )
    for i, node in enumerate(["worker-15", "worker-18"]):
        make_pod(
            cl, "service-a", a_rs, node, created=at("09:46:12", 17) + timedelta(seconds=18 * i)
        )
    workload(
        cl,
        "service-a",
        replicas=2,
        generation=29,
        created=at("08:31:02", 3, 11, 2025),
        sets=[a_rs],
        ci={
            "ci.example.com/pipeline-url": f"{GITLAB}/payments/service-a/-/pipelines/88412",
            "ci.example.com/job-url": f"{GITLAB}/payments/service-a/-/jobs/5469711",
            "ci.example.com/commit-sha": COMMITS["a2"],
        },
    )
    b_rs = RS(
        "6f9c8d7b5",
        12,
        "1.9.3",
        at("07:20:02", 18),
        2,
        uid=uid("dc-b", "rs", "service-b-6f9c8d7b5"),
    )
    for i, node in enumerate(["worker-16", "worker-18"]):
        make_pod(
            cl, "service-b", b_rs, node, created=at("07:20:02", 18) + timedelta(seconds=15 * i)
        )
    workload(
        cl, "service-b", replicas=2, generation=12, created=at("14:09:40", 22, 9, 2025), sets=[b_rs]
    )
    c_rs = RS(
        "58b4d6c7f9",
        17,
        "1.13.2",
        at("11:02:40", 17),
        3,
        uid="9c3a7e1b-5f2d-4b86-a9e0-4d7c2f8b1a36",
    )
    for i, node in enumerate(["worker-15", "worker-16", "worker-18"]):
        make_pod(
            cl, "service-c", c_rs, node, created=at("11:02:40", 17) + timedelta(seconds=13 * i)
        )
    workload(
        cl,
        "service-c",
        replicas=3,
        generation=17,
        created=at("12:20:05", 10, 9, 2025),
        sets=[c_rs],
        uid_override="71c4e9a2-3d8b-4f05-a6e1-9b2d7c0f4e83",
        ci={
            "ci.example.com/pipeline-url": f"{GITLAB}/orders/service-c/-/pipelines/89950",
            "ci.example.com/job-url": f"{GITLAB}/orders/service-c/-/jobs/5480321",
            "ci.example.com/commit-sha": COMMITS["c1"],
        },
        max_surge=1,
    )

    # story 3: service-d 2.4.0 crash-loops, 2.3.1 keeps serving
    d_new = RS(
        "7b6c9f5d84", 24, "2.4.0", DEPLOY_D, 2, uid=uid("dc-b", "rs", "service-d-7b6c9f5d84")
    )
    d_old = RS(
        "5f7d8c6b9",
        23,
        "2.3.1",
        at("12:49:10", 15),
        4,
        uid=uid("dc-b", "rs", "service-d-5f7d8c6b9"),
    )
    for i, node in enumerate(["worker-15", "worker-16", "worker-18", "worker-15"]):
        make_pod(
            cl, "service-d", d_old, node, created=at("12:49:10", 15) + timedelta(seconds=16 * i)
        )
    crashers = []
    for j, (node, sfx) in enumerate([("worker-16", "r2vxk"), ("worker-18", "t8mzq")]):
        name = f"service-d-7b6c9f5d84-{sfx}"
        created = DEPLOY_D + timedelta(milliseconds=180 + 90 * j)
        start = created + timedelta(seconds=5 + 2 * j)
        inst, k = [], 0
        while start < NOW:
            end = start + timedelta(milliseconds=1150 + int(frac("crash", name, k) * 400))
            inst.append(Instance(cid("dc-b", name, k), start, end))
            start = end + timedelta(
                seconds=min(10 * 2**k, 300) + 1 + int(frac("sync", name, k) * 2)
            )
            k += 1
        p = make_pod(
            cl,
            "service-d",
            d_new,
            node,
            created=created,
            name=name,
            instances=inst,
            ready=False,
            restarts=[i.start for i in inst[1:]],
        )
        LAST_TERMINATION[name] = (1, "Error")
        crashers.append(p)
    progress_deadline = DEPLOY_D + timedelta(seconds=600)
    workload(
        cl,
        "service-d",
        replicas=4,
        generation=24,
        created=at("09:15:27", 2, 2),
        sets=[d_new, d_old],
        env_vars=SERVICE_D_ENV,
        max_surge="50%",
        ci={
            "ci.example.com/pipeline-url": f"{GITLAB}/orders/service-d/-/pipelines/90402",
            "ci.example.com/job-url": f"{GITLAB}/orders/service-d/-/jobs/5531195",
            "ci.example.com/commit-sha": COMMITS["d2"],
        },
        conditions=[
            {
                "type": "Available",
                "status": "True",
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability.",
                "lastUpdateTime": z(at("12:49:58", 15)),
                "lastTransitionTime": z(at("12:49:58", 15)),
            },
            {
                "type": "Progressing",
                "status": "False",
                "reason": "ProgressDeadlineExceeded",
                "message": 'ReplicaSet "service-d-7b6c9f5d84" has timed out progressing.',
                "lastUpdateTime": z(progress_deadline + timedelta(seconds=1)),
                "lastTransitionTime": z(progress_deadline + timedelta(seconds=1)),
            },
        ],
    )
    dep = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "service-d",
        "uid": uid("dc-b", "deploy", "orders", "service-d"),
    }
    rs_ref = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": "service-d-7b6c9f5d84",
        "uid": d_new.uid,
    }
    event(
        cl,
        "orders",
        dep,
        "ScalingReplicaSet",
        "Scaled up replica set service-d-7b6c9f5d84 to 2 from 0",
        first=DEPLOY_D,
        component="deployment-controller",
    )
    for p in crashers:
        event(
            cl,
            "orders",
            rs_ref,
            "SuccessfulCreate",
            f"Created pod: {p.name}",
            first=p.created,
            component="replicaset-controller",
        )
        scheduler_event(
            cl,
            p,
            "Scheduled",
            f"Successfully assigned orders/{p.name} to {p.node}",
            first=p.created + timedelta(milliseconds=40),
            instance="default-scheduler-cp-b-02",
        )
        container_events(
            cl,
            p,
            pulled_first='Successfully pulled image "{image}" in 3.912s (3.912s '
            "including waiting). Image size: 48213577 bytes.",
        )
    cl.story["d"] = crashers

    cat_rs = RS(
        "6d9f8b7c5",
        40,
        "7.3.0",
        at("08:31:40", 9),
        3,
        uid=uid("dc-b", "rs", "catalog-api-6d9f8b7c5"),
    )
    for i, node in enumerate(["worker-15", "worker-16", "worker-18"]):
        make_pod(
            cl, "catalog-api", cat_rs, node, created=at("08:31:40", 9) + timedelta(seconds=21 * i)
        )
    workload(
        cl,
        "catalog-api",
        replicas=3,
        generation=40,
        created=at("07:41:55", 14, 4, 2025),
        sets=[cat_rs],
        uid_override="8f4b2d7e-1c6a-4e39-b5d0-7a2e9c4f1b63",
    )
    # story 4: one search-api and one auth-api pod on worker-17
    s_rs = RS(
        "79c5b8d6f4",
        26,
        "5.8.1",
        at("15:10:33", 13),
        3,
        uid=uid("dc-b", "rs", "search-api-79c5b8d6f4"),
    )
    for i, node in enumerate(["worker-17", "worker-15", "worker-16"]):
        make_pod(
            cl,
            "search-api",
            s_rs,
            node,
            created=at("15:10:33", 13) + timedelta(seconds=22 * i),
            ip="10.52.17.23" if node == "worker-17" else None,
        )
    workload(
        cl, "search-api", replicas=3, generation=26, created=at("11:52:03", 20, 1), sets=[s_rs]
    )
    ix_rs = RS(
        "6c7d9b8f5",
        14,
        "5.8.1",
        at("15:10:35", 13),
        1,
        uid=uid("dc-b", "rs", "search-indexer-6c7d9b8f5"),
    )
    make_pod(cl, "search-indexer", ix_rs, "worker-17", created=at("15:10:35", 13))
    workload(
        cl, "search-indexer", replicas=1, generation=14, created=at("11:52:04", 20, 1), sets=[ix_rs]
    )
    au_rs = RS(
        "5b8f6d9c7", 19, "4.2.0", at("06:52:18", 16), 3, uid=uid("dc-b", "rs", "auth-api-5b8f6d9c7")
    )
    for i, node in enumerate(["worker-17", "worker-18", "worker-16"]):
        make_pod(
            cl,
            "auth-api",
            au_rs,
            node,
            created=at("06:52:18", 16) + timedelta(seconds=17 * i),
            ip="10.52.17.41" if node == "worker-17" else None,
        )
    workload(
        cl, "auth-api", replicas=3, generation=19, created=at("10:11:19", 8, 12, 2025), sets=[au_rs]
    )
    return cl


DEPLOY_D = at("10:52:13.402")
STAGE_UNSCHEDULABLE = (
    "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. "
    "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
    "2 No preemption victims found for incoming pod."
)
SCALE_PUSH = at("11:18:40.226")


def stage() -> Cluster:
    cl = Cluster("stage", "v1.30.6")
    for i in (1, 2, 3):
        name = f"stage-worker-0{i}"
        cl.nodes[name] = NodeInfo(
            name,
            f"10.70.0.{10 + i}",
            f"10.72.{i}",
            2,
            "1930m",
            8148980,
            7444468,
            "stage-r1",
            at("15:40:00", 2, 7) + timedelta(minutes=4 * i),
            cordoned_at=at("08:55:12") if i == 3 else None,
        )
    push = RS(
        "5c8d7f6b9",
        7,
        "1.6.0",
        at("16:04:22", 19),
        9,
        uid=uid("stage", "rs", "notify-push-5c8d7f6b9"),
    )
    for i, node in enumerate(["stage-worker-01"] * 3 + ["stage-worker-02"] * 3):
        make_pod(
            cl, "notify-push", push, node, created=at("16:04:22", 19) + timedelta(seconds=9 * i)
        )
    new_run = make_pod(
        cl,
        "notify-push",
        push,
        "stage-worker-01",
        created=SCALE_PUSH + timedelta(milliseconds=310),
        name="notify-push-5c8d7f6b9-wq7zd",
    )
    pending = make_pod(
        cl,
        "notify-push",
        push,
        None,
        created=SCALE_PUSH + timedelta(milliseconds=335),
        name="notify-push-5c8d7f6b9-hx4mb",
        ready=False,
        phase="Pending",
    )
    email = RS(
        "7f6d5c8b9",
        9,
        "1.6.0",
        at("16:04:25", 19),
        7,
        uid=uid("stage", "rs", "notify-email-7f6d5c8b9"),
    )
    for i, node in enumerate(
        ["stage-worker-01"] * 3 + ["stage-worker-02"] * 3 + ["stage-worker-03"]
    ):
        make_pod(
            cl, "notify-email", email, node, created=at("16:04:25", 19) + timedelta(seconds=8 * i)
        )
    sms = RS(
        "84d9c6b7f",
        5,
        "1.5.2",
        at("10:11:05", 12),
        4,
        uid=uid("stage", "rs", "notify-sms-84d9c6b7f"),
    )
    for i, node in enumerate(["stage-worker-02"] * 2 + ["stage-worker-03"] * 2):
        make_pod(
            cl, "notify-sms", sms, node, created=at("10:11:05", 12) + timedelta(seconds=11 * i)
        )
    cat = RS(
        "7d8c6f9b5",
        51,
        "7.4.0-rc.1",
        at("13:30:09", 18),
        1,
        uid=uid("stage", "rs", "catalog-api-7d8c6f9b5"),
    )
    make_pod(cl, "catalog-api", cat, "stage-worker-01", created=at("13:30:09", 18))
    sa = RS(
        "6b9d8c7f5",
        44,
        "3.13.0-rc.2",
        at("11:02:37", 19),
        1,
        uid=uid("stage", "rs", "service-a-6b9d8c7f5"),
    )
    make_pod(cl, "service-a", sa, "stage-worker-02", created=at("11:02:37", 19))

    refused = f"notify-push-5c8d7f6b9-{suffix(5, 'refused', 0)}"
    quota_msg = (
        "is forbidden: exceeded quota: notifications-quota, requested: requests.cpu=250m, "
        "used: requests.cpu=3800m, limited: requests.cpu=4"
    )
    failure = {
        "type": "ReplicaFailure",
        "status": "True",
        "reason": "FailedCreate",
        "message": f'pods "{refused}" {quota_msg}',
        "lastUpdateTime": z(SCALE_PUSH + timedelta(seconds=1)),
        "lastTransitionTime": z(SCALE_PUSH + timedelta(seconds=1)),
    }
    workload(
        cl,
        "notify-push",
        replicas=9,
        generation=11,
        created=at("09:12:44", 12, 5),
        sets=[push],
        conditions=[
            {
                "type": "Progressing",
                "status": "True",
                "reason": "NewReplicaSetAvailable",
                "message": 'ReplicaSet "notify-push-5c8d7f6b9" has successfully progressed.',
                "lastUpdateTime": z(at("16:05:03", 19)),
                "lastTransitionTime": z(at("09:12:44", 12, 5)),
            },
            {
                "type": "Available",
                "status": "True",
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability.",
                "lastUpdateTime": z(SCALE_PUSH),
                "lastTransitionTime": z(at("16:05:01", 19)),
            },
            failure,
        ],
    )
    workload(
        cl, "notify-email", replicas=7, generation=9, created=at("09:12:46", 12, 5), sets=[email]
    )
    workload(cl, "notify-sms", replicas=4, generation=5, created=at("09:12:47", 12, 5), sets=[sms])
    workload(cl, "catalog-api", replicas=1, generation=51, created=at("10:02:00", 1, 4), sets=[cat])
    workload(
        cl, "service-a", replicas=1, generation=44, created=at("08:40:13", 3, 11, 2025), sets=[sa]
    )

    dep = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "notify-push",
        "uid": uid("stage", "deploy", "notifications", "notify-push"),
    }
    rs_ref = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": "notify-push-5c8d7f6b9",
        "uid": push.uid,
    }
    event(
        cl,
        "notifications",
        dep,
        "ScalingReplicaSet",
        "Scaled up replica set notify-push-5c8d7f6b9 to 9 from 6",
        first=SCALE_PUSH,
        component="deployment-controller",
    )
    for p in (new_run, pending):
        event(
            cl,
            "notifications",
            rs_ref,
            "SuccessfulCreate",
            f"Created pod: {p.name}",
            first=p.created,
            component="replicaset-controller",
        )
    event(
        cl,
        "notifications",
        rs_ref,
        "FailedCreate",
        f'Error creating: pods "{refused}" {quota_msg}',
        first=SCALE_PUSH + timedelta(milliseconds=360),
        type_="Warning",
        component="replicaset-controller",
    )
    last_retry = SCALE_PUSH + timedelta(seconds=1)
    retries, delay = 0, 0.0
    while last_retry + timedelta(seconds=delay) < NOW - timedelta(seconds=30):
        last_retry += timedelta(seconds=delay)
        delay = min(max(delay * 2, 0.5), 1000)
        retries += 1
    other = f"notify-push-5c8d7f6b9-{suffix(5, 'refused', retries)}"
    event(
        cl,
        "notifications",
        rs_ref,
        "FailedCreate",
        f'(combined from similar events): Error creating: pods "{other}" {quota_msg}',
        first=SCALE_PUSH + timedelta(seconds=3),
        last=last_retry,
        count=retries,
        type_="Warning",
        component="replicaset-controller",
    )
    scheduler_event(
        cl,
        pending,
        "FailedScheduling",
        STAGE_UNSCHEDULABLE,
        type_="Warning",
        first=pending.created + timedelta(milliseconds=30),
        series_count=11,
        last=at("11:36:52.118"),
        instance="default-scheduler-stage-cp-01",
    )
    scheduler_event(
        cl,
        new_run,
        "Scheduled",
        f"Successfully assigned notifications/{new_run.name} to stage-worker-01",
        first=new_run.created + timedelta(milliseconds=25),
        instance="default-scheduler-stage-cp-01",
    )
    container_events(
        cl, new_run, pulled_first='Container image "{image}" already present on machine'
    )
    cl.story["quota"] = (pending, new_run)
    return cl


# --- GitLab ----------------------------------------------------------------------------------

COMMITS = {
    "a1": "b73e0c52a9d14f68e21c7a3b9d05f4e8c6a1b2d3",
    "a2": "e4f9a1c7d2b84036a5e9c1f7b3d08a2e6c4b9f15",
    "c0": "c5a9e3d7b1f04e8a2c6d0b9f3e7a1d5c8b2f6e04",
    "c1": "8d2e6b1f4a9c07e3d5b8f2a1c6e9d4b7a0f3c5e8",
    "d0": "4a7c2e9f1b3d5068a2c4e6f8b0d1a3c5e7f9b2d4",
    "d1": "2f6b9d3e8a1c4f07b5d2e9a6c3f0b8d1e4a7c5f2",
    "d2": "9b1e4f27c3a85d60e2b7f4a1c9d3e8b5a0f6c2d7",
}
USERS = {
    "e.kuznetsova": 1242,
    "r.belov": 1263,
    "v.sokolov": 1204,
    "a.petrov": 1187,
    "k.smirnova": 1219,
    "d.ivanov": 1231,
}
PROJECTS = {398: "payments/service-a", 412: "orders/service-c", 415: "orders/service-d"}


def gl_user(name: str) -> dict[str, Any]:
    return {
        "id": USERS[name],
        "username": name,
        "name": name,
        "state": "active",
        "web_url": f"{GITLAB}/{name}",
    }


def gl_commit(
    key: str,
    project: int,
    title: str,
    body: str,
    author: str,
    authored: datetime,
    committer: str,
    committed: datetime,
    parent: str,
) -> dict[str, Any]:
    sha = COMMITS[key]
    return {
        "id": sha,
        "project_id": project,
        "short_id": sha[:8],
        "title": title,
        "message": f"{title}\n\n{body}\n" if body else f"{title}\n",
        "author_name": author,
        "author_email": f"{author}@example.com",
        "authored_date": msk(authored),
        "committer_name": committer,
        "committer_email": f"{committer}@example.com",
        "committed_date": msk(committed),
        "created_at": msk(committed),
        "parent_ids": [parent],
        "web_url": f"{GITLAB}/{PROJECTS[project]}/-/commit/{sha}",
    }


def gitlab() -> dict[str, Any]:
    commits = [
        gl_commit(
            "a1",
            398,
            "Retry ledger writes on 409 Conflict",
            "",
            "r.belov",
            at("15:12:09", 13),
            "e.kuznetsova",
            at("07:55:41", 14),
            "0d3b6f9a2c5e8b1d4f7a0c3e6b9d2f5a8c1e4b7d",
        ),
        gl_commit(
            "a2",
            398,
            "Pass full creq in 3-D Secure challenge redirect",
            "The ACS needs the complete creq; stop truncating it to 256 chars.\n\nCloses #341",
            "r.belov",
            at("16:40:27", 16),
            "e.kuznetsova",
            at("09:19:58", 17),
            COMMITS["a1"],
        ),
        gl_commit(
            "c1",
            412,
            "Bump base image to debian 12.6",
            "",
            "v.sokolov",
            at("07:31:05", 17),
            "v.sokolov",
            at("10:48:20", 17),
            COMMITS["c0"],
        ),
        gl_commit(
            "d1",
            415,
            "Add cancellation reason codes",
            "Closes #207",
            "a.petrov",
            at("09:02:48", 15),
            "a.petrov",
            at("12:20:13", 15),
            COMMITS["d0"],
        ),
        gl_commit(
            "d2",
            415,
            "Read database settings from DATABASE_URL",
            "Replaces ORDERS_DB_DSN with the standard DATABASE_URL.\n\nCloses #214",
            "d.ivanov",
            at("15:22:40", 19),
            "k.smirnova",
            at("10:28:14", 20),
            COMMITS["d1"],
        ),
    ]
    by_key = {
        k: next(c for c in commits if c["id"] == sha)
        for k, sha in COMMITS.items()
        if any(c["id"] == sha for c in commits)
    }
    projects = [
        {
            "id": pid,
            "name": path.split("/")[1],
            "path_with_namespace": path,
            "default_branch": "main",
            "web_url": f"{GITLAB}/{path}",
            "created_at": created,
        }
        for pid, path, created in [
            (398, "payments/service-a", "2025-10-28T08:02:19.514Z"),
            (412, "orders/service-c", "2025-08-29T09:12:44.210Z"),
            (415, "orders/service-d", "2025-01-30T12:47:03.377Z"),
        ]
    ]
    pipelines, jobs = [], []

    def pipeline(
        pid: int,
        project: int,
        iid: int,
        key: str,
        ref: str,
        status: str,
        user: str,
        created: datetime,
        finished: datetime | None,
        tag: bool = False,
    ) -> None:
        pipelines.append(
            {
                "id": pid,
                "iid": iid,
                "project_id": project,
                "sha": COMMITS[key],
                "ref": ref,
                "tag": tag,
                "status": status,
                "source": "push",
                "created_at": zms(created),
                "updated_at": zms((finished or created) + timedelta(milliseconds=16)),
                "started_at": zms(created + timedelta(seconds=5, milliseconds=412)),
                "finished_at": zms(finished) if finished else None,
                "user": gl_user(user),
                "web_url": f"{GITLAB}/{PROJECTS[project]}/-/pipelines/{pid}",
            }
        )

    def job(
        jid: int,
        pid: int,
        project: int,
        name: str,
        stage_: str,
        status: str,
        user: str,
        key: str,
        ref: str,
        created: datetime,
        started: datetime | None,
        finished: datetime | None,
        runner: tuple[int, str, bool] | None,
        tag: bool = False,
        failure: str | None = None,
    ) -> None:
        pipe = next(p for p in pipelines if p["id"] == pid)
        c = by_key[key]
        item: dict[str, Any] = {
            "id": jid,
            "project_id": project,
            "name": name,
            "stage": stage_,
            "status": status,
            "ref": ref,
            "tag": tag,
            "allow_failure": False,
            "created_at": zms(created),
            "started_at": zms(started) if started else None,
            "finished_at": zms(finished) if finished else None,
            "duration": round((finished - started).total_seconds(), 3)
            if started and finished
            else None,
            "user": gl_user(user),
            "commit": {
                k: c[k]
                for k in (
                    "id",
                    "short_id",
                    "title",
                    "author_name",
                    "author_email",
                    "authored_date",
                    "committer_name",
                    "committer_email",
                    "committed_date",
                    "created_at",
                    "message",
                )
            },
            "pipeline": {
                "id": pid,
                "project_id": project,
                "ref": ref,
                "sha": c["id"],
                "status": pipe["status"],
            },
            "runner": (
                {"id": runner[0], "description": runner[1], "active": True, "is_shared": runner[2]}
                if runner
                else None
            ),
            "web_url": f"{GITLAB}/{PROJECTS[project]}/-/jobs/{jid}",
        }
        if failure:
            item["failure_reason"] = failure
        if name.startswith("deploy:"):
            item["when"] = "manual"
        jobs.append(item)

    build = (41, "docker-builder-03", True)
    run_a, run_b = (76, "k8s-runner-dc-a", False), (77, "k8s-runner-dc-b", False)
    # payments/service-a: 3.12.3 (07-14) and 3.12.4 (07-17)
    pipeline(
        87960,
        398,
        497,
        "a1",
        "main",
        "success",
        "e.kuznetsova",
        at("07:55:52.118", 14),
        at("08:31:40.207", 14),
    )
    job(
        5452201,
        87960,
        398,
        "build",
        "build",
        "success",
        "e.kuznetsova",
        "a1",
        "main",
        at("07:55:52.160", 14),
        at("07:56:01.334", 14),
        at("08:02:11.870", 14),
        build,
    )
    job(
        5452206,
        87960,
        398,
        "deploy:dc-a",
        "deploy",
        "success",
        "e.kuznetsova",
        "a1",
        "main",
        at("07:55:52.188", 14),
        at("08:20:30.515", 14),
        at("08:23:02.011", 14),
        run_a,
    )
    job(
        5452207,
        87960,
        398,
        "deploy:dc-b",
        "deploy",
        "success",
        "e.kuznetsova",
        "a1",
        "main",
        at("07:55:52.190", 14),
        at("08:28:55.902", 14),
        at("08:31:40.110", 14),
        run_b,
    )
    pipeline(
        88412,
        398,
        502,
        "a2",
        "main",
        "success",
        "e.kuznetsova",
        at("09:20:11.402", 17),
        at("09:46:50.913", 17),
    )
    job(
        5469688,
        88412,
        398,
        "build",
        "build",
        "success",
        "e.kuznetsova",
        "a2",
        "main",
        at("09:20:11.440", 17),
        at("09:20:19.071", 17),
        at("09:26:40.388", 17),
        build,
    )
    job(
        5469710,
        88412,
        398,
        "deploy:dc-a",
        "deploy",
        "success",
        "e.kuznetsova",
        "a2",
        "main",
        at("09:20:11.470", 17),
        at("09:38:40.250", 17),
        at("09:41:35.602", 17),
        run_a,
    )
    job(
        5469711,
        88412,
        398,
        "deploy:dc-b",
        "deploy",
        "success",
        "e.kuznetsova",
        "a2",
        "main",
        at("09:20:11.472", 17),
        at("09:44:20.118", 17),
        at("09:46:50.877", 17),
        run_b,
    )
    # orders/service-c: 1.13.2 (07-17), as in the public who-deployed example
    pipeline(
        89950,
        412,
        611,
        "c1",
        "main",
        "success",
        "v.sokolov",
        at("10:48:31.402", 17),
        at("11:03:15.760", 17),
    )
    job(
        5480305,
        89950,
        412,
        "build",
        "build",
        "success",
        "v.sokolov",
        "c1",
        "main",
        at("10:48:31.430", 17),
        at("10:48:38.004", 17),
        at("10:54:12.671", 17),
        build,
    )
    job(
        5480320,
        89950,
        412,
        "deploy:dc-a",
        "deploy",
        "success",
        "v.sokolov",
        "c1",
        "main",
        at("10:48:31.452", 17),
        at("10:55:30.640", 17),
        at("10:58:20.095", 17),
        run_a,
    )
    job(
        5480321,
        89950,
        412,
        "deploy:dc-b",
        "deploy",
        "success",
        "v.sokolov",
        "c1",
        "main",
        at("10:48:31.455", 17),
        at("11:00:48.301", 17),
        at("11:03:15.622", 17),
        run_b,
    )
    # orders/service-d: v2.3.1 (07-15) and v2.4.0 (today: dc-b failed, dc-a not played)
    pipeline(
        89811,
        415,
        271,
        "d1",
        "v2.3.1",
        "success",
        "a.petrov",
        at("12:24:40.381", 15),
        at("12:50:05.233", 15),
        tag=True,
    )
    job(
        5461390,
        89811,
        415,
        "build",
        "build",
        "success",
        "a.petrov",
        "d1",
        "v2.3.1",
        at("12:24:40.402", 15),
        at("12:24:47.990", 15),
        at("12:29:31.402", 15),
        build,
        tag=True,
    )
    job(
        5461391,
        89811,
        415,
        "test",
        "test",
        "success",
        "a.petrov",
        "d1",
        "v2.3.1",
        at("12:24:40.405", 15),
        at("12:29:33.118", 15),
        at("12:33:02.764", 15),
        build,
        tag=True,
    )
    job(
        5461402,
        89811,
        415,
        "deploy:dc-a",
        "deploy",
        "success",
        "a.petrov",
        "d1",
        "v2.3.1",
        at("12:24:40.431", 15),
        at("12:39:50.337", 15),
        at("12:42:30.908", 15),
        run_a,
        tag=True,
    )
    job(
        5461403,
        89811,
        415,
        "deploy:dc-b",
        "deploy",
        "success",
        "a.petrov",
        "d1",
        "v2.3.1",
        at("12:24:40.433", 15),
        at("12:47:40.512", 15),
        at("12:50:05.190", 15),
        run_b,
        tag=True,
    )
    pipeline(
        90402,
        415,
        288,
        "d2",
        "v2.4.0",
        "failed",
        "k.smirnova",
        at("10:31:05.118"),
        at("10:57:16.583"),
        tag=True,
    )
    job(
        5531190,
        90402,
        415,
        "build",
        "build",
        "success",
        "k.smirnova",
        "d2",
        "v2.4.0",
        at("10:31:05.150"),
        at("10:31:12.402"),
        at("10:36:02.877"),
        build,
        tag=True,
    )
    job(
        5531191,
        90402,
        415,
        "test",
        "test",
        "success",
        "k.smirnova",
        "d2",
        "v2.4.0",
        at("10:31:05.153"),
        at("10:36:05.009"),
        at("10:41:12.340"),
        build,
        tag=True,
    )
    job(
        5531194,
        90402,
        415,
        "deploy:dc-a",
        "deploy",
        "manual",
        "k.smirnova",
        "d2",
        "v2.4.0",
        at("10:31:05.181"),
        None,
        None,
        None,
        tag=True,
    )
    job(
        5531195,
        90402,
        415,
        "deploy:dc-b",
        "deploy",
        "failed",
        "k.smirnova",
        "d2",
        "v2.4.0",
        at("10:31:05.183"),
        at("10:51:58.644"),
        at("10:57:16.402"),
        run_b,
        tag=True,
        failure="script_failure",
    )
    return {"projects": projects, "pipelines": pipelines, "jobs": jobs, "commits": commits}


# --- audit ------------------------------------------------------------------------------------


def audit_event(
    verb: str,
    resource: str,
    ns: str,
    name: str,
    when: datetime,
    *,
    user: dict[str, Any],
    source_ip: str,
    agent: str,
    code: int,
    reason: str,
    uri: str | None = None,
    request: dict[str, Any] | None = None,
    level: str = "Metadata",
) -> dict[str, Any]:
    group = "apps" if resource in ("deployments", "replicasets") else ""
    base = (
        f"/apis/apps/v1/namespaces/{ns}/{resource}"
        if group
        else f"/api/v1/namespaces/{ns}/{resource}"
    )
    ev: dict[str, Any] = {
        "kind": "Event",
        "apiVersion": "audit.k8s.io/v1",
        "level": level if not request else "Request",
        "auditID": uid("audit", verb, resource, name, when),
        "stage": "ResponseComplete",
        "requestURI": uri or (base if verb in ("create", "list") else f"{base}/{name}"),
        "verb": verb,
        "user": user,
        "sourceIPs": [source_ip],
        "userAgent": agent,
        "objectRef": {
            "resource": resource,
            "namespace": ns,
            "name": name,
            **({"apiGroup": group} if group else {}),
            "apiVersion": "v1",
        },
        "responseStatus": {"metadata": {}, "code": code},
    }
    if request:
        ev["requestObject"] = request
    ev["requestReceivedTimestamp"] = zus(when)
    ev["stageTimestamp"] = zus(when + timedelta(microseconds=3000 + int(frac("st", when) * 15000)))
    ev["annotations"] = {
        "authorization.k8s.io/decision": "allow",
        "authorization.k8s.io/reason": reason,
    }
    return ev


def deployer(runner_pod: str) -> dict[str, Any]:
    return {
        "username": "system:serviceaccount:ci:svc-deployer",
        "uid": "5f2a9c7e-1b4d-4e83-a6c0-8d3f7b2e9a14",
        "groups": ["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"],
        "extra": {"authentication.kubernetes.io/pod-name": [runner_pod]},
    }


CI_REASON = (
    'RBAC: allowed by RoleBinding "ci-deployer/{ns}" of ClusterRole "ci-deployer" to '
    'ServiceAccount "svc-deployer/ci"'
)
KUBECTL = "kubectl/v1.30.3 (linux/amd64) kubernetes/6fc0a69"
DC_REASON = (
    'RBAC: allowed by ClusterRoleBinding "system:controller:deployment-controller" of ClusterRole '
    '"system:controller:deployment-controller" to ServiceAccount "deployment-controller/kube-system"'
)


def ci_release(
    ns: str,
    name: str,
    project: int,
    when: datetime,
    job_id: int,
    pipe: int,
    sha: str,
    image: str,
    rs_name: str,
    runner_ip: str,
    cp_ip: str,
) -> list[dict[str, Any]]:
    runner_pod = (
        f"runner-{suffix(5, job_id)}-project-{project}-concurrent-0-{suffix(5, 'rp', job_id)}"
    )
    user = deployer(runner_pod)
    path = PROJECTS[project]
    patch = {
        "metadata": {
            "annotations": {
                "ci.example.com/job-url": f"{GITLAB}/{path}/-/jobs/{job_id}",
                "ci.example.com/pipeline-url": f"{GITLAB}/{path}/-/pipelines/{pipe}",
                "ci.example.com/commit-sha": sha,
            }
        },
        "spec": {
            "template": {
                "metadata": {"annotations": {"ci.example.com/commit-sha": sha}},
                "spec": {"containers": [{"name": SVCS[name].container, "image": image}]},
            }
        },
    }
    controller = {
        "username": "system:serviceaccount:kube-system:deployment-controller",
        "uid": "0e4b8d2f-6c1a-4f95-b3e7-a9d5c1f7e204",
        "groups": [
            "system:serviceaccounts",
            "system:serviceaccounts:kube-system",
            "system:authenticated",
        ],
    }
    reason = CI_REASON.format(ns=ns)
    return [
        audit_event(
            "get",
            "deployments",
            ns,
            name,
            when - timedelta(milliseconds=416),
            user=user,
            source_ip=runner_ip,
            agent=KUBECTL,
            code=200,
            reason=reason,
        ),
        audit_event(
            "patch",
            "deployments",
            ns,
            name,
            when,
            user=user,
            source_ip=runner_ip,
            agent=KUBECTL,
            code=200,
            reason=reason,
            request=patch,
            uri=f"/apis/apps/v1/namespaces/{ns}/deployments/{name}?fieldManager=kubectl-client-side-apply"
            "&fieldValidation=Strict",
        ),
        audit_event(
            "create",
            "replicasets",
            ns,
            rs_name,
            when + timedelta(milliseconds=83),
            user=controller,
            source_ip=cp_ip,
            code=201,
            reason=DC_REASON,
            agent="kube-controller-manager/v1.30.4 (linux/amd64) kubernetes/7c48c2b/"
            "system:serviceaccount:kube-system:deployment-controller",
        ),
    ]


# --- stories in logs and metrics ----------------------------------------------------------------


def dc_a_signals(cl: Cluster) -> None:
    pods = {p.name: p for p in cl.pods}
    x2k9p, m7q4d = pods["service-a-5d8f7c9b4-x2k9p"], pods["service-a-5d8f7c9b4-m7q4d"]
    qb = pods["service-b-6f9c8d7b5-q8n4t"]
    ooms, starts = cl.story["b"]
    access, errors, app_pay, app_orders = [], [], [], []
    # story 1: the exact request of the public example, plus two more like it
    main_loc = EXAMPLE_LOCATION
    access += [
        access_doc(
            at("11:11:01.912"),
            "0c4d2b8e9f1a4c7d8e2b5f0a3c6d9e1b",
            "edge-02",
            884190,
            "pay.example.com",
            "POST",
            "/api/v1/receipts/upload",
            413,
            None,
            "-",
            0.0,
            creqs=3,
            client="198.51.100.61",
            bytes_sent=585,
            ua="okhttp/4.12.0",
        ),
        access_doc(
            at("11:11:02.276"),
            "91b6e3f0c8d24a7e9c1f5b2d8a4e6c03",
            "edge-02",
            884207,
            "pay.example.com",
            "POST",
            "/checkout/confirm",
            302,
            "10.42.5.22:8080",
            "302",
            0.051,
            client="203.0.113.18",
            bytes_sent=742,
            ua=UAS[2],
            location="https://pay.example.com/checkout/done?order=ORD-20260720-558097",
        ),
        access_doc(
            at("11:11:04.387"),
            "7f9e2c21a4b84d0c9e51b0d3f6a27c85",
            "edge-02",
            884213,
            "pay.example.com",
            "POST",
            "/checkout/confirm",
            502,
            "10.42.3.17:8080",
            "502",
            0.046,
            client="198.51.100.23",
            bytes_sent=552,
            ua=UAS[1],
            location=main_loc,
        ),
        access_doc(
            at("11:11:05.630"),
            "4e7a1c9d3b5f4e2a8c0d6b9f1e3a5c72",
            "edge-01",
            771052,
            "pay.example.com",
            "GET",
            "/api/v1/orders/ORD-20260720-558090",
            200,
            "10.42.5.22:8080",
            "200",
            0.019,
            creqs=12,
            client="192.0.2.140",
            bytes_sent=1833,
            ua="okhttp/4.12.0",
            connect="0.000",
        ),
        access_doc(
            at("11:11:07.004"),
            "b2f8d4a6c0e14b9d7f3a5c8e1d6b0f24",
            "edge-02",
            884236,
            "shop.example.net",
            "GET",
            "/catalog/search",
            504,
            "10.42.8.31:8080",
            "504",
            60.002,
            client="203.0.113.95",
            header_time="-",
            bytes_sent=569,
            ua=UAS[0],
            connect="0.001",
        ),
    ]
    errors += [
        error_doc(
            at("11:11:01"),
            "edge-02",
            2817,
            884190,
            "198.51.100.61",
            "pay.example.com",
            "POST /api/v1/receipts/upload HTTP/1.1",
            None,
            "client intended to send too large body: 10485761 bytes",
        ),
        error_doc(
            at("11:11:04"),
            "edge-02",
            2817,
            884213,
            "198.51.100.23",
            "pay.example.com",
            "POST /checkout/confirm HTTP/1.1",
            "http://10.42.3.17:8080/checkout/confirm",
            "upstream sent too big header while reading response header from upstream",
        ),
        error_doc(
            at("11:11:07"),
            "edge-02",
            2818,
            884236,
            "203.0.113.95",
            "shop.example.net",
            "GET /catalog/search HTTP/1.1",
            "http://10.42.8.31:8080/catalog/search",
            "upstream timed out (110: Connection timed out) while reading response header from upstream",
        ),
    ]
    app_pay += [
        app_doc(
            at("11:11:02.271"),
            "service-a",
            m7q4d,
            "POST /checkout/confirm 302 47ms",
            rid="91b6e3f0c8d24a7e9c1f5b2d8a4e6c03",
            http={"method": "POST", "path": "/checkout/confirm", "status": 302},
            duration_ms=47,
        ),
        app_doc(
            at("11:11:04.318"),
            "service-a",
            x2k9p,
            "3-D Secure challenge required for order "
            "ORD-20260720-558104, redirecting to ACS acs.bank.example.net",
            logger="checkout.threeds",
            rid="7f9e2c21a4b84d0c9e51b0d3f6a27c85",
        ),
        app_doc(
            at("11:11:04.341"),
            "service-a",
            x2k9p,
            "POST /checkout/confirm 302 44ms",
            rid="7f9e2c21a4b84d0c9e51b0d3f6a27c85",
            http={"method": "POST", "path": "/checkout/confirm", "status": 302},
            duration_ms=44,
            response={"location_bytes": len(main_loc), "set_cookie_headers": 6},
        ),
        app_doc(
            at("11:11:05.611"),
            "service-a",
            m7q4d,
            "GET /api/v1/orders/ORD-20260720-558090 200 17ms",
            rid="4e7a1c9d3b5f4e2a8c0d6b9f1e3a5c72",
            http={"method": "GET", "path": "/api/v1/orders/ORD-20260720-558090", "status": 200},
            duration_ms=17,
        ),
    ]
    conns = Connections(
        {"edge-01": (at("11:11:05"), 771_052, 0.9), "edge-02": (at("11:11:04"), 884_213, 7.5)},
        {884_190, 884_207, 884_213, 884_236, 771_052},
    )
    s1_502 = [at("11:11:04.387")]
    for when, edge, pid, pod, size in [
        (at("11:10:26.512"), "edge-01", 1904, m7q4d, 1187),
        (at("11:12:41.075"), "edge-02", 2818, x2k9p, 1203),
    ]:
        conn = conns.at(edge, when)
        rid = req_id("s1", when)
        loc = acs_location(size, rid)
        client = client_ip("s1", when)
        order = loc.rsplit("%3D", 1)[1]
        up = f"{pod.ip}:8080"
        app_pay.append(
            app_doc(
                when - timedelta(milliseconds=69),
                "service-a",
                pod,
                f"3-D Secure challenge required for order {order}, redirecting to ACS "
                "acs.bank.example.net",
                logger="checkout.threeds",
                rid=rid,
            )
        )
        app_pay.append(
            app_doc(
                when - timedelta(milliseconds=46),
                "service-a",
                pod,
                "POST /checkout/confirm 302 41ms",
                rid=rid,
                http={"method": "POST", "path": "/checkout/confirm", "status": 302},
                duration_ms=41,
                response={"location_bytes": size, "set_cookie_headers": 6},
            )
        )
        errors.append(
            error_doc(
                when.replace(microsecond=0),
                edge,
                pid,
                conn,
                client,
                "pay.example.com",
                "POST /checkout/confirm HTTP/1.1",
                f"http://{up}/checkout/confirm",
                "upstream sent too big header while reading response header from upstream",
            )
        )
        access.append(
            access_doc(
                when,
                rid,
                edge,
                conn,
                "pay.example.com",
                "POST",
                "/checkout/confirm",
                502,
                up,
                "502",
                0.043,
                client=client,
                bytes_sent=552,
                location=loc,
                ua=pick(UAS[:3], "s1ua", when),
            )
        )
        s1_502.append(when)
    # story 2: each OOM kill cut the requests in flight on q8n4t
    b_502 = []
    for k, when in enumerate(ooms):
        for j in range(1 + (k % 2)):
            t = when + timedelta(milliseconds=120 + 310 * j)
            rid = req_id("b", k, j)
            edge = "edge-01" if (k + j) % 2 else "edge-02"
            conn = conns.at(edge, t)
            pid = 1905 if edge == "edge-01" else 2817
            path = f"/api/v1/exports/EXP-{4100 + 7 * k + j}"
            client = client_ip("b", k, j)
            errors.append(
                error_doc(
                    t.replace(microsecond=0),
                    edge,
                    pid,
                    conn,
                    client,
                    "orders.example.com",
                    f"GET {path} HTTP/1.1",
                    f"http://{qb.ip}:8080{path}",
                    "upstream prematurely closed connection while reading response header "
                    "from upstream",
                )
            )
            access.append(
                access_doc(
                    t,
                    rid,
                    edge,
                    conn,
                    "orders.example.com",
                    "GET",
                    path,
                    502,
                    f"{qb.ip}:8080",
                    "502",
                    round(1.84 + frac("bt", k, j), 3),
                    client=client,
                    header_time="-",
                    ua="okhttp/4.12.0",
                )
            )
            b_502.append(t)
    for k, t in enumerate(starts[1:], start=1):
        app_orders.append(
            app_doc(
                t + timedelta(milliseconds=840),
                "service-b",
                qb,
                "service-b 1.9.3 started, listening on :8080",
                logger="main",
            )
        )
        app_orders.append(
            app_doc(
                t + timedelta(seconds=95),
                "service-b",
                qb,
                f"export EXP-{4100 + 7 * k} started: loading orders 2026-06-01..2026-07-19 "
                "into memory",
                logger="export.worker",
            )
        )
    # ordinary traffic samples around 14:11 local
    ordinary = [
        ("pay.example.com", "GET", "/api/v1/orders/ORD-20260720-55{n:04d}", 200, [x2k9p, m7q4d]),
        ("pay.example.com", "POST", "/checkout/confirm", 302, [x2k9p, m7q4d]),
        (
            "catalog.example.com",
            "GET",
            "/api/v2/products/{n}",
            200,
            [p for p in cl.pods if p.svc.name == "catalog-api"],
        ),
        (
            "orders.example.com",
            "GET",
            "/api/v1/orders/ORD-20260720-55{n:04d}",
            200,
            [p for p in cl.pods if p.svc.name == "service-c"],
        ),
        (
            "id.example.com",
            "POST",
            "/oauth2/token",
            200,
            [p for p in cl.pods if p.svc.name == "auth-api"],
        ),
    ]
    for i in range(48):
        t = at("11:05:00") + timedelta(
            seconds=int(frac("oa", i) * 900), milliseconds=int(frac("oams", i) * 999)
        )
        host, method, path, status, upstreams = pick(ordinary, "route", i)
        pod = pick(upstreams, "up", i)
        rid = req_id("ordinary-a", i)
        edge = "edge-01" if frac("edge", i) < 0.5 else "edge-02"
        rt = round(0.008 + 0.09 * frac("rt", i) ** 2, 3)
        path = path.format(n=int(frac("n", i) * 9000))
        access.append(
            access_doc(
                t,
                rid,
                edge,
                conns.at(edge, t),
                host,
                method,
                path,
                status,
                f"{pod.ip}:8080",
                str(status),
                rt,
                creqs=1 + int(frac("cr", i) * 20),
            )
        )
        if pod.svc.name == "service-a":
            app_pay.append(
                app_doc(
                    t - timedelta(milliseconds=int(rt * 1000)),
                    "service-a",
                    pod,
                    f"{method} {path} {status} {int(rt * 1000) - 2}ms",
                    rid=rid,
                    http={"method": method, "path": path, "status": status},
                    duration_ms=int(rt * 1000) - 2,
                )
            )
    for i, t in enumerate([at("11:02:17"), at("11:19:48")]):
        errors.append(
            error_doc(
                t,
                "edge-01",
                1905,
                conns.at("edge-01", t),
                client_ip("warn", i),
                "catalog.example.com",
                "GET /api/v2/products/export.csv HTTP/1.1",
                "http://10.42.8.31:8080/api/v2/products/export.csv",
                "an upstream response is buffered to a temporary file "
                f"/var/cache/angie/proxy_temp/{i + 3}/41/00000{i + 17}413 while reading upstream",
                level="warn",
            )
        )
    key = lambda d: d["@timestamp"]  # noqa: E731
    cl.logs = {
        f"edge-access-{DAY}": sorted(access, key=key),
        f"edge-error-{DAY}": sorted(errors, key=key),
        f"app-payments-{DAY}": sorted(app_pay, key=key),
        f"app-orders-{DAY}": sorted(app_orders, key=key),
    }
    cl.pod_logs["payments/service-a-5d8f7c9b4-x2k9p/app"] = "".join(
        f"{d['@timestamp']} INFO  {d['logger']}: {d['message']} request_id={d['request_id']}\n"
        for d in sorted(app_pay, key=lambda d: d["@timestamp"])
        if d["kubernetes"]["pod"] == x2k9p.name
    )

    def b_log(k: int) -> str:
        s = starts[k]
        return (
            f"{zms(s + timedelta(milliseconds=612))} INFO  main: service-b 1.9.3 (go1.22.5) starting\n"
            f"{zms(s + timedelta(milliseconds=840))} INFO  main: listening on :8080\n"
            f"{zms(s + timedelta(seconds=95))} INFO  export.worker: export EXP-{4100 + 7 * k} started: "
            "loading orders 2026-06-01..2026-07-19 into memory\n"
        )

    cl.pod_logs["orders/service-b-6f9c8d7b5-q8n4t/app"] = b_log(7)
    if PREVIOUS_LOGS:
        cl.pod_logs["orders/service-b-6f9c8d7b5-q8n4t/app/previous"] = b_log(6)

    routes = [
        Route("service-a", "pay.example.com", "/", "GET", "200", 38.0, 2_318_904_117),
        Route("service-a", "pay.example.com", "/", "POST", "200", 11.0, 674_310_552),
        Route("service-a", "pay.example.com", "/", "POST", "302", 4.2, 251_886_940),
        Route("service-a", "pay.example.com", "/", "GET", "404", 0.3, 18_204_377),
        Route("service-a", "pay.example.com", "/", "POST", "413", 0.0, 1_208),
        Route("service-a", "pay.example.com", "/", "POST", "502", 0.0, 4_311),
        Route("service-b", "orders.example.com", "/api/v1/exports", "GET", "200", 3.1, 190_442_031),
        Route("service-b", "orders.example.com", "/api/v1/exports", "POST", "202", 0.4, 24_580_112),
        Route("service-b", "orders.example.com", "/api/v1/exports", "GET", "502", 0.0, 2_977),
        Route(
            "service-c", "orders.example.com", "/api/v1/orders", "GET", "200", 55.0, 3_370_118_904
        ),
        Route("service-c", "orders.example.com", "/api/v1/orders", "POST", "201", 8.5, 520_994_316),
        Route("service-c", "orders.example.com", "/api/v1/orders", "GET", "404", 0.6, 36_700_218),
        Route(
            "service-d", "orders.example.com", "/api/v1/pricing", "POST", "200", 22.0, 1_347_205_660
        ),
        Route(
            "catalog-api",
            "catalog.example.com",
            "/",
            "GET",
            "200",
            412.0,
            8_811_220_431 - 1_700_000_000,
        ),
        Route("catalog-api", "catalog.example.com", "/", "GET", "404", 1.2, 73_402_118),
        Route("catalog-api", "shop.example.net", "/catalog", "GET", "200", 31.0, 1_902_337_409),
        Route("catalog-api", "shop.example.net", "/catalog", "GET", "504", 0.0, 3_104),
        Route("search-api", "search.example.com", "/", "POST", "200", 64.0, 3_921_004_785),
        Route("search-api", "search.example.com", "/", "GET", "200", 12.0, 735_119_402),
        Route("search-api", "search.example.com", "/", "POST", "499", 0.15, 9_180_227),
        Route("auth-api", "id.example.com", "/", "POST", "200", 27.0, 1_654_093_318),
        Route("auth-api", "id.example.com", "/", "GET", "200", 41.0, 2_511_870_204),
        Route("auth-api", "id.example.com", "/", "POST", "401", 1.4, 85_720_931),
    ]
    ingress_metrics(
        cl,
        routes,
        {
            ("service-a", "POST", "502"): s1_502,
            ("service-a", "POST", "413"): [at("11:11:01.912")],
            ("catalog-api", "GET", "504"): [at("11:11:07.004")],
            ("service-b", "GET", "502"): b_502,
        },
    )
    # the last-terminated reason of q8n4t as kube-state-metrics shows it
    times = fast_times()
    first = next(i for i, t in enumerate(times) if t >= ooms[0])
    base = {"namespace": "orders", "pod": qb.name, "uid": qb.uid, "container": "app"}
    cl.metrics.append(
        series(
            ksm("kube_pod_container_status_last_terminated_reason", **base, reason="OOMKilled"),
            [1] * (N_FAST - first),
            start=times[first],
        )
    )
    cl.metrics.append(
        series(
            ksm("kube_pod_container_status_last_terminated_exitcode", **base),
            [137] * (N_FAST - first),
            start=times[first],
        )
    )


EXAMPLE_LOCATION = (
    "https://acs.bank.example.net/3ds/v2/challenge?creq=StsnlyoK8aMTJqlAvgRixtCGP3-c_CuivKSUTNuD7ufZmtGdrVRxtIP1D91pxj"
    "WwOmHew9n87z6bdInZ_QUqymh5xzHdXFNJdwr8513kdp8Bau6E-aX_MDXkRJ8v3tJsk0kVk86o4EBsCRJ0wZcluRvniVNteq-J8HEFwoHmS-uGQY"
    "CQ-ejZeaeqieH-K-QROAIiZqZS_9exYFy1TW2Wm5-us867FmdxY-sjf-u510hgS2xh2UZ78mmEk7MgmKKIWPvyFvtXgBD2M5d6WlMzTZxk5Rj7Rl"
    "_uXl7WuXaEXPOyrJo9uALhnfS3dK6gXEl4whYBBpgks8jJ8bEdcEBMrWoEE0j0XslERDwaIkbN6MU6C6DqeIE-cXOp8rWBBwG3oiyH0WJ8nieVOR"
    "eUTPjmHTqdIIfniCurWIz6nfPbz1IetwORiKNhZ5VlSgcZoXsOecSt8v759On-vrtkUFkyLisEcT7rJU_QrUGPLOAKfOZUipAhDSW8sMhvColkXk"
    "swZRfLsi_Jk7w0nUxn1vQhLrQl-1509gpah2P5ydsc139Gyd2uRKxhJxA7NNfKpcfVQI3iwAHZAVQhN-MGscvvHQTJ0B-ueGe8O97uAQGjZXjdLT"
    "7J5Ozg0HS3kK3d_P5hTmxb2lvJ-atKfpwnKmQy6m0VhPJho1LkbYEfDR2nyFIbnAZ11D9CvI4ZHD2pK59uWRUXBLooCeLGYAOsQM56LicOSAPk7e"
    "1jA-9_82oitHbcNdL5IJeWMQIuw2fr1BY7jW2riD2wcLXeusiGb-xkC9YOjO9d5J73lslxTC67XB2AhZbfM20MfAgTO956LKHyNdFwLWO-OcQFvO"
    "u4LjRLM0iv1yMttSD11CRQdWKIfkAFn5u6G9OYqgfOFpyfaYbCR2mVlE_XJGiikPtcptKgcDDV497D5n-8403OENu6yc3Hg9wYUCKPK7iQCzzoHO"
    "5fW6wwq1Y3GPey6nC-maC0_1hOk2p4&threeDSServerTransID=9c3b61d2-57e4-4a8f-b0d6-2f81c4a7e953&returnUrl=https%3A%2F%2F"
    "pay.example.com%2Fcheckout%2F3ds-return%3Forder%3DORD-20260720-558104"
)

# per-minute 502s of story 4 for the minutes 10:05 .. 10:12Z
S4_SEARCH = [3, 6, 9, 8, 7, 5, 4, 2]
S4_AUTH = [2, 4, 5, 6, 4, 3, 2, 1]
S4_RETRANS = [9_000, 52_000, 98_000, 121_000, 134_000, 117_000, 101_000, 76_000, 39_000, 8_000]


def dc_b_signals(cl: Cluster) -> None:
    by_svc: dict[str, list[PodInfo]] = {}
    for p in cl.pods:
        by_svc.setdefault(p.svc.name, []).append(p)
    search17 = next(p for p in by_svc["search-api"] if p.node == "worker-17")
    auth17 = next(p for p in by_svc["auth-api"] if p.node == "worker-17")
    access, errors, app_search, app_orders = [], [], [], []
    s4_events: dict[tuple[str, str, str], list[datetime]] = {}
    conns = Connections(
        {"edge-11": (at("10:05:00"), 512_300, 5.2), "edge-12": (at("10:05:00"), 498_770, 4.7)}
    )
    pid = {"edge-11": 3114, "edge-12": 2290}
    plan = []
    for minute, (ns_, na_) in enumerate(zip(S4_SEARCH, S4_AUTH, strict=True)):
        for svc, count in (("search-api", ns_), ("auth-api", na_)):
            for j in range(count):
                t = at("10:05:00") + timedelta(
                    minutes=minute,
                    seconds=int(frac("s4", svc, minute, j) * 59),
                    milliseconds=int(frac("s4ms", svc, minute, j) * 999),
                )
                plan.append((t, svc, j))
    plan.sort()
    for t, svc, j in plan:
        pod = search17 if svc == "search-api" else auth17
        host = "search.example.com" if svc == "search-api" else "id.example.com"
        if svc == "search-api":
            method, path = (
                ("POST", "/api/v2/search") if frac("m", t) < 0.8 else ("GET", "/api/v2/suggest")
            )
        else:
            method, path = (
                ("POST", "/oauth2/token") if frac("m", t) < 0.6 else ("GET", "/oauth2/userinfo")
            )
        edge = "edge-11" if frac("e", t) < 0.5 else "edge-12"
        conn = conns.at(edge, t)
        rid = req_id("s4", t)
        client = client_ip("s4", t)
        reset = frac("cls", t) < 0.4
        text = (
            "recv() failed (104: Connection reset by peer) while reading response header from upstream"
            if reset
            else "upstream prematurely closed connection while reading response header from upstream"
        )
        up = f"http://{pod.ip}:8080{path}"
        errors.append(
            error_doc(
                t.replace(microsecond=0),
                edge,
                pid[edge],
                conn,
                client,
                host,
                f"{method} {path} HTTP/1.1",
                up,
                text,
            )
        )
        rt = round(0.2 + 2.8 * frac("rt4", t), 3)
        access.append(
            access_doc(
                t + timedelta(milliseconds=2),
                rid,
                edge,
                conn,
                host,
                method,
                path,
                502,
                f"{pod.ip}:8080",
                "502",
                rt,
                client=client,
                header_time="-",
            )
        )
        s4_events.setdefault((svc, method, "502"), []).append(t)
        if svc == "search-api" and not reset and frac("applog", t) < 0.5:
            ms = int(rt * 1000 * 0.3)
            app_search.append(
                app_doc(
                    t - timedelta(milliseconds=int(rt * 700)),
                    "search-api",
                    pod,
                    f"{method} {path} 200 {ms}ms",
                    rid=rid,
                    http={"method": method, "path": path, "status": 200},
                    duration_ms=ms,
                )
            )
    ordinary = [
        ("search.example.com", "POST", "/api/v2/search", by_svc["search-api"]),
        ("id.example.com", "POST", "/oauth2/token", by_svc["auth-api"]),
        ("id.example.com", "GET", "/oauth2/userinfo", by_svc["auth-api"]),
        ("catalog.example.com", "GET", "/api/v2/products/{n}", by_svc["catalog-api"]),
        ("pay.example.com", "GET", "/api/v1/orders/ORD-20260720-31{n:04d}", by_svc["service-a"]),
    ]
    for i in range(44):
        t = at("09:58:00") + timedelta(
            seconds=int(frac("ob", i) * 1500), milliseconds=int(frac("obms", i) * 999)
        )
        host, method, path, upstreams = pick(ordinary, "route-b", i)
        pod = pick(upstreams, "up-b", i)
        edge = "edge-11" if frac("edge-b", i) < 0.5 else "edge-12"
        rt = round(0.006 + 0.06 * frac("rtb", i) ** 2, 3)
        path = path.format(n=int(frac("nb", i) * 9000))
        rid = req_id("ordinary-b", i)
        access.append(
            access_doc(
                t,
                rid,
                edge,
                conns.at(edge, t),
                host,
                method,
                path,
                200,
                f"{pod.ip}:8080",
                "200",
                rt,
                creqs=1 + int(frac("crb", i) * 15),
            )
        )
        if pod.svc.name == "search-api":
            app_search.append(
                app_doc(
                    t - timedelta(milliseconds=int(rt * 1000)),
                    "search-api",
                    pod,
                    f"{method} {path} 200 {int(rt * 1000) - 1}ms",
                    rid=rid,
                    http={"method": method, "path": path, "status": 200},
                    duration_ms=int(rt * 1000) - 1,
                )
            )
    timeout_conn = conns.at("edge-12", at("10:41:26"))
    errors.append(
        error_doc(
            at("10:41:26"),
            "edge-12",
            2291,
            timeout_conn,
            client_ip("b-timeout"),
            "catalog.example.com",
            "GET /api/v2/products/export.csv HTTP/1.1",
            f"http://{by_svc['catalog-api'][0].ip}:8080/api/v2/products/export.csv",
            "upstream timed out (110: Connection timed out) while reading response header from upstream",
        )
    )
    access.append(
        access_doc(
            at("10:41:26.904"),
            req_id("b-timeout"),
            "edge-12",
            timeout_conn,
            "catalog.example.com",
            "GET",
            "/api/v2/products/export.csv",
            504,
            f"{by_svc['catalog-api'][0].ip}:8080",
            "504",
            60.001,
            client=client_ip("b-timeout"),
            header_time="-",
            bytes_sent=569,
        )
    )
    # story 3: the crash of every new service-d container reaches the log pipeline too
    for p in cl.story["d"]:
        for inst in p.instances:
            app_orders += [
                app_doc(
                    inst.start + timedelta(milliseconds=207),
                    "service-d",
                    p,
                    "config: missing required env DATABASE_URL",
                    level="ERROR",
                    logger="config",
                ),
                app_doc(
                    inst.start + timedelta(milliseconds=208),
                    "service-d",
                    p,
                    "invalid configuration, exiting with code 1",
                    level="FATAL",
                    logger="main",
                ),
            ]
        text = crash_log(p.instances[-1].start)
        cl.pod_logs[f"orders/{p.name}/app"] = text
        if PREVIOUS_LOGS:
            cl.pod_logs[f"orders/{p.name}/app/previous"] = crash_log(p.instances[-2].start)
    for i, p in enumerate(q for q in by_svc["service-d"] if q.ready):
        for k in range(3):
            t = at("10:20:00") + timedelta(
                minutes=int(frac("dl", i, k) * 75), seconds=int(frac("dls", i, k) * 59)
            )
            app_orders.append(
                app_doc(
                    t,
                    "service-d",
                    p,
                    f"price cache refreshed: {41_800 + int(frac('pc', i, k) * 900)} items in 212ms",
                    logger="pricing.cache",
                )
            )
    key = lambda d: d["@timestamp"]  # noqa: E731
    cl.logs = {
        f"edge-access-{DAY}": sorted(access, key=key),
        f"edge-error-{DAY}": sorted(errors, key=key),
        f"app-search-{DAY}": sorted(app_search, key=key),
        f"app-orders-{DAY}": sorted(app_orders, key=key),
    }
    routes = [
        Route("service-a", "pay.example.com", "/", "GET", "200", 13.0, 801_330_915),
        Route("service-a", "pay.example.com", "/", "POST", "200", 3.8, 229_417_006),
        Route("service-a", "pay.example.com", "/", "POST", "302", 1.5, 88_120_394),
        Route("service-a", "pay.example.com", "/", "GET", "404", 0.1, 6_019_772),
        Route("service-b", "orders.example.com", "/api/v1/exports", "GET", "200", 1.1, 66_012_871),
        Route("service-b", "orders.example.com", "/api/v1/exports", "POST", "202", 0.15, 9_113_046),
        Route(
            "service-c", "orders.example.com", "/api/v1/orders", "GET", "200", 19.0, 1_163_208_559
        ),
        Route("service-c", "orders.example.com", "/api/v1/orders", "POST", "201", 2.9, 177_844_201),
        Route("service-c", "orders.example.com", "/api/v1/orders", "GET", "404", 0.2, 12_114_803),
        Route(
            "service-d", "orders.example.com", "/api/v1/pricing", "POST", "200", 7.4, 452_991_307
        ),
        Route(
            "catalog-api",
            "catalog.example.com",
            "/",
            "GET",
            "200",
            137.0,
            2_974_406_118 - 580_000_000,
        ),
        Route("catalog-api", "catalog.example.com", "/", "GET", "404", 0.4, 24_388_120),
        Route("catalog-api", "catalog.example.com", "/", "GET", "504", 0.0, 977),
        Route("catalog-api", "shop.example.net", "/catalog", "GET", "200", 10.0, 611_207_530),
        Route("search-api", "search.example.com", "/", "POST", "200", 22.0, 1_340_772_519),
        Route("search-api", "search.example.com", "/", "GET", "200", 4.0, 244_091_337),
        Route("search-api", "search.example.com", "/", "POST", "499", 0.05, 3_020_442),
        Route("search-api", "search.example.com", "/", "POST", "502", 0.0, 1_884),
        Route("search-api", "search.example.com", "/", "GET", "502", 0.0, 402),
        Route("auth-api", "id.example.com", "/", "POST", "200", 9.0, 548_330_617),
        Route("auth-api", "id.example.com", "/", "GET", "200", 14.0, 857_209_946),
        Route("auth-api", "id.example.com", "/", "POST", "401", 0.5, 30_604_118),
        Route("auth-api", "id.example.com", "/", "POST", "502", 0.0, 1_207),
        Route("auth-api", "id.example.com", "/", "GET", "502", 0.0, 655),
    ]
    s4_events[("catalog-api", "GET", "504")] = [at("10:41:26.904")]
    ingress_metrics(cl, routes, s4_events)
    times = fast_times()
    for p in cl.story["d"]:
        first = next(i for i, t in enumerate(times) if t >= p.created)
        base = {"namespace": "orders", "pod": p.name, "uid": p.uid, "container": "app"}
        n = N_FAST - first
        cl.metrics.append(
            series(
                ksm("kube_pod_container_status_waiting_reason", **base, reason="CrashLoopBackOff"),
                [1] * n,
                start=times[first],
            )
        )
        cl.metrics.append(
            series(
                ksm("kube_pod_container_status_last_terminated_reason", **base, reason="Error"),
                [1] * n,
                start=times[first],
            )
        )
        cl.metrics.append(
            series(
                ksm("kube_pod_container_status_last_terminated_exitcode", **base),
                [1] * n,
                start=times[first],
            )
        )


def crash_log(start: datetime) -> str:
    return (
        "\n".join(
            [
                f"{zms(start + timedelta(milliseconds=204))} INFO  main: service-d 2.4.0 (commit 9b1e4f27, go1.22.5) starting",
                f"{zms(start + timedelta(milliseconds=206))} INFO  config: reading /etc/service-d/config.yaml",
                f"{zms(start + timedelta(milliseconds=207))} ERROR config: missing required env DATABASE_URL",
                f"{zms(start + timedelta(milliseconds=208))} FATAL main: invalid configuration, exiting with code 1",
            ]
        )
        + "\n"
    )


def stage_signals(cl: Cluster) -> None:
    times = fast_times()
    ns_pods = [p for p in cl.pods if p.ns == "notifications"]
    hard = {"pods": 20.0, "requests.cpu": 4.0, "requests.memory": float(4 * 1024 * MI)}
    for resource in ("pods", "requests.cpu", "requests.memory"):
        lab = {
            "namespace": "notifications",
            "resourcequota": "notifications-quota",
            "resource": resource,
        }
        cl.metrics.append(
            series(ksm("kube_resourcequota", **lab, type="hard"), [hard[resource]] * N_FAST)
        )
        used = []
        for t in times:
            live = [p for p in ns_pods if p.created <= t]
            used.append(
                {
                    "pods": float(len(live)),
                    "requests.cpu": sum(cpu_m(p.req[0]) for p in live) / 1000,
                    "requests.memory": float(sum(mem_b(p.req[1]) for p in live)),
                }[resource]
            )
        cl.metrics.append(series(ksm("kube_resourcequota", **lab, type="used"), used))


# --- assembly ----------------------------------------------------------------------------------


def finish(cl: Cluster, quotas: list[tuple[str, str, dict[str, str]]]) -> None:
    for name in dict.fromkeys(p.svc.name for p in cl.pods):
        if SVCS[name].http:
            service_objs(cl, name)
    cl.objects[:0] = [namespace_obj(cl, ns) for ns in dict.fromkeys(p.ns for p in cl.pods)]
    for ns, qname, hard in quotas:
        cl.objects.append(quota_obj(cl, ns, qname, hard))
    for n in cl.nodes.values():
        cl.objects.append(node_obj(cl, n))
    cl.objects.extend(cl.events)
    for p in cl.pods:
        pod_metrics(cl, p)
    deps: dict[str, tuple[int, int]] = {}
    for o in cl.objects:
        if o["kind"] == "Deployment":
            deps[o["metadata"]["name"]] = (o["spec"]["replicas"], o["status"]["availableReplicas"])
    workload_metrics(cl, deps)


def build_world() -> dict[str, Any]:
    LAST_TERMINATION.clear()
    a, b, s = dc_a(), dc_b(), stage()
    dc_a_signals(a)
    dc_b_signals(b)
    stage_signals(s)
    endpoint_metrics(a, "service-a")
    for name in ("search-api", "auth-api", "service-d"):
        endpoint_metrics(b, name)
    node_network_metrics(a, softnet=False)
    node_network_metrics(b, softnet=True, spike_node="worker-17", spike=S4_RETRANS)
    big = {"pods": "60", "requests.cpu": "24", "requests.memory": "48Gi"}
    finish(a, [("orders", "orders-quota", big), ("payments", "payments-quota", big)])
    finish(b, [("orders", "orders-quota", big), ("search", "search-quota", big)])
    finish(
        s,
        [
            (
                "notifications",
                "notifications-quota",
                {"pods": "20", "requests.cpu": "4", "requests.memory": "4Gi"},
            ),
            (
                "catalog",
                "catalog-quota",
                {"pods": "10", "requests.cpu": "2", "requests.memory": "4Gi"},
            ),
        ],
    )
    audit_a = ci_release(
        "payments",
        "service-a",
        398,
        at("09:40:50.918", 17),
        5469710,
        88412,
        COMMITS["a2"],
        SVCS["service-a"].image("3.12.4"),
        "service-a-5d8f7c9b4",
        "10.20.4.31",
        "10.20.0.11",
    ) + ci_release(
        "orders",
        "service-c",
        412,
        at("10:57:47.604", 17),
        5480320,
        89950,
        COMMITS["c1"],
        SVCS["service-c"].image("1.13.2"),
        "service-c-58b4d6c7f9",
        "10.20.4.31",
        "10.20.0.11",
    )
    audit_b = (
        ci_release(
            "orders",
            "service-c",
            412,
            at("11:02:39.871", 17),
            5480321,
            89950,
            COMMITS["c1"],
            SVCS["service-c"].image("1.13.2"),
            "service-c-58b4d6c7f9",
            "10.61.4.27",
            "10.61.0.11",
        )
        + ci_release(
            "orders",
            "service-d",
            415,
            DEPLOY_D - timedelta(milliseconds=83),
            5531195,
            90402,
            COMMITS["d2"],
            SVCS["service-d"].image("2.4.0"),
            "service-d-7b6c9f5d84",
            "10.61.4.27",
            "10.61.0.11",
        )
        + [
            audit_event(
                "list",
                "pods",
                "search",
                "",
                at("10:14:37.215"),
                user={"username": "oidc:n.volkova", "groups": ["oidc:sre", "system:authenticated"]},
                source_ip="10.8.14.61",
                agent="kubectl/v1.30.2 (darwin/arm64) kubernetes/9c7a1f3",
                code=200,
                reason='RBAC: allowed by ClusterRoleBinding "sre-view" of ClusterRole '
                '"view" to Group "oidc:sre"',
                uri="/api/v1/namespaces/search/pods?limit=500",
            )
        ]
    )
    for ev in audit_b + audit_a:
        if not ev["objectRef"]["name"]:
            del ev["objectRef"]["name"]
    world = {
        "environments": {
            "dc-a": ["kubernetes", "metrics", "logs"],
            "dc-b": ["kubernetes", "metrics", "logs"],
            "stage": ["kubernetes", "metrics"],
        },
        "kubernetes": {c.env: c.objects for c in (a, b, s)},
        "pod_logs": {c.env: c.pod_logs for c in (a, b) if c.pod_logs},
        "audit": {
            "dc-a": sorted(audit_a, key=lambda e: e["requestReceivedTimestamp"]),
            "dc-b": sorted(audit_b, key=lambda e: e["requestReceivedTimestamp"]),
        },
        "metrics": {c.env: c.metrics for c in (a, b, s)},
        "logs": {c.env: c.logs for c in (a, b)},
        "gitlab": gitlab(),
    }
    return {
        "now": "2026-07-20T14:40:00+03:00",
        "timezone": "Europe/Moscow",
        "questions": QUESTIONS,
        "world": world,
    }


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # no &id001 anchors: every object spelled out
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value and not value.startswith(" "):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    """Numbers and short words inline (metric values, label lists), prose one per line."""
    flow = all(
        not isinstance(v, dict | list) and not (isinstance(v, str) and len(v) > 40) for v in value
    )
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


def _dict(dumper: yaml.SafeDumper, value: dict[str, Any]) -> yaml.MappingNode:
    """Small mappings of scalars inline (labels, conditions), anything multi-line as a block."""
    flow = all(
        not isinstance(v, dict | list) and not (isinstance(v, str) and "\n" in v)
        for v in value.values()
    )
    return dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=flow)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(list, _list)
_Dumper.add_representer(dict, _dict)

HEADER = """\
# The built-in demo world (`infrabot demo`, `infrabot ask` without configuration).
# GENERATED by evals/worlds/make_demo.py -- edit that script, then run
#   .venv/bin/python evals/worlds/make_demo.py
# The script's docstring tells the five stories; times in the data are UTC, the user
# speaks Moscow time (+03:00): 14:11 local is 11:11Z.
"""


def render() -> str:
    body = yaml.dump(
        build_world(),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=None,
        width=120,
    )
    return HEADER + body


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is out of date; run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(text.encode()) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
