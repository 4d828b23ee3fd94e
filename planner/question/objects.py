"""Objects a message names: the inventory's names found in its text (the longest mention
wins), a namespace, an Ingress route ("502 on <host>/<path>"), workload-like words when
no inventory could be read, and the other names (Services, Ingresses, identifiers) that
what is measured about the object may carry."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from planner.question.envs import env_words
from planner.question.names import find_name, normalise
from policy.facts import EntityKind
from policy.results import IngressRoute

RX_NAME_LIKE = re.compile(r"(?<![\w.-])[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w.-])")
# identifiers a question may give for something measured: a consumer group, a queue, a
# pool, a topic (words joined by "-", "." or "_")
RX_TERM = re.compile(r"(?<![\w.:/-])[A-Za-z][A-Za-z0-9]*(?:[-._][A-Za-z0-9]+)+(?![\w-])")
_POD_OWNERS = frozenset(
    {
        EntityKind.DEPLOYMENT,
        EntityKind.STATEFULSET,
        EntityKind.DAEMONSET,
        EntityKind.CRONJOB,
        EntityKind.JOB,
    }
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
    images: tuple[str, ...] = ()  # a workload's images: the software it runs
    addresses: tuple[str, ...] = ()  # a Service's cluster IPs


class ObjectRef(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    namespace: str | None = None


# the inventory's items the message names, by name, in the order it names them
Mentioned = list[tuple[str, list[InventoryItem]]]


def _names_a_thing(word: str, known_envs: set[str]) -> bool:
    """A name-like word names a thing unless it is an environment's name or alias, or a
    header or request-id word ("request-id", "x-forwarded-for")."""
    return normalise(word) not in known_envs and not word.lower().startswith(("request", "x-"))


def names_in(message: str, envs: list[str], env_aliases: dict[str, list[str]]) -> list[str]:
    """Workload-like words of the message that name a thing."""
    known = env_words(envs, env_aliases)
    return [
        m.group(0)
        for m in RX_NAME_LIKE.finditer(message.lower())
        if _names_a_thing(m.group(0), known)
    ]


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
        for name in names_in(message, envs, env_aliases or {})
        if normalise(name) not in listed
        and not any(normalise(name).startswith(w + "-") for w in workloads)
    ]


def terms_in(
    message: str, obj: str | None, envs: list[str], aliases: dict[str, list[str]]
) -> list[str]:
    """The object and the identifier-like words of the message, environments left out."""
    known = env_words(envs, aliases)
    found = [obj] if obj else []
    for m in RX_TERM.finditer(message):
        word = m.group(0).rstrip(".")
        if _names_a_thing(word, known):
            found.append(word)
    return list(dict.fromkeys(found))[:5]


def mentions(
    text_norm: str, inventory: list[InventoryItem], env_names: set[str]
) -> tuple[Mentioned, str]:
    """Objects named in the text, in order, without overlaps (the longest mention wins:
    "<name>-b" over "<name>"); and the text with those mentions blanked, so that a
    namespace is not read out of an object's name ("<ns>" in "<ns>-api")."""
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
        for m in find_name(name, text_norm):
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


def in_env(items: list[InventoryItem], env: str | None) -> list[InventoryItem]:
    """The items in `env` when it is known and has any; all of them otherwise."""
    return [c for c in items if env is None or c.env == env] or items


def namespaces_of(items: list[InventoryItem]) -> list[str]:
    """The namespaces the items are in, sorted: one means the object's namespace is known."""
    return sorted({c.namespace for c in items if c.namespace})


def envs_of(items: list[InventoryItem], obj: str | None) -> list[str]:
    """The environments where `obj` is listed, sorted."""
    return sorted({c.env for c in items if c.name == obj}) if obj else []


def namespace_in(text_norm: str, inventory: list[InventoryItem]) -> str | None:
    """The first listed namespace the text names."""
    for item in inventory:
        if (
            item.kind is EntityKind.NAMESPACE
            and len(item.name) >= 3
            and find_name(item.name, text_norm)
        ):
            return item.name
    return None


def nodes_in(text_norm: str, inventory: list[InventoryItem], env: str | None) -> list[str]:
    """The nodes (of `env`, when known) the text names, by name or by one of their
    addresses (a node-exporter's `instance` is the node's IP)."""
    words = set(re.findall(r"[\w.:-]+", text_norm)) if text_norm else set()
    nodes = [
        item.name
        for item in inventory
        if item.kind is EntityKind.NODE
        and (env is None or item.env == env)
        and (find_name(item.name, text_norm) or any(a in words for a in item.addresses))
    ]
    return list(dict.fromkeys(nodes))


@dataclass(frozen=True)
class Routed:
    """The Ingress rule a message's host (and path) lands on; `behind`, when the message
    names the host without a path, every other Service the host routes to: the failing
    path may be any of them, so each is read, never only the one serving "/"."""

    ingress: InventoryItem
    route: IngressRoute
    behind: tuple[ObjectRef, ...] = ()


def routed(message: str, inventory: list[InventoryItem], env: str | None) -> Routed | None:
    """The Ingress rule whose host the message names, with the longest path that prefixes
    the path written after the host (or "/" when none is)."""
    best: tuple[int, InventoryItem, IngressRoute] | None = None
    pathless = False
    others: dict[str, ObjectRef] = {}
    for item in inventory:
        if item.kind is not EntityKind.INGRESS or (env is not None and item.env != env):
            continue
        for route in item.routes:
            if not route.host:
                continue
            m = re.search(re.escape(route.host) + r"(/[^\s?#\"'<>]*)?", message, re.I)
            if m is None:
                continue
            pathless = pathless or m.group(1) in (None, "/")
            others.setdefault(
                route.service, ObjectRef(name=route.service, namespace=item.namespace)
            )
            asked = m.group(1) or "/"
            if asked.startswith(route.path) and (best is None or len(route.path) > best[0]):
                best = (len(route.path), item, route)
    if best is None:
        return None
    behind = tuple(o for o in others.values() if o.name != best[2].service) if pathless else ()
    return Routed(best[1], best[2], behind[:MAX_BEHIND])


# a host's backends read when it is named without a path: an edge with more is a gateway,
# whose failing path the question must name
MAX_BEHIND = 3


def served_hosts(
    inventory: list[InventoryItem], obj: str | None, namespace: str | None, envs: list[str]
) -> list[str]:
    """The hosts of the Ingress routes to the object or to a Service of it (at most four)."""
    if obj is None:
        return []
    names = {obj, *fronts(inventory, obj, namespace, envs)}
    hosts: list[str] = []
    for item in inventory:
        if item.kind is not EntityKind.INGRESS or item.env not in envs:
            continue
        for route in item.routes:
            # the object is the Ingress itself, or a Service it routes to
            ours = item.name == obj or route.service in names
            if route.host and ours and route.host not in hosts:
                hosts.append(route.host)
    return hosts[:4]


def fronts(
    inventory: list[InventoryItem], obj: str | None, namespace: str | None, envs: list[str]
) -> list[str]:
    """The object's Services and Ingresses named otherwise than it (at most six)."""
    names: list[str] = []
    for item in inventory:
        if item.name == obj and item.env in envs and item.namespace in (namespace, None):
            names += [n for n in item.fronted_by if n != obj and n not in names]
    return names[:6]
