"""The headline a person reads first, made from the answer's summary: identifiers in their
short form and at most `HEADLINE_MAX` characters of whole sentences; what does not fit
follows it as the details paragraph, and the full identifiers stay in the evidence.

Short forms (each a shape the sources write, never a name):
- a UID (8-4-4-4-12 hex) a kubelet or controller message adds ("pod=web-1_shop(1f8d…)")
  is dropped with the namespace glued to it; a bare UID is cut to its first 8 digits;
- an image reference keeps its name and tag ("registry.example.com/shop/web:2.4.0" ->
  "web:2.4.0"), a digest its first 12 digits.
"""

from __future__ import annotations

import re

HEADLINE_MAX = 300
_CLAUSE_AT_LEAST = 0.4  # a clause boundary this far into the room is where a cut headline ends
# a sentence ends at ".", "!", "?" or "…" before a space and a capital letter, a digit or
# an opening quote (not inside "e.g. foo" or "v2.4.0")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[A-ZА-ЯЁ0-9\"«(])")
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# "pod=web-1_shop(uid)" as the kubelet writes it: the namespace and the UID go
_GLUED_UID = re.compile(rf"_[a-z0-9][a-z0-9-]*\({_UUID}\)", re.I)
_PARENTHESISED_UID = re.compile(rf" ?\({_UUID}\)", re.I)
_BARE_UID = re.compile(r"\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
# registry host (a dot, a port or localhost) / path / name, then a tag, a digest or both
_IMAGE = re.compile(
    r"(?<![/\w.-])(?:[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?|localhost(?::\d+)?)"
    r"(?:/[a-z0-9._-]+)*/([a-z0-9._-]+)"
    r"((?::\w[\w.-]*)(?:@sha256:[0-9a-f]+)?|@sha256:[0-9a-f]+)",
    re.I,
)
_DIGEST = re.compile(r"(@sha256:[0-9a-f]{12})[0-9a-f]+", re.I)


def short_identifiers(text: str) -> str:
    """`text` with UIDs and image references in their short form."""
    text = _GLUED_UID.sub("", text)
    text = _PARENTHESISED_UID.sub("", text)
    text = _BARE_UID.sub(r"\1…", text)

    return _IMAGE.sub(lambda m: m.group(1) + _DIGEST.sub(r"\1", m.group(2)), text)


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def split_headline(summary: str, limit: int = HEADLINE_MAX) -> tuple[str, str]:
    """(headline, details): whole sentences of the short-form summary while they fit
    `limit`; a first sentence longer than that is cut at a word with "…", its whole text
    starting the details."""
    parts = sentences(short_identifiers(summary))
    if not parts:
        return "", ""
    head: list[str] = []
    size = 0
    for n, part in enumerate(parts):
        if size + len(part) + (1 if head else 0) > limit:
            break
        head.append(part)
        size += len(part) + (1 if n else 0)
    if not head:
        first = parts[0]
        window = first[: limit - 1]
        # at the last clause ("; ") that keeps most of the room, else at a word
        clause = window.rfind("; ")
        cut = window[:clause] if clause >= limit * _CLAUSE_AT_LEAST else window.rsplit(" ", 1)[0]
        cut = cut.rstrip(",;:—- ")
        rest = " ".join([first[len(cut) :].lstrip(",;:—- "), *parts[1:]])
        return f"{cut}…", f"…{rest}"
    return " ".join(head), " ".join(parts[len(head) :])
