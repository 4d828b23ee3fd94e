"""A question for a cause whose evidence shows the object healthy is answered as healthy,
with what was read: "web in prod-2 looks healthy: 2/2 ready, image web:2.3.1,
no restarts in the window" rather than "17 observations; cause not established".

Healthy is read from typed facts only, never from their text: the object's workload has
every desired replica ready (and at least one), none of its pods is seen not ready, and
no restart counter rose in the window. Anything else (no workload read, a pod waiting, a
restart) leaves the answer where it was: not healthy is not the same as not proven.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.conclude.rule import IndexedFact
from planner.shapes.language import Language
from policy.facts import K8sPod, K8sWorkload, MetricsRestarts
from policy.language import Bilingual, phrase

_HEALTHY: Bilingual = (
    "{object} in {env} looks healthy: {ready}/{desired} ready{image}, {restarts}; no cause "
    "of a failure is seen there",
    "{object} в {env} выглядит исправным: готово {ready}/{desired}{image}, {restarts}; "
    "причины сбоя там не видно",
)
_IMAGE: Bilingual = (", image {image}", ", образ {image}")
_NO_RESTARTS: Bilingual = ("no restarts in the window", "перезапусков за окно нет")
_RESTARTS_UNREAD: Bilingual = ("restarts not read", "перезапуски не прочитаны")


@dataclass(frozen=True)
class Health:
    ready: int
    desired: int
    image: str | None
    restarts_read: bool


def health_of(indexed: list[IndexedFact], name: str, env: str) -> Health | None:
    """The object's health when the typed facts of `env` show it healthy, else None."""
    mine = [i.fact.attrs for i in indexed if i.env in (env, None)]
    workloads = [a for a in mine if isinstance(a, K8sWorkload) and a.name == name]
    if len(workloads) != 1:
        return None
    w = workloads[0]
    if not w.desired or w.ready != w.desired:
        return None
    if any(isinstance(a, K8sPod) and a.ready is False for a in mine):
        return None
    restarts = [a for a in mine if isinstance(a, MetricsRestarts)]
    if any((a.increase or 0) > 0 for a in restarts):
        return None
    return Health(ready=w.ready, desired=w.desired, image=w.image, restarts_read=bool(restarts))


def healthy_sentence(health: Health, name: str, env: str, language: Language) -> str:
    image = health.image.rsplit("/", 1)[-1] if health.image else None
    return phrase(
        _HEALTHY,
        language,
        object=name,
        env=env,
        ready=health.ready,
        desired=health.desired,
        image=phrase(_IMAGE, language, image=image) if image else "",
        restarts=phrase(_NO_RESTARTS if health.restarts_read else _RESTARTS_UNREAD, language),
    )
