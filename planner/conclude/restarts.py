"""How many times a workload's containers restarted, asked as a count: the sum over every
container the restart counter was read for, each that restarted named with its own
count, so the first sentence is the number asked and not one pod's."""

from __future__ import annotations

from policy.facts import MetricsRestarts
from policy.language import Bilingual, Language, phrase
from policy.numbers import Nouns, count_said
from policy.results import ResultFact

_TOTAL: Bilingual = (
    "{what} in {env}: {restarts} in the window over {containers}{which}",
    "{what} в {env}: {restarts} за окно, {containers}{which}",
)
_WHICH: Bilingual = ("; restarted: {pods}", "; перезапускались: {pods}")
_SHOWN = 5  # containers named, most restarts first


def restarts_total(
    facts: list[tuple[str | None, ResultFact]], env: str | None, what: str, lang: Language
) -> str:
    """The sentence for one env's restart counters (`facts`: every fact read, with its env)."""
    counters = [
        fact.attrs for at, fact in facts if at == env and isinstance(fact.attrs, MetricsRestarts)
    ]
    total = sum(int(c.increase or 0) for c in counters)
    containers = sum(c.containers or 1 for c in counters)
    restarted = sorted((c for c in counters if c.increase), key=lambda c: -(c.increase or 0))
    which = ", ".join(f"{c.pod}/{c.container} {int(c.increase or 0)}" for c in restarted[:_SHOWN])
    return phrase(
        _TOTAL,
        lang,
        what=what,
        env=env or "",
        restarts=count_said(total, Nouns.RESTART, lang),
        containers=count_said(containers, Nouns.CONTAINER, lang),
        which=phrase(_WHICH, lang, pods=which) if which else "",
    )
