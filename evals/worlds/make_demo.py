"""Write evals/worlds/demo.yaml, the built-in demo world, deterministically.

Run `.venv/bin/python evals/worlds/make_demo.py` (`--check`: exit 1 when the committed file
differs). Standard library and PyYAML only. Every "random" value (ids, noise, request ids)
is derived from sha256 of a name, so every machine and Python version writes the same file.

The bot's clock is 2026-07-20T14:40:00+03:00 (11:40Z). Data times are UTC; the user speaks
Moscow time (+03:00). Metric samples cover 09:50Z-11:40Z: counters and story gauges every
60 s, flat gauges every 300 s.

Stories
 1. dc-a payments/service-a, 14:11 local: the app answered 302 with a 1,191-byte Location
    (3-D Secure); edge-02 logged "upstream sent too big header" on connection *884213 (no
    request_id in the error log); the access log has request_id
    7f9e2c21a4b84d0c9e51b0d3f6a27c85 with status 502 (the public example's documents). Two
    more such 502s at 11:10:26Z (edge-01) and 11:12:41Z (edge-02). Decoys: a 413 on the same
    host (another connection), an upstream timeout on shop.example.net. Endpoints ready, no
    restarts.
 2. dc-a orders/service-b: pod service-b-6f9c8d7b5-q8n4t (worker-06) was OOMKilled 7 times
    since 10:29Z (limit 512Mi, exit 137); its working set climbs to the limit before each
    kill; restarts 0 -> 7; BackOff events; each kill cut 1-2 requests (edge 502, "upstream
    prematurely closed connection").
 3. dc-b orders/service-d: tag v2.4.0 rolled out at 10:52:13Z (13:52 local) by GitLab job
    5531195 deploy:dc-b (job user k.smirnova, commit author d.ivanov, audit actor
    system:serviceaccount:ci:svc-deployer). The new pods crash-loop ("missing required env
    DATABASE_URL", exit 1); the old ReplicaSet (2.3.1) still serves. The job failed when
    `rollout status` timed out; deploy:dc-a (5531194) was never played.
 4. dc-b node worker-17: search-api and auth-api got 502s at 10:05-10:12Z (13:05-13:12 local),
    only through their pods on worker-17 ("upstream prematurely closed connection", "recv()
    failed (104: Connection reset by peer)"). worker-17 shows TCP retransmits and softnet
    squeezes; peers worker-15/16/18 are clean; endpoints stayed ready.
 5. stage notifications: ResourceQuota notifications-quota at pods 19/20, requests.cpu
    3800m/4, requests.memory 3840Mi/4Gi. notify-push was scaled 6 -> 9 at 11:18:40Z: one new
    pod runs, one is Pending (FailedScheduling: no room on the nodes, stage-worker-03 is
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
NOW = datetime(2026, 7, 20, 11, 40, tzinfo=UTC)
T0 = datetime(2026, 7, 20, 9, 50, tzinfo=UTC)
N_FAST = 111  # 60 s samples, 09:50Z .. 11:40Z
N_SLOW = 23  # 300 s samples over the same span
DAY = "2026.07.20"
GITLAB = "https://gitlab.example.com"
ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # what Kubernetes uses for generated name suffixes
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

# --- deterministic helpers ---------------------------------------------------------------


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


def d(text: str) -> datetime:
    """'10:52:13.402' (the demo's day), '07-14 07:55:52' (2026) or '2025-11-03 08:12:40', UTC."""
    date, _, clock = text.rpartition(" ")
    parts = [int(x) for x in date.split("-")] if date else [7, 20]
    year, month, day = parts if len(parts) == 3 else [2026, *parts]
    main, _, ms = clock.partition(".")
    hh, mm, ss = (int(x) for x in main.split(":"))
    return datetime(year, month, day, hh, mm, ss, int((ms or "0").ljust(6, "0")), tzinfo=UTC)


def z(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def zms(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def zus(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def msk(t: datetime) -> str:
    """GitLab commit dates as the public examples write them (+03:00, milliseconds)."""
    return zms(t + timedelta(hours=3))[:-1] + "+03:00"


def secs(n: float) -> timedelta:
    return timedelta(seconds=n)


def cpu_m(q: str) -> int:
    return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)


def mem_b(q: str) -> int:
    units = {"Ki": 1024, "Mi": MI, "Gi": 1024 * MI}
    return int(q[:-2]) * units[q[-2:]]


def cpu_q(m: int) -> str:
    return str(m // 1000) if m % 1000 == 0 else f"{m}m"


def mem_q(b: int) -> str:
    return f"{b // (1024 * MI)}Gi" if b % (1024 * MI) == 0 else f"{b // MI}Mi"


FAST = [T0 + secs(60 * i) for i in range(N_FAST)]


def slow_from(t: datetime) -> datetime:
    """The first 300 s sample at or after t (and not before T0)."""
    if t <= T0:
        return T0
    return T0 + secs(300 * -(-int((t - T0).total_seconds()) // 300))


def series(labels: dict[str, str], values: list[Any], start: datetime = T0, step: int = 60):
    return {"labels": labels, "start": z(start), "step": f"{step}s", "values": values}


def flat(labels: dict[str, str], value: float, since: datetime = T0) -> dict[str, Any]:
    start = slow_from(since)
    n = int((NOW - start).total_seconds() // 300) + 1
    return series(labels, [value] * n, start, 300)


def cumulative(base: int, increments: list[int]) -> list[int]:
    out, total = [], base
    for inc in increments:
        total += inc
        out.append(total)
    return out


def between(events: list[datetime], i: int) -> int:
    """How many events fall into the minute that ends at sample i."""
    return sum(1 for e in events if FAST[i - 1] < e <= FAST[i]) if i else 0


# --- the model -----------------------------------------------------------------------------


@dataclass
class Svc:
    name: str
    ns: str
    container: str
    req: tuple[str, str]
    lim: tuple[str, str]
    http: bool
    mem_mi: int  # typical working set
    cpu: float  # typical usage in cores

    def image(self, tag: str) -> str:
        return f"registry.example.com/{self.ns}/{self.name}:{tag}"


# fmt: off
SVCS = {s.name: s for s in [
    Svc("service-a", "payments", "app", ("500m", "512Mi"), ("2", "1Gi"), True, 610, 0.42),
    Svc("service-b", "orders", "app", ("250m", "256Mi"), ("1", "512Mi"), True, 280, 0.14),
    Svc("service-c", "orders", "app", ("250m", "384Mi"), ("1", "768Mi"), True, 350, 0.21),
    Svc("service-d", "orders", "app", ("250m", "256Mi"), ("1", "512Mi"), True, 190, 0.09),
    Svc("catalog-api", "catalog", "api", ("1", "1Gi"), ("2", "2Gi"), True, 1180, 0.77),
    Svc("search-api", "search", "api", ("500m", "1Gi"), ("2", "2Gi"), True, 1320, 0.58),
    Svc("search-indexer", "search", "indexer", ("500m", "1Gi"), ("1", "2Gi"), False, 890, 0.31),
    Svc("auth-api", "auth", "api", ("250m", "256Mi"), ("1", "512Mi"), True, 240, 0.16),
    Svc("notify-push", "notifications", "app", ("250m", "256Mi"), ("500m", "512Mi"), False, 170,
        0.06),
    Svc("notify-email", "notifications", "app", ("200m", "192Mi"), ("400m", "384Mi"), False, 150,
        0.05),
    Svc("notify-sms", "notifications", "app", ("100m", "112Mi"), ("200m", "256Mi"), False, 90,
        0.02),
]}
# fmt: on
STAGE_REQ = {"service-a": ("250m", "256Mi"), "catalog-api": ("250m", "512Mi")}


@dataclass
class Node:
    name: str
    ip: str
    cidr: str  # "10.42.3" for 10.42.3.0/24
    cpus: int
    alloc_cpu: str
    mem_ki: int
    alloc_ki: int
    zone: str
    created: datetime
    labels: dict[str, str] = field(default_factory=dict)
    provider: str | None = None
    cordoned: datetime | None = None


@dataclass
class Instance:
    """One container (one containerd id) of a pod; `end` None while it runs."""

    cid: str
    start: datetime
    end: datetime | None


@dataclass
class Pod:
    svc: Svc
    name: str
    uid: str
    node: str | None
    ip: str | None
    tag: str
    created: datetime
    req: tuple[str, str]
    instances: list[Instance]
    ready: bool = True
    last_exit: tuple[int, str] | None = None  # exit code and reason of the last termination
    mem: Any = None  # callable(instance index, t) -> bytes, for story pods

    @property
    def ns(self) -> str:
        return self.svc.ns

    @property
    def image(self) -> str:
        return self.svc.image(self.tag)

    @property
    def restarts(self) -> list[datetime]:
        """When restartCount went up: every start after the first."""
        return [i.start for i in self.instances[1:]]


@dataclass
class RS:
    hash: str
    revision: int
    tag: str
    created: datetime
    uid: str
    pods: list[Pod] = field(default_factory=list)


@dataclass
class Workload:
    svc: Svc
    created: datetime
    sets: list[RS]  # newest first
    replicas: int
    ci: dict[str, str] = field(default_factory=dict)
    conditions: list[dict[str, Any]] | None = None
    env_vars: list[dict[str, Any]] | None = None
    max_surge: str | int = "25%"
    uid: str = ""
    generation: int = 0

    @property
    def pods(self) -> list[Pod]:
        return [p for s in self.sets for p in s.pods]


@dataclass
class Cluster:
    env: str
    kubelet: str
    nodes: dict[str, Node] = field(default_factory=dict)
    workloads: dict[str, Workload] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    metrics: list[dict[str, Any]] = field(default_factory=list)
    pod_logs: dict[str, str] = field(default_factory=dict)
    logs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    used_ips: set[str] = field(default_factory=set)

    @property
    def pods(self) -> list[Pod]:
        return [p for w in self.workloads.values() for p in w.pods]

    def pod(self, name: str) -> Pod:
        return next(p for p in self.pods if p.name == name)

    def of(self, svc: str) -> list[Pod]:
        return self.workloads[svc].pods

    def alloc_ip(self, node: str, key: str) -> str:
        prefix = self.nodes[node].cidr
        n = 10 + int(h("ip", self.env, key)[:6], 16) % 230
        while f"{prefix}.{n}" in self.used_ips:
            n = 10 + (n - 9) % 230
        self.used_ips.add(f"{prefix}.{n}")
        return f"{prefix}.{n}"

    def new_pod(self, svc: Svc, rs: RS, node: str | None, created: datetime, name: str = "",
                ip: str = "", start_after: float = 4.0) -> Pod:  # fmt: skip
        name = name or f"{svc.name}-{rs.hash}-{suffix(5, self.env, svc.name, rs.hash, created)}"
        if node and not ip:
            ip = self.alloc_ip(node, name)
        self.used_ips.add(ip)
        key = f"{self.env}/Pod/{name}"
        first = Instance(
            EXAMPLE_CIDS.get(name) or cid(self.env, name, 0), created + secs(start_after), None
        )
        req = STAGE_REQ.get(svc.name, svc.req) if self.env == "stage" else svc.req
        pod = Pod(svc, name, EXAMPLE_IDS.get(key) or uid(key), node, ip or None, rs.tag, created,
                  req, [first] if node else [])  # fmt: skip
        rs.pods.append(pod)
        return pod


def cid(*parts: object) -> str:
    return "containerd://" + h("cid", *parts)[:64]


# ids of objects that the public example worlds also contain
EXAMPLE_IDS = {
    "dc-a/Deployment/service-a": "5b0e3f7a-2c41-4d8e-9a16-7f3c0b9d2e58",
    "dc-a/ReplicaSet/service-a-5d8f7c9b4": "c41e9a0d-7b3f-4f62-8d25-1e6a9c7b4f03",
    "dc-a/Pod/service-a-5d8f7c9b4-x2k9p": "8e2d4c61-0f5a-4b97-a3c8-6d1e7f2b9a54",
    "dc-a/Pod/service-a-5d8f7c9b4-m7q4d": "3a9f1e7c-5d2b-4c80-b6e4-0c8d2a5f7b91",
    "dc-a/Service/service-a": "0d6b2e9f-4a1c-4e73-8f5d-b2c9a7e1d046",
    "dc-a/EndpointSlice/service-a": "e7a3c1b9-6d0f-4b52-9e84-1f3a5c7d9b20",
    "dc-a/Node/worker-04": "2f8c6a1d-9e3b-4d75-a0c2-7b5e9f1d3a68",
    "dc-a/Node/worker-05": "6c1a9d4e-2b7f-4e08-93d5-a8f2c6b0e417",
    "dc-a/Deployment/catalog-api": "3c8e1a5f-9b2d-4f70-a4e6-d1b7c9f2e085",
    "dc-b/Deployment/catalog-api": "8f4b2d7e-1c6a-4e39-b5d0-7a2e9c4f1b63",
    "dc-b/Deployment/service-c": "71c4e9a2-3d8b-4f05-a6e1-9b2d7c0f4e83",
    "dc-b/ReplicaSet/service-c-58b4d6c7f9": "9c3a7e1b-5f2d-4b86-a9e0-4d7c2f8b1a36",
}
EXAMPLE_CIDS = {
    "service-a-5d8f7c9b4-x2k9p":
        "containerd://1b7e4c9d2a5f8e0c3b6d9a2f5e8c1b4d7a0e3f6c9b2d5a8e1f4c7b0d3a6e9f2c5",
    "service-a-5d8f7c9b4-m7q4d":
        "containerd://9d2c5f8a1e4b7d0c3f6a9e2b5d8c1f4a7e0b3d6c9f2a5e8b1d4c7f0a3e6b9d2c8",
}  # fmt: skip
EXAMPLE_SLICES = {"dc-a/service-a": "service-a-7h2kd"}

# --- the three clusters ----------------------------------------------------------------------

# fmt: off
# service, revision, tag, ReplicaSet hash, ReplicaSet created, nodes of its pods, Deployment created
DC_A = [
    ("service-a", 31, "3.12.4", "5d8f7c9b4", "07-17 09:40:51", "04 05", "2025-11-03 08:12:40"),
    ("service-b", 12, "1.9.3", "6f9c8d7b5", "07-18 07:12:20", "06 02", "2025-09-22 14:02:11"),
    ("service-c", 17, "1.13.2", "58b4d6c7f9", "07-17 10:57:48", "01 03 05", "2025-09-10 12:20:05"),
    ("service-d", 23, "2.3.1", "5f7d8c6b9", "07-15 12:41:33", "02 04", "2026-02-02 09:15:27"),
    ("catalog-api", 42, "7.3.0", "6d9f8b7c5", "07-09 08:20:14", "01 02 03 04 05 06",
     "2025-04-14 07:30:12"),
    ("search-api", 26, "5.8.1", "79c5b8d6f4", "07-13 15:02:09", "02 03 06", "2026-01-20 11:48:30"),
    ("auth-api", 19, "4.2.0", "5b8f6d9c7", "07-16 06:45:50", "01 04", "2025-12-08 10:05:00"),
]
DC_B = [
    ("service-a", 29, "3.12.4", "5d8f7c9b4", "07-17 09:46:12", "15 18", "2025-11-03 08:31:02"),
    ("service-b", 12, "1.9.3", "6f9c8d7b5", "07-18 07:20:02", "16 18", "2025-09-22 14:09:40"),
    ("service-c", 17, "1.13.2", "58b4d6c7f9", "07-17 11:02:40", "15 16 18", "2025-09-10 12:20:05"),
    ("service-d", 23, "2.3.1", "5f7d8c6b9", "07-15 12:49:10", "15 16 18 15", "2026-02-02 09:15:27"),
    ("catalog-api", 40, "7.3.0", "6d9f8b7c5", "07-09 08:31:40", "15 16 18", "2025-04-14 07:41:55"),
    ("search-api", 26, "5.8.1", "79c5b8d6f4", "07-13 15:10:33", "17 15 16", "2026-01-20 11:52:03"),
    ("search-indexer", 14, "5.8.1", "6c7d9b8f5", "07-13 15:10:35", "17", "2026-01-20 11:52:04"),
    ("auth-api", 19, "4.2.0", "5b8f6d9c7", "07-16 06:52:18", "17 18 16", "2025-12-08 10:11:19"),
]
STAGE = [
    ("notify-push", 7, "1.6.0", "5c8d7f6b9", "07-19 16:04:22", "01 01 01 02 02 02",
     "2026-05-12 09:12:44"),
    ("notify-email", 9, "1.6.0", "7f6d5c8b9", "07-19 16:04:25", "01 01 01 02 02 02 03",
     "2026-05-12 09:12:46"),
    ("notify-sms", 5, "1.5.2", "84d9c6b7f", "07-12 10:11:05", "02 02 03 03", "2026-05-12 09:12:47"),
    ("catalog-api", 51, "7.4.0-rc.1", "7d8c6f9b5", "07-18 13:30:09", "01", "2026-04-01 10:02:00"),
    ("service-a", 44, "3.13.0-rc.2", "6b9d8c7f5", "07-19 11:02:37", "02", "2025-11-03 08:40:13"),
]
# the ReplicaSet each rollout replaced (scaled to 0)
PREVIOUS = {
    ("dc-a", "service-a"): ("7c6b5d4f8", "3.12.3", "07-14 08:22:14"),
    ("dc-a", "service-b"): ("85c7d9f4b", "1.9.2", "07-09 13:05:44"),
    ("dc-b", "service-a"): ("7c6b5d4f8", "3.12.3", "07-14 08:29:57"),
}
# pods whose names or addresses a story or a public example fixes: (env, service, index)
FIXED_PODS = {
    ("dc-a", "service-a", 0): ("service-a-5d8f7c9b4-x2k9p", "10.42.3.17"),
    ("dc-a", "service-a", 1): ("service-a-5d8f7c9b4-m7q4d", "10.42.5.22"),
    ("dc-a", "service-b", 0): ("service-b-6f9c8d7b5-q8n4t", ""),
    ("dc-a", "service-b", 1): ("service-b-6f9c8d7b5-jw2xl", ""),
    ("dc-a", "catalog-api", 5): ("", "10.42.8.31"),
    ("dc-b", "search-api", 0): ("", "10.52.17.23"),
    ("dc-b", "auth-api", 0): ("", "10.52.17.41"),
}
# Deployment annotations written by CI: project, pipeline, job, commit
CI = {
    ("dc-a", "service-a"): ("payments/service-a", 88412, 5469710, "a2"),
    ("dc-b", "service-a"): ("payments/service-a", 88412, 5469711, "a2"),
    ("dc-a", "service-c"): ("orders/service-c", 89950, 5480320, "c1"),
    ("dc-b", "service-c"): ("orders/service-c", 89950, 5480321, "c1"),
    ("dc-a", "service-d"): ("orders/service-d", 89811, 5461402, "d1"),
    ("dc-b", "service-d"): ("orders/service-d", 89811, 5461403, "d1"),
}
# fmt: on
SERVICE_D_ENV = [
    {
        "name": "ORDERS_DB_DSN",
        "valueFrom": {"secretKeyRef": {"name": "service-d-db", "key": "dsn"}},
    },
    {"name": "LOG_LEVEL", "value": "info"},
]


def ci_annotations(project: str, pipeline: int, job: int, commit: str) -> dict[str, str]:
    return {
        "ci.example.com/pipeline-url": f"{GITLAB}/{project}/-/pipelines/{pipeline}",
        "ci.example.com/job-url": f"{GITLAB}/{project}/-/jobs/{job}",
        "ci.example.com/commit-sha": COMMITS[commit][0],
    }


def fill(cl: Cluster, table: list[tuple[Any, ...]], prefix: str) -> Cluster:
    """Workloads from a table; the cluster's nodes must be there (pod addresses come from them)."""
    env = cl.env
    cl.used_ips |= {ip for (e, _, _), (_, ip) in FIXED_PODS.items() if e == env and ip}
    for name, revision, tag, rs_hash, rs_created, nodes, created in table:
        svc = SVCS[name]
        rs_name = f"{name}-{rs_hash}"
        rs = RS(rs_hash, revision, tag, d(rs_created), ids(env, "ReplicaSet", rs_name))
        for i, node in enumerate(nodes.split()):
            fixed_name, ip = FIXED_PODS.get((env, name, i), ("", ""))
            at = rs.created + secs(15 * i + int(frac("podc", env, name, i) * 4))
            cl.new_pod(svc, rs, prefix + node, at, fixed_name, ip)
        sets = [rs]
        if (env, name) in PREVIOUS:
            old_hash, old_tag, old_created = PREVIOUS[(env, name)]
            old_name = f"{name}-{old_hash}"
            sets.append(RS(old_hash, revision - 1, old_tag, d(old_created),
                           ids(env, "ReplicaSet", old_name)))  # fmt: skip
        w = Workload(svc, d(created), sets, len(rs.pods), uid=ids(env, "Deployment", name))
        w.generation = revision
        if (env, name) in CI:
            w.ci = ci_annotations(*CI[(env, name)])
        if name == "service-d":
            w.env_vars, w.max_surge = SERVICE_D_ENV, "50%"
        if name == "service-c":
            w.max_surge = 1
        cl.workloads[name] = w
    return cl


def ids(env: str, kind: str, name: str) -> str:
    key = f"{env}/{kind}/{name}"
    return EXAMPLE_IDS.get(key) or uid(key)


def dc_a() -> Cluster:
    nodes = {}
    for i, (cidr, zone) in enumerate(
        [("0", 1), ("1", 1), ("2", 2), ("3", 2), ("5", 3), ("8", 3)], start=1
    ):
        created = d("2025-06-02 10:01:33") + secs(120 * i)
        nodes[f"worker-0{i}"] = Node(f"worker-0{i}", f"10.20.1.{10 + i}", f"10.42.{cidr}", 16,
                                     "15800m", 65843516, 64192828, f"dc-a-r{zone}",
                                     created)  # fmt: skip
    return fill(Cluster("dc-a", "v1.30.4", nodes), DC_A, "worker-")


def dc_b() -> Cluster:
    cl = Cluster("dc-b", "v1.30.4")
    for i, nn in enumerate([15, 16, 17, 18]):
        name = f"worker-{nn}"
        labels = {"node.kubernetes.io/instance-type": "vm-8c32g",
                  "infra.example.com/hypervisor": f"esx-b-0{3 + i}"}  # fmt: skip
        created = d("03-09 11:20:07") + secs(180 * i)
        cl.nodes[name] = Node(name, f"10.61.2.{nn}", f"10.52.{nn}", 8, "7800m", 32863784,
                              31712312, f"dc-b-r{1 + i // 2}", created, labels,
                              f"vsphere://{uid('vm', name)}")  # fmt: skip
    return fill(cl, DC_B, "worker-")


def stage() -> Cluster:
    cl = Cluster("stage", "v1.30.6")
    for i in (1, 2, 3):
        name = f"stage-worker-0{i}"
        cl.nodes[name] = Node(name, f"10.70.0.{10 + i}", f"10.72.{i}", 2, "1930m", 8148980,
                              7444468, "stage-r1", d("07-02 15:40:00") + secs(240 * i),
                              cordoned=d("08:55:12") if i == 3 else None)  # fmt: skip
    return fill(cl, STAGE, "stage-worker-")


# --- Kubernetes objects ----------------------------------------------------------------------


def owner(kind: str, api: str, name: str, owner_uid: str) -> dict[str, Any]:
    return {"apiVersion": api, "kind": kind, "name": name, "uid": owner_uid,
            "controller": True, "blockOwnerDeletion": True}  # fmt: skip


def meta(env: str, kind: str, name: str, ns: str | None, created: datetime, **extra: Any):
    m: dict[str, Any] = {"name": name}
    if "generateName" in extra:
        m["generateName"] = extra.pop("generateName")
    if ns:
        m["namespace"] = ns
    m["uid"] = extra.pop("uid", None) or ids(env, kind, name)
    m["resourceVersion"] = rv(env, kind, name)
    if "generation" in extra:
        m["generation"] = extra.pop("generation")
    m["creationTimestamp"] = z(created)
    m.update(extra)
    return m


def node_obj(cl: Cluster, n: Node) -> dict[str, Any]:
    beat = z(NOW - secs(40 + int(frac("beat", n.name) * 200)))
    since = z(d("06-28 03:14:51") + secs(int(frac("boot", cl.env, n.name) * 9000)))
    labels = {"kubernetes.io/hostname": n.name, "kubernetes.io/os": "linux",
              "node-role.kubernetes.io/worker": "", "topology.kubernetes.io/zone": n.zone,
              **n.labels}  # fmt: skip
    spec: dict[str, Any] = {"podCIDR": f"{n.cidr}.0/24"}
    if n.provider:
        spec["providerID"] = n.provider
    if n.cordoned:
        spec["taints"] = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule",
                           "timeAdded": z(n.cordoned)}]  # fmt: skip
        spec["unschedulable"] = True
    conditions = [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory",
         "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]  # fmt: skip
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": meta(cl.env, "Node", n.name, None, n.created, labels=labels),
        "spec": spec,
        "status": {
            "addresses": [{"type": "InternalIP", "address": n.ip},
                          {"type": "Hostname", "address": n.name}],
            "capacity": {"cpu": str(n.cpus), "memory": f"{n.mem_ki}Ki", "pods": "110"},
            "allocatable": {"cpu": n.alloc_cpu, "memory": f"{n.alloc_ki}Ki", "pods": "110"},
            "conditions": [{"type": t, "status": s, "reason": r, "message": m,
                            "lastHeartbeatTime": beat, "lastTransitionTime": since}
                           for t, s, r, m in conditions],
            "nodeInfo": {"kubeletVersion": cl.kubelet,
                         "containerRuntimeVersion": "containerd://1.7.20",
                         "kernelVersion": "6.1.0-23-amd64",
                         "osImage": "Debian GNU/Linux 12 (bookworm)", "architecture": "amd64",
                         "operatingSystem": "linux"},
        },
    }  # fmt: skip


def container(svc: Svc, tag: str, req: tuple[str, str], env_vars: Any = None) -> dict[str, Any]:
    c: dict[str, Any] = {"name": svc.container, "image": svc.image(tag)}
    port = {"name": "http", "containerPort": 8080, "protocol": "TCP"}
    c["ports"] = [port if svc.http else {**port, "name": "metrics", "containerPort": 9090}]
    if env_vars:
        c["env"] = env_vars
    c["resources"] = {"requests": {"cpu": req[0], "memory": req[1]},
                      "limits": {"cpu": svc.lim[0], "memory": svc.lim[1]}}  # fmt: skip
    return c


def default_conditions(w: Workload) -> list[dict[str, Any]]:
    new = w.sets[0]
    ready = z(max(p.instances[-1].start for p in new.pods) + secs(12))
    return [
        {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
         "message": "Deployment has minimum availability.",
         "lastUpdateTime": ready, "lastTransitionTime": ready},
        {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
         "message": f'ReplicaSet "{w.svc.name}-{new.hash}" has successfully progressed.',
         "lastUpdateTime": z(new.created + secs(47)), "lastTransitionTime": z(w.created)},
    ]  # fmt: skip


def workload_objs(cl: Cluster, w: Workload) -> list[dict[str, Any]]:
    svc, new, env = w.svc, w.sets[0], cl.env
    req = STAGE_REQ.get(svc.name, svc.req) if env == "stage" else svc.req
    sel = {"app.kubernetes.io/name": svc.name}
    pods = w.pods
    ready = sum(1 for p in pods if p.ready)
    status: dict[str, Any] = {"observedGeneration": w.generation, "replicas": len(pods),
                              "updatedReplicas": len(new.pods), "readyReplicas": ready,
                              "availableReplicas": ready}  # fmt: skip
    if max(len(pods), w.replicas) > ready:
        status["unavailableReplicas"] = max(len(pods), w.replicas) - ready
    status["conditions"] = w.conditions or default_conditions(w)
    template = container(svc, new.tag, req, w.env_vars)
    if svc.http:
        template["readinessProbe"] = {"httpGet": {"path": "/healthz/ready", "port": 8080},
                                      "periodSeconds": 5, "failureThreshold": 3}  # fmt: skip
    annotations = {"deployment.kubernetes.io/revision": str(new.revision), **w.ci}
    labels = {"app.kubernetes.io/name": svc.name, "app.kubernetes.io/part-of": svc.ns}
    objs: list[dict[str, Any]] = [{
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta(env, "Deployment", svc.name, svc.ns, w.created, generation=w.generation,
                         labels=labels, annotations=annotations),
        "spec": {"replicas": w.replicas, "selector": {"matchLabels": sel},
                 "progressDeadlineSeconds": 600, "revisionHistoryLimit": 10,
                 "strategy": {"type": "RollingUpdate",
                              "rollingUpdate": {"maxSurge": w.max_surge, "maxUnavailable": 0}},
                 "template": {"metadata": {"labels": sel}, "spec": {"containers": [template]}}},
        "status": status,
    }]  # fmt: skip
    surge = {"50%": w.replicas // 2, 1: 1}.get(w.max_surge, max(1, w.replicas // 4))
    failure = next((c for c in status["conditions"] if c["type"] == "ReplicaFailure"), None)
    dep_uid = objs[0]["metadata"]["uid"]
    for rs in w.sets:
        name = f"{svc.name}-{rs.hash}"
        labels = {"app.kubernetes.io/name": svc.name, "pod-template-hash": rs.hash}
        rs_ready = sum(1 for p in rs.pods if p.ready)
        rs_status: dict[str, Any] = {"replicas": len(rs.pods)}
        if rs.pods:
            rs_status.update(fullyLabeledReplicas=len(rs.pods), readyReplicas=rs_ready,
                             availableReplicas=rs_ready)  # fmt: skip
        rs_status["observedGeneration"] = 1 if rs is new else 3
        if failure and rs is new:
            rs_status["conditions"] = [
                {
                    "type": "ReplicaFailure",
                    "status": "True",
                    "reason": "FailedCreate",
                    "message": failure["message"],
                    "lastTransitionTime": failure["lastTransitionTime"],
                }
            ]
        notes = {
            "deployment.kubernetes.io/revision": str(rs.revision),
            "deployment.kubernetes.io/desired-replicas": str(w.replicas),
            "deployment.kubernetes.io/max-replicas": str(w.replicas + surge),
        }
        spec_replicas = w.replicas if rs is new and len(w.sets) == 1 else len(rs.pods)
        objs.append({
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": meta(env, "ReplicaSet", name, svc.ns, rs.created, uid=rs.uid,
                             labels=labels, annotations=notes,
                             ownerReferences=[owner("Deployment", "apps/v1", svc.name, dep_uid)]),
            "spec": {"replicas": spec_replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [
                                      container(svc, rs.tag, req, w.env_vars)]}}},
            "status": rs_status,
        })  # fmt: skip
        for p in rs.pods:
            objs.append(pod_obj(cl, p, rs, w.env_vars))
    return objs


UNSCHEDULABLE = (
    "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. preemption: "
    "0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption "
    "victims found for incoming pod."
)


def pod_obj(cl: Cluster, p: Pod, rs: RS, env_vars: Any) -> dict[str, Any]:
    labels = {"app.kubernetes.io/name": p.svc.name, "pod-template-hash": rs.hash}
    ref = owner("ReplicaSet", "apps/v1", f"{p.svc.name}-{rs.hash}", rs.uid)
    metadata = meta(cl.env, "Pod", p.name, p.ns, p.created, uid=p.uid, labels=labels,
                    generateName=f"{p.svc.name}-{rs.hash}-", ownerReferences=[ref])  # fmt: skip
    spec: dict[str, Any] = {"nodeName": p.node} if p.node else {}
    spec["containers"] = [container(p.svc, p.tag, p.req, env_vars)]
    spec["restartPolicy"] = "Always"
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}

    def cond(kind: str, at: datetime, ok: bool = True, **why: str) -> dict[str, Any]:
        return {"type": kind, "status": "True" if ok else "False", "lastProbeTime": None,
                "lastTransitionTime": z(at), **why}  # fmt: skip

    if p.node is None:
        obj["status"] = {
            "phase": "Pending",
            "qosClass": "Burstable",
            "conditions": [
                cond(
                    "PodScheduled", p.created, False, reason="Unschedulable", message=UNSCHEDULABLE
                )
            ],
        }
        return obj
    cur = p.instances[-1]
    cs: dict[str, Any] = {"name": p.svc.container, "image": p.image,
                          "imageID": f"{p.image.rsplit(':', 1)[0]}@sha256:{h('img', p.image)}",
                          "containerID": cur.cid, "ready": p.ready, "started": cur.end is None,
                          "restartCount": len(p.restarts)}  # fmt: skip
    if cur.end is None:
        cs["state"] = {"running": {"startedAt": z(cur.start)}}
    else:
        why = f"back-off 5m0s restarting failed container={p.svc.container} pod={p.name}_{p.ns}"
        cs["state"] = {"waiting": {"reason": "CrashLoopBackOff", "message": f"{why}({p.uid})"}}
    ended = [i for i in p.instances if i.end is not None]
    cs["lastState"] = {}
    if ended and p.last_exit:
        last = ended[-1]
        cs["lastState"] = {"terminated": {"exitCode": p.last_exit[0], "reason": p.last_exit[1],
                                          "startedAt": z(last.start), "finishedAt": z(last.end),
                                          "containerID": last.cid}}  # fmt: skip
    node = cl.nodes[p.node]
    since = cur.start + secs(12) if p.ready else p.instances[0].start + secs(2)
    why_not = (
        {}
        if p.ready
        else {
            "reason": "ContainersNotReady",
            "message": f"containers with unready status: [{p.svc.container}]",
        }
    )
    obj["status"] = {
        "phase": "Running", "hostIP": node.ip, "hostIPs": [{"ip": node.ip}], "podIP": p.ip,
        "podIPs": [{"ip": p.ip}], "startTime": z(p.created), "qosClass": "Burstable",
        "conditions": [cond("PodReadyToStartContainers", p.created + secs(2)),
                       cond("Initialized", p.created),
                       cond("Ready", since, p.ready, **why_not),
                       cond("ContainersReady", since, p.ready, **why_not),
                       cond("PodScheduled", p.created)],
        "containerStatuses": [cs],
    }  # fmt: skip
    return obj


def service_objs(cl: Cluster, w: Workload) -> list[dict[str, Any]]:
    svc, env = w.svc, cl.env
    net = {"dc-a": "10.96", "dc-b": "10.112", "stage": "10.128"}[env]
    b = h("clusterip", env, svc.name)
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta(env, "Service", svc.name, svc.ns, w.created,
                         labels={"app.kubernetes.io/name": svc.name}),
        "spec": {"type": "ClusterIP",
                 "clusterIP": f"{net}.{int(b[:2], 16) % 250 + 1}.{int(b[2:4], 16) % 250 + 1}",
                 "selector": {"app.kubernetes.io/name": svc.name},
                 "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}]},
    }  # fmt: skip
    endpoints = [
        {"addresses": [p.ip],
         "conditions": {"ready": p.ready, "serving": p.ready, "terminating": False},
         "nodeName": p.node,
         "targetRef": {"kind": "Pod", "name": p.name, "namespace": p.ns, "uid": p.uid}}
        for p in w.pods if p.ip
    ]  # fmt: skip
    name = EXAMPLE_SLICES.get(f"{env}/{svc.name}") or f"{svc.name}-{suffix(5, env, svc.name)}"
    labels = {
        "kubernetes.io/service-name": svc.name,
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
    }
    ref = owner("Service", "v1", svc.name, service["metadata"]["uid"])
    eps = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": meta(env, "EndpointSlice", name, svc.ns, w.created + secs(1),
                         uid=ids(env, "EndpointSlice", svc.name), generateName=f"{svc.name}-",
                         labels=labels, ownerReferences=[ref]),
        "addressType": "IPv4",
        "endpoints": endpoints,
        "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
    }  # fmt: skip
    return [service, eps]


