"""What an error line says about a dependency: the software a client failed to reach
(PostgreSQL from a psycopg2 or pgx error, Redis from Lettuce's), how the call failed
(refused, timed out, auth, a full disk, out of memory) and the addresses it names. Read
by the turn, to follow the evidence to the object behind a symptom, and by the
conclusion, to say the chain. The shapes are data (policy/dependencies.yaml), matched in
bounded time."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources

import yaml
from pydantic import BaseModel, ConfigDict

from policy.language import Bilingual


class Failure(StrEnum):
    """How a call to a dependency failed, or how the dependency says it fails itself."""

    FULL = "full"
    MEMORY = "memory"
    AUTH = "auth"
    DNS = "dns"
    POOL = "pool"
    REFUSED = "refused"
    TIMEOUT = "timeout"
    READONLY = "readonly"
    UNAVAILABLE = "unavailable"


class _Software(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    label: str
    patterns: list[str]
    images: list[str]
    ports: list[int]


class _FailureShape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Failure
    label: tuple[str, str]
    patterns: list[str]


class SoftwareKind(BaseModel):
    """A kind of component people name instead of the object ("the queue", "база"): its
    words in both languages and the catalogue's software that is one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    words: tuple[str, ...]
    software: tuple[str, ...]


class _Catalogue(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    software: list[_Software]
    failure: list[_FailureShape]
    kinds: list[SoftwareKind]


def _load() -> _Catalogue:
    text = resources.files("policy").joinpath("dependencies.yaml").read_text(encoding="utf-8")
    return _Catalogue.model_validate(yaml.safe_load(text))


_CATALOGUE = _load()

# compiled once, module-level (the bounded-time test finds and times them)
SOFTWARE_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (s.name, re.compile(p, re.I)) for s in _CATALOGUE.software for p in s.patterns
)
FAILURE_SHAPES: tuple[tuple[Failure, re.Pattern[str]], ...] = tuple(
    (f.name, re.compile(p, re.I)) for f in _CATALOGUE.failure for p in f.patterns
)
_LABELS = {s.name: s.label for s in _CATALOGUE.software}
_IMAGES = {s.name: tuple(s.images) for s in _CATALOGUE.software}
_PORTS = {port: s.name for s in _CATALOGUE.software for port in s.ports}
FAILURE_LABELS: dict[Failure, Bilingual] = {f.name: f.label for f in _CATALOGUE.failure}
SOFTWARE_KINDS: tuple[SoftwareKind, ...] = tuple(_CATALOGUE.kinds)

# what a line names as the other end of a call: an address with its port, a cluster DNS
# name, a bare IPv4
_HOST_PORT = re.compile(r"(?<![\w.-])([a-z0-9][\w.-]{0,200}?):(\d{2,5})\b", re.I)
_CLUSTER_NAME = re.compile(r"\b([a-z0-9][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){0,3}\.svc)\b", re.I)
_IPV4 = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}\b")
_DATE = re.compile(r"\d{4}-\d{2}")
_SOURCE_FILE = re.compile(
    r"\.(?:go|py|java|kt|scala|js|mjs|ts|rb|cs|php|rs|c|cc|cpp|ex|exs)$", re.I
)
# failures that say a dependency was called even when the line names none: a client's
# pool with no connection left, a name the resolver could not resolve
_AWAY = frozenset({Failure.POOL, Failure.DNS})
_DNS_PORT = 53

# a line longer than this is read by its first part: a client's error says what it
# called near its start
_READ = 4000


@dataclass(frozen=True)
class DependencyError:
    """One line read as a failed call: to which software (None: not told), how, and the
    hosts, addresses and ports it names."""

    software: str | None
    failure: Failure | None
    hosts: tuple[str, ...] = ()
    addresses: tuple[str, ...] = ()
    ports: tuple[int, ...] = ()

    @property
    def label(self) -> str | None:
        return _LABELS.get(self.software or "")


def _addressable(host: str) -> bool:
    """A name (it has a letter) or an IPv4 address: not a time's or a count's digits."""
    return any(c.isalpha() for c in host) or _IPV4.fullmatch(host) is not None


def software_of(line: str) -> str | None:
    """The software whose client or server shapes the line carries."""
    text = line[:_READ]
    return next((name for name, p in SOFTWARE_SHAPES if p.search(text)), None)


