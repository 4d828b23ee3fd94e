"""A yes/no question ("is <service> restarting?", "были ли 502 у <service>?", "any 5xx in
<env>?"): the answer's first word is the verdict, said from what was read, and "no" only
when every env asked returned the measure.

Read by the form of the question, not its words: an English question opening with an
auxiliary or "any", or "is there"/"were there"; a Russian one with the particle "ли".
What it asks yes or no about is the asked value (planner/question/asked.py) the same
question names, so the verdict is decided on that value's typed facts."""

from __future__ import annotations

import re

_EN = re.compile(
    r"(?:^|[.?!]\s+|^@\S+\s+)(?:is|are|was|were|did|does|do|has|have|had|any)\b"
    r"|\b(?:is|are|was|were) there\b|\bhave there been\b|\bhas there been\b",
    re.I,
)
_RU = re.compile(r"(?<![а-яё])ли\b", re.I)
# "why is ...", "how many ...": an auxiliary after a question word is no yes/no question
_QUESTION_WORD = re.compile(
    r"^\s*(?:@\S+\s+)?(?:why|how|what|which|who|when|where|почему|как|какой|какая|какие|"
    r"сколько|кто|когда|где|зачем|отчего)\b",
    re.I,
)


def polar_asked(message: str) -> bool:
    """The message asks a yes/no question."""
    text = message.strip()
    if _QUESTION_WORD.search(text):
        return False
    return _EN.search(text) is not None or _RU.search(text) is not None
