"""Context state: the scope of the current message, decided in code.

Precedence for every field: an explicit value in the current message > working memory
(the previous turn of this thread) > defaults. "now"/"сейчас" drops a remembered `at`.
"то же самое в <env>" keeps subject, object and identifiers and switches env. Only
configured environments are ever produced; an env-like word that is not configured is
reported in `unknown_envs` so the answer can name the configured ones.

`build_context` decides in steps, each owning one decision and handing a small typed
result to the next: what the message says (`_read_message`), the environment
(`_pick_env`), the object and namespace (`_pick_object`), what memory fills
(`_remembered`), the time (`_pick_time`), and the environments to read (`_read_envs`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, tzinfo
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from planner.question.alert import PastedAlert, alert_time, asked_intents, pasted_alert
from planner.question.asked import AskedValue, asked_value, asks_cause, asks_count
from planner.question.change import ChangeAction, change_asked
from planner.question.components import ComponentNamed, component_named, running
from planner.question.deployer import ChangeAuthor, change_author_asked
from planner.question.envs import (
    asks_all_envs,
    data_centres,
    env_words,
    envs_named,
    unknown_envs,
)
from planner.question.extract import Identifiers, extract_identifiers
from planner.question.intent import Intent, asks_generically, classify_all
from planner.question.listing import Listing, listing_asked
from planner.question.logtail import LogTail, log_tail_asked, pods_named
from planner.question.names import normalise
from planner.question.objects import (
    InventoryItem,
    Mentioned,
    ObjectRef,
    envs_of,
    fronts,
    in_env,
    mentions,
    names_in,
    names_not_listed,
    namespace_in,
    namespaces_of,
    nodes_in,
    routed,
    served_hosts,
    terms_in,
)
from planner.question.phrase import PhraseCount, phrase_count_asked
from planner.question.polar import polar_asked
from planner.question.quantile import quantile_asked
from planner.question.ranking import Ranking, ranking_asked
from planner.question.timeparse import parse_time
from planner.question.timeshift import moved, shift_asked
from policy.facts import EntityKind
from policy.scope import Scope, TimeSpec, shifted

__all__ = [
    "ContextState",
    "InventoryItem",
    "ObjectRef",
    "ScopeField",
    "build_context",
    "names_not_listed",
]

DEFAULT_TIME = TimeSpec(mode="now", window=timedelta(hours=1))
# "who deployed X?" with no time: releases are rarer than errors, look back a week
DEFAULT_WINDOWS: dict[str, timedelta] = {
    "release_timeline": timedelta(days=7),
    "log_lines": timedelta(days=1),  # the latest lines, whenever they were written
}
# "who deployed it last?" with no time: the last change may be weeks old
LATEST_CHANGE_LOOKBACK = timedelta(days=30)

RX_SAME = re.compile(
    r"то же (?:самое)?|тоже самое|то же для|the same|same (?:for|in|thing)|same question|"
    r"(?<![а-яёa-z])а\s+(?:в|для|на)\s|(?<![a-z])and (?:in|for) |what about|"
    r"(?<![а-яёa-z])а что (?:в|на|с)|а теперь|повтори|\bagain\b",
    re.I,
)
RX_BEFORE = re.compile(
    r"\b(?:before|prior to|leading up to)\b|(?<![а-яё])(?:перед|до того как)\b", re.I
)
BEFORE_SPAN = timedelta(hours=1)


class ScopeField(StrEnum):
    """A field of the scope that the message states itself (it beats working memory)."""

    ENV = "env"
    NAMESPACE = "namespace"
    OBJECT = "object"
    TIME = "time"


Ask = Ranking | Listing | LogTail | PhraseCount | ChangeAuthor
"""What a question asks for exactly (planner.question.ranking, listing, logtail, phrase,
deployer)."""


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
    explicit: frozenset[ScopeField] = Field(
        default_factory=frozenset, description="fields stated in this message"
    )
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
    ask: Ask | None = Field(
        default=None,
        description="what the question asks for exactly, when a grammar read it: a ranking, a "
        "list, log lines or a count of a phrase (the plan reads that alone)",
    )
    quantile: float | None = Field(
        default=None, description="the latency quantile the question asks for (0.95 for p95)"
    )
    absent: list[str] = Field(
        default_factory=list,
        description="workload-like names the message gives as its object that no complete "
        "list of the envs read carries: reported absent, never replaced by another object",
    )
    component: str | None = Field(
        default=None,
        description="the software a kind of component the question names runs as "
        '("Kafka / RabbitMQ" for "the queue") when no workload of the envs read runs it: '
        "said absent, and a model, when there is one, may still find it outside the cluster",
    )
    asks_cause: bool = Field(default=False, description="the question asks why")
    asks_count: bool = Field(default=False, description="the question asks how many")
    polar: bool = Field(default=False, description="the question asks yes or no")
    change: ChangeAction | None = Field(
        default=None, description="a change the message asks for (the bot makes none)"
    )
    fronts: list[str] = Field(
        default_factory=list,
        description="the object's Services and Ingresses, named otherwise than it",
    )
    served_hosts: list[str] = Field(
        default_factory=list,
        description="the hosts the object's Ingress routes serve: what an edge in front of "
        "the cluster logs its requests by, when no record names the service",
    )

    @property
    def uncovered(self) -> bool:
        """No kind of plan reads the question: it names no object, node or absent name,
        and asks nothing the intents or the grammars of an exact ask read. An environment
        check stands in for it, said as such; a model, when there is one, plans it."""
        return (
            self.intent is None
            and self.ask is None
            and self.scope.object is None
            and not self.absent
            and not self.nodes
        )


@dataclass(frozen=True)
class _Setting:
    """What the message is read against: the configured environments, the inventory."""

    envs: list[str]
    aliases: dict[str, list[str]]
    inventory: list[InventoryItem]
    guess_names: bool


@dataclass(frozen=True)
class _Message:
    """What the message says before memory is consulted."""

    text: str
    norm: str
    ids: Identifiers
    intents: list[Intent]
    same: bool  # "the same in <env>", "а в <env>?"
    mentioned: Mentioned
    blanked: str  # `norm` with the objects' mentions blanked
    previous: ContextState | None
    alert: PastedAlert | None = None  # an alert pasted in it: `text` is its scope text

    @property
    def intent(self) -> Intent | None:
        """The kind of question the message asks most (before memory)."""
        return self.intents[0] if self.intents else None

    @property
    def follow_up(self) -> bool:
        """It continues the thread: "the same ...", a message that asks nothing of its
        own, or asks again what the thread asked."""
        previous = self.previous
        return previous is not None and (
            self.same or self.intent is None or self.intent == previous.intent
        )

    @property
    def refers_back(self) -> bool:
        """It names no object, so it is about the thread's ("а кто её выкатил?"), even when
        it asks a new kind of question: the object and env carry over."""
        previous = self.previous
        return previous is not None and not self.mentioned and previous.scope.object is not None


@dataclass(frozen=True)
class _EnvPick:
    """The environment decided, with what the message named (the envs to read start from
    it) and the env-like words it names that are not configured."""

    env: str | None
    named: list[str]  # the configured envs the message names, in order
    unknown: list[str]
    notes: tuple[str, ...] = ()
    explicit: frozenset[ScopeField] = frozenset()


@dataclass(frozen=True)
class _ObjectPick:
    """The object and namespace decided; the env may change here (an object listed in one
    env only), so it travels with them to the later steps."""

    env: str | None  # the env picked, or the only one the object is listed in
    obj: str | None = None
    namespace: str | None = None
    objects: tuple[ObjectRef, ...] = ()
    candidates: tuple[InventoryItem, ...] = ()  # the first named object's listings
    ambiguous: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    explicit: frozenset[ScopeField] = frozenset()


@dataclass(frozen=True)
class _TimePick:
    """The time window, and the symptom's onset when a clock time in the message puts it."""

    time: TimeSpec
    onset: datetime | None = None
    explicit: frozenset[ScopeField] = frozenset()