def failure_of(line: str) -> Failure | None:
    """How the line says a call failed, or the dependency fails (the first class)."""
    text = line[:_READ]
    return next((name for name, p in FAILURE_SHAPES if p.search(text)), None)


def read_error(line: str) -> DependencyError | None:
    """The line as a failed call to a dependency, or None when it is not one: it must
    name the software (a client's own shape) or name an address and say how the call
    failed (Go's "dial tcp 10.0.3.7:5432: connect: connection refused")."""
    text = line[:_READ]
    software = software_of(text)
    failure = failure_of(text)
    hosts: list[str] = []
    ports: list[int] = []
    for m in _HOST_PORT.finditer(text):
        host, port = m.group(1), int(m.group(2))
        if not 20 <= port <= 65535 or not _addressable(host) or _DATE.match(host):
            continue  # a time ("16:26:37"), a timestamp or a line number is no address
        if _SOURCE_FILE.search(host):
            continue  # "checks.go:64": where the line was logged from
        hosts.append(host.lower())
        ports.append(port)
    hosts += [h.lower() for h in _CLUSTER_NAME.findall(text)]
    addresses = tuple(dict.fromkeys(_IPV4.findall(text)))
    named = [h for h in hosts if not _IPV4.fullmatch(h)]
    if software is None:
        software = next((_PORTS[p] for p in ports if p in _PORTS), None)
    resolver = [h for h, p in zip(hosts, ports, strict=False) if p == _DNS_PORT]
    if failure is Failure.DNS and resolver:
        # "lookup <name> on <resolver>:53": the call that failed went to the resolver;
        # the name looked up is not what failed
        at = tuple(dict.fromkeys(r for r in resolver if _IPV4.fullmatch(r))) or addresses
        return DependencyError("dns", failure, (), at, (_DNS_PORT,))
    if software is None and failure not in _AWAY and not (failure and (named or addresses)):
        return None
    return DependencyError(
        software, failure, tuple(dict.fromkeys(named)), addresses, tuple(dict.fromkeys(ports))
    )


