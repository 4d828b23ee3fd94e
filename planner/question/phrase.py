"""A question that asks how many times something was logged: "how many times did X log
'deadlock detected' in the last hour?", "сколько раз X написал в лог «Connection is not
available» с 11:10 до 11:40?".

Class "a count asked, never read": the count is the number of the object's log lines that
hold the phrase in the window, as the source counted them, not a diagnosis around it.

Read by two slots: a count ("how many times", "сколько раз", "how often") and the phrase,
quoted in any of the quotes people type. A count with no quoted phrase is another
question (how many pods, how many restarts), left to the other readers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_COUNT = re.compile(
    r"\bhow\s+(?:many\s+times|often)\b|\bnumber\s+of\s+(?:times|lines|occurrences)\b|"
    r"\bcount\b|сколько\s+раз|как\s+часто|скольк\w{0,2}\s+(?:строк|записей|сообщени)",
    re.I,
)
# the quotes people type, opening and closing; a phrase is 2 to 200 characters on one line
_QUOTES: tuple[tuple[str, str], ...] = (("'", "'"), ('"', '"'), ("«", "»"), ("“", "”"), ("`", "`"))
_SHORTEST, _LONGEST = 2, 200


@dataclass(frozen=True)
class PhraseCount:
    """The phrase whose log lines are to be counted."""

    text: str


def phrase_count_asked(message: str) -> str | None:
    """The phrase whose lines the message asks to count, or None."""
    if _COUNT.search(message) is None:
        return None
    found = [q for q in (_quoted(message, o, c) for o, c in _QUOTES) if q is not None]
    return min(found)[1] if found else None


def _quoted(message: str, opening: str, closing: str) -> tuple[int, str] | None:
    """The first phrase in these quotes, with where it starts; one pass over the text."""
    start = message.find(opening)
    end = message.find(closing, start + 1) if start >= 0 else -1
    while start >= 0 and end >= 0:
        inside = message[start + 1 : end]
        if _SHORTEST <= len(inside) <= _LONGEST and "\n" not in inside and inside.strip():
            return start, inside.strip()
        # the next opening quote; where quotes open and close alike, after this pair
        start = message.find(opening, start + 1 if opening != closing else end + 1)
        if start >= end:  # past the closing quote found: find the one after it
            end = message.find(closing, start + 1) if start >= 0 else -1
    return None