def namespace_obj(cl: Cluster, ns: str) -> dict[str, Any]:
    oldest = min(w.created for w in cl.workloads.values() if w.svc.ns == ns)
    created = oldest - timedelta(days=2, minutes=int(frac("ns", cl.env, ns) * 600))
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": meta(cl.env, "Namespace", ns, None, created,
                             labels={"kubernetes.io/metadata.name": ns}),
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}  # fmt: skip


def quota_obj(cl: Cluster, ns: str, name: str, hard: dict[str, str]) -> dict[str, Any]:
    pods = [p for p in cl.pods if p.ns == ns]
    used = {"pods": str(len(pods)),
            "requests.cpu": cpu_q(sum(cpu_m(p.req[0]) for p in pods)),
            "requests.memory": mem_q(sum(mem_b(p.req[1]) for p in pods))}  # fmt: skip
    return {"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": meta(cl.env, "ResourceQuota", name, ns, d("06-02 10:20:00")),
            "spec": {"hard": dict(hard)},
            "status": {"hard": dict(hard), "used": {k: used[k] for k in hard}}}  # fmt: skip


def ref(kind: str, name: str, obj_uid: str, api: str = "v1") -> dict[str, str]:
    return {"apiVersion": api, "kind": kind, "name": name, "uid": obj_uid}