def excerpt(line: str, width: int) -> str:
    """The part of a long line that says how the call failed: the words before the
    failure's shape, up to `width` characters (a JSON line's failure sits in its last
    field, past its time, level and caller)."""
    text = " ".join(line[:_READ].split())
    if len(text) <= width:
        return text
    # the end of the shape that decided how the call failed (the first class that
    # matches, as failure_of reads it), else the line's start
    shown = next((m.end() for _, p in FAILURE_SHAPES if (m := p.search(text)) is not None), width)
    end = min(len(text), max(shown + width // 8, width))
    start = max(0, end - width)
    return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")


@dataclass(frozen=True)
class Endpoint:
    """An address a setting names: a host, its port and the software, when told."""

    host: str
    port: int | None
    software: str | None


_URL = re.compile(
    r"([a-z][a-z0-9+.-]{1,20})://(?:[^@/\s]{0,200}@)?([a-z0-9][\w.-]{0,200})(?::(\d{2,5}))?", re.I
)
_DSN_HOST = re.compile(r"\bhost=([a-z0-9][\w.-]{0,200})", re.I)
_DSN_PORT = re.compile(r"\bport=(\d{2,5})", re.I)
_LABEL = re.compile(r"[a-z0-9][a-z0-9-]{0,62}(?:\.[a-z0-9][a-z0-9-]{0,62}){0,6}", re.I)
_SCHEMES = {
    "postgres": "postgresql",
    "postgresql": "postgresql",
    "jdbc:postgresql": "postgresql",
    "mysql": "mysql",
    "jdbc:mysql": "mysql",
    "jdbc:mariadb": "mysql",
    "redis": "redis",
    "rediss": "redis",
    "mongodb": "mongodb",
    "mongodb+srv": "mongodb",
    "amqp": "rabbitmq",
    "amqps": "rabbitmq",
    "kafka": "kafka",
    "memcached": "memcached",
}
# a setting whose value is a bare name is an address only when its key says so: the
# conventions of twelve-factor settings and client libraries (REDIS_HOST, DB_ADDR,
# KAFKA_BROKERS, *_URL, spring.redis.host)
_ADDRESS_KEY = re.compile(
    r"(?:host|hosts|addr|address|addresses|server|servers|brokers|bootstrap|endpoint|url|uri|dsn|target)s?$",
    re.I,
)


def software_named(key: str) -> str | None:
    """The software a setting's key names ("SPRING_DATA_REDIS_HOST", "PG_DSN",
    "kafka.bootstrap.servers"): a word of the key that is a software's name or an image
    word of it."""
    words = set(re.split(r"[^a-z0-9]+", key.lower()))
    for software in _CATALOGUE.software:
        if words & {software.name, *software.images, *_KEY_WORDS.get(software.name, ())}:
            return software.name
    return None


# short names settings use for a software beside its own ("PG_HOST", "MONGO_URL")
_KEY_WORDS = {
    "postgresql": ("pg", "postgres", "psql"),
    "mongodb": ("mongo",),
    "rabbitmq": ("amqp",),
}


def software_names() -> dict[str, tuple[str, ...]]:
    """Each software that runs as a workload, with the words that name it: its own name,
    its image words and its short names ("postgres", "pg", "mongo")."""
    return {
        s.name: tuple(dict.fromkeys((s.name, *s.images, *_KEY_WORDS.get(s.name, ()))))
        for s in _CATALOGUE.software
        if s.images
    }


def software_label(software: str) -> str:
    """How the software is written for people ("PostgreSQL")."""
    return _LABELS.get(software, software)


def endpoints_in(key: str, value: str) -> list[Endpoint]:
    """The addresses a setting's value names: URLs and JDBC URLs, libpq key=value DSNs,
    host:port lists (a broker list), or a bare host under a key that says it is one; the
    software by the URL's scheme, the port, else the key's words."""
    named = software_named(key)
    return [
        e if e.software or named is None else Endpoint(e.host, e.port, named)
        for e in _endpoints(key, value)
    ]


def _endpoints(key: str, value: str) -> list[Endpoint]:
    """Every address of the value: its URLs, then the host:port pairs outside them (a
    broker list, a gRPC target, a line of a mounted config file), then a DSN's host; a
    bare host only under a key that says it is one."""
    text = value[:_READ]
    out: list[Endpoint] = []
    spans: list[tuple[int, int]] = []
    for m in _URL.finditer(text):
        scheme = m.group(1).lower()
        before = text[max(0, m.start() - 5) : m.start()].lower()
        if before.endswith("jdbc:"):
            scheme = "jdbc:" + scheme
        port = int(m.group(3)) if m.group(3) else None
        software = _SCHEMES.get(scheme) or _PORTS.get(port or 0)
        out.append(Endpoint(m.group(2).lower(), port, software))
        spans.append(m.span())
    for m in _HOST_PORT.finditer(text):
        port, host = int(m.group(2)), m.group(1)
        inside = any(a <= m.start() < b for a, b in spans)
        if inside or not _addressable(host) or _DATE.match(host) or not 20 <= port <= 65535:
            continue
        out.append(Endpoint(host.lower(), port, _PORTS.get(port)))
    if host_m := _DSN_HOST.search(text):
        port_m = _DSN_PORT.search(text)
        port = int(port_m.group(1)) if port_m else None
        out.append(Endpoint(host_m.group(1).lower(), port, _PORTS.get(port or 0)))
    if not out and _ADDRESS_KEY.search(key.replace(".", "_")):
        for part in re.split(r"[,\s;]+", text.strip())[:8]:
            if _LABEL.fullmatch(part) and any(c.isalpha() for c in part):
                out.append(Endpoint(part.lower(), None, None))
    unique: dict[str, Endpoint] = {}
    for point in out:
        unique.setdefault(point.host, point)
    return list(unique.values())[:8]


def names_workload(host: str, name: str) -> bool:
    """A host's first label names the workload: its own name, or a Service named after it
    ("<db>-rw", "<cache>-master")."""
    first = host.split(".", 1)[0]
    return first == name or first.startswith(name + "-")


def runs_software(image: str, software: str) -> bool:
    """An image that runs the software ("<registry>/db/postgres:16.4" runs PostgreSQL):
    a word of its repository's last part, never of its registry or tag."""
    repo = image.rsplit("/", 1)[-1].split("@", 1)[0].split(":", 1)[0].lower()
    words = set(re.split(r"[^a-z0-9]+", repo)) | {repo}
    return any(w in words or repo.startswith(w + "-") for w in _IMAGES.get(software, ()))
