"""The language a question is asked in, and how code-made words are chosen for it.

Every sentence the code itself writes (a gap, a finding, a frame phrase) is kept as a
pair, English and Russian, next to the closed set it belongs to; `pick` chooses by the
typed `Language`, never by looking at English text. Texts that come from sources (log
lines, event messages, commit titles) stay as the source wrote them.
"""

from __future__ import annotations

from enum import StrEnum

# share of a question's letters that are Cyrillic from which it is read as Russian: names
# of services, hosts and environments are Latin in either language ("почему checkout в
# prod отдавал 502" is over half Cyrillic, "what is wrong with платежи" a fifth)
_CYRILLIC_SHARE = 0.3

Bilingual = tuple[str, str]
"""(English, Russian): one code-made text in each language the answers are written in."""


class Language(StrEnum):
    EN = "en"
    RU = "ru"


def language_of(text: str) -> Language:
    """Russian when enough of the text's letters are Cyrillic, else English."""
    cyrillic = latin = 0
    for ch in text:
        if not ch.isalpha():
            continue
        if "а" <= ch.lower() <= "я" or ch in "ёЁ":
            cyrillic += 1
        elif ch.isascii():
            latin += 1
    letters = cyrillic + latin
    return Language.RU if letters and cyrillic / letters >= _CYRILLIC_SHARE else Language.EN


def pick(text: Bilingual, language: Language) -> str:
    english, russian = text
    return russian if language is Language.RU else english


def phrase(text: Bilingual, language: Language, /, **fields: object) -> str:
    """`text` in `language`, its {fields} filled (a text without fields is left as it is,
    braces and all)."""
    chosen = pick(text, language)
    return chosen.format(**fields) if fields else chosen
