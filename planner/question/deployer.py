"""A question that asks who changed an object, or when: "кто и когда последний раз деплоил
<service> в <env>?", "who rolled out <service> yesterday?", "when was <service> last
deployed?", "кто менял секрет <name>?", "последний деплой <service>?".

Class "who and when asked, a diagnosis given": the answer's first line names the change
(who started which deploy job, or who changed the object in the cluster, and when), the
latest first, or says that none was found where it was looked for; whatever else fails
is a labelled second part.

Read by a grammar of two slots, in English and Russian: a question word for a person or a
moment (who, when, кто, кем, когда, во сколько), or "last"/"последний" before a change
noun; and a word of change, recognised by its root after a verb prefix (so "задеплоил",
"передеплоили", "выкатывал" and "redeployed" need no list of their forms). A question
that asks why, or names a symptom too, is a cause question (planner.question.context
does not take this ask for it): its plan reads the releases as the cause's evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# question words for a person or a moment
_WHO = re.compile(
    r"\bwho(?:'s|se)?\b|\bby whom\b|\bwhich (?:job|pipeline|commit|user|person)\b|"
    r"(?<![а-яё])(?:кто|кем|как(?:ой|им|ая) (?:джоб|пайплайн|коммит|задани))",
    re.I,
)
_WHEN = re.compile(
    r"\bwhen\b|\bwhat time\b|(?<![а-яё])(?:когда|во сколько|в какое время)(?![а-яё])", re.I
)
_LAST = re.compile(
    r"\b(?:last|latest|most recent|recent)\b|(?<![а-яё])(?:последн|крайн)\w{0,4}", re.I
)
_WORD = re.compile(r"[a-zа-яё]+(?:-[a-zа-яё]+)*", re.I)

# roots of the words of change: deploy, roll out, release, change, edit, scale, restart...
_ROOTS_EN = (
    "deploy", "rolled", "rollout", "rolling", "releas", "ship", "chang", "updat", "modif",
    "edit", "patch", "scale", "scaling", "delet", "remov", "appli", "apply",
    "upgrad", "downgrad", "bump", "push", "touch",
)  # fmt: skip
_ROOTS_RU = (
    "депло", "выкат", "выклад", "вылож", "катил", "катал", "раскат", "накат", "откат",
    "релиз", "обнов", "менял", "меня", "измен", "удал", "апдейт",
    "скейл", "масштаб", "правил", "правлен", "изменен",
)  # fmt: skip
# verb prefixes a root may carry ("за|деплоил", "пере|запустил", "re|deployed")
_PREFIXES_RU = ("пере", "за", "вы", "по", "ра", "на", "от", "про")
_PREFIXES_EN = ("re", "un")
# a root this short is a word of its own too ("меня": "me"): it counts only with a prefix
_PREFIXED_ONLY = frozenset({"меня", "правил"})
# a noun of change that "last"/"последний" may stand before with no question word
_CHANGE_NOUNS = re.compile(
    r"\b(?:deploy(?:ment)?s?|releases?|rollouts?|changes?|updates?)\b|"
    r"(?<![а-яё])(?:деплой\w{0,3}|релиз\w{0,3}|выкатк\w{0,2}|выкладк\w{0,2}|"
    r"изменени\w{0,3}|обновлени\w{0,3})(?![а-яё])",
    re.I,
)


@dataclass(frozen=True)
class ChangeAuthor:
    """Who changed the object, or when. `latest`: the last change is asked ("last time",
    "последний раз"), so with no time given the look back is long; the answer leads with
    the latest either way."""

    who: bool = True
    when: bool = True
    latest: bool = False


def _is_change_word(word: str) -> bool:
    low = word.lower()
    for roots, prefixes in ((_ROOTS_EN, _PREFIXES_EN), (_ROOTS_RU, _PREFIXES_RU)):
        for root in roots:
            if low.startswith(root) and root not in _PREFIXED_ONLY:
                return True
            if any(low.startswith(p + root) for p in prefixes):
                return True
    return False


def _sentences(message: str) -> list[str]:
    """The question's own sentences (a pasted log or manifest is no question)."""
    first = "\n".join(message.strip().splitlines()[:3])[:600]
    return [s for s in re.split(r"[?!.;\n]+", first) if s.strip()]


def change_author_asked(message: str, names: frozenset[str] = frozenset()) -> ChangeAuthor | None:
    """The ask, when a sentence of the question pairs a question word for a person or a
    moment with a word of change (or "last" with a noun of change); None otherwise.
    `names`: the objects the question names, which are no words of change."""
    for sentence in _sentences(message):
        words = _WORD.findall(sentence)
        # a hyphenated word is a name ("release-api"), not a change
        if not any(_is_change_word(w) for w in words if "-" not in w and w.lower() not in names):
            continue
        who, when = bool(_WHO.search(sentence)), bool(_WHEN.search(sentence))
        latest = bool(_LAST.search(sentence))
        if who or when:
            return ChangeAuthor(who=who or not when, when=when or not who, latest=latest)
        if latest and _CHANGE_NOUNS.search(sentence):
            return ChangeAuthor(latest=True)
    return None
