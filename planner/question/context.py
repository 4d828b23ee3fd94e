"""Context state: the scope of the current message, decided in code.

Precedence for every field: an explicit value in the current message > working memory
(the previous turn of this thread) > defaults. "now"/"сейчас" drops a remembered `at`.
"то же самое в dc-b" keeps subject, object and identifiers and switches env. Only
configured environments are ever produced; an env-like word that is not configured is
reported in `unknown_envs` so the answer can name the configured ones.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, tzinfo

from pydantic import BaseModel, ConfigDict, Field

from planner.question.asked import AskedValue, asked_value, asks_cause, asks_count
from planner.question.change import ChangeAction, change_asked
from planner.question.extract import Identifiers, extract_identifiers
from planner.question.intent import Intent, classify_all
from planner.question.names import find_name, normalise
from planner.question.timeparse import parse_time
from policy.facts import EntityKind
from policy.results import IngressRoute
from policy.scope import Scope, TimeSpec, shifted

DEFAULT_TIME = TimeSpec(mode="now", window=timedelta(hours=1))
# "who deployed X?" with no time: releases are rarer than errors, look back a week
DEFAULT_WINDOWS: dict[str, timedelta] = {"release_timeline": timedelta(days=7)}

RX_SAME = re.compile(
    r"то же (?:самое)?|тоже самое|то же для|the same|same (?:for|in|thing)|same question|"
    r"(?<![а-яёa-z])а\s+(?:в|для|на)\s|(?<![a-z])and (?:in|for) |what about|"
    r"(?<![а-яёa-z])а что (?:в|на|с)|а теперь|повтори|\bagain\b",
    re.I,
)
RX_ENVISH = re.compile(
    r"(?<![a-zа-яё0-9-])((?:dc|дц)[-_]?[a-zа-яё0-9]{1,2}|"
    r"(?:zone|region|cluster|кластер)[-_ ]+[a-z0-9]{1,3}|"
    r"prod(?:uction)?|staging|stage|preprod|dev|qa|uat|test)(?![a-zа-яё0-9-])",
    re.I,
)
RX_DC_WORD = re.compile(r"\b(?:dcs?|data ?cent(?:er|re)s?)\b|дц|датацентр|дата-центр", re.I)
RX_DC_NAME = re.compile(r"(?<![a-z])dc|datacenter|dc\d")
RX_BEFORE = re.compile(
    r"\b(?:before|prior to|leading up to)\b|(?<![а-яё])(?:перед|до того как)\b", re.I
)
BEFORE_SPAN = timedelta(hours=1)
RX_NAME_LIKE = re.compile(r"(?<![\w.-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w.-])")
# identifiers a question may give for something measured: a consumer group, a queue, a
# pool, a topic (words joined by "-", "." or "_")
RX_TERM = re.compile(r"(?<![\w.:/-])[A-Za-z][A-Za-z0-9]*(?:[-._][A-Za-z0-9]+)+(?![\w-])")
_POD_OWNERS = frozenset({EntityKind.DEPLOYMENT, EntityKind.STATEFULSET, EntityKind.DAEMONSET})


def names_not_listed(
    message: str,
    *,
    inventory: list[InventoryItem],
    envs: list[str],
    env_aliases: dict[str, list[str]] | None = None,
) -> list[str]:
    """Workload-like names in the message that neither the inventory nor an environment
    carries (a pod of a listed workload counts as listed). With an inventory kept from an
    earlier turn, a sign that it may be out of date: something was deployed since."""
    listed = {normalise(i.name) for i in inventory}
    workloads = {normalise(i.name) for i in inventory if i.kind in _POD_OWNERS}
    return [
        name
        for name in _names_in(message, envs, env_aliases or {})
        if normalise(name) not in listed
        and not any(normalise(name).startswith(w + "-") for w in workloads)
    ]


def _env_words(envs: list[str], env_aliases: dict[str, list[str]]) -> set[str]:
    """Every environment's name and aliases, normalised: words that are never an object."""
    return {normalise(e) for e in envs} | {normalise(a) for al in env_aliases.values() for a in al}


def _names_in(message: str, envs: list[str], env_aliases: dict[str, list[str]]) -> list[str]:
    """Workload-like words of the message that are not an environment's name or alias (nor
    a header or request-id word)."""
    known = _env_words(envs, env_aliases)
    return [
        m.group(0)
        for m in RX_NAME_LIKE.finditer(message.lower())
        if normalise(m.group(0)) not in known and not m.group(0).startswith(("request", "x-"))
    ]


RX_ALL_ENVS = re.compile(
    r"\b(?:both|all|every|each)\s+(?:dcs|data ?cent(?:er|re)s|environments|envs|clusters)\b|"
    r"(?:обоих|обеих|всех|каждом|во всех)\s+"
    r"(?:дц|датацентр\w*|дата-центр\w*|окружени\w*|кластер\w*)",
    re.I,
)


class InventoryItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    env: str
    namespace: str | None
    name: str
    kind: EntityKind
    routes: tuple[IngressRoute, ...] = ()  # an Ingress's host + path -> Service rules
    # a workload's Services (selecting its pods) and the Ingresses routing to them: the
    # names its traffic is labelled with when they differ from its own
    fronted_by: tuple[str, ...] = ()


class ObjectRef(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    namespace: str | None = None


class ContextState(BaseModel):
    """The decided scope of one turn, and why."""

    model_config = ConfigDict(extra="forbid")

    scope: Scope
    envs: list[str] = Field(description="environments to read (fan-out when env is unknown)")
    intent: Intent | None = None
    also: list[Intent] = Field(
        default_factory=list, description="other kinds of question the message asks too"
    )
    nodes: list[str] = Field(default_factory=list, description="nodes named in the message")
    objects: list[ObjectRef] = Field(
        default_factory=list, description="every object named, in order; scope.object is the first"
    )
    identifiers: Identifiers = Field(default_factory=Identifiers)
    explicit: list[str] = Field(default_factory=list, description="fields stated in this message")
    follow_up: bool = False
    unknown_envs: list[str] = Field(default_factory=list)
    ambiguous_objects: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    onset: datetime | None = Field(
        default=None, description="when the question says the symptom began (a clock time)"
    )
    terms: list[str] = Field(
        default_factory=list,
        description="names the question gives that a metric's labels may carry (an object, a "
        "consumer group, a queue)",
    )
    asked: AskedValue | None = Field(
        default=None, description="a value of the object's state the question asks for"
    )
    asks_cause: bool = Field(default=False, description="the question asks why")
    asks_count: bool = Field(default=False, description="the question asks how many")
    change: ChangeAction | None = Field(
        default=None, description="a change the message asks for (the bot makes none)"
    )
    fronts: list[str] = Field(
        default_factory=list,
        description="the object's Services and Ingresses, named otherwise than it",
    )


def envs_named(message: str, envs: list[str], aliases: dict[str, list[str]]) -> list[str]:
    """The configured environments a message names, in the order it names them."""
    return _envs_in(normalise(message), envs, aliases)


def _envs_in(text_norm: str, envs: list[str], aliases: dict[str, list[str]]) -> list[str]:
    found = []
    for env in envs:
        names = [env, *aliases.get(env, [])]
        hits = [m.start() for n in names for m in re_finditer(n, text_norm)]
        if hits:
            found.append((min(hits), env))
    return [env for _, env in sorted(found)]


def re_finditer(name: str, text_norm: str) -> list[re.Match[str]]:
    return find_name(name, text_norm)


def _unknown_envs(text: str, envs: list[str], aliases: dict[str, list[str]]) -> list[str]:
    known = {normalise(e).replace(" ", "-") for e in envs}
    known |= {normalise(a).replace(" ", "-") for al in aliases.values() for a in al}
    out = []
    for m in RX_ENVISH.finditer(text):
        token = normalise(m.group(1)).replace(" ", "-").replace("_", "-")
        squashed = token.replace("-", "")
        if token in known or squashed in {k.replace("-", "") for k in known}:
            continue
        if token in ("test", "dev", "qa") and not any(k.startswith(token) for k in known):
            # ordinary words in questions ("test request"); only dc-/cluster-like forms count
            continue
        out.append(m.group(1))
    return list(dict.fromkeys(out))


def _mentions(
    text_norm: str, inventory: list[InventoryItem], env_names: set[str]
) -> tuple[list[tuple[str, list[InventoryItem]]], str]:
    """Objects named in the text, in order, without overlaps (the longest mention wins:
    "service-ab" over "service-a"); and the text with those mentions blanked, so that a
    namespace is not read out of an object's name ("auth" in "auth-api")."""
    hits: list[tuple[int, int, str]] = []
    by_name: dict[str, list[InventoryItem]] = {}
    for item in inventory:
        if (
            item.kind in (EntityKind.NAMESPACE, EntityKind.NODE)
            or len(item.name) < 3
            or item.name in env_names
        ):
            continue
        by_name.setdefault(item.name, []).append(item)
    for name in by_name:
        for m in re_finditer(name, text_norm):
            hits.append((m.start(), m.end(), name))
    hits.sort(key=lambda h: (-(h[1] - h[0]), h[0]))
    taken: list[tuple[int, int, str]] = []
    for start, end, name in hits:
        if all(end <= s or start >= e for s, e, _ in taken):
            taken.append((start, end, name))
    taken.sort()
    blanked = text_norm
    for start, end, _ in taken:
        blanked = blanked[:start] + " " * (end - start) + blanked[end:]
    names = list(dict.fromkeys(name for _, _, name in taken))
    return [(n, by_name[n]) for n in names], blanked


def _namespace_in(text_norm: str, inventory: list[InventoryItem]) -> str | None:
    for item in inventory:
        if (
            item.kind is EntityKind.NAMESPACE
            and len(item.name) >= 3
            and re_finditer(item.name, text_norm)
        ):
            return item.name
    return None


def build_context(
    message: str,
    *,
    envs: list[str],
    inventory: list[InventoryItem],
    now: datetime,
    tz: tzinfo,
    previous: ContextState | None = None,
    env_aliases: dict[str, list[str]] | None = None,
    guess_names: bool = False,
) -> ContextState:
    """Decide the scope of `message`. Never raises on any text."""
    aliases = env_aliases or {}
    text_norm = normalise(message)
    explicit: list[str] = []
    notes: list[str] = []
    ids = extract_identifiers(message)
    if ids.log_query:
        # "найди в логах dc-a X": the env is scope, not search text
        names = _env_words(envs, aliases)
        words = [w for w in ids.log_query.split() if normalise(w) not in names]
        ids = ids.model_copy(update={"log_query": " ".join(words) or None})
    intents = classify_all(message, ids)
    intent = intents[0] if intents else None
    same = bool(RX_SAME.search(message))
    follow_up = previous is not None and (same or intent is None or intent == previous.intent)

    mentioned, blanked = _mentions(text_norm, inventory, set(envs))
    # A message that names no object refers back to the thread ("а кто её выкатил?"),
    # even when it asks a new kind of question: the object and env carry over.
    refers_back = previous is not None and not mentioned and previous.scope.object is not None

    # Environment
    mentioned_envs = _envs_in(text_norm, envs, aliases)
    unknown = (
        _unknown_envs(message, envs, aliases)
        if not mentioned_envs and not RX_ALL_ENVS.search(message)
        else []
    )
    env: str | None
    same_object_there = previous is not None and any(
        item.env == previous.scope.env for _, items in mentioned for item in items
    )
    if mentioned_envs:
        env = mentioned_envs[0]
        explicit.append("env")
    elif (
        previous is not None
        and previous.scope.env
        and (follow_up or refers_back or same_object_there)
        and not unknown
    ):
        env = previous.scope.env
        notes.append(f"environment {env} carried over from the previous turn")
    else:
        env = None

    # Object and namespace
    objects: list[ObjectRef] = []
    for name, items in mentioned:
        in_env = [c for c in items if env is None or c.env == env] or items
        spaces = sorted({c.namespace for c in in_env if c.namespace})
        objects.append(ObjectRef(name=name, namespace=spaces[0] if len(spaces) == 1 else None))
    candidates = mentioned[0][1] if mentioned else []
    if env is not None:
        in_env = [c for c in candidates if c.env == env]
        candidates = in_env or candidates
    obj = namespace = None
    ambiguous: list[str] = []
    if candidates:
        obj = candidates[0].name
        namespaces = {c.namespace for c in candidates if c.name == obj and c.namespace}
        if len(namespaces) == 1:
            namespace = namespaces.pop()
        elif len(namespaces) > 1:
            ambiguous = sorted(f"{ns}/{obj}" for ns in namespaces)
        explicit.append("object")
        if env is None:
            obj_envs = sorted({c.env for c in candidates if c.name == obj})
            if len(obj_envs) == 1 and len(envs) > 1:
                env = obj_envs[0]
                notes.append(f"{obj} exists only in {env}")
    if obj is None and (routed := _routed(message, inventory, env)) is not None:
        # "502 on <host>/<path>": the Ingress rule for that host and
        # path names the Service behind it (scope from evidence, class "no name given")
        item, route = routed
        obj, namespace = route.service, item.namespace
        objects = [ObjectRef(name=obj, namespace=namespace)]
        notes.append(
            f"{route.host}{route.path} is routed by Ingress {item.namespace}/{item.name} "
            f"to service {obj}"
        )
    if obj is None and (guess_names or intent == "release_timeline"):
        # the inventory could not be read: a workload-like name in the text is taken as the
        # object (its namespace stays unknown) rather than dropped
        guessed = _names_in(message, envs, aliases)
        if guessed:
            obj = guessed[0]
            objects = [ObjectRef(name=obj)]
            explicit.append("object")
            notes.append(f"{obj} taken from the text: the inventory could not be read")
    nodes = [
        item.name
        for item in inventory
        if item.kind is EntityKind.NODE
        and (env is None or item.env == env)
        and re_finditer(item.name, text_norm)
    ]
    nodes = list(dict.fromkeys(nodes))
    ns_explicit = _namespace_in(blanked, inventory)
    if ns_explicit:
        namespace = ns_explicit
        explicit.append("namespace")
    if obj is None and previous is not None and (follow_up or refers_back):
        obj = previous.scope.object
        namespace = namespace or previous.scope.namespace
        objects = list(previous.objects)
    if nodes and intent != "raw_query" and obj is None:
        intent = "node_health"  # "compare TCP retransmits on worker-17 with its peers"
    if intent is None and previous is not None and follow_up:
        intent = previous.intent
    restated = "object" in explicit or "env" in explicit
    if previous is not None and follow_up and not ids.request_ids and same and not restated:
        ids = ids.model_copy(update={"request_ids": previous.identifiers.request_ids})
    if previous is not None and follow_up and not ids.http_codes:
        ids = ids.model_copy(update={"http_codes": previous.identifiers.http_codes})

    # Time
    tm = parse_time(message, now, tz)
    onset = tm.onset if tm is not None else None
    if tm is not None:
        time = tm.spec
        explicit.append("time")
        if time.at is not None and RX_BEFORE.search(message):
            # "before the outage at 14:40": the hour that led up to it, not 15 min around it
            at = shifted(time.at, -BEFORE_SPAN / 2)
            time = TimeSpec(at=at, window=BEFORE_SPAN, mode=time.mode)
    elif previous is not None and follow_up:
        time = previous.scope.time
    else:
        time = DEFAULT_TIME
        if intent in DEFAULT_WINDOWS:
            time = TimeSpec(mode="now", window=DEFAULT_WINDOWS[intent])

    if RX_ALL_ENVS.search(message) and not mentioned_envs:
        # "в обоих ДЦ" / "in all DCs": every configured env where the object exists
        obj_envs = sorted({c.env for c in candidates if c.name == obj}) if obj else []
        read_envs = obj_envs or list(envs)
        if RX_DC_WORD.search(message):
            # "в обоих ДЦ": the data centres, not every environment (stage is not a DC)
            dcs = [e for e in read_envs if RX_DC_NAME.search(normalise(e))]
            read_envs = dcs or read_envs
        env = read_envs[0] if len(read_envs) == 1 else None
        explicit.append("env")
    elif env is not None:
        read_envs = [env, *[e for e in mentioned_envs[1:] if e != env]]
    elif len(envs) == 1:
        env = envs[0]
        read_envs = [env]
    else:
        obj_envs = sorted({c.env for c in candidates if c.name == obj}) if obj else []
        read_envs = obj_envs or list(envs)

    return ContextState(
        scope=Scope(env=env, namespace=namespace, object=obj, subject=intent, time=time),
        envs=read_envs,
        intent=intent,
        also=[i for i in intents[1:] if i != intent],
        objects=objects,
        nodes=nodes,
        identifiers=ids,
        explicit=explicit,
        follow_up=follow_up,
        unknown_envs=unknown,
        ambiguous_objects=ambiguous,
        notes=notes,
        terms=_terms_in(message, obj, read_envs, aliases),
        onset=onset,
        asked=asked_value(message) or (previous.asked if follow_up and previous else None),
        asks_cause=asks_cause(message),
        asks_count=asks_count(message),
        change=change_asked(message),
        fronts=_fronts(inventory, obj, namespace, read_envs),
    )


def _fronts(
    inventory: list[InventoryItem], obj: str | None, namespace: str | None, envs: list[str]
) -> list[str]:
    names: list[str] = []
    for item in inventory:
        if item.name == obj and item.env in envs and item.namespace in (namespace, None):
            names += [n for n in item.fronted_by if n != obj and n not in names]
    return names[:6]


def _terms_in(
    message: str, obj: str | None, envs: list[str], aliases: dict[str, list[str]]
) -> list[str]:
    """The object and the identifier-like words of the message, environments left out."""
    known = _env_words(envs, aliases)
    found = [obj] if obj else []
    for m in RX_TERM.finditer(message):
        word = m.group(0).rstrip(".")
        if normalise(word) not in known and not word.lower().startswith(("request", "x-")):
            found.append(word)
    return list(dict.fromkeys(found))[:5]


def _routed(
    message: str, inventory: list[InventoryItem], env: str | None
) -> tuple[InventoryItem, IngressRoute] | None:
    """The Ingress rule whose host the message names, with the longest path that prefixes
    the path written after the host (or "/" when none is)."""
    best: tuple[int, InventoryItem, IngressRoute] | None = None
    for item in inventory:
        if item.kind is not EntityKind.INGRESS or (env is not None and item.env != env):
            continue
        for route in item.routes:
            if not route.host:
                continue
            m = re.search(re.escape(route.host) + r"(/[^\s?#\"'<>]*)?", message, re.I)
            if m is None:
                continue
            asked = m.group(1) or "/"
            if asked.startswith(route.path) and (best is None or len(route.path) > best[0]):
                best = (len(route.path), item, route)
    return (best[1], best[2]) if best is not None else None