def pod_ref(p: Pod) -> dict[str, str]:
    return ref("Pod", p.name, p.uid)


def event(cl: Cluster, ns: str, obj: dict[str, str], reason: str, message: str,
          first: datetime, last: datetime | None = None, count: int = 1, warn: bool = False,
          by: str = "kubelet", host: str | None = None, fp: str | None = None) -> None:  # fmt: skip
    """A core/v1 Event as kubelet and the controllers write them."""
    last = last or first
    inv = {**obj, "namespace": ns, "resourceVersion": rv("inv", obj["name"])}
    if fp:
        inv["fieldPath"] = fp
    nanos = int(first.timestamp()) * 10**9 + int(frac("ev", obj["name"], reason, first) * 10**9)
    name = f"{obj['name']}.{nanos:x}"
    cl.events.append({
        "apiVersion": "v1", "kind": "Event",
        "metadata": meta(cl.env, "Event", name, ns, first),
        "involvedObject": inv, "reason": reason, "message": message,
        "source": {"component": by, **({"host": host} if host else {})},
        "firstTimestamp": z(first), "lastTimestamp": z(last), "count": count,
        "type": "Warning" if warn else "Normal", "eventTime": None,
        "reportingComponent": by, "reportingInstance": host or "",
    })  # fmt: skip


def scheduler_event(
    cl: Cluster,
    p: Pod,
    reason: str,
    message: str,
    first: datetime,
    instance: str,
    repeats: int = 0,
    last: datetime | None = None,
) -> None:
    """An events.k8s.io/v1 event (the scheduler's) as core/v1 shows it: no first/last
    timestamps, an eventTime, and a series when it repeated."""
    nanos = int(first.timestamp()) * 10**9 + int(frac("sev", p.name, reason) * 10**9)
    ev: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Event",
        "metadata": meta(cl.env, "Event", f"{p.name}.{nanos:x}", p.ns, first),
        "involvedObject": {**pod_ref(p), "namespace": p.ns, "resourceVersion": rv("inv", p.name)},
        "reason": reason, "message": message, "source": {},
        "firstTimestamp": None, "lastTimestamp": None,
        "type": "Warning" if reason.startswith("Failed") else "Normal",
        "eventTime": zus(first),
        "action": "Scheduling" if reason == "FailedScheduling" else "Binding",
        "reportingComponent": "default-scheduler", "reportingInstance": instance,
    }  # fmt: skip
    if repeats and last:
        ev["series"] = {"count": repeats, "lastObservedTime": zus(last)}
    cl.events.append(ev)


