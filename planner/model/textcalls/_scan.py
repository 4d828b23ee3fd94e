"""The reading machinery every dialect's scanner shares: tool names as a model may spell
them, bracket matching in one linear pass, JSON decoding under a budget, and the regions of
the content already claimed by a call (or by reasoning)."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MAX_CONTENT = 64 * 1024  # characters of content read; the rest is ignored
MAX_CALLS = 64  # call-shaped blocks looked at in one content
_MAX_DEPTH = 64  # bracket nesting beyond this is not a tool call
_MAX_DECODES = 512  # json.loads attempts in one content
_MAX_DECODE_CHARS = 16 * MAX_CONTENT  # characters handed to json.loads in one content
MAX_MARKERS = 256  # occurrences of one marker looked at
MAX_NAME = 200

# a character that matters to bracket matching; a single character class cannot backtrack
_INTERESTING = re.compile(r'[{}\[\]"\\\n]')


@dataclass(frozen=True)
class Call:
    name: str  # as the model wrote it
    arguments: dict[str, Any] | None
    raw: str


@dataclass(frozen=True)
class Block:
    start: int
    end: int
    calls: tuple[Call, ...]


# --- names -----------------------------------------------------------------------------


def _strip_prefix(name: str) -> str:
    low = name.lower()
    for prefix in ("functions.", "function."):
        if low.startswith(prefix):
            return name[len(prefix) :]
    return name


def _fuzzy_key(name: str) -> str:
    """Lower case, with `.`, `_` and `-` all one separator (runs collapsed, ends trimmed)."""
    folded = name.lower().replace("_", ".").replace("-", ".")
    return ".".join(part for part in folded.split(".") if part)


class Names:
    def __init__(self, known: Iterable[object]) -> None:
        self.exact: set[str] = set()
        self.fuzzy: dict[str, set[str]] = {}
        for tool in known:
            if isinstance(tool, str) and tool:
                self.exact.add(tool)
                self.fuzzy.setdefault(_fuzzy_key(tool), set()).add(tool)

    def resolve(self, name: object) -> str | None:
        if not isinstance(name, str):
            return None
        written = name.strip()
        if not written or len(written) > MAX_NAME:
            return None
        if written in self.exact:
            return written
        dotted = written.replace("__", ".")
        base = _strip_prefix(dotted)
        for candidate in (dotted, base):
            if candidate in self.exact:
                return candidate
        keys = {_fuzzy_key(base)}
        for key in list(keys):
            keys.add(_fuzzy_key(_strip_prefix(key)))
        matches: set[str] = set()
        for key in keys:
            matches |= self.fuzzy.get(key, set())
        return next(iter(matches)) if len(matches) == 1 else None


# --- JSON ------------------------------------------------------------------------------


class _Budget:
    def __init__(self) -> None:
        self.attempts = _MAX_DECODES
        self.chars = _MAX_DECODE_CHARS

    def loads(self, text: str, start: int, end: int) -> tuple[bool, Any]:
        size = end - start
        if self.attempts <= 0 or size > self.chars:
            return False, None
        self.attempts -= 1
        self.chars -= size
        try:
            return True, json.loads(text[start:end])
        except (ValueError, RecursionError):
            return False, None


def _match_brackets(text: str) -> dict[int, int]:
    """Opening bracket position -> its closing position, for every matched pair.

    One pass. Strings are tracked only inside brackets (prose quotes do not count); a raw
    newline inside a string, a mismatched closer or nesting past `_MAX_DEPTH` drops every
    open bracket, since none of them can start valid JSON any more.
    """
    pairs: dict[int, int] = {}
    stack: list[tuple[int, str]] = []
    in_string = False
    escaped_at = -1
    for m in _INTERESTING.finditer(text):
        i = m.start()
        ch = text[i]
        if in_string:
            if i == escaped_at:
                continue
            if ch == "\\":
                escaped_at = i + 1
            elif ch == '"':
                in_string = False
            elif ch == "\n":
                in_string = False
                stack.clear()
            continue
        if ch == '"':
            in_string = bool(stack)
        elif ch in "{[":
            if len(stack) >= _MAX_DEPTH:
                stack.clear()
            else:
                stack.append((i, ch))
        elif ch in "}]":
            if stack and stack[-1][1] == ("{" if ch == "}" else "["):
                pairs[stack.pop()[0]] = i
            else:
                stack.clear()
    return pairs


def dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return ""


def arguments_of(value: Any) -> tuple[dict[str, Any] | None, str]:
    """(arguments, raw_arguments) for what the model gave as the arguments."""
    if isinstance(value, dict):
        return value, dumps(value)
    if value is None:
        return {}, ""
    if isinstance(value, str):
        if not value.strip():
            return {}, value
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            return None, value
        return (parsed, value) if isinstance(parsed, dict) else (None, value)
    return None, dumps(value)


# --- scanning helpers ------------------------------------------------------------------


class Scan:
    def __init__(self, text: str, names: Names) -> None:
        self.text = text
        self.names = names
        self.pairs = _match_brackets(text)
        self.budget = _Budget()
        self.claimed: list[tuple[int, int]] = []  # disjoint regions, sorted by start
        self.blocks: list[Block] = []
        self.found = 0

    def free(self, start: int, end: int) -> bool:
        """Whether [start, end) overlaps no claimed region (a binary search)."""
        at = bisect.bisect_right(self.claimed, (start, len(self.text) + 1))
        if at > 0 and self.claimed[at - 1][1] > start:
            return False
        return at >= len(self.claimed) or self.claimed[at][0] >= end

    def claim(self, start: int, end: int) -> None:
        bisect.insort(self.claimed, (start, end))

    def add(self, start: int, end: int, calls: list[Call]) -> bool:
        if not calls or self.found >= MAX_CALLS or not self.free(start, end):
            return False
        calls = calls[: MAX_CALLS - self.found]
        self.found += len(calls)
        self.blocks.append(Block(start, end, tuple(calls)))
        self.claim(start, end)
        return True

    def json_at(self, pos: int) -> tuple[bool, Any, int]:
        """(ok, value, end) for the JSON value whose bracket opens at `pos`."""
        close = self.pairs.get(pos)
        if close is None:
            return False, None, pos
        ok, value = self.budget.loads(self.text, pos, close + 1)
        return ok, value, close + 1


def occurrences(text: str, needle: str, start: int = 0, end: int | None = None) -> list[int]:
    stop = len(text) if end is None else end
    out: list[int] = []
    pos = text.find(needle, start, stop)
    while pos >= 0 and len(out) < MAX_MARKERS:
        out.append(pos)
        pos = text.find(needle, pos + len(needle), stop)
    return out


def skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def nearest(*positions: int) -> int:
    found = [p for p in positions if p >= 0]
    return min(found) if found else -1


def name_ok(name: str) -> bool:
    return 0 < len(name) <= MAX_NAME and all(c.isalnum() or c in "._-:" for c in name)


def args_text(scan: Scan, start: int, end: int) -> tuple[dict[str, Any] | None, str]:
    """Arguments written as text between `start` and `end`: a JSON object or nothing."""
    body = scan.text[start:end].strip()
    if not body:
        return {}, ""
    lead = skip_ws(scan.text, start)
    if scan.text[lead] == "{":
        ok, value, stop = scan.json_at(lead)
        if ok and isinstance(value, dict) and not scan.text[stop:end].strip():
            return value, body
    return None, body
