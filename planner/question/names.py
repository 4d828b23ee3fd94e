"""Tolerant matching of names in chat text: a name written with spaces, in Cyrillic letters,
abbreviated or capitalised.

Cyrillic is transliterated letter by letter (so "сервис а" reads "servis a"), then common
words for a service are folded to "service". A name matches when its parts appear in order
separated by nothing, a space, a dash, an underscore or a dot.
"""

from __future__ import annotations

import re
from functools import lru_cache

_TRANSLIT = str.maketrans(
    {
        "а": "a",
        "б": "b",
        "в": "v",
        "г": "g",
        "д": "d",
        "е": "e",
        "ё": "e",
        "ж": "zh",
        "з": "z",
        "и": "i",
        "й": "i",
        "к": "k",
        "л": "l",
        "м": "m",
        "н": "n",
        "о": "o",
        "п": "p",
        "р": "r",
        "с": "s",
        "т": "t",
        "у": "u",
        "ф": "f",
        "х": "h",
        "ц": "c",
        "ч": "ch",
        "ш": "sh",
        "щ": "sch",
        "ъ": "",
        "ы": "y",
        "ь": "",
        "э": "e",
        "ю": "yu",
        "я": "ya",
    }
)
_SERVICE_WORDS = re.compile(r"(?<![a-z0-9])(servis[a-z]*|svc|serv|servic[a-z]*)(?![a-z0-9])")


# Cyrillic letters that look like Latin ones: inside a token that also has Latin letters
# ("dс-b" typed with a Cyrillic с) they are the Latin letter, not a transliteration.
_LOOKALIKE = str.maketrans(
    {
        "а": "a",
        "с": "c",
        "е": "e",
        "о": "o",
        "р": "p",
        "х": "x",
        "у": "y",
        "к": "k",
        "м": "m",
        "т": "t",
        "в": "b",
        "н": "h",
    }
)
# a run of name characters, found in one pass (a pattern that must find a Latin letter
# somewhere inside the run backtracks over every start of a long run: quadratic)
_TOKEN = re.compile(r"[\w-]+")
_LATIN = re.compile(r"[a-z]")
_CYRILLIC = re.compile(r"[а-яё]")


def _fix_lookalikes(text: str) -> str:
    """Cyrillic lookalikes inside a Latin name (а in "sеrvice-a") are the Latin letters."""

    def fix(m: re.Match[str]) -> str:
        token = m.group(0)
        if _LATIN.search(token) and _CYRILLIC.search(token):
            return token.translate(_LOOKALIKE)
        return token

    return _TOKEN.sub(fix, text)


def normalise(text: str) -> str:
    """Lowercase, fix Cyrillic lookalikes inside Latin names, transliterate the rest of the
    Cyrillic, fold 'сервис'/'svc' to 'service'."""
    out = _fix_lookalikes(text.lower()).translate(_TRANSLIT)
    return _SERVICE_WORDS.sub("service", out)


@lru_cache(maxsize=4096)
def name_parts(name: str) -> tuple[str, ...]:
    return tuple(p for p in re.split(r"[-_.\s]+", normalise(name)) if p)


@lru_cache(maxsize=4096)
def name_pattern(name: str) -> re.Pattern[str]:
    body = r"[-_.\s]?".join(re.escape(p) for p in name_parts(name))
    return re.compile(r"(?<![a-z0-9])" + body + r"(?![a-z0-9])")


def find_name(name: str, text_norm: str) -> list[re.Match[str]]:
    """Every place `name` is written in the normalised text, separators optional.

    A text holds a few of the hundreds of names an inventory lists: the name's first part
    must stand in it literally for the pattern to match, so the rest are passed over
    without compiling a pattern for each on every cold start."""
    parts = name_parts(name)
    if parts and parts[0] not in text_norm:
        return []
    return list(name_pattern(name).finditer(text_norm))