def _read_message(message: str, previous: ContextState | None, setting: _Setting) -> _Message:
    """Identifiers, the kinds of question, and the objects named, read once. A pasted
    alert is read as its subject's names and the asker's own words (planner.question.alert):
    the exporter's names in its labels and the words of its text are not the question's;
    what the alert asks is asked when the asker's words ask nothing else."""
    alert = pasted_alert(message)
    own = message if alert is None else alert.own_words
    message = message if alert is None else alert.scope_text()
    ids = extract_identifiers(message)
    if ids.log_query:
        # "найди в логах <env> X": the env is scope, not search text
        names = env_words(setting.envs, setting.aliases)
        words = [w for w in ids.log_query.split() if normalise(w) not in names]
        ids = ids.model_copy(update={"log_query": " ".join(words) or None})
    norm = normalise(message)
    mentioned, blanked = mentions(norm, setting.inventory, set(setting.envs))
    intents = classify_all(own, ids) if alert is None else asked_intents(alert, ids)
    return _Message(
        message,
        norm,
        ids,
        intents,
        same=bool(RX_SAME.search(own)),
        mentioned=mentioned,
        blanked=blanked,
        previous=previous,
        alert=alert,
    )


def _pick_env(msg: _Message, setting: _Setting) -> _EnvPick:
    """A named env; else the thread's, when this message continues it (and names no
    unknown one)."""
    named = envs_named(msg.text, setting.envs, setting.aliases)
    if named:
        return _EnvPick(named[0], named, [], explicit=frozenset({ScopeField.ENV}))
    unknown = (
        [] if asks_all_envs(msg.text) else unknown_envs(msg.text, setting.envs, setting.aliases)
    )
    previous = msg.previous
    if previous is None or not previous.scope.env or unknown:
        return _EnvPick(None, named, unknown)
    same_object_there = any(
        item.env == previous.scope.env for _, items in msg.mentioned for item in items
    )
    if not (msg.follow_up or msg.refers_back or same_object_there):
        return _EnvPick(None, named, unknown)
    env = previous.scope.env
    return _EnvPick(
        env, named, unknown, (f"environment {env} carried over from the previous turn",)
    )


