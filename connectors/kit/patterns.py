"""Regular expressions a user (or a model) gives a tool, matched in linear time.

Python's `re` backtracks: `(a+)+$` over a line of 30 letters takes seconds, over a long
log line forever, and no timeout can stop it inside the event loop's thread. A pattern
that comes from a tool argument is therefore compiled with RE2 (google-re2), whose
matching time is linear in the text whatever the pattern; what RE2 cannot express
(lookaround, backreferences) is refused with the reason, at validation.
"""

from __future__ import annotations

from typing import Protocol

import re2

MAX_PATTERN_CHARS = 200


class LinePattern(Protocol):
    def search(self, text: str) -> object: ...


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # the error comes back as the refusal, not on stderr
    return options


def line_pattern(text: str) -> LinePattern:
    """`text` compiled for linear-time search; ValueError says why it cannot be."""
    if len(text) > MAX_PATTERN_CHARS:
        raise ValueError(f"longer than {MAX_PATTERN_CHARS} characters")
    try:
        compiled: LinePattern = re2.compile(text, options=_options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise ValueError(
            f"not a regular expression this tool can run in bounded time: {reason} "
            "(RE2 syntax: no lookaround or backreference)"
        ) from None
    return compiled
