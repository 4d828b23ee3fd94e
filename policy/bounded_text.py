"""One record's text, bounded before any rule, redaction or rendering reads it: a 10 MB
log line must cost what a long one costs. The head (where a line says what happened) and
the tail (where an exception ends) are kept, and the cut is said in the text itself."""

from __future__ import annotations

# a fact's text and any one value a record holds, at most: far past any line a person
# reads, short enough that redaction, description and rendering stay cheap
MAX_TEXT = 8_000
_TAIL = 1_000


def bounded(text: str, limit: int = MAX_TEXT) -> str:
    """`text` itself when short enough; else its head and tail around a note of how much
    was cut."""
    if len(text) <= limit:
        return text
    cut = len(text) - limit
    head = limit - _TAIL
    return f"{text[:head]} [… {cut} characters cut …] {text[-_TAIL:]}"