def _only(names: list[str]) -> str | None:
    return names[0] if len(names) == 1 else None


def _named_object(msg: _Message, env: str | None, envs: list[str]) -> _ObjectPick:
    """The first object the message names (its listing in `env` preferred); its env when
    it is listed in only one."""
    objects = tuple(
        ObjectRef(name=name, namespace=_only(namespaces_of(in_env(items, env))))
        for name, items in msg.mentioned
    )
    candidates = in_env(msg.mentioned[0][1], env) if msg.mentioned else []
    if not candidates:
        return _ObjectPick(env, objects=objects)
    obj = candidates[0].name
    spaces = namespaces_of(candidates)
    ambiguous = tuple(sorted(f"{ns}/{obj}" for ns in spaces)) if len(spaces) > 1 else ()
    notes: tuple[str, ...] = ()
    obj_envs = envs_of(candidates, obj)
    if env is None and len(obj_envs) == 1 and len(envs) > 1:
        env = obj_envs[0]
        notes = (f"{obj} exists only in {env}",)
    return _ObjectPick(
        env,
        obj,
        _only(spaces),
        objects,
        tuple(candidates),
        ambiguous,
        notes,
        frozenset({ScopeField.OBJECT}),
    )


def _routed_object(msg: _Message, env: str | None, setting: _Setting) -> _ObjectPick | None:
    """ "502 on <host>/<path>": the Ingress rule for that host and path names the Service
    behind it (scope from evidence, class "no name given")."""
    found = routed(msg.text, setting.inventory, env)
    if found is None:
        return None
    item, route = found.ingress, found.route
    note = (
        f"{route.host}{route.path} is routed by Ingress {item.namespace}/{item.name} "
        f"to service {route.service}"
    )
    notes = [note]
    if found.behind:
        notes.append(
            f"{route.host} also routes to {', '.join(o.name for o in found.behind)}: "
            "read as well, the message names no path"
        )
    ref = ObjectRef(name=route.service, namespace=item.namespace)
    return _ObjectPick(env, route.service, item.namespace, (ref, *found.behind), notes=tuple(notes))


