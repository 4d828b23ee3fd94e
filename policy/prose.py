"""The asker's own lines of a message, told apart from what was pasted into it.

Engineers paste what they are asking about (an alert, log lines, a JSON record, a
command's output) under or above their question; the language the asker wrote in is
read from their own lines (policy.language). Told apart by shape, never by the words:

- a line inside a code fence (``` or ~~~), or quoted (starting with ">");
- a line that starts like a record: a bracket or a brace ("[FIRING:1] ...", "{", "]"), a
  JSON key ('"level": ...'), a timestamp ("2024-05-01 12:00:01", "12:00:01.123",
  "May  1 12:00:01");
- a label or annotation line ("- alertname = X", "severity: critical");
- two or more key=value pairs (a logfmt line), a timestamp and a log level together;
- a line most of whose tokens are identifiers (web-7f9c, 10.0.0.1:8080, p99).

Inline code spans, URLs and @mentions are taken out of the lines that stay.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(?:```|~~~)")
_RECORD_START = re.compile(
    r"^\s*(?:[-*•]\s*)?"
    r"""(?:[\[\]{}]|"[^"\s]{1,64}"\s*:"""  # a bracket, a brace, a JSON key
    r"|\d{4}-\d\d-\d\d|\d{1,2}:\d\d:\d\d|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d)"  # a timestamp
)
_LABEL_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?(?:[A-Za-z_][\w.\-]{0,63}\s?=|\*?[A-Za-z_][\w.]{0,63}\*?:\s)"
)
_PAIR = re.compile(r"(?<![\w.\-/])[\w.\-/]{1,128}=[^\s=]")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d|\b\d\d:\d\d:\d\d")
_LEVEL = re.compile(r"\b(?:ERROR|WARN|WARNING|INFO|DEBUG|FATAL|TRACE|CRITICAL|PANIC)\b|\blevel=")
_INLINE = re.compile(r"`[^`\n]{0,400}`|\b[a-z][a-z0-9+.\-]{1,20}://\S+|@[\w.\-]+")
# a name joined of letters and digits or punctuation (a bare number or time is not one)
_IDENTIFIER = re.compile(r"[A-Za-z][\-_/.:=@\d]|[\-_/.:=@\d][A-Za-z]")


def asker_lines(text: str) -> list[str]:
    """The lines of `text` that are not pasted material, inline code and URLs taken out
    (empty when the message is only a paste)."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or line.lstrip().startswith(">") or _pasted(line):
            continue
        own = _INLINE.sub(" ", line).strip()
        if own:
            out.append(own)
    return out


def _pasted(line: str) -> bool:
    if _RECORD_START.match(line) or _LABEL_LINE.match(line):
        return True
    if len(_PAIR.findall(line)) >= 2:
        return True
    if _TIMESTAMP.search(line) and _LEVEL.search(line):
        return True
    tokens = line.split()
    names = sum(1 for t in tokens if _IDENTIFIER.search(t))
    return len(tokens) >= 3 and names * 2 > len(tokens)
