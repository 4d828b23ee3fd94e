"""Label and field selectors and continue tokens, with the API server's grammar."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any

from evals.simulators.kubernetes._resources import FIELD_ALIASES, FIELD_LABELS

Matcher = Callable[[dict[str, Any]], bool]

_KEY = r"[A-Za-z0-9][-A-Za-z0-9_./]*"
_VALUE = r"[-A-Za-z0-9_.]*"
_SET_RE = re.compile(rf"^\s*({_KEY})\s+(in|notin)\s*\(([^)]*)\)\s*$")
_EQ_RE = re.compile(rf"^\s*({_KEY})\s*(==|=|!=)\s*({_VALUE})\s*$")
_EXISTS_RE = re.compile(rf"^\s*+(!?)\s*({_KEY})\s*$")  # possessive: linear on spaces


class SelectorError(ValueError):
    """A selector the API server would reject with 400 BadRequest."""


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [p for p in parts if p.strip()]


def _requirement(text: str) -> Callable[[dict[str, str]], bool]:
    if m := _SET_RE.match(text):
        key, op = m[1], m[2]
        values = {v.strip() for v in m[3].split(",") if v.strip()}
        if op == "in":
            return lambda labels: labels.get(key) in values
        return lambda labels: labels.get(key) not in values
    if m := _EQ_RE.match(text):
        key, op, value = m[1], m[2], m[3]
        if op == "!=":
            return lambda labels: labels.get(key) != value
        return lambda labels: labels.get(key) == value
    if m := _EXISTS_RE.match(text):
        negate, key = m[1] == "!", m[2]
        return lambda labels: (key in labels) != negate
    raise SelectorError(f"unable to parse requirement: {text.strip()!r}")


def label_matcher(selector: str | None) -> Matcher:
    """`app=a,tier!=db,env in (prod,stage),!canary,release` over metadata.labels."""
    if not selector or not selector.strip():
        return lambda obj: True
    requirements = [_requirement(part) for part in _split_top_level(selector)]

    def match(obj: dict[str, Any]) -> bool:
        labels = {k: str(v) for k, v in ((obj.get("metadata") or {}).get("labels") or {}).items()}
        return all(req(labels) for req in requirements)

    return match


def field_value(obj: dict[str, Any], path: str) -> str:
    """The value a field selector compares: missing fields read as ""; bools as true/false."""
    current: Any = obj
    for part in FIELD_ALIASES.get(path, path).split("."):
        if not isinstance(current, dict):
            return ""
        current = current.get(part)
    if current is None:
        return ""
    if isinstance(current, bool):
        return "true" if current else "false"
    return str(current)


def field_matcher(
    selector: str | None, plural: str, namespace_of: Callable[[dict[str, Any]], str]
) -> Matcher:
    if not selector or not selector.strip():
        return lambda obj: True
    allowed = FIELD_LABELS.get(plural, frozenset()) | {"metadata.name", "metadata.namespace"}
    terms: list[tuple[str, bool, str]] = []
    for part in selector.split(","):
        m = re.match(r"^\s*([A-Za-z.]+)\s*(==|=|!=)\s*(.*?)\s*$", part)
        if not m:
            raise SelectorError(f"invalid field selector: {part.strip()!r}")
        if m[1] not in allowed:
            raise SelectorError(f"field label not supported: {m[1]}")
        terms.append((m[1], m[2] != "!=", m[3]))

    def match(obj: dict[str, Any]) -> bool:
        for path, equal, value in terms:
            seen = namespace_of(obj) if path == "metadata.namespace" else field_value(obj, path)
            if (seen == value) != equal:
                return False
        return True

    return match


def encode_continue(offset: int, query_key: str) -> str:
    raw = json.dumps({"o": offset, "q": query_key}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_continue(token: str, query_key: str) -> int:
    try:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        offset = int(data["o"])
    except (ValueError, KeyError, TypeError) as exc:
        raise SelectorError("continue key is not valid: it cannot be decoded") from exc
    if data.get("q") != query_key or offset < 0:
        raise SelectorError("continue key is not valid: it does not match this list request")
    return offset