def _guessed_object(msg: _Message, env: str | None, setting: _Setting) -> _ObjectPick | None:
    """The inventory could not be read: a workload-like name in the text is taken as the
    object (its namespace stays unknown) rather than dropped."""
    # a release question reads GitLab, where a project may be named what no cluster runs;
    # with a cluster's lists read, a name they lack is absent from it, and said so
    releases = msg.intent == "release_timeline" and not setting.inventory
    if not (setting.guess_names or releases):
        return None
    guessed = names_in(msg.text, setting.envs, setting.aliases)
    if not guessed:
        return None
    obj = guessed[0]
    note = f"{obj} taken from the text: the inventory could not be read"
    return _ObjectPick(
        env,
        obj,
        objects=(ObjectRef(name=obj),),
        notes=(note,),
        explicit=frozenset({ScopeField.OBJECT}),
    )


def _pick_object(msg: _Message, env: str | None, setting: _Setting) -> _ObjectPick:
    """A named object; else the Service an Ingress route named routes to; else a guess."""
    named = _named_object(msg, env, setting.envs)
    if named.obj is not None:
        return named
    other = (
        _routed_object(msg, env, setting)
        or _shortened_object(msg, env, setting)
        or _guessed_object(msg, env, setting)
    )
    return named if other is None else other


# a word shorter than this is no workload's name written short ("api", "web", "db")
MIN_SHORT_NAME = 5


def _shortened_object(msg: _Message, env: str | None, setting: _Setting) -> _ObjectPick | None:
    """A name written short, the way people do ("storefront" for <storefront-web>): a word
    that the name of exactly one workload or Service of the env starts with, up to a
    hyphen. Said in the scope's notes, never guessed between two."""
    # not an env, a namespace, nor a part of a host or a path ("shop" in shop.example.com)
    known = env_words(setting.envs, setting.aliases) | {
        i.name for i in setting.inventory if i.kind is EntityKind.NAMESPACE
    }
    words = [
        w
        for w in dict.fromkeys(re.findall(r"[\w./:-]+", msg.blanked))
        if len(w) >= MIN_SHORT_NAME and w not in known and re.fullmatch(r"[a-z0-9-]+", w)
    ]
    for word in words:
        items = [
            i
            for i in setting.inventory
            if (env is None or i.env == env)
            and i.kind in _SHORTENED_KINDS
            and i.name.startswith(word + "-")
        ]
        names = {i.name for i in items}
        if len(names) != 1:
            continue
        item = items[0]
        note = f"{word} taken as {item.name}, the one workload whose name starts with it"
        return _ObjectPick(
            env or (item.env if len({i.env for i in items}) == 1 else None),
            item.name,
            _only(namespaces_of(items)),
            (ObjectRef(name=item.name, namespace=item.namespace),),
            tuple(items),
            notes=(note,),
        )
    return None


_SHORTENED_KINDS = frozenset(
    {EntityKind.DEPLOYMENT, EntityKind.STATEFULSET, EntityKind.DAEMONSET, EntityKind.SERVICE}
)


def _remembered(picked: _ObjectPick, msg: _Message, setting: _Setting) -> _ObjectPick:
    """A namespace the message names (outside an object's name) beats any; an object it
    does not name comes from the thread when the message continues it."""
    namespace = namespace_in(msg.blanked, setting.inventory)
    listed = {i.namespace for i in picked.candidates if i.namespace}
    if namespace and listed and namespace not in listed:
        # a word that is also a namespace's name ("logs kafka errors") is not where the
        # object named runs: the inventory lists it elsewhere
        namespace = None
    if namespace:
        picked = replace(
            picked, namespace=namespace, explicit=picked.explicit | {ScopeField.NAMESPACE}
        )
    previous = msg.previous
    if picked.obj is None and previous is not None and (msg.follow_up or msg.refers_back):
        picked = replace(
            picked,
            obj=previous.scope.object,
            namespace=picked.namespace or previous.scope.namespace,
            objects=tuple(previous.objects),
        )
    return picked


