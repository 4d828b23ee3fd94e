"""The language a question is asked in, and how code-made words are chosen for it.

Every sentence the code itself writes (a gap, a finding, a frame phrase) is kept as a
pair, English and Russian, next to the closed set it belongs to; `pick` chooses by the
typed `Language`, never by looking at English text. Texts that come from sources (log
lines, event messages, commit titles) stay as the source wrote them.

The language is the asker's: read from their own lines (policy.prose), not from what
they pasted (an English alert under a Russian question is answered in Russian). A
question in another language (policy.tongues) is answered in English, and the answer
says so (`AskedLanguage.other`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from policy.prose import asker_lines
from policy.tongues import Bilingual, Tongue, tongue_of_line

__all__ = [
    "AskedLanguage",
    "Bilingual",
    "Language",
    "Tongue",
    "language_of",
    "phrase",
    "pick",
    "read_language",
]


class Language(StrEnum):
    EN = "en"
    RU = "ru"


@dataclass(frozen=True)
class AskedLanguage:
    """What a question was asked in: the language its answer is written in, and the
    language the asker wrote in when the answers are not written in it (None when they
    are: English or Russian)."""

    answer: Language
    other: Tongue | None = None


def read_language(text: str) -> AskedLanguage:
    """The asker's language, read from their own lines; from the whole text when they
    wrote nothing but pasted material. Lines in different languages: English ones do not
    decide (alerts, logs and tools write English, and people paste them under a question
    in their own language); of the rest, the language with the most letters."""
    told = _told(asker_lines(text)) or _told(text.splitlines())
    own = Counter({t: n for t, n in told.items() if t is not Tongue.ENGLISH})
    if not own:
        return AskedLanguage(Language.EN)
    tongue = own.most_common(1)[0][0]
    if tongue is Tongue.RUSSIAN:
        return AskedLanguage(Language.RU)
    return AskedLanguage(Language.EN, other=tongue)


def language_of(text: str) -> Language:
    """The language the answer to `text` is written in (`read_language`)."""
    return read_language(text).answer


def _told(lines: list[str]) -> Counter[Tongue]:
    """Letters per language, over the lines that say one."""
    told: Counter[Tongue] = Counter()
    for line in lines:
        said = tongue_of_line(line)
        if said is not None:
            told[said[0]] += said[1]
    return told


def pick(text: Bilingual, language: Language) -> str:
    english, russian = text
    return russian if language is Language.RU else english


def phrase(text: Bilingual, language: Language, /, **fields: object) -> str:
    """`text` in `language`, its {fields} filled (a text without fields is left as it is,
    braces and all)."""
    chosen = pick(text, language)
    return chosen.format(**fields) if fields else chosen
