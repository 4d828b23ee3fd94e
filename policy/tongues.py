"""Which language a line of prose is written in: English, Russian, or another one.

The answers are written in English or Russian (policy.language). A line in another
language is recognised here the standard way, by a profile per language: the letters only
it (or few others) uses, and its most frequent function words ("warum", "pourquoi",
"dlaczego", "чому"); never by phrases. The profiles are data, in one table (`PROFILES`).

Conservative by construction: a profile's words are never common English words ("die",
"was", "in", "a", "no", "on" are left out of every profile), words joined to other
characters (web-a, prod-2, p99, redémarre-t-il) are not read as words, and another
language needs two pieces of evidence (a word and a letter, or two words) and more of
them than English has in the same line. Names of products and places ("Zürich", "São
Paulo") are one piece at most.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

Bilingual = tuple[str, str]
"""(English, Russian): one code-made text in each language the answers are written in."""


class Tongue(StrEnum):
    """The language a line (or a question) is written in."""

    ENGLISH = "en"
    RUSSIAN = "ru"
    GERMAN = "de"
    FRENCH = "fr"
    SPANISH = "es"
    PORTUGUESE = "pt"
    ITALIAN = "it"
    DUTCH = "nl"
    POLISH = "pl"
    CZECH = "cs"
    TURKISH = "tr"
    SWEDISH = "sv"
    UKRAINIAN = "uk"
    BELARUSIAN = "be"
    BULGARIAN = "bg"
    SERBIAN = "sr"
    OTHER = "other"
    """neither English nor Russian, and no profile says which"""


Script = Literal["latin", "cyrillic"]


@dataclass(frozen=True)
class Profile:
    tongue: Tongue
    script: Script
    letters: str  # lowercase letters it uses that English (or Russian) does not
    words: frozenset[str]  # its most frequent function words, lowercase
    name: Bilingual  # (English, Russian prepositional: "на {name}")


def _p(tongue: Tongue, script: Script, letters: str, words: str, name: Bilingual) -> Profile:
    return Profile(tongue, script, letters, frozenset(words.split()), name)


# one row per language; English's and Russian's are what another language must outweigh
PROFILES: tuple[Profile, ...] = (
    _p(
        Tongue.ENGLISH,
        "latin",
        "",
        "the why what how does did doesn't don't of and for with it its this that not from "
        "at be been has have had are were there which when where who after can should would "
        "could keeps still my our we you than then just only because about into since all "
        "any some is",
        ("English", "английском"),
    ),
    _p(
        Tongue.GERMAN,
        "latin",
        "äöüß",
        "der das und ist nicht warum wie ein eine einen ich mit auf für von zu im dem des "
        "sich immer wieder bei nach oder aber auch noch ständig seit wird werden sind wurde "
        "kein keine diese dieser gibt",
        ("German", "немецком"),
    ),
    _p(
        Tongue.FRENCH,
        "latin",
        "éèêàçùâîôûëïœ",
        "le la les est pourquoi que qui une des du et pas il elle ce cette sur dans avec "
        "pour au aux ne sans depuis sont toujours tout mais comment quoi été",
        ("French", "французском"),
    ),
    _p(
        Tongue.SPANISH,
        "latin",
        "ñáéíóú¿¡",
        "el los las es por qué que porqué una del y se con para está están cuando cómo "
        "sigue desde pero muy sin hay esto este esta",
        ("Spanish", "испанском"),
    ),
    _p(
        Tongue.PORTUGUESE,
        "latin",
        "ãõçáéêóôà",
        "o é não por que porque um uma da dos das em na com para está estão quando "
        "como desde mas muito sem isso este esta são ao",
        ("Portuguese", "португальском"),
    ),
    _p(
        Tongue.ITALIAN,
        "latin",
        "àèéìòù",
        "il lo gli della del di che perché non con sono è una nel nella alla questo questa "
        "anche continua ancora sempre quando perchè",
        ("Italian", "итальянском"),
    ),
    _p(
        Tongue.DUTCH,
        "latin",
        "",
        "het een waarom niet van op met voor dat er zijn wordt steeds opnieuw wat hoe ook "
        "nog naar bij maar deze dit telkens",
        ("Dutch", "нидерландском"),
    ),
    _p(
        Tongue.POLISH,
        "latin",
        "ąćęłńóśźż",
        "w na nie się jest dlaczego co że jak czy od po ciągle są był",
        ("Polish", "польском"),
    ),
    _p(
        Tongue.CZECH,
        "latin",
        "ěščřžýáíéůúďťň",
        "je se v že proč co jak nebo ale neustále stále jsou byl",
        ("Czech", "чешском"),
    ),
    _p(
        Tongue.TURKISH,
        "latin",
        "çğışöü",
        "ve bir bu neden niye ne için ile mi mı mu mü çok gibi daha ama sürekli yeniden "
        "var yok sonra",
        ("Turkish", "турецком"),
    ),
    _p(
        Tongue.SWEDISH,
        "latin",
        "åäö",
        "och är att inte varför vad som det på med för hur jag hela tiden igen",
        ("Swedish", "шведском"),
    ),
    _p(
        Tongue.RUSSIAN,
        "cyrillic",
        "ыэёъ",
        "почему что это как где когда который есть было были сейчас всё ещё снова постоянно",
        ("Russian", "русском"),
    ),
    _p(
        Tongue.UKRAINIAN,
        "cyrillic",
        "іїєґ",
        "чому що як це та або але від вже також постійно знову ще й",
        ("Ukrainian", "украинском"),
    ),
    _p(
        Tongue.BELARUSIAN,
        "cyrillic",
        "ўі",
        "чаму што гэта як але ўжо яшчэ",
        ("Belarusian", "белорусском"),
    ),
    _p(
        Tongue.BULGARIAN,
        "cyrillic",
        "",
        "защо това този тази които със във са ще няма какво къде непрекъснато отново",
        ("Bulgarian", "болгарском"),
    ),
    _p(
        Tongue.SERBIAN,
        "cyrillic",
        "ђћџјљњѓќѕ",
        "зашто што је се као али стално поново",
        ("Serbian", "сербском"),
    ),
)

_BY_TONGUE = {p.tongue: p for p in PROFILES}
_NOT_RUSSIAN_CYRILLIC = "іїєґўђћџјљњѓќѕ"
# a word: letters (and an apostrophe) standing alone between spaces and punctuation; a
# token joined to digits or to - _ / . : = @ (web-a, p99, prod-2, v1.2) is a name
_TOKEN = re.compile(r"\S+")
_EDGE = "\"'«»“”„()[]{}<>,.;:!?¿¡…"
_LEAST = 3  # letters of a line's script from which the line says anything


def name_of(tongue: Tongue) -> Bilingual | None:
    """The language's name, (English, Russian prepositional); None for OTHER."""
    profile = _BY_TONGUE.get(tongue)
    return profile.name if profile else None