def _read_ask(msg: _Message, names: frozenset[str], obj: str | None) -> Ask | None:
    """What the message asks for exactly: a ranking; a list of pods or nodes in a state
    (none of one object); who changed it and when (`names`, the objects named, are no
    words of change); the log lines or the count of a phrase of the object named."""
    message = msg.text
    ranking = ranking_asked(message)
    if ranking is not None:
        return ranking
    listing = listing_asked(message) if obj is None else None
    if listing is not None:
        return listing
    # who and when alone: a question that asks why or names a symptom too is a cause's
    author = (
        None
        if asks_cause(message) or set(msg.intents) - {"release_timeline"}
        else change_author_asked(message, names)
    )
    if author is not None:
        return author
    if obj is None:
        return None
    tail = log_tail_asked(message)
    if tail is not None:
        return replace(tail, pods=tuple(pods_named(message, obj)))
    counted = phrase_count_asked(message)
    return PhraseCount(counted) if counted is not None else None


def _carried_ask(msg: _Message) -> Ask | None:
    """The thread's exact ask, kept by a follow-up that asks nothing of its own ("а в
    <env>?" after a ranking: the same measure and count, ranked there); the pods a tail
    was asked of are the previous env's, so a tail keeps only its shape."""
    previous = msg.previous
    if previous is None or previous.ask is None or not (msg.same or msg.intent is None):
        return None
    if isinstance(previous.ask, LogTail):
        return replace(previous.ask, pods=())
    return previous.ask


ASK_INTENTS: dict[type, Intent] = {
    Ranking: "ranking",
    Listing: "listing",
    LogTail: "log_lines",
    PhraseCount: "phrase_count",
    ChangeAuthor: "release_timeline",
}


def _intent(
    msg: _Message, nodes: list[str], obj: str | None, ask: Ask | None, asked: AskedValue | None
) -> Intent | None:
    """The kind of question: an exact ask is answered with it; a node named with no object
    asks about the node ("compare TCP retransmits on <node> with its peers"); the usage of
    a resource asked with no workload named is the capacity of the namespace or env ("CPU
    used vs requested in namespace <ns>"); a follow-up that does not say asks again."""
    if ask is not None:
        return ASK_INTENTS[type(ask)]
    intent = msg.intent
    if intent is None and obj is None and not nodes and asked is AskedValue.USAGE:
        intent = "capacity"
    if nodes and intent != "raw_query" and obj is None:
        intent = "node_health"
    if intent is None and msg.previous is not None and msg.follow_up:
        intent = msg.previous.intent
    return intent


def _identifiers(msg: _Message, restated: bool) -> Identifiers:
    """ "the same for <env>": a follow-up keeps the thread's HTTP codes and, when it restates
    neither env nor object, its request ids."""
    ids, previous = msg.ids, msg.previous
    if previous is None or not msg.follow_up:
        return ids
    if not ids.request_ids and msg.same and not restated:
        ids = ids.model_copy(update={"request_ids": previous.identifiers.request_ids})
    if not ids.http_codes:
        ids = ids.model_copy(update={"http_codes": previous.identifiers.http_codes})
    return ids


def _pick_time(msg: _Message, intent: Intent | None, now: datetime, tz: tzinfo) -> _TimePick:
    """A time the message moves the thread's by ("an hour earlier?"); else one it
    states; else a pasted alert's start; else the thread's on a follow-up; else the
    default."""
    delta = shift_asked(msg.text) if msg.previous is not None else None
    if msg.previous is not None and delta is not None:
        before = msg.previous.scope.time
        return _TimePick(moved(before, delta, now), None, frozenset({ScopeField.TIME}))
    tm = parse_time(msg.text, now, tz)
    if tm is not None:
        time = tm.spec
        if time.at is not None and RX_BEFORE.search(msg.text):
            # "before the outage at 14:40": the hour that led up to it, not 15 min around it
            at = shifted(time.at, -BEFORE_SPAN / 2)
            time = TimeSpec(at=at, window=BEFORE_SPAN, mode=time.mode)
        return _TimePick(time, tm.onset, frozenset({ScopeField.TIME}))
    if msg.alert is not None and (alerted := alert_time(msg.alert, now)) is not None:
        return _TimePick(alerted, msg.alert.starts_at, frozenset({ScopeField.TIME}))
    if msg.previous is not None and msg.follow_up:
        return _TimePick(msg.previous.scope.time)
    if intent in DEFAULT_WINDOWS:
        return _TimePick(TimeSpec(mode="now", window=DEFAULT_WINDOWS[intent]))
    return _TimePick(DEFAULT_TIME)


