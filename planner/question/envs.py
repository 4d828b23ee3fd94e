"""Which environments a message names: the one home of that decision, for the scope
(`build_context`) and for the turn's inventory read (only the named envs need listing).

Only configured environments (or their aliases) are ever named; an env-like word that is
not configured ("dc-x", "prod") is reported apart so the answer can name the configured
ones, and "in all DCs" / "в обоих ДЦ" names every one (the data centres when it says so).
"""

from __future__ import annotations

import re

from planner.question.names import find_name, normalise

RX_ENVISH = re.compile(
    r"(?<![a-zа-яё0-9-])((?:dc|дц)[-_]?[a-zа-яё0-9]{1,2}|"
    r"(?:zone|region|cluster|кластер)[-_ ]+[a-z0-9]{1,3}|"
    r"prod(?:uction)?|staging|stage|preprod|dev|qa|uat|test)(?![a-zа-яё0-9-])",
    re.I,
)
RX_ALL_ENVS = re.compile(
    r"\b(?:both|all|every|each)\s+(?:dcs|data ?cent(?:er|re)s|environments|envs|clusters)\b|"
    r"(?:обоих|обеих|всех|каждом|во всех)\s+"
    r"(?:дц|датацентр\w*|дата-центр\w*|окружени\w*|кластер\w*)",
    re.I,
)
RX_DC_WORD = re.compile(r"\b(?:dcs?|data ?cent(?:er|re)s?)\b|дц|датацентр|дата-центр", re.I)
RX_DC_NAME = re.compile(r"(?<![a-z])dc|datacenter|dc\d")


def env_words(envs: list[str], aliases: dict[str, list[str]]) -> set[str]:
    """Every environment's name and aliases, normalised: words that are never an object."""
    return {normalise(e) for e in envs} | {normalise(a) for al in aliases.values() for a in al}


def envs_named(message: str, envs: list[str], aliases: dict[str, list[str]]) -> list[str]:
    """The configured environments a message names (by name or alias), in the order it
    names them."""
    text_norm = normalise(message)
    found = []
    for env in envs:
        names = [env, *aliases.get(env, [])]
        hits = [m.start() for n in names for m in find_name(n, text_norm)]
        if hits:
            found.append((min(hits), env))
    return [env for _, env in sorted(found)]


def asks_all_envs(message: str) -> bool:
    """ "in all DCs", "в обоих ДЦ": the message names every environment at once."""
    return bool(RX_ALL_ENVS.search(message))


def data_centres(message: str, envs: list[str]) -> list[str]:
    """Of `envs`, the data centres when the message says "DCs" ("в обоих ДЦ": stage is not
    a DC); all of them otherwise, or when none is named like one."""
    if not RX_DC_WORD.search(message):
        return envs
    return [e for e in envs if RX_DC_NAME.search(normalise(e))] or envs


def unknown_envs(message: str, envs: list[str], aliases: dict[str, list[str]]) -> list[str]:
    """Env-like words of the message that name no configured environment nor alias."""
    known = {word.replace(" ", "-") for word in env_words(envs, aliases)}
    squashed_known = {k.replace("-", "") for k in known}
    out = []
    for m in RX_ENVISH.finditer(message):
        token = normalise(m.group(1)).replace(" ", "-").replace("_", "-")
        if token in known or token.replace("-", "") in squashed_known:
            continue
        if token in ("test", "dev", "qa") and not any(k.startswith(token) for k in known):
            # ordinary words in questions ("test request"); only dc-/cluster-like forms count
            continue
        out.append(m.group(1))
    return list(dict.fromkeys(out))
