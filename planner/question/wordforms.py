"""Word forms for matching a question to a tool's text: stems, and loanwords across scripts.

Two classes of miss this serves, in any catalogue:

- inflection: "reassigned" asks for a tool whose text says "reassignment", "рестартуют" for
  one that says "рестарт". Words of Latin letters get the Snowball English stem, words of
  Cyrillic letters the Snowball Russian one (suffix rules, with no lists of words; a word
  over `WORD_MAX` letters is no word of a trade and is kept as it is);
- loanwords: Russian-speaking engineers write the English terms of their trade in Cyrillic
  ("поды", "логи", "неймспейс", "кластер"), and tool descriptions are in English. A
  Cyrillic word is transliterated letter by letter and reduced to a sound key (its first
  letter and its consonants, with the spellings of one sound made one), the same key
  English words get; the catalogue's own words with that key and the nearest spelling are
  the word's matches. A short key is weak evidence ("за день" is not "deny", "под
  нагрузкой" is not a pod): it must be an inflected word (prepositions, pronouns and
  particles are not inflected) spelt exactly like the English word. Nothing here knows a
  term of any trade: the only tables are an alphabet and a handful of spelling rules.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import snowballstemmer

# Russian letters in Latin, one or two letters each (a simplified scientific transliteration;
# the soft and hard signs carry no sound of their own)
_CYRILLIC_LATIN = str.maketrans(
    {
        "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh",
        "з": "z", "и": "i", "й": "i", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o",
        "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts",
        "ч": "ch", "ш": "sh", "щ": "sch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu",
        "я": "ya",
    }
)  # fmt: skip
_VOWELS = frozenset("aeiou")
# English spellings of one sound, as pairs applied in order (c and g are read by what follows)
_DIGRAPHS = (("sch", "sh"), ("ph", "f"), ("th", "t"), ("ck", "k"), ("kh", "h"), ("qu", "kv"))
_SOFTENING = frozenset("eiy")
_SAME_SOUND = str.maketrans({"q": "k", "x": "k", "z": "s", "w": "v", "j": "i", "y": "i"})
# a key this short matches too many words to mean one
_KEY_MIN = 2
_KEY_SPECIFIC = 4
_WORD_MIN = 3
WORD_MAX = 40


def is_latin(word: str) -> bool:
    return word.isascii() and word.isalpha()


def is_cyrillic(word: str) -> bool:
    return bool(word) and all("а" <= ch <= "я" or ch == "ё" for ch in word)


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """The Snowball stem of a lowercase word of Latin or of Cyrillic letters; any other word
    (digits, mixed scripts, a short one) as it is."""
    if len(word) <= 2 or len(word) > WORD_MAX:
        return word
    if is_latin(word):
        language = "english"
    elif is_cyrillic(word):
        language = "russian"
    else:
        return word
    # a stemmer holds the word it works on: one per call keeps this safe across threads,
    # and the cache makes the calls rare (a catalogue has a few thousand distinct words)
    result: str = snowballstemmer.stemmer(language).stemWord(word)
    return result or word


def latin(word: str) -> str:
    """A lowercase Cyrillic word in Latin letters."""
    return word.translate(_CYRILLIC_LATIN)


def spelling(word: str) -> str:
    """A lowercase Latin word with the English spellings of one sound made one: "namespace"
    and the transliterated "neimspeis" both become `n?msp?s` under `sound_key`."""
    for written, said in _DIGRAPHS:
        word = word.replace(written, said)
    out: list[str] = []
    for i, ch in enumerate(word):
        after = word[i + 1] if i + 1 < len(word) else ""
        if ch == "c":
            out.append("s" if after in _SOFTENING else "k")
        else:
            out.append(ch)
    return "".join(out).translate(_SAME_SOUND)


def _silent_e(spelt: str) -> str:
    """An English spelling without its silent final e ("node" is said "nod")."""
    return spelt[:-1] if len(spelt) > 3 and spelt.endswith("e") else spelt


def sound_key(word: str) -> str:
    """The first letter and the consonants after it, repeats collapsed, of `spelling(word)`."""
    spelt = spelling(word)
    if not spelt:
        return ""
    out = [spelt[0]]
    for ch in spelt[1:]:
        if ch not in _VOWELS and ch != out[-1]:
            out.append(ch)
    return "".join(out)


def distance(a: str, b: str) -> int:
    """Levenshtein distance (words are short: the quadratic table is a few hundred cells)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


class SoundIndex:
    """The Latin words of a text collection by sound key, each spelling with its stems:
    what a Cyrillic loanword can mean in that collection. Built in word order, so the
    same collection gives the same index whatever order its words came in."""

    def __init__(self, words: Iterable[str]) -> None:
        keyed: dict[str, dict[str, set[str]]] = {}
        for word in sorted(set(words)):
            if not _WORD_MIN <= len(word) <= WORD_MAX or not is_latin(word):
                continue
            key = sound_key(word)
            if len(key) >= _KEY_MIN:
                keyed.setdefault(key, {}).setdefault(_silent_e(spelling(word)), set()).add(
                    stem(word)
                )
        self._keyed = keyed

    def loans(self, word: str) -> tuple[str, ...]:
        """The stems of the collection's words a lowercase Cyrillic word may be written
        for: those with the sound key of its stem and, among them, the nearest spelling;
        none for a word too short or too long to tell, and for a short key (few
        consonants) unless the word is inflected and spelt exactly so."""
        if not _WORD_MIN <= len(word) <= WORD_MAX or not is_cyrillic(word):
            return ()
        root = stem(word)
        if len(root) < _WORD_MIN:
            return ()
        written = latin(root)
        key = sound_key(written)
        found = self._keyed.get(key)
        if not found:
            return ()
        spelt = spelling(written)
        by_distance = {w: distance(spelt, w) for w in found}
        best = min(by_distance.values())
        if len(key) < _KEY_SPECIFIC and (best > 0 or root == word):
            return ()
        return tuple(sorted({s for w, d in by_distance.items() if d == best for s in found[w]}))
