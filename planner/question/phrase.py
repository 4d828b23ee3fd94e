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

_COUNT = re.compile(
    r"\bhow\s+(?:many\s+times|often)\b|\bnumber\s+of\s+(?:times|lines|occurrences)\b|"
    r"\bcount\b|сколько\s+раз|как\s+часто|скольк\w{0,2}\s+(?:строк|записей|сообщени)",
    re.I,
)
_QUOTED = re.compile(
    r"'([^'\n]{2,200})'|\"([^\"\n]{2,200})\"|«([^»\n]{2,200})»|“([^”\n]{2,200})”|`([^`\n]{2,200})`"
)


def phrase_count_asked(message: str) -> str | None:
    """The phrase whose lines the message asks to count, or None."""
    if _COUNT.search(message) is None:
        return None
    quoted = _QUOTED.search(message)
    if quoted is None:
        return None
    return next(g for g in quoted.groups() if g).strip() or None