def container_events(cl: Cluster, p: Pod, first_pull: str | None = None) -> None:
    """Pulled / Created / Started per container start and BackOff between crashes. Events
    live one hour: without `first_pull` the pod's first start has expired already."""
    fp = f"spec.containers{{{p.svc.container}}}"
    starts = [i.start for i in p.instances]
    kw: dict[str, Any] = {"host": p.node, "fp": fp}
    again = f'Container image "{p.image}" already present on machine'
    if first_pull and first_pull.startswith("Successfully"):
        event(cl, p.ns, pod_ref(p), "Pulling", f'Pulling image "{p.image}"',
              p.created + secs(1), **kw)  # fmt: skip
    if first_pull:
        event(cl, p.ns, pod_ref(p), "Pulled", first_pull.format(image=p.image),
              starts[0] - secs(1), **kw)  # fmt: skip
        counted = starts
    else:
        counted = starts[1:]
    if len(starts) > 1:
        event(cl, p.ns, pod_ref(p), "Pulled", again, starts[1] - secs(1), starts[-1] - secs(1),
              len(starts) - 1, **kw)  # fmt: skip
    name = p.svc.container
    event(cl, p.ns, pod_ref(p), "Created", f"Created container {name}", counted[0] - secs(0.4),
          starts[-1] - secs(0.4), len(counted), **kw)  # fmt: skip
    event(cl, p.ns, pod_ref(p), "Started", f"Started container {name}", counted[0],
          starts[-1], len(counted), **kw)  # fmt: skip
    ends = [i.end for i in p.instances if i.end is not None]
    if ends:
        waiting = p.instances[-1].end is not None
        resumed = [*starts[1:], NOW] if waiting else starts[1:]
        count = sum(
            max(1, int((b - a).total_seconds() // 10)) for a, b in zip(ends, resumed, strict=True)
        )
        last = NOW - secs(7) if waiting else starts[-1] - secs(2)
        message = f"Back-off restarting failed container {name} in pod {p.name}_{p.ns}({p.uid})"
        event(cl, p.ns, pod_ref(p), "BackOff", message, ends[0] + secs(1), last, count,
              warn=True, **kw)  # fmt: skip


# --- stories: Kubernetes ---------------------------------------------------------------------

OOM_RUNS = [478, 441, 503, 462, 437, 455]  # seconds each restarted service-b container lived
BACKOFF = [10, 20, 40, 80, 160, 300, 300]  # kubelet crash back-off, doubling to 5 min
LEAK_FROM = d("10:16:00")
DEPLOY_D = d("10:52:13.402")
NEW_D = ("orders/service-d", 90402, 5531195, "d2")  # the failed v2.4.0 release to dc-b
SCALE_PUSH = d("11:18:40.226")


def story_oom(cl: Cluster) -> None:
    """service-b-6f9c8d7b5-q8n4t: OOMKilled 7 times since 10:29:07Z, running again now."""
    p = cl.pod("service-b-6f9c8d7b5-q8n4t")
    ooms, starts = [d("10:29:07")], [p.instances[0].start]
    for k in range(7):
        starts.append(ooms[k] + secs(BACKOFF[k] + 2))
        if k < 6:
            ooms.append(starts[-1] + secs(OOM_RUNS[k]))
    p.instances = [Instance(cid(cl.env, p.name, k), s, ooms[k] if k < 7 else None)
                   for k, s in enumerate(starts)]  # fmt: skip
    p.last_exit = (137, "OOMKilled")

    def memory(k: int, t: datetime) -> int:
        limit = 536_870_912
        if k == 0 and t < LEAK_FROM:
            return int(236 * MI * (1 + 0.03 * (frac("bmem", t) - 0.5)))
        begin = LEAK_FROM if k == 0 else starts[k] + secs(20)
        low = 236 * MI if k == 0 else 190 * MI
        end = ooms[k] if k < 7 else starts[k] + secs(640)  # the running one grows slower
        share = max(0.0, (t - begin).total_seconds() / (end - begin).total_seconds())
        return min(int(low + (limit - low) * share * (0.985 + 0.03 * frac("bm", k, t))),
                   limit - 2 * MI)  # fmt: skip

    p.mem = memory
    w = cl.workloads["service-b"]
    ready = z(starts[-1] + secs(12))
    w.conditions = [
        {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
         "message": 'ReplicaSet "service-b-6f9c8d7b5" has successfully progressed.',
         "lastUpdateTime": z(d("07-18 07:13:20")), "lastTransitionTime": z(w.created)},
        {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
         "message": "Deployment has minimum availability.",
         "lastUpdateTime": ready, "lastTransitionTime": ready},
    ]  # fmt: skip
    container_events(cl, p)
    noisy = cl.of("auth-api")[0]  # a slow readiness probe, nothing restarted
    event(cl, "auth", pod_ref(noisy), "Unhealthy",
          f'Readiness probe failed: Get "http://{noisy.ip}:8080/healthz/ready": context deadline '
          "exceeded (Client.Timeout exceeded while awaiting headers)", d("11:24:31"), warn=True,
          host=noisy.node, fp="spec.containers{api}")  # fmt: skip


def story_crashloop(cl: Cluster) -> None:
    """service-d 2.4.0 in dc-b: two new pods crash-loop, 2.3.1 keeps serving."""
    w = cl.workloads["service-d"]
    new = RS("7b6c9f5d84", 24, "2.4.0", DEPLOY_D, ids("dc-b", "ReplicaSet", "service-d-7b6c9f5d84"))
    w.sets.insert(0, new)
    w.generation = 24
    w.ci = ci_annotations(*NEW_D)
    deadline = z(DEPLOY_D + secs(601))
    w.conditions = [
        {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
         "message": "Deployment has minimum availability.",
         "lastUpdateTime": z(d("07-15 12:49:58")), "lastTransitionTime": z(d("07-15 12:49:58"))},
        {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
         "message": 'ReplicaSet "service-d-7b6c9f5d84" has timed out progressing.',
         "lastUpdateTime": deadline, "lastTransitionTime": deadline},
    ]  # fmt: skip
    dep = ref("Deployment", "service-d", w.uid, "apps/v1")
    rs_ref = ref("ReplicaSet", "service-d-7b6c9f5d84", new.uid, "apps/v1")
    event(cl, "orders", dep, "ScalingReplicaSet",
          "Scaled up replica set service-d-7b6c9f5d84 to 2 from 0", DEPLOY_D,
          by="deployment-controller")  # fmt: skip
    pulled = ('Successfully pulled image "{image}" in 3.912s (3.912s including waiting). '
              "Image size: 48213577 bytes.")  # fmt: skip
    for j, (node, tail) in enumerate([("worker-16", "r2vxk"), ("worker-18", "t8mzq")]):
        created = DEPLOY_D + timedelta(milliseconds=180 + 90 * j)
        p = cl.new_pod(w.svc, new, node, created, f"service-d-7b6c9f5d84-{tail}",
                       start_after=5 + 2 * j)  # fmt: skip
        start, k, instances = p.instances[0].start, 0, []
        while start < NOW:
            end = start + timedelta(milliseconds=1150 + int(frac("crash", p.name, k) * 400))
            instances.append(Instance(cid("dc-b", p.name, k), start, end))
            start = end + secs(min(10 * 2**k, 300) + 1 + int(frac("sync", p.name, k) * 2))
            k += 1
        p.instances, p.ready, p.last_exit = instances, False, (1, "Error")
        event(cl, "orders", rs_ref, "SuccessfulCreate", f"Created pod: {p.name}", p.created,
              by="replicaset-controller")  # fmt: skip
        scheduler_event(
            cl,
            p,
            "Scheduled",
            f"Successfully assigned orders/{p.name} to {node}",
            p.created + timedelta(milliseconds=40),
            "default-scheduler-cp-b-02",
        )
        container_events(cl, p, first_pull=pulled)


def story_quota(cl: Cluster) -> None:
    """notify-push in stage: scaled 6 -> 9; one pod runs, one is Pending, one is refused."""
    w = cl.workloads["notify-push"]
    rs = w.sets[0]
    w.replicas, w.generation = 9, 11
    created = SCALE_PUSH + timedelta(milliseconds=310)
    running = cl.new_pod(w.svc, rs, "stage-worker-01", created, "notify-push-5c8d7f6b9-wq7zd")
    pending = cl.new_pod(w.svc, rs, None, created + timedelta(milliseconds=25),
                         "notify-push-5c8d7f6b9-hx4mb")  # fmt: skip
    pending.ready = False
    refused = f"notify-push-5c8d7f6b9-{suffix(5, 'refused', 0)}"
    why = ("is forbidden: exceeded quota: notifications-quota, requested: requests.cpu=250m, "
           "used: requests.cpu=3800m, limited: requests.cpu=4")  # fmt: skip
    failed_at = z(SCALE_PUSH + secs(1))
    stuck = z(SCALE_PUSH + secs(601))  # no progress for progressDeadlineSeconds
    w.conditions = [
        {"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
         "message": "Deployment does not have minimum availability.",
         "lastUpdateTime": failed_at, "lastTransitionTime": failed_at},
        {"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate",
         "message": f'pods "{refused}" {why}', "lastUpdateTime": failed_at,
         "lastTransitionTime": failed_at},
        {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
         "message": 'ReplicaSet "notify-push-5c8d7f6b9" has timed out progressing.',
         "lastUpdateTime": stuck, "lastTransitionTime": stuck},
    ]  # fmt: skip
    dep = ref("Deployment", "notify-push", w.uid, "apps/v1")
    rs_ref = ref("ReplicaSet", "notify-push-5c8d7f6b9", rs.uid, "apps/v1")
    event(cl, "notifications", dep, "ScalingReplicaSet",
          "Scaled up replica set notify-push-5c8d7f6b9 to 9 from 6", SCALE_PUSH,
          by="deployment-controller")  # fmt: skip
    for p in (running, pending):
        event(cl, "notifications", rs_ref, "SuccessfulCreate", f"Created pod: {p.name}",
              p.created, by="replicaset-controller")  # fmt: skip
    rc = "replicaset-controller"
    event(cl, "notifications", rs_ref, "FailedCreate", f'Error creating: pods "{refused}" {why}',
          SCALE_PUSH + timedelta(milliseconds=360), warn=True, by=rc)  # fmt: skip
    retry, delay, retries = SCALE_PUSH + secs(1), 0.0, 0  # the controller's exponential retry
    while retry + secs(delay) < NOW - secs(30):
        retry += secs(delay)
        delay, retries = min(max(delay * 2, 0.5), 1000), retries + 1
    other = f"notify-push-5c8d7f6b9-{suffix(5, 'refused', retries)}"
    event(cl, "notifications", rs_ref, "FailedCreate",
          f'(combined from similar events): Error creating: pods "{other}" {why}',
          SCALE_PUSH + secs(3), retry, retries, warn=True, by=rc)  # fmt: skip
    scheduler = "default-scheduler-stage-cp-01"
    scheduler_event(cl, pending, "FailedScheduling", UNSCHEDULABLE,
                    pending.created + timedelta(milliseconds=30), scheduler, 11,
                    d("11:36:52.118"))  # fmt: skip
    scheduler_event(cl, running, "Scheduled",
                    f"Successfully assigned notifications/{running.name} to stage-worker-01",
                    running.created + timedelta(milliseconds=25), scheduler)  # fmt: skip
    container_events(cl, running, first_pull=f'Container image "{running.image}" already '
                     "present on machine")  # fmt: skip


# --- metrics ---------------------------------------------------------------------------------


def ksm(name: str, **labels: str) -> dict[str, str]:
    return {"__name__": name, "job": "kube-state-metrics", **labels}


def pod_metrics(cl: Cluster, p: Pod) -> None:
    """kube-state-metrics and cAdvisor series of one pod."""
    base = {"namespace": p.ns, "pod": p.name, "uid": p.uid, "container": p.svc.container}
    restarts = ksm("kube_pod_container_status_restarts_total", **base)
    if any(r >= T0 for r in p.restarts):
        first = next(i for i, t in enumerate(FAST) if t >= p.created)
        values = [sum(1 for r in p.restarts if r <= t) for t in FAST[first:]]
        cl.metrics.append(series(restarts, values, FAST[first]))
    elif p.node:
        cl.metrics.append(flat(restarts, len(p.restarts), p.created))
    for kind, q in (("requests", p.req), ("limits", p.svc.lim)):
        name = f"kube_pod_container_resource_{kind}"
        for resource, unit, value in (("cpu", "core", cpu_m(q[0]) / 1000),
                                      ("memory", "byte", mem_b(q[1]))):  # fmt: skip
            labels = ksm(name, **base, node=p.node or "", resource=resource, unit=unit)
            cl.metrics.append(flat(labels, value, p.created))
    if p.node is None:
        return
    story = p.mem is not None or bool(p.restarts)
    for k, inst in enumerate(p.instances):
        end = inst.end or NOW + secs(1)
        grid = [t for t in FAST if inst.start + secs(15) <= t < end]
        if not grid:  # crashed within seconds: never scraped
            continue
        scope = f"pod{p.uid.replace('-', '_')}.slice/cri-containerd-{inst.cid[13:]}.scope"
        labels = {
            "job": "kubelet",
            "metrics_path": "/metrics/cadvisor",
            "instance": f"{cl.nodes[p.node].ip}:10250",
            "node": p.node,
            "namespace": p.ns,
            "pod": p.name,
            "container": p.svc.container,
            "id": f"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-{scope}",
        }
        mem_grid = grid if story else [t for t in grid if (t - T0).seconds % 300 == 0] or grid[:1]
        level = p.svc.mem_mi * MI * (0.93 + 0.14 * frac("memlvl", p.name))
        mem = [p.mem(k, t) if p.mem else int(level * (1 + 0.04 * (frac("m", p.name, t) - 0.5)))
               for t in mem_grid]  # fmt: skip
        step = 60 if story else 300
        name = "container_memory_working_set_bytes"
        cl.metrics.append(series({"__name__": name, **labels}, mem, mem_grid[0], step))
        rate = p.svc.cpu * (0.8 + 0.4 * frac("cpulvl", p.name)) * (1.6 if p.mem else 1.0)
        total, cpu = (grid[0] - inst.start).total_seconds() * rate, []
        for i, t in enumerate(grid):
            total += 60 * rate * (0.85 + 0.3 * frac("cpu", cl.env, p.name, t)) if i else 0
            cpu.append(round(total, 3))
        name = "container_cpu_usage_seconds_total"
        cl.metrics.append(series({"__name__": name, **labels}, cpu, grid[0]))


INGRESS = {"job": "ingress-nginx", "controller_class": "k8s.io/ingress-nginx",
           "controller_namespace": "ingress-nginx"}  # fmt: skip
CONTROLLER = {"dc-a": "ingress-nginx-controller-6f8d9c7b5-zq4mt",
              "dc-b": "ingress-nginx-controller-7b9c5d8f6-h2wnp"}  # fmt: skip
BUCKETS = ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]
LATENCY = {  # share of requests at or under each bucket, mean seconds
    "service-a": ([0.01, 0.06, 0.38, 0.71, 0.9, 0.975, 0.993, 0.998, 0.9995, 0.9999, 1, 1], 0.046),
    "catalog-api": ([0.04, 0.21, 0.62, 0.86, 0.95, 0.985, 0.996, 0.999, 0.9998, 1, 1, 1], 0.027),
}
# fmt: off
# service, host, path, method, status, requests per second (0: only the logged events), base
ROUTES = {
    "dc-a": [
        ("service-a", "pay.example.com", "/", "GET", "200", 38.0, 2_318_904_117),
        ("service-a", "pay.example.com", "/", "POST", "200", 11.0, 674_310_552),
        ("service-a", "pay.example.com", "/", "POST", "302", 4.2, 251_886_940),
        ("service-a", "pay.example.com", "/", "GET", "404", 0.3, 18_204_377),
        ("service-a", "pay.example.com", "/", "POST", "413", 0, 1_208),
        ("service-a", "pay.example.com", "/", "POST", "502", 0, 4_311),
        ("service-b", "orders.example.com", "/api/v1/exports", "GET", "200", 3.1, 190_442_031),
        ("service-b", "orders.example.com", "/api/v1/exports", "POST", "202", 0.4, 24_580_112),
        ("service-b", "orders.example.com", "/api/v1/exports", "GET", "502", 0, 2_977),
        ("service-c", "orders.example.com", "/api/v1/orders", "GET", "200", 55.0, 3_370_118_904),
        ("service-c", "orders.example.com", "/api/v1/orders", "POST", "201", 8.5, 520_994_316),
        ("service-c", "orders.example.com", "/api/v1/orders", "GET", "404", 0.6, 36_700_218),
        ("service-d", "orders.example.com", "/api/v1/pricing", "POST", "200", 22.0, 1_347_205_660),
        ("catalog-api", "catalog.example.com", "/", "GET", "200", 412.0, 7_111_220_431),
        ("catalog-api", "catalog.example.com", "/", "GET", "404", 1.2, 73_402_118),
        ("catalog-api", "shop.example.net", "/catalog", "GET", "200", 31.0, 1_902_337_409),
        ("catalog-api", "shop.example.net", "/catalog", "GET", "504", 0, 3_104),
        ("search-api", "search.example.com", "/", "POST", "200", 64.0, 3_921_004_785),
        ("search-api", "search.example.com", "/", "GET", "200", 12.0, 735_119_402),
        ("search-api", "search.example.com", "/", "POST", "499", 0.15, 9_180_227),
        ("auth-api", "id.example.com", "/", "POST", "200", 27.0, 1_654_093_318),
        ("auth-api", "id.example.com", "/", "GET", "200", 41.0, 2_511_870_204),
        ("auth-api", "id.example.com", "/", "POST", "401", 1.4, 85_720_931),
    ],
    "dc-b": [
        ("service-a", "pay.example.com", "/", "GET", "200", 13.0, 801_330_915),
        ("service-a", "pay.example.com", "/", "POST", "200", 3.8, 229_417_006),
        ("service-a", "pay.example.com", "/", "POST", "302", 1.5, 88_120_394),
        ("service-a", "pay.example.com", "/", "GET", "404", 0.1, 6_019_772),
        ("service-b", "orders.example.com", "/api/v1/exports", "GET", "200", 1.1, 66_012_871),
        ("service-b", "orders.example.com", "/api/v1/exports", "POST", "202", 0.15, 9_113_046),
        ("service-c", "orders.example.com", "/api/v1/orders", "GET", "200", 19.0, 1_163_208_559),
        ("service-c", "orders.example.com", "/api/v1/orders", "POST", "201", 2.9, 177_844_201),
        ("service-c", "orders.example.com", "/api/v1/orders", "GET", "404", 0.2, 12_114_803),
        ("service-d", "orders.example.com", "/api/v1/pricing", "POST", "200", 7.4, 452_991_307),
        ("catalog-api", "catalog.example.com", "/", "GET", "200", 137.0, 2_394_406_118),
        ("catalog-api", "catalog.example.com", "/", "GET", "404", 0.4, 24_388_120),
        ("catalog-api", "catalog.example.com", "/", "GET", "504", 0, 977),
        ("catalog-api", "shop.example.net", "/catalog", "GET", "200", 10.0, 611_207_530),
        ("search-api", "search.example.com", "/", "POST", "200", 22.0, 1_340_772_519),
        ("search-api", "search.example.com", "/", "GET", "200", 4.0, 244_091_337),
        ("search-api", "search.example.com", "/", "POST", "499", 0.05, 3_020_442),
        ("search-api", "search.example.com", "/", "POST", "502", 0, 1_884),
        ("search-api", "search.example.com", "/", "GET", "502", 0, 402),
        ("auth-api", "id.example.com", "/", "POST", "200", 9.0, 548_330_617),
        ("auth-api", "id.example.com", "/", "GET", "200", 14.0, 857_209_946),
        ("auth-api", "id.example.com", "/", "POST", "401", 0.5, 30_604_118),
        ("auth-api", "id.example.com", "/", "POST", "502", 0, 1_207),
        ("auth-api", "id.example.com", "/", "GET", "502", 0, 655),
    ],
}
# fmt: on


def ingress_metrics(cl: Cluster, logged: dict[tuple[str, str, str], list[datetime]]) -> None:
    """nginx_ingress_controller_requests per route; `logged` adds the requests the edge logs
    name (502s, 413s ...) by (service, method, status), so counters and logs agree."""
    for name, host, path, method, status, rps, base in ROUTES[cl.env]:
        svc = SVCS[name]
        labels = {"__name__": "nginx_ingress_controller_requests", **INGRESS,
                  "controller_pod": CONTROLLER[cl.env], "namespace": svc.ns, "ingress": name,
                  "service": name, "host": host, "path": path, "method": method,
                  "status": status, "canary": ""}  # fmt: skip
        events = logged.get((name, method, status), [])
        incs = [int(rps * 60 * (0.985 + 0.03 * frac("rps", cl.env, name, method, status, t)))
                + between(events, i) if i else 0 for i, t in enumerate(FAST)]  # fmt: skip
        values = cumulative(base, incs)
        cl.metrics.append(series(labels, values))
        if name in LATENCY and method == "GET" and status == "200" and path == "/":
            shares, mean = LATENCY[name]
            hist = {k: v for k, v in labels.items() if k != "__name__"}
            prefix = "nginx_ingress_controller_request_duration_seconds"
            for le, share in zip(BUCKETS, shares, strict=True):
                bucket = {"__name__": f"{prefix}_bucket", **hist, "le": le}
                cl.metrics.append(series(bucket, [int(v * share) for v in values]))
            cl.metrics.append(series({"__name__": f"{prefix}_count", **hist}, values))
            sums = [round(v * mean, 3) for v in values]
            cl.metrics.append(series({"__name__": f"{prefix}_sum", **hist}, sums))


# retransmitted segments on worker-17 on top of the usual, minutes ending 10:04 .. 10:13Z
S4_RETRANS = [9_000, 52_000, 98_000, 121_000, 134_000, 117_000, 101_000, 76_000, 39_000, 8_000]


def node_metrics(cl: Cluster, softnet: bool, sick: str = "") -> None:
    """node_exporter TCP counters per node and, where enabled, softnet squeezes per CPU."""
    first = d("10:04:00")
    extra = {t: S4_RETRANS[k] for k, t in enumerate(FAST[FAST.index(first) :][:10])}
    for name, n in cl.nodes.items():
        inst = {"job": "node-exporter", "instance": f"{name}:9100", "node": name}
        base_rate = 22 + 14 * frac("retr", cl.env, name)
        retr = [int(60 * base_rate * (0.85 + 0.3 * frac("r", cl.env, name, t)))
                + (extra.get(t, 0) if name == sick else 0) if i else 0
                for i, t in enumerate(FAST)]  # fmt: skip
        outs = [int(60 * 21000 * (0.9 + 0.2 * frac("o", cl.env, name, t))) if i else 0
                for i, t in enumerate(FAST)]  # fmt: skip
        start = int(h("rb", name)[:7], 16) + 40_000_000
        cl.metrics.append(series({"__name__": "node_netstat_Tcp_RetransSegs", **inst},
                                 cumulative(start, retr)))  # fmt: skip
        start = int(h("ob", name)[:9], 16) + 9_000_000_000
        cl.metrics.append(series({"__name__": "node_netstat_Tcp_OutSegs", **inst},
                                 cumulative(start, outs)))  # fmt: skip
        if not softnet:
            continue
        for cpu in range(n.cpus):
            incs = [(1 if i and frac("sq", cl.env, name, cpu, t) < 0.03 else 0)
                    + (int(extra.get(t, 0) / 420 * (0.6 + 0.8 * frac("sqs", cpu, t)))
                       if name == sick else 0)
                    for i, t in enumerate(FAST)]  # fmt: skip
            labels = {"__name__": "node_softnet_times_squeezed_total", **inst, "cpu": str(cpu)}
            cl.metrics.append(series(labels, cumulative(int(h("sb", name, cpu)[:4], 16) % 900,
                                                        incs)))  # fmt: skip


def endpoint_metrics(cl: Cluster, name: str) -> None:
    for p in cl.of(name):
        if p.ip:
            labels = ksm("kube_endpoint_address", namespace=p.ns, endpoint=name, ip=p.ip,
                         ready="true" if p.ready else "false")  # fmt: skip
            cl.metrics.append(flat(labels, 1, p.created))


def status_metrics(cl: Cluster, p: Pod, since: datetime, **reasons: str) -> None:
    """Last termination (and waiting) reason of a story pod, as kube-state-metrics has them."""
    base = {"namespace": p.ns, "pod": p.name, "uid": p.uid, "container": p.svc.container}
    first = next(i for i, t in enumerate(FAST) if t >= since)
    n = N_FAST - first
    code = p.last_exit[0] if p.last_exit else 0
    name = "kube_pod_container_status_last_terminated_reason"
    cl.metrics.append(series(ksm(name, **base, reason=reasons["terminated"]), [1] * n, FAST[first]))
    name = "kube_pod_container_status_last_terminated_exitcode"
    cl.metrics.append(series(ksm(name, **base), [code] * n, FAST[first]))
    if "waiting" in reasons:
        name = "kube_pod_container_status_waiting_reason"
        labels = ksm(name, **base, reason=reasons["waiting"])
        cl.metrics.append(series(labels, [1] * n, FAST[first]))


def quota_metrics(cl: Cluster) -> None:
    hard = {"pods": 20.0, "requests.cpu": 4.0, "requests.memory": float(4096 * MI)}
    pods = [p for p in cl.pods if p.ns == "notifications"]
    for resource, limit in hard.items():
        lab = {"namespace": "notifications", "resourcequota": "notifications-quota",
               "resource": resource}  # fmt: skip
        cl.metrics.append(series(ksm("kube_resourcequota", **lab, type="hard"), [limit] * N_FAST))
        used = []
        for t in FAST:
            live = [p for p in pods if p.created <= t]
            used.append(
                {
                    "pods": float(len(live)),
                    "requests.cpu": sum(cpu_m(p.req[0]) for p in live) / 1000,
                    "requests.memory": float(sum(mem_b(p.req[1]) for p in live)),
                }[resource]
            )
        cl.metrics.append(series(ksm("kube_resourcequota", **lab, type="used"), used))


# --- logs ------------------------------------------------------------------------------------

UAS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0 Safari/537.36",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
    "Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    "okhttp/4.12.0",
]
TOO_BIG = "upstream sent too big header while reading response header from upstream"
PREMATURE = "upstream prematurely closed connection while reading response header from upstream"
RESET = "recv() failed (104: Connection reset by peer) while reading response header from upstream"
TIMEOUT = (
    "upstream timed out (110: Connection timed out) while reading response header from upstream"
)