def _read_envs(
    msg: _Message, env_pick: _EnvPick, picked: _ObjectPick, envs: list[str]
) -> tuple[str | None, list[str], frozenset[ScopeField]]:
    """The env of the scope and the envs to read: "in all DCs" every configured one where
    the object is listed; a picked env with the others named; the only configured one; or
    every env where the object is listed (all, when it is listed nowhere)."""
    obj_envs = envs_of(list(picked.candidates), picked.obj)
    if asks_all_envs(msg.text) and not env_pick.named:
        read = data_centres(msg.text, obj_envs or list(envs))
        return (read[0] if len(read) == 1 else None), read, frozenset({ScopeField.ENV})
    if picked.env is not None:
        env = picked.env
        return env, [env, *[e for e in env_pick.named[1:] if e != env]], frozenset()
    if len(envs) == 1:
        return envs[0], [envs[0]], frozenset()
    return None, obj_envs or list(envs), frozenset()


# the workloads a kind of component names that the scope keeps as its objects
MAX_COMPONENTS = 4


def _component_pick(
    picked: _ObjectPick, component: ComponentNamed, setting: _Setting
) -> _ObjectPick:
    """The workloads of the env (every env when none is named) that run the software the
    question's word names ("the queue": Kafka or RabbitMQ), as its objects; unchanged when
    none runs there."""
    envs = [picked.env] if picked.env else setting.envs
    items = running(setting.inventory, envs, component.software)
    if not items:
        return picked
    refs = tuple(dict.fromkeys(ObjectRef(name=i.name, namespace=i.namespace) for i in items))
    first = refs[0]
    candidates = tuple(i for i in items if i.name == first.name)
    item_envs = sorted({i.env for i in candidates})
    note = (
        f"{component.word} read as {', '.join(r.name for r in refs[:MAX_COMPONENTS])}: "
        f"the workloads running {component.label}"
    )
    return replace(
        picked,
        env=picked.env or (item_envs[0] if len(item_envs) == 1 else None),
        obj=first.name,
        namespace=first.namespace,
        objects=refs[:MAX_COMPONENTS],
        candidates=candidates,
        notes=(*picked.notes, note),
        explicit=picked.explicit | {ScopeField.OBJECT},
    )


def _listed(envs: list[str], setting: _Setting) -> bool:
    """Every env read has its lists of workloads (what makes a name's absence proven)."""
    listed = {i.env for i in setting.inventory}
    return not setting.guess_names and bool(envs) and all(e in listed for e in envs)


def _absent(message: str, obj: str | None, envs: list[str], setting: _Setting) -> list[str]:
    """The names the message gives as its object that no list has, when the lists of the
    envs read are complete (with lists that failed or were cut, a name is taken as the
    object instead, never called absent); none once an object was found (a name listed
    in another env is found; an object listed only in envs the question does not read is
    absent from those it reads)."""
    if setting.guess_names:
        return []
    read = [i for i in setting.inventory if i.env in envs]
    if not read:
        return []
    if obj is not None:
        # "<name> in <env>" where <env> does not run it: absent there, never answered by
        # an empty read that does not say whose
        return names_not_listed(obj, inventory=read, envs=setting.envs, env_aliases=setting.aliases)
    return names_not_listed(
        _asking_sentence(message),
        inventory=setting.inventory,
        envs=setting.envs,
        env_aliases=setting.aliases,
    )


# a word written as a header ("content-type:"), a path or query part ("/v2/monthly-usage",
# "a=b-c") or quoted is pasted material, not the object the question is about
_PASTED_MARKS = frozenset("/=\"'`«»")