def _is_cyrillic(ch: str) -> bool:
    return "\u0400" <= ch <= "\u04ff"


def _is_latin(ch: str) -> bool:
    return ch.isascii() or "\u00c0" <= ch <= "\u024f"


def _words(line: str) -> list[str]:
    words = []
    for token in _TOKEN.findall(line.lower()):
        word = token.strip(_EDGE)
        if word and all(c.isalpha() or c == "'" for c in word):
            words.append(word)
    return words


def _score(profile: Profile, words: list[str], letters: str) -> tuple[int, int]:
    """(function words of the profile, letters of the profile) in the line."""
    hits = sum(1 for w in words if w in profile.words)
    return hits, sum(1 for c in letters if c in profile.letters)


def tongue_of_line(line: str) -> tuple[Tongue, int] | None:
    """The line's language and how many letters say so; None when it has too few letters
    to say anything (a number, a name, "ok"). Only words count: the letters of names
    (web-a, req_id, a hash) are no one's language."""
    words = _words(line)
    letters = "".join(c for w in words for c in w if c.isalpha())
    cyrillic = sum(1 for c in letters if _is_cyrillic(c))
    latin = sum(1 for c in letters if _is_latin(c))
    foreign_script = len(letters) - cyrillic - latin
    if foreign_script >= _LEAST and foreign_script / len(letters) >= 0.3:
        return Tongue.OTHER, foreign_script  # Greek, Arabic, Chinese...: neither
    # names of services, hosts and environments written as words are Latin in either
    # language ("почему checkout в prod отдавал 502" is over half Cyrillic, "растёт ли
    # kafka consumer lag" 0.38, "what is wrong with платежи" a fifth)
    # a short follow-up whose only words are Cyrillic ("а в prod-2?", "и там?") is Russian
    # however few its letters: no other language is written there
    if (cyrillic >= _LEAST and cyrillic / (cyrillic + latin) >= 0.3) or (cyrillic and not latin):
        return _cyrillic_tongue(words, letters), cyrillic
    if latin >= _LEAST:
        return _latin_tongue(words, letters), latin
    return None


def _cyrillic_tongue(words: list[str], letters: str) -> Tongue:
    russian = _BY_TONGUE[Tongue.RUSSIAN]
    own = sum(_score(russian, words, letters))
    best, most = Tongue.RUSSIAN, own
    for profile in PROFILES:
        if profile.script == "cyrillic" and profile is not russian:
            score = sum(_score(profile, words, letters))
            if score >= 2 and score > most:
                best, most = profile.tongue, score
    if best is Tongue.RUSSIAN and sum(1 for c in letters if c in _NOT_RUSSIAN_CYRILLIC) > max(
        own, 1
    ):
        return Tongue.OTHER
    return best


def _latin_tongue(words: list[str], letters: str) -> Tongue:
    english = sum(1 for w in words if w in _BY_TONGUE[Tongue.ENGLISH].words)
    best, most = Tongue.ENGLISH, english
    for profile in PROFILES:
        if profile.script == "latin" and profile.tongue is not Tongue.ENGLISH:
            hits, marks = _score(profile, words, letters)
            # a word of its own, and a second piece of evidence (a word or a letter)
            if hits and hits + min(marks, 2) >= 2 and hits + min(marks, 2) > most:
                best, most = profile.tongue, hits + min(marks, 2)
    accented = sum(1 for c in letters if _is_latin(c) and not c.isascii())
    if best is Tongue.ENGLISH and not english and accented >= 3 and len(words) >= 3:
        return Tongue.OTHER
    return best