def client_ip(*parts: object) -> str:
    net = pick(["198.51.100", "203.0.113", "192.0.2"], "net", *parts)
    return f"{net}.{2 + int(h('cip', *parts)[:4], 16) % 250}"


def req_id(*parts: object) -> str:
    return h("reqid", *parts)[:32]


@dataclass
class Conns:
    """nginx connection ids (*884213): one counter per edge node, rising with time."""

    anchors: dict[str, tuple[datetime, int, float]]  # edge -> (time, id then, ids per second)
    used: set[int] = field(default_factory=set)

    def at(self, edge: str, t: datetime) -> int:
        when, base, rate = self.anchors[edge]
        n = base + int(rate * (t - when).total_seconds())
        while n in self.used:
            n += 1
        self.used.add(n)
        return n


@dataclass
class Req:
    """One request through an edge node: its access document and, on failure, error line."""

    t: datetime
    edge: str
    conn: int
    host: str
    method: str
    path: str
    status: int
    upstream: str | None  # "10.42.3.17:8080"
    rtime: float
    rid: str = ""
    client: str = ""
    creqs: int = 1
    header_time: str | None = None
    bytes_sent: int = 0
    ua: str = ""
    location: str | None = None

    def access(self) -> dict[str, Any]:
        rid = self.rid or req_id(self.t, self.host, self.path)
        doc: dict[str, Any] = {
            "@timestamp": zms(self.t), "request_id": rid, "edge_node": self.edge,
            "connection": self.conn, "connection_requests": self.creqs,
            "remote_addr": self.client or client_ip(rid), "host": self.host,
            "method": self.method, "path": self.path, "status": self.status,
            "upstream_status": str(self.status) if self.upstream else "-",
            "upstream_addr": self.upstream or "-", "request_time": self.rtime,
        }  # fmt: skip
        if self.upstream:
            inner = f"{max(self.rtime - 0.001, 0):.3f}"
            doc["upstream_connect_time"] = "0.001" if frac("ct", rid) < 0.7 else "0.000"
            doc["upstream_header_time"] = inner if self.header_time is None else self.header_time
            doc["upstream_response_time"] = inner
        else:
            doc["upstream_response_time"] = "-"
        default = 552 if self.status >= 500 else 400 + int(frac("b", rid) * 9000)
        doc["bytes_sent"] = self.bytes_sent or default
        if self.location:
            doc["upstream_redirect_location"] = self.location
        doc["user_agent"] = self.ua or pick(UAS, "ua", rid)
        return doc

    def error(self, pid: int, text: str, level: str = "error") -> dict[str, Any]:
        t = self.t.replace(microsecond=0)
        client = self.client or client_ip(self.rid)
        request = f"{self.method} {self.path} HTTP/1.1"
        doc: dict[str, Any] = {
            "@timestamp": zms(t),
            "edge_node": self.edge,
            "level": level,
            "pid": pid,
            "connection": self.conn,
            "client": client,
            "server": self.host,
            "host": self.host,
            "request": request,
        }
        tail = ""
        if self.upstream:
            doc["upstream"] = f"http://{self.upstream}{self.path}"
            tail = f', upstream: "{doc["upstream"]}"'
        doc["message"] = (f"{t:%Y/%m/%d %H:%M:%S} [{level}] {pid}#{pid}: *{self.conn} {text}, "
                          f'client: {client}, server: {self.host}, request: "{request}"{tail}, '
                          f'host: "{self.host}"')  # fmt: skip
        return doc


def app_doc(t: datetime, p: Pod, message: str, level: str = "INFO", logger: str = "http.access",
            rid: str = "", **extra: Any) -> dict[str, Any]:  # fmt: skip
    doc: dict[str, Any] = {"@timestamp": zms(t), "level": level, "logger": logger,
                           "service": p.svc.name}  # fmt: skip
    if rid:
        doc["request_id"] = rid
    doc["message"] = message
    doc.update(extra)
    doc["kubernetes"] = {"namespace": p.ns, "pod": p.name, "container": p.svc.container,
                         "node": p.node}  # fmt: skip
    return doc


def access_line(t: datetime, p: Pod, method: str, path: str, status: int, ms: int, rid: str,
                **extra: Any) -> dict[str, Any]:  # fmt: skip
    http = {"method": method, "path": path, "status": status}
    return app_doc(t, p, f"{method} {path} {status} {ms}ms", rid=rid, http=http, duration_ms=ms,
                   **extra)  # fmt: skip