def _asking_sentence(message: str) -> str:
    """The question's own words: its first line, without the words that look pasted."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    return " ".join(
        word
        for word in first.split()
        if not _PASTED_MARKS.intersection(word) and not word.rstrip(",.").endswith(":")
    )


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
    setting = _Setting(envs, env_aliases or {}, inventory, guess_names)
    msg = _read_message(message, previous, setting)
    message = msg.text  # a pasted alert's scope text: the words below read the asker's
    env_pick = _pick_env(msg, setting)
    named = _pick_object(msg, env_pick.env, setting)
    nodes = nodes_in(msg.norm, inventory, named.env)
    picked = _remembered(named, msg, setting)
    names = frozenset(ref.name.lower() for ref in picked.objects)
    ask = _read_ask(msg, names, picked.obj) or _carried_ask(msg)
    component = (
        None
        if picked.obj or picked.namespace or nodes or ask
        else component_named(_asking_sentence(msg.text))
    )
    if component is not None:
        picked = _component_pick(picked, component, setting)
    polar = polar_asked(message)
    asked = asked_value(message, polar=polar)
    intent = _intent(msg, nodes, picked.obj, ask, asked)
    restated = bool({ScopeField.OBJECT, ScopeField.ENV} & (env_pick.explicit | picked.explicit))
    when = _pick_time(msg, intent, now, tz)
    if isinstance(ask, ChangeAuthor) and ask.latest and ScopeField.TIME not in when.explicit:
        when = _TimePick(TimeSpec(mode="now", window=LATEST_CHANGE_LOOKBACK))
    env, read_envs, all_envs = _read_envs(msg, env_pick, picked, envs)
    absent = _absent(message, picked.obj, read_envs, setting)
    # a name the question gives as its object and no list has is what is absent ("the kafka
    # lag of <name>": <name>, not Kafka)
    unrun = (
        component is not None and picked.obj is None and not absent and _listed(read_envs, setting)
    )
    if component is not None and unrun:
        # "the queue in <env>" where no workload runs a queue's software: said absent,
        # never answered by the environment check alone
        absent = [component.label]
    if isinstance(ask, ChangeAuthor) and absent:
        # the lists hold workloads and services; who changed a Secret or a ConfigMap is in
        # the audit log, which every kind of object reaches: the name is the object
        ref = ObjectRef(name=absent[0])
        picked, absent = replace(picked, obj=ref.name, objects=(ref,)), []
    follow_up = msg.follow_up
    hosts = served_hosts(setting.inventory, picked.obj, picked.namespace, read_envs)
    also = [i for i in msg.intents[1:] if i != intent]
    if hosts and intent != "http_errors" and asks_generically(msg.text, msg.ids):
        # "what happened with <service>?": a service users reach through an Ingress is read
        # at every layer their requests cross too (edge, ingress), not only its pods
        also.append("http_errors")
    return ContextState(
        scope=Scope(
            env=env, namespace=picked.namespace, object=picked.obj, subject=intent, time=when.time
        ),
        envs=read_envs,
        intent=intent,
        also=also,
        objects=list(picked.objects),
        nodes=nodes,
        identifiers=_identifiers(msg, restated),
        explicit=env_pick.explicit | picked.explicit | when.explicit | all_envs,
        follow_up=follow_up,
        unknown_envs=env_pick.unknown,
        ambiguous_objects=list(picked.ambiguous),
        notes=[*env_pick.notes, *picked.notes],
        absent=absent,
        component=component.label if component is not None and unrun else None,
        terms=terms_in(message, picked.obj, read_envs, setting.aliases),
        onset=when.onset,
        asked=asked or (previous.asked if follow_up and previous else None),
        ask=ask,
        quantile=quantile_asked(message) or (previous.quantile if follow_up and previous else None),
        asks_cause=asks_cause(message),
        asks_count=asks_count(message),
        polar=polar,
        change=change_asked(message),
        fronts=fronts(inventory, picked.obj, picked.namespace, read_envs),
        served_hosts=hosts,
    )
