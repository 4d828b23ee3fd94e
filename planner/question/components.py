"""A kind of component named instead of an object: "what's up with the queue in <env>?",
"база тормозит?", "как там кафка?", "redis alive?".

People name the part of the system they suspect by what it is (a queue, the database, the
cache) or by its software (Kafka, PostgreSQL, written in Cyrillic too), not by the workload's
name. The question is then about the workloads of the env that run that software (told by
their images, policy.dependencies), or it is answered that none runs there; it is never
answered by an environment check passed off as the answer.

A word names a kind when its stem is the stem of one of the kind's words
(policy/dependencies.yaml `kinds`); it names a software when it is one of the software's
words, or, written in Cyrillic, when its stem in Latin letters is one letter off one of theirs
("кафку" -> kafka). Nothing here knows an object of any system.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from planner.question.objects import InventoryItem
from planner.question.wordforms import distance, is_cyrillic, latin, stem
from policy.dependencies import SOFTWARE_KINDS, runs_software, software_label, software_names
from policy.facts import EntityKind

__all__ = ["ComponentNamed", "component_named", "running"]

_WORD = re.compile(r"[a-zа-яё][a-zа-яё0-9-]{1,40}", re.I)
# a Cyrillic word this short is no software's name written in Cyrillic ("по", "да"); a
# longer one is when its stem, in Latin letters, is one letter off a software's word
# ("кафку" -> kafk ~ kafka; "много" -> mnog is two off mongo)
_SPELT_MIN = 4
_SPELT_OFF = 1
_WORKLOADS = frozenset({EntityKind.DEPLOYMENT, EntityKind.STATEFULSET, EntityKind.DAEMONSET})


@dataclass(frozen=True)
class ComponentNamed:
    """The question's word and the software it names (one, or every one of a kind)."""

    word: str
    software: tuple[str, ...]

    @property
    def label(self) -> str:
        """The software, as people write it: "Kafka / RabbitMQ"."""
        return " / ".join(software_label(s) for s in self.software)


def _kind_stems() -> dict[str, tuple[str, ...]]:
    return {stem(w): kind.software for kind in SOFTWARE_KINDS for w in kind.words}


_KIND_STEMS = _kind_stems()
_NAMES = software_names()


def _software_of(word: str) -> tuple[str, ...]:
    lowered = word.lower()
    if kind := _KIND_STEMS.get(stem(lowered)):
        return kind
    named = tuple(name for name, words in _NAMES.items() if lowered in words)
    if named:
        return named
    if not is_cyrillic(lowered):
        return ()
    spelt = latin(stem(lowered))
    if len(spelt) < _SPELT_MIN:
        return ()
    return tuple(
        name
        for name, words in _NAMES.items()
        if any(len(w) >= _SPELT_MIN and distance(spelt, w) <= _SPELT_OFF for w in words)
    )[:1]


def component_named(text: str) -> ComponentNamed | None:
    """The first word of `text` (the question with its objects' mentions blanked) that names
    a kind of component or a software."""
    for match in _WORD.finditer(text):
        if software := _software_of(match.group(0)):
            return ComponentNamed(match.group(0), software)
    return None


def running(
    inventory: Iterable[InventoryItem], envs: Iterable[str], software: tuple[str, ...]
) -> list[InventoryItem]:
    """The workloads of `envs` whose images run one of `software`."""
    wanted = set(envs)
    return [
        item
        for item in inventory
        if item.env in wanted
        and item.kind in _WORKLOADS
        and any(runs_software(image, s) for image in item.images for s in software)
    ]