def acs_location(size: int, *parts: object) -> str:
    """A 3-D Secure ACS redirect of exactly `size` bytes."""
    order = f"ORD-20260720-{558000 + int(h('ord', *parts)[:4], 16) % 999}"
    head = "https://acs.bank.example.net/3ds/v2/challenge?creq="
    tail = (f"&threeDSServerTransID={uid('3ds', *parts)}&returnUrl=https%3A%2F%2Fpay.example.com"
            f"%2Fcheckout%2F3ds-return%3Forder%3D{order}")  # fmt: skip
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    digits = "".join(h("creq", i, *parts) for i in range(size // 64 + 1))
    creq = "".join(alphabet[(int(c, 16) * 7 + i) % 64] for i, c in enumerate(digits))
    return head + creq[: size - len(head) - len(tail)] + tail


def sort_docs(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(docs, key=lambda doc: doc["@timestamp"])


# The public example's documents for request 7f9e2c21... (edge-502-too-big-header.yaml).
EXAMPLE_LOCATION = (
    "https://acs.bank.example.net/3ds/v2/challenge?creq=StsnlyoK8aMTJqlAvgRixtCGP3-c_CuivKSUT"
    "NuD7ufZmtGdrVRxtIP1D91pxjWwOmHew9n87z6bdInZ_QUqymh5xzHdXFNJdwr8513kdp8Bau6E-aX_MDXkRJ8v3t"
    "Jsk0kVk86o4EBsCRJ0wZcluRvniVNteq-J8HEFwoHmS-uGQYCQ-ejZeaeqieH-K-QROAIiZqZS_9exYFy1TW2Wm5-u"
    "s867FmdxY-sjf-u510hgS2xh2UZ78mmEk7MgmKKIWPvyFvtXgBD2M5d6WlMzTZxk5Rj7Rl_uXl7WuXaEXPOyrJo9uA"
    "LhnfS3dK6gXEl4whYBBpgks8jJ8bEdcEBMrWoEE0j0XslERDwaIkbN6MU6C6DqeIE-cXOp8rWBBwG3oiyH0WJ8nie"
    "VOReUTPjmHTqdIIfniCurWIz6nfPbz1IetwORiKNhZ5VlSgcZoXsOecSt8v759On-vrtkUFkyLisEcT7rJU_QrUGP"
    "LOAKfOZUipAhDSW8sMhvColkXkswZRfLsi_Jk7w0nUxn1vQhLrQl-1509gpah2P5ydsc139Gyd2uRKxhJxA7NNfKpc"
    "fVQI3iwAHZAVQhN-MGscvvHQTJ0B-ueGe8O97uAQGjZXjdLT7J5Ozg0HS3kK3d_P5hTmxb2lvJ-atKfpwnKmQy6m0"
    "VhPJho1LkbYEfDR2nyFIbnAZ11D9CvI4ZHD2pK59uWRUXBLooCeLGYAOsQM56LicOSAPk7e1jA-9_82oitHbcNdL5I"
    "JeWMQIuw2fr1BY7jW2riD2wcLXeusiGb-xkC9YOjO9d5J73lslxTC67XB2AhZbfM20MfAgTO956LKHyNdFwLWO-OcQ"
    "FvOu4LjRLM0iv1yMttSD11CRQdWKIfkAFn5u6G9OYqgfOFpyfaYbCR2mVlE_XJGiikPtcptKgcDDV497D5n-8403OE"
    "Nu6yc3Hg9wYUCKPK7iQCzzoHO5fW6wwq1Y3GPey6nC-maC0_1hOk2p4&threeDSServerTransID=9c3b61d2-57e4"
    "-4a8f-b0d6-2f81c4a7e953&returnUrl=https%3A%2F%2Fpay.example.com%2Fcheckout%2F3ds-return%3Fo"
    "rder%3DORD-20260720-558104"
)
EXAMPLE_DOCS = """
access:
  - {"@timestamp": "2026-07-20T11:11:01.912Z", request_id: 0c4d2b8e9f1a4c7d8e2b5f0a3c6d9e1b,
     edge_node: edge-02, connection: 884190, connection_requests: 3,
     remote_addr: 198.51.100.61, host: pay.example.com, method: POST,
     path: /api/v1/receipts/upload, status: 413, upstream_status: "-", upstream_addr: "-",
     request_time: 0.000, upstream_response_time: "-", bytes_sent: 585,
     user_agent: "okhttp/4.12.0"}
  - {"@timestamp": "2026-07-20T11:11:02.276Z", request_id: 91b6e3f0c8d24a7e9c1f5b2d8a4e6c03,
     edge_node: edge-02, connection: 884207, connection_requests: 1,
     remote_addr: 203.0.113.18, host: pay.example.com, method: POST, path: /checkout/confirm,
     status: 302, upstream_status: "302", upstream_addr: "10.42.5.22:8080",
     request_time: 0.051, upstream_connect_time: "0.001", upstream_header_time: "0.050",
     upstream_response_time: "0.050", bytes_sent: 742,
     upstream_redirect_location: "https://pay.example.com/checkout/done?order=ORD-20260720-558097",
     user_agent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"}
  - {"@timestamp": "2026-07-20T11:11:04.387Z", request_id: 7f9e2c21a4b84d0c9e51b0d3f6a27c85,
     edge_node: edge-02, connection: 884213, connection_requests: 1,
     remote_addr: 198.51.100.23, host: pay.example.com, method: POST, path: /checkout/confirm,
     status: 502, upstream_status: "502", upstream_addr: "10.42.3.17:8080",
     request_time: 0.046, upstream_connect_time: "0.001", upstream_header_time: "0.045",
     upstream_response_time: "0.045", bytes_sent: 552, upstream_redirect_location: LOCATION,
     user_agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15
       (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"}
  - {"@timestamp": "2026-07-20T11:11:05.630Z", request_id: 4e7a1c9d3b5f4e2a8c0d6b9f1e3a5c72,
     edge_node: edge-01, connection: 771052, connection_requests: 12,
     remote_addr: 192.0.2.140, host: pay.example.com, method: GET,
     path: /api/v1/orders/ORD-20260720-558090, status: 200, upstream_status: "200",
     upstream_addr: "10.42.5.22:8080", request_time: 0.019, upstream_connect_time: "0.000",
     upstream_header_time: "0.018", upstream_response_time: "0.018", bytes_sent: 1833,
     user_agent: "okhttp/4.12.0"}
  - {"@timestamp": "2026-07-20T11:11:07.004Z", request_id: b2f8d4a6c0e14b9d7f3a5c8e1d6b0f24,
     edge_node: edge-02, connection: 884236, connection_requests: 1,
     remote_addr: 203.0.113.95, host: shop.example.net, method: GET, path: /catalog/search,
     status: 504, upstream_status: "504", upstream_addr: "10.42.8.31:8080",
     request_time: 60.002, upstream_connect_time: "0.001", upstream_header_time: "-",
     upstream_response_time: "60.001", bytes_sent: 569,
     user_agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36
       (KHTML, like Gecko) Chrome/126.0 Safari/537.36"}
error:
  - {"@timestamp": "2026-07-20T11:11:01.000Z", edge_node: edge-02, level: error, pid: 2817,
     connection: 884190, client: 198.51.100.61, server: pay.example.com,
     host: pay.example.com, request: "POST /api/v1/receipts/upload HTTP/1.1",
     message: "2026/07/20 11:11:01 [error] 2817#2817: *884190 client intended to send too
       large body: 10485761 bytes, client: 198.51.100.61, server: pay.example.com,
       request: \\"POST /api/v1/receipts/upload HTTP/1.1\\", host: \\"pay.example.com\\""}
  - {"@timestamp": "2026-07-20T11:11:04.000Z", edge_node: edge-02, level: error, pid: 2817,
     connection: 884213, client: 198.51.100.23, server: pay.example.com,
     host: pay.example.com, request: "POST /checkout/confirm HTTP/1.1",
     upstream: "http://10.42.3.17:8080/checkout/confirm",
     message: "2026/07/20 11:11:04 [error] 2817#2817: *884213 upstream sent too big header
       while reading response header from upstream, client: 198.51.100.23,
       server: pay.example.com, request: \\"POST /checkout/confirm HTTP/1.1\\",
       upstream: \\"http://10.42.3.17:8080/checkout/confirm\\", host: \\"pay.example.com\\""}
  - {"@timestamp": "2026-07-20T11:11:07.000Z", edge_node: edge-02, level: error, pid: 2818,
     connection: 884236, client: 203.0.113.95, server: shop.example.net,
     host: shop.example.net, request: "GET /catalog/search HTTP/1.1",
     upstream: "http://10.42.8.31:8080/catalog/search",
     message: "2026/07/20 11:11:07 [error] 2818#2818: *884236 upstream timed out
       (110: Connection timed out) while reading response header from upstream,
       client: 203.0.113.95, server: shop.example.net, request: \\"GET /catalog/search
       HTTP/1.1\\", upstream: \\"http://10.42.8.31:8080/catalog/search\\",
       host: \\"shop.example.net\\""}
app:
  - {"@timestamp": "2026-07-20T11:11:02.271Z", level: INFO, logger: http.access,
     service: service-a, request_id: 91b6e3f0c8d24a7e9c1f5b2d8a4e6c03,
     message: "POST /checkout/confirm 302 47ms",
     http: {method: POST, path: /checkout/confirm, status: 302}, duration_ms: 47,
     kubernetes: {namespace: payments, pod: service-a-5d8f7c9b4-m7q4d, container: app,
                  node: worker-05}}
  - {"@timestamp": "2026-07-20T11:11:04.318Z", level: INFO, logger: checkout.threeds,
     service: service-a, request_id: 7f9e2c21a4b84d0c9e51b0d3f6a27c85,
     message: "3-D Secure challenge required for order ORD-20260720-558104, redirecting to
       ACS acs.bank.example.net",
     kubernetes: {namespace: payments, pod: service-a-5d8f7c9b4-x2k9p, container: app,
                  node: worker-04}}
  - {"@timestamp": "2026-07-20T11:11:04.341Z", level: INFO, logger: http.access,
     service: service-a, request_id: 7f9e2c21a4b84d0c9e51b0d3f6a27c85,
     message: "POST /checkout/confirm 302 44ms",
     http: {method: POST, path: /checkout/confirm, status: 302}, duration_ms: 44,
     response: {location_bytes: 1191, set_cookie_headers: 6},
     kubernetes: {namespace: payments, pod: service-a-5d8f7c9b4-x2k9p, container: app,
                  node: worker-04}}
  - {"@timestamp": "2026-07-20T11:11:05.611Z", level: INFO, logger: http.access,
     service: service-a, request_id: 4e7a1c9d3b5f4e2a8c0d6b9f1e3a5c72,
     message: "GET /api/v1/orders/ORD-20260720-558090 200 17ms",
     http: {method: GET, path: /api/v1/orders/ORD-20260720-558090, status: 200},
     duration_ms: 17,
     kubernetes: {namespace: payments, pod: service-a-5d8f7c9b4-m7q4d, container: app,
                  node: worker-05}}
"""


def example_docs() -> dict[str, list[dict[str, Any]]]:
    docs = yaml.load(EXAMPLE_DOCS, Loader=_TextLoader)  # a SafeLoader
    for doc in docs["access"]:
        if doc.get("upstream_redirect_location") == "LOCATION":
            doc["upstream_redirect_location"] = EXAMPLE_LOCATION
    return docs


class _TextLoader(yaml.SafeLoader):
    """Timestamps stay text, as evals.yamlload reads them."""


_TextLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def dc_a_logs(cl: Cluster) -> dict[tuple[str, str, str], list[datetime]]:
    """Edge and application logs of dc-a; returns the logged requests the counters add."""
    example = example_docs()
    access, errors, pay = example["access"], example["error"], example["app"]
    orders: list[dict[str, Any]] = []
    anchors = {"edge-01": (d("11:11:05"), 771_052, 0.9), "edge-02": (d("11:11:04"), 884_213, 7.5)}
    conns = Conns(anchors,
                  {884_190, 884_207, 884_213, 884_236, 771_052})  # fmt: skip
    pids = {"edge-01": 1904, "edge-02": 2817}
    x2k9p, m7q4d = cl.pod("service-a-5d8f7c9b4-x2k9p"), cl.pod("service-a-5d8f7c9b4-m7q4d")
    too_big = [d("11:11:04.387")]
    for t, edge, pod, size in [(d("11:10:26.512"), "edge-01", m7q4d, 1187),
                               (d("11:12:41.075"), "edge-02", x2k9p, 1203)]:  # fmt: skip
        rid = req_id("s1", t)
        loc = acs_location(size, rid)
        order = loc.rsplit("%3D", 1)[1]
        r = Req(t, edge, conns.at(edge, t), "pay.example.com", "POST", "/checkout/confirm", 502,
                f"{pod.ip}:8080", 0.043, rid, client_ip("s1", t), bytes_sent=552,
                ua=pick(UAS[:3], "s1ua", t), location=loc)  # fmt: skip
        access.append(r.access())
        errors.append(r.error(pids[edge], TOO_BIG))
        pay.append(app_doc(t - secs(0.069), pod, f"3-D Secure challenge required for order "
                           f"{order}, redirecting to ACS acs.bank.example.net",
                           logger="checkout.threeds", rid=rid))  # fmt: skip
        pay.append(
            access_line(
                t - secs(0.046),
                pod,
                "POST",
                "/checkout/confirm",
                302,
                41,
                rid,
                response={"location_bytes": size, "set_cookie_headers": 6},
            )
        )
        too_big.append(t)
    # story 2: every OOM kill cut the requests in flight on q8n4t
    qb = cl.pod("service-b-6f9c8d7b5-q8n4t")
    cut = []
    for k, inst in enumerate(qb.instances[:-1]):
        for j in range(1 + k % 2):
            t = inst.end + timedelta(milliseconds=120 + 310 * j)
            edge = "edge-01" if (k + j) % 2 else "edge-02"
            r = Req(t, edge, conns.at(edge, t), "orders.example.com", "GET",
                    f"/api/v1/exports/EXP-{4100 + 7 * k + j}", 502, f"{qb.ip}:8080",
                    round(1.84 + frac("bt", k, j), 3), req_id("b", k, j), client_ip("b", k, j),
                    header_time="-", ua="okhttp/4.12.0")  # fmt: skip
            access.append(r.access())
            errors.append(r.error(pids[edge], PREMATURE))
            cut.append(t)
    for k, inst in enumerate(qb.instances[1:], start=1):
        orders.append(
            app_doc(
                inst.start + secs(0.84),
                qb,
                "service-b 1.9.3 started, listening on :8080",
                logger="main",
            )
        )
        orders.append(app_doc(inst.start + secs(95), qb, f"export EXP-{4100 + 7 * k} started: "
                              "loading orders 2026-06-01..2026-07-19 into memory",
                              logger="export.worker"))  # fmt: skip
    # ordinary requests around 14:11 local
    routes = [("pay.example.com", "GET", "/api/v1/orders/ORD-20260720-55{n:04d}", "service-a"),
              ("pay.example.com", "POST", "/checkout/confirm", "service-a"),
              ("catalog.example.com", "GET", "/api/v2/products/{n}", "catalog-api"),
              ("orders.example.com", "GET", "/api/v1/orders/ORD-20260720-55{n:04d}", "service-c"),
              ("id.example.com", "POST", "/oauth2/token", "auth-api")]  # fmt: skip
    for i in range(48):
        t = d("11:05:00") + secs(int(frac("oa", i) * 900) + round(frac("oams", i), 3))
        host, method, path, name = pick(routes, "route", i)
        pod = pick(cl.of(name), "up", i)
        edge = "edge-01" if frac("edge", i) < 0.5 else "edge-02"
        rt = round(0.008 + 0.09 * frac("rt", i) ** 2, 3)
        status = 302 if method == "POST" and name == "service-a" else 200
        path = path.format(n=int(frac("n", i) * 9000))
        r = Req(t, edge, conns.at(edge, t), host, method, path, status, f"{pod.ip}:8080", rt,
                req_id("ordinary-a", i), creqs=1 + int(frac("cr", i) * 20))  # fmt: skip
        access.append(r.access())
        if name == "service-a":
            ms = int(rt * 1000) - 2
            pay.append(access_line(t - secs(rt), pod, method, path, status, ms, r.rid))
    warn = ("an upstream response is buffered to a temporary file "
            "/var/cache/angie/proxy_temp/{n}/41/00000{m}413 while reading upstream")  # fmt: skip
    catalog = next(p for p in cl.of("catalog-api") if p.ip == "10.42.8.31")
    for i, t in enumerate([d("11:02:17"), d("11:19:48")]):
        r = Req(t, "edge-01", conns.at("edge-01", t), "catalog.example.com", "GET",
                "/api/v2/products/export.csv", 200, f"{catalog.ip}:8080", 4.2,
                client=client_ip("warn", i))  # fmt: skip
        errors.append(r.error(1905, warn.format(n=i + 3, m=i + 17), "warn"))
    cl.logs = {
        f"edge-access-{DAY}": sort_docs(access),
        f"edge-error-{DAY}": sort_docs(errors),
        f"app-payments-{DAY}": sort_docs(pay),
        f"app-orders-{DAY}": sort_docs(orders),
    }
    cl.pod_logs["payments/service-a-5d8f7c9b4-x2k9p/app"] = "".join(
        f"{doc['@timestamp']} INFO  {doc['logger']}: {doc['message']} "
        f"request_id={doc['request_id']}\n"
        for doc in sort_docs(pay) if doc["kubernetes"]["pod"] == x2k9p.name
    )  # fmt: skip

    def b_log(k: int) -> str:
        s = qb.instances[k].start
        return (f"{zms(s + secs(0.612))} INFO  main: service-b 1.9.3 (go1.22.5) starting\n"
                f"{zms(s + secs(0.84))} INFO  main: listening on :8080\n"
                f"{zms(s + secs(95))} INFO  export.worker: export EXP-{4100 + 7 * k} "
                "started: loading orders 2026-06-01..2026-07-19 into memory\n")  # fmt: skip

    cl.pod_logs[f"orders/{qb.name}/app"] = b_log(7)
    cl.pod_logs[f"orders/{qb.name}/app/previous"] = b_log(6)
    return {("service-a", "POST", "502"): too_big,
            ("service-a", "POST", "413"): [d("11:11:01.912")],
            ("catalog-api", "GET", "504"): [d("11:11:07.004")],
            ("service-b", "GET", "502"): cut}  # fmt: skip


S4_SEARCH = [3, 6, 9, 8, 7, 5, 4, 2]  # 502s per minute, 10:05 .. 10:12Z
S4_AUTH = [2, 4, 5, 6, 4, 3, 2, 1]


def crash_log(start: datetime) -> str:
    return "".join(f"{zms(start + secs(ms / 1000))} {line}\n" for ms, line in [
        (204, "INFO  main: service-d 2.4.0 (commit 9b1e4f27, go1.22.5) starting"),
        (206, "INFO  config: reading /etc/service-d/config.yaml"),
        (207, "ERROR config: missing required env DATABASE_URL"),
        (208, "FATAL main: invalid configuration, exiting with code 1"),
    ])  # fmt: skip


def dc_b_logs(cl: Cluster) -> dict[tuple[str, str, str], list[datetime]]:
    access: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    search_log: list[dict[str, Any]] = []
    orders: list[dict[str, Any]] = []
    anchors = {"edge-11": (d("10:05:00"), 512_300, 5.2), "edge-12": (d("10:05:00"), 498_770, 4.7)}
    conns = Conns(anchors)
    pids = {"edge-11": 3114, "edge-12": 2290}
    on17 = {name: next(p for p in cl.of(name) if p.node == "worker-17")
            for name in ("search-api", "auth-api")}  # fmt: skip
    plan = sorted(
        (d("10:05:00") + secs(60 * m + int(frac("s4", name, m, j) * 59) + round(frac(m, j), 3)),
         name)
        for name, per_minute in (("search-api", S4_SEARCH), ("auth-api", S4_AUTH))
        for m, count in enumerate(per_minute) for j in range(count)
    )  # fmt: skip
    logged: dict[tuple[str, str, str], list[datetime]] = {}
    for t, name in plan:
        pod = on17[name]
        if name == "search-api":
            host = "search.example.com"
            method, path = (
                ("POST", "/api/v2/search") if frac("m", t) < 0.8 else ("GET", "/api/v2/suggest")
            )
        else:
            host = "id.example.com"
            method, path = (
                ("POST", "/oauth2/token") if frac("m", t) < 0.6 else ("GET", "/oauth2/userinfo")
            )
        edge = "edge-11" if frac("e", t) < 0.5 else "edge-12"
        reset = frac("cls", t) < 0.4
        rt = round(0.2 + 2.8 * frac("rt4", t), 3)
        r = Req(t, edge, conns.at(edge, t), host, method, path, 502, f"{pod.ip}:8080", rt,
                req_id("s4", t), client_ip("s4", t), header_time="-")  # fmt: skip
        err = r.error(pids[edge], RESET if reset else PREMATURE)
        r.t += timedelta(milliseconds=2)
        access.append(r.access())
        errors.append(err)
        logged.setdefault((name, method, "502"), []).append(t)
        if name == "search-api" and not reset and frac("applog", t) < 0.5:
            ms = int(rt * 300)  # the app answered; the answer never reached the edge
            search_log.append(access_line(t - secs(rt * 0.7), pod, method, path, 200, ms, r.rid))
    routes = [
        ("search.example.com", "POST", "/api/v2/search", "search-api"),
        ("id.example.com", "POST", "/oauth2/token", "auth-api"),
        ("id.example.com", "GET", "/oauth2/userinfo", "auth-api"),
        ("catalog.example.com", "GET", "/api/v2/products/{n}", "catalog-api"),
        ("pay.example.com", "GET", "/api/v1/orders/ORD-20260720-31{n:04d}", "service-a"),
    ]
    for i in range(44):
        t = d("09:58:00") + secs(int(frac("ob", i) * 1500) + round(frac("obms", i), 3))
        host, method, path, name = pick(routes, "route-b", i)
        pod = pick(cl.of(name), "up-b", i)
        edge = "edge-11" if frac("edge-b", i) < 0.5 else "edge-12"
        rt = round(0.006 + 0.06 * frac("rtb", i) ** 2, 3)
        path = path.format(n=int(frac("nb", i) * 9000))
        r = Req(t, edge, conns.at(edge, t), host, method, path, 200, f"{pod.ip}:8080", rt,
                req_id("ordinary-b", i), creqs=1 + int(frac("crb", i) * 15))  # fmt: skip
        access.append(r.access())
        if name == "search-api":
            search_log.append(access_line(t - secs(rt), pod, method, path, 200,
                                          int(rt * 1000) - 1, r.rid))  # fmt: skip
    catalog = cl.of("catalog-api")[0]
    t = d("10:41:26")
    r = Req(t + secs(0.904), "edge-12", conns.at("edge-12", t), "catalog.example.com", "GET",
            "/api/v2/products/export.csv", 504, f"{catalog.ip}:8080", 60.001, req_id("b-timeout"),
            client_ip("b-timeout"), header_time="-", bytes_sent=569)  # fmt: skip
    access.append(r.access())
    errors.append(r.error(2291, TIMEOUT))
    logged[("catalog-api", "GET", "504")] = [r.t]
    # story 3: the log shipper carries every crash of the new service-d pods
    for p in cl.of("service-d"):
        if p.ready:
            for k in range(3):
                t = d("10:20:00") + secs(60 * int(frac("dl", p.name, k) * 75) + 7 * k)
                items = 41_800 + int(frac("pc", p.name, k) * 900)
                orders.append(app_doc(t, p, f"price cache refreshed: {items} items in 212ms",
                                      logger="pricing.cache"))  # fmt: skip
            continue
        for inst in p.instances:
            orders.append(
                app_doc(
                    inst.start + secs(0.207),
                    p,
                    "config: missing required env DATABASE_URL",
                    "ERROR",
                    "config",
                )
            )
            orders.append(
                app_doc(
                    inst.start + secs(0.208),
                    p,
                    "invalid configuration, exiting with code 1",
                    "FATAL",
                    "main",
                )
            )
        cl.pod_logs[f"orders/{p.name}/app"] = crash_log(p.instances[-1].start)
        cl.pod_logs[f"orders/{p.name}/app/previous"] = crash_log(p.instances[-2].start)
    cl.logs = {
        f"edge-access-{DAY}": sort_docs(access),
        f"edge-error-{DAY}": sort_docs(errors),
        f"app-search-{DAY}": sort_docs(search_log),
        f"app-orders-{DAY}": sort_docs(orders),
    }
    return logged


# --- GitLab ----------------------------------------------------------------------------------

# fmt: off
USERS = {"e.kuznetsova": 1242, "r.belov": 1263, "v.sokolov": 1204, "a.petrov": 1187,
         "k.smirnova": 1219, "d.ivanov": 1231}
PROJECTS = {398: ("payments/service-a", "2025-10-28T08:02:19.514Z"),
            412: ("orders/service-c", "2025-08-29T09:12:44.210Z"),
            415: ("orders/service-d", "2025-01-30T12:47:03.377Z")}
# key: sha, project, title, body, author, authored, committer, committed, parent
COMMITS = {
    "a1": ("b73e0c52a9d14f68e21c7a3b9d05f4e8c6a1b2d3", 398, "Retry ledger writes on 409 Conflict",
           "", "r.belov", "07-13 15:12:09", "e.kuznetsova", "07-14 07:55:41",
           "0d3b6f9a2c5e8b1d4f7a0c3e6b9d2f5a8c1e4b7d"),
    "a2": ("e4f9a1c7d2b84036a5e9c1f7b3d08a2e6c4b9f15", 398,
           "Pass full creq in 3-D Secure challenge redirect",
           "The ACS needs the complete creq; stop truncating it to 256 chars.\n\nCloses #341",
           "r.belov", "07-16 16:40:27", "e.kuznetsova", "07-17 09:19:58", "a1"),
    "c1": ("8d2e6b1f4a9c07e3d5b8f2a1c6e9d4b7a0f3c5e8", 412, "Bump base image to debian 12.6", "",
           "v.sokolov", "07-17 07:31:05", "v.sokolov", "07-17 10:48:20",
           "c5a9e3d7b1f04e8a2c6d0b9f3e7a1d5c8b2f6e04"),
    "d1": ("2f6b9d3e8a1c4f07b5d2e9a6c3f0b8d1e4a7c5f2", 415, "Add cancellation reason codes",
           "Closes #207", "a.petrov", "07-15 09:02:48", "a.petrov", "07-15 12:20:13",
           "4a7c2e9f1b3d5068a2c4e6f8b0d1a3c5e7f9b2d4"),
    "d2": ("9b1e4f27c3a85d60e2b7f4a1c9d3e8b5a0f6c2d7", 415,
           "Read database settings from DATABASE_URL",
           "Replaces ORDERS_DB_DSN with the standard DATABASE_URL.\n\nCloses #214",
           "d.ivanov", "07-19 15:22:40", "k.smirnova", "10:28:14", "d1"),
}
# id, iid, project, commit, ref (a tag when it starts with v), status, user, created, finished
# (dates without a year are 2026, without a day the demo's day)
PIPELINES = [
    (87960, 497, 398, "a1", "main", "success", "e.kuznetsova",
     "07-14 07:55:52.118", "07-14 08:31:40.207"),
    (88412, 502, 398, "a2", "main", "success", "e.kuznetsova",
     "07-17 09:20:11.402", "07-17 09:46:50.913"),
    (89950, 611, 412, "c1", "main", "success", "v.sokolov",
     "07-17 10:48:31.402", "07-17 11:03:15.760"),
    (89811, 271, 415, "d1", "v2.3.1", "success", "a.petrov",
     "07-15 12:24:40.381", "07-15 12:50:05.233"),
    (90402, 288, 415, "d2", "v2.4.0", "failed", "k.smirnova",
     "10:31:05.118", "10:57:16.583"),
]
# id, pipeline, name, status, started, finished (the job user is the pipeline's user)
JOBS = [
    (5452201, 87960, "build", "success", "07-14 07:56:01.334", "07-14 08:02:11.870"),
    (5452206, 87960, "deploy:dc-a", "success", "07-14 08:20:30.515", "07-14 08:23:02.011"),
    (5452207, 87960, "deploy:dc-b", "success", "07-14 08:28:55.902", "07-14 08:31:40.110"),
    (5469688, 88412, "build", "success", "07-17 09:20:19.071", "07-17 09:26:40.388"),
    (5469710, 88412, "deploy:dc-a", "success", "07-17 09:38:40.250", "07-17 09:41:35.602"),
    (5469711, 88412, "deploy:dc-b", "success", "07-17 09:44:20.118", "07-17 09:46:50.877"),
    (5480305, 89950, "build", "success", "07-17 10:48:38.004", "07-17 10:54:12.671"),
    (5480320, 89950, "deploy:dc-a", "success", "07-17 10:55:30.640", "07-17 10:58:20.095"),
    (5480321, 89950, "deploy:dc-b", "success", "07-17 11:00:48.301", "07-17 11:03:15.622"),
    (5461390, 89811, "build", "success", "07-15 12:24:47.990", "07-15 12:29:31.402"),
    (5461391, 89811, "test", "success", "07-15 12:29:33.118", "07-15 12:33:02.764"),
    (5461402, 89811, "deploy:dc-a", "success", "07-15 12:39:50.337", "07-15 12:42:30.908"),
    (5461403, 89811, "deploy:dc-b", "success", "07-15 12:47:40.512", "07-15 12:50:05.190"),
    (5531190, 90402, "build", "success", "10:31:12.402", "10:36:02.877"),
    (5531191, 90402, "test", "success", "10:36:05.009", "10:41:12.340"),
    (5531194, 90402, "deploy:dc-a", "manual", "", ""),
    (5531195, 90402, "deploy:dc-b", "failed", "10:51:58.644", "10:57:16.402"),
]
RUNNERS = {"build": (41, "docker-builder-03", True), "test": (41, "docker-builder-03", True),
           "deploy:dc-a": (76, "k8s-runner-dc-a", False),
           "deploy:dc-b": (77, "k8s-runner-dc-b", False)}
# fmt: on


JOB_COMMIT_SKIP = ("project_id", "parent_ids", "web_url")


def gl_user(name: str) -> dict[str, Any]:
    return {"id": USERS[name], "username": name, "name": name, "state": "active",
            "web_url": f"{GITLAB}/{name}"}  # fmt: skip


def gitlab() -> dict[str, Any]:
    commits = {}
    for key, (
        sha,
        project,
        title,
        body,
        author,
        authored,
        committer,
        committed,
        parent,
    ) in COMMITS.items():
        path = PROJECTS[project][0]
        commits[key] = {
            "id": sha, "project_id": project, "short_id": sha[:8], "title": title,
            "message": f"{title}\n\n{body}\n" if body else f"{title}\n",
            "author_name": author, "author_email": f"{author}@example.com",
            "authored_date": msk(d(authored)), "committer_name": committer,
            "committer_email": f"{committer}@example.com", "committed_date": msk(d(committed)),
            "created_at": msk(d(committed)),
            "parent_ids": [COMMITS[parent][0] if parent in COMMITS else parent],
            "web_url": f"{GITLAB}/{path}/-/commit/{sha}",
        }  # fmt: skip
    projects = [{"id": pid, "name": path.split("/")[1], "path_with_namespace": path,
                 "default_branch": "main", "web_url": f"{GITLAB}/{path}", "created_at": created}
                for pid, (path, created) in PROJECTS.items()]  # fmt: skip
    pipelines, begun_at = {}, {}
    for pid, iid, project, key, ref_, status, user, created, finished in PIPELINES:
        begun_at[pid] = d(created)
        pipelines[pid] = {
            "id": pid, "iid": iid, "project_id": project, "sha": COMMITS[key][0], "ref": ref_,
            "tag": ref_.startswith("v"), "status": status, "source": "push",
            "created_at": zms(d(created)), "updated_at": zms(d(finished) + secs(0.016)),
            "started_at": zms(d(created) + secs(5.412)), "finished_at": zms(d(finished)),
            "user": gl_user(user),
            "web_url": f"{GITLAB}/{PROJECTS[project][0]}/-/pipelines/{pid}",
        }  # fmt: skip
    jobs = []
    for n, (jid, pid, name, status, started, finished) in enumerate(JOBS):
        pipe = pipelines[pid]
        commit = commits[next(k for k, c in COMMITS.items() if c[0] == pipe["sha"])]
        begun, done = (d(started), d(finished)) if started else (None, None)
        runner = RUNNERS[name]
        job = {
            "id": jid, "project_id": pipe["project_id"], "name": name,
            "stage": name.split(":")[0], "status": status, "ref": pipe["ref"], "tag": pipe["tag"],
            "allow_failure": False,
            "created_at": zms(begun_at[pid] + secs(0.03 + n / 1000)),
            "started_at": zms(begun) if begun else None,
            "finished_at": zms(done) if done else None,
            "duration": round((done - begun).total_seconds(), 3) if begun and done else None,
            "user": pipe["user"],
            "commit": {k: v for k, v in commit.items() if k not in JOB_COMMIT_SKIP},
            "pipeline": {"id": pid, "project_id": pipe["project_id"], "ref": pipe["ref"],
                         "sha": pipe["sha"], "status": pipe["status"]},
            "runner": {"id": runner[0], "description": runner[1], "active": True,
                       "is_shared": runner[2]} if begun else None,
            "web_url": f"{GITLAB}/{PROJECTS[pipe['project_id']][0]}/-/jobs/{jid}",
        }  # fmt: skip
        if status == "failed":
            job["failure_reason"] = "script_failure"
        jobs.append(job)
    return {"projects": projects, "pipelines": list(pipelines.values()), "jobs": jobs,
            "commits": list(commits.values())}  # fmt: skip


# --- audit -----------------------------------------------------------------------------------

KUBECTL = "kubectl/v1.30.3 (linux/amd64) kubernetes/6fc0a69"
CI_RBAC = ('RBAC: allowed by RoleBinding "ci-deployer/{ns}" of ClusterRole "ci-deployer" to '
           'ServiceAccount "svc-deployer/ci"')  # fmt: skip
DC_RBAC = ('RBAC: allowed by ClusterRoleBinding "system:controller:deployment-controller" of '
           'ClusterRole "system:controller:deployment-controller" to ServiceAccount '
           '"deployment-controller/kube-system"')  # fmt: skip
CONTROLLER_USER = {
    "username": "system:serviceaccount:kube-system:deployment-controller",
    "uid": "0e4b8d2f-6c1a-4f95-b3e7-a9d5c1f7e204",
    "groups": ["system:serviceaccounts", "system:serviceaccounts:kube-system",
               "system:authenticated"],
}  # fmt: skip


def audit_event(verb: str, resource: str, ns: str, name: str, when: datetime, user: dict[str, Any],
                ip: str, agent: str, code: int, reason: str, uri: str = "",
                request: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    group = resource in ("deployments", "replicasets")
    base = (
        f"/apis/apps/v1/namespaces/{ns}/{resource}"
        if group
        else f"/api/v1/namespaces/{ns}/{resource}"
    )
    obj: dict[str, Any] = {"resource": resource, "namespace": ns}
    if name:
        obj["name"] = name
    if group:
        obj["apiGroup"] = "apps"
    obj["apiVersion"] = "v1"
    ev: dict[str, Any] = {
        "kind": "Event", "apiVersion": "audit.k8s.io/v1",
        "level": "Request" if request else "Metadata",
        "auditID": uid("audit", verb, resource, name, when), "stage": "ResponseComplete",
        "requestURI": uri or (f"{base}/{name}" if name else base), "verb": verb, "user": user,
        "sourceIPs": [ip], "userAgent": agent, "objectRef": obj,
        "responseStatus": {"metadata": {}, "code": code},
    }  # fmt: skip
    if request:
        ev["requestObject"] = request
    ev["requestReceivedTimestamp"] = zus(when)
    ev["stageTimestamp"] = zus(when + timedelta(microseconds=3000 + int(frac("st", when) * 15000)))
    ev["annotations"] = {"authorization.k8s.io/decision": "allow",
                         "authorization.k8s.io/reason": reason}  # fmt: skip
    return ev


def ci_release(env: str, name: str, ci: tuple[str, int, int, str], when: datetime):
    """What `kubectl apply` from a deploy job leaves in the audit log: get, patch, and the
    deployment controller creating the new ReplicaSet."""
    project, pipeline, job_id, commit = ci
    project_id = next(k for k, v in PROJECTS.items() if v[0] == project)
    runner = (
        f"runner-{suffix(5, job_id)}-project-{project_id}-concurrent-0-{suffix(5, 'r', job_id)}"
    )
    user = {"username": "system:serviceaccount:ci:svc-deployer",
            "uid": "5f2a9c7e-1b4d-4e83-a6c0-8d3f7b2e9a14",
            "groups": ["system:serviceaccounts", "system:serviceaccounts:ci",
                       "system:authenticated"],
            "extra": {"authentication.kubernetes.io/pod-name": [runner]}}  # fmt: skip
    sha = COMMITS[commit][0]
    tag = {"a2": "3.12.4", "c1": "1.13.2", "d2": "2.4.0"}[commit]
    svc = SVCS[name]
    annotations = ci_annotations(project, pipeline, job_id, commit)
    patch = {
        "metadata": {"annotations": {k: annotations[k] for k in sorted(annotations)[::-1]}},
        "spec": {
            "template": {
                "metadata": {"annotations": {"ci.example.com/commit-sha": sha}},
                "spec": {"containers": [{"name": svc.container, "image": svc.image(tag)}]},
            }
        },
    }
    ns, reason = svc.ns, CI_RBAC.format(ns=svc.ns)
    runner_ip, cp_ip = (
        ("10.20.4.31", "10.20.0.11") if env == "dc-a" else ("10.61.4.27", "10.61.0.11")
    )
    uri = (f"/apis/apps/v1/namespaces/{ns}/deployments/{name}"
           "?fieldManager=kubectl-client-side-apply&fieldValidation=Strict")  # fmt: skip
    rs_name = f"{name}-{RS_OF[(name, tag)]}"
    agent = ("kube-controller-manager/v1.30.4 (linux/amd64) kubernetes/7c48c2b/"
             "system:serviceaccount:kube-system:deployment-controller")  # fmt: skip
    return [
        audit_event("get", "deployments", ns, name, when - secs(0.416), user, runner_ip, KUBECTL,
                    200, reason),
        audit_event("patch", "deployments", ns, name, when, user, runner_ip, KUBECTL, 200, reason,
                    uri, patch),
        audit_event("create", "replicasets", ns, rs_name, when + secs(0.083), CONTROLLER_USER,
                    cp_ip, agent, 201, DC_RBAC),
    ]  # fmt: skip


RS_OF = {("service-a", "3.12.4"): "5d8f7c9b4", ("service-c", "1.13.2"): "58b4d6c7f9",
         ("service-d", "2.4.0"): "7b6c9f5d84"}  # fmt: skip


def audit() -> dict[str, list[dict[str, Any]]]:
    sre = {"username": "oidc:n.volkova", "groups": ["oidc:sre", "system:authenticated"]}
    view = (
        'RBAC: allowed by ClusterRoleBinding "sre-view" of ClusterRole "view" to Group "oidc:sre"'
    )
    laptop = "kubectl/v1.30.2 (darwin/arm64) kubernetes/9c7a1f3"
    dc_a = ci_release(
        "dc-a", "service-a", CI[("dc-a", "service-a")], d("07-17 09:40:50.918")
    ) + ci_release("dc-a", "service-c", CI[("dc-a", "service-c")], d("07-17 10:57:47.958"))
    dc_b = (
        ci_release("dc-b", "service-c", CI[("dc-b", "service-c")], d("07-17 11:02:39.944"))
        + ci_release("dc-b", "service-d", NEW_D, DEPLOY_D - secs(0.083))
        + [
            audit_event(
                "list",
                "pods",
                "search",
                "",
                d("10:14:37.215"),
                sre,
                "10.8.14.61",
                laptop,
                200,
                view,
                "/api/v1/namespaces/search/pods?limit=500",
            )
        ]
    )

    def by_time(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return sorted(events, key=lambda e: e["requestReceivedTimestamp"])

    return {"dc-a": by_time(dc_a), "dc-b": by_time(dc_b)}


# --- assembly --------------------------------------------------------------------------------


def k8s_objects(cl: Cluster, quotas: list[tuple[str, str, dict[str, str]]]) -> list[dict[str, Any]]:
    namespaces = dict.fromkeys(w.svc.ns for w in cl.workloads.values())
    objs = [namespace_obj(cl, ns) for ns in namespaces]
    for w in cl.workloads.values():
        objs += workload_objs(cl, w)
        if w.svc.http:
            objs += service_objs(cl, w)
    objs += [quota_obj(cl, ns, name, hard) for ns, name, hard in quotas]
    objs += [node_obj(cl, n) for n in cl.nodes.values()]
    return objs + cl.events


def common_metrics(cl: Cluster) -> None:
    for p in cl.pods:
        pod_metrics(cl, p)
    for w in cl.workloads.values():
        lab = {"namespace": w.svc.ns, "deployment": w.svc.name}
        ready = sum(1 for p in w.pods if p.ready)
        cl.metrics.append(flat(ksm("kube_deployment_spec_replicas", **lab), w.replicas))
        cl.metrics.append(flat(ksm("kube_deployment_status_replicas_available", **lab), ready))


def build_world() -> dict[str, Any]:
    a, b, s = dc_a(), dc_b(), stage()
    story_oom(a)
    story_crashloop(b)
    story_quota(s)
    ingress_metrics(a, dc_a_logs(a))
    ingress_metrics(b, dc_b_logs(b))
    qb = a.pod("service-b-6f9c8d7b5-q8n4t")
    status_metrics(a, qb, qb.instances[0].end, terminated="OOMKilled")
    for p in b.of("service-d"):
        if not p.ready:
            status_metrics(b, p, p.created, terminated="Error", waiting="CrashLoopBackOff")
    endpoint_metrics(a, "service-a")
    for name in ("search-api", "auth-api", "service-d"):
        endpoint_metrics(b, name)
    node_metrics(a, softnet=False)
    node_metrics(b, softnet=True, sick="worker-17")
    quota_metrics(s)
    for cl in (a, b, s):
        common_metrics(cl)
    big = {"pods": "60", "requests.cpu": "24", "requests.memory": "48Gi"}
    quotas = {
        "dc-a": [("orders", "orders-quota", big), ("payments", "payments-quota", big)],
        "dc-b": [("orders", "orders-quota", big), ("search", "search-quota", big)],
        "stage": [("notifications", "notifications-quota",
                   {"pods": "20", "requests.cpu": "4", "requests.memory": "4Gi"}),
                  ("catalog", "catalog-quota",
                   {"pods": "10", "requests.cpu": "2", "requests.memory": "4Gi"})],
    }  # fmt: skip
    world = {
        "environments": {"dc-a": ["kubernetes", "metrics", "logs"],
                         "dc-b": ["kubernetes", "metrics", "logs"],
                         "stage": ["kubernetes", "metrics"]},
        "kubernetes": {c.env: k8s_objects(c, quotas[c.env]) for c in (a, b, s)},
        "pod_logs": {c.env: c.pod_logs for c in (a, b)},
        "audit": audit(),
        "metrics": {c.env: c.metrics for c in (a, b, s)},
        "logs": {c.env: c.logs for c in (a, b)},
        "gitlab": gitlab(),
    }  # fmt: skip
    return {"now": "2026-07-20T14:40:00+03:00", "timezone": "Europe/Moscow",
            "questions": QUESTIONS, "world": world}  # fmt: skip


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # no &id001 anchors: every object spelled out
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not value.startswith(" ") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.SequenceNode:
    """Numbers and short words inline (metric values, label lists), prose one per line."""
    flow = all(not isinstance(v, dict | list) and not (isinstance(v, str) and len(v) > 40)
               for v in value)  # fmt: skip
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


def _dict(dumper: yaml.SafeDumper, value: dict[str, Any]) -> yaml.MappingNode:
    """Mappings of scalars inline (labels, conditions); anything multi-line as a block."""
    flow = all(not isinstance(v, dict | list) and not (isinstance(v, str) and "\n" in v)
               for v in value.values())  # fmt: skip
    return dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=flow)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(list, _list)
_Dumper.add_representer(dict, _dict)

HEADER = """\
# The built-in demo world (`infrabot demo`, `infrabot ask` without configuration).
# GENERATED by evals/worlds/make_demo.py: edit that script, then run
#   .venv/bin/python evals/worlds/make_demo.py
# Its docstring tells the five stories. Times in the data are UTC; the user speaks Moscow
# time (+03:00): 14:11 local is 11:11Z.
"""


def render() -> str:
    body = yaml.dump(build_world(), Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     width=120)  # fmt: skip
    return HEADER + body


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is out of date; run {Path(__file__).name}", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(text.encode()) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
