"""Calls written as JSON: call-shaped objects and arrays anywhere in the text (bare, fenced
or in tags), and a `<tool_call>` whose body names a tool but is not valid JSON."""

from __future__ import annotations

import json
from typing import Any

from planner.model.textcalls._scan import (
    MAX_CALLS,
    MAX_NAME,
    Call,
    Names,
    Scan,
    arguments_of,
    dumps,
    nearest,
    occurrences,
    skip_ws,
)

_NAME_KEYS = ("name", "tool_name", "function_name", "tool", "function")
_ARG_KEYS = ("arguments", "parameters", "args", "params", "input", "tool_input")
_META_KEYS = frozenset({"type", "id", "index", "call_id", "tool_call_id"})
_LIST_WRAPPERS = ("tool_calls", "function_calls")
_ONE_WRAPPERS = ("tool_call", "function_call", "function")


def _is_schema(value: Any) -> bool:
    return isinstance(value, dict) and ("properties" in value or value.get("type") == "object")


def _one_call(obj: dict[str, Any], names: Names) -> Call | None:
    name_key = next((k for k in _NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name_key is None:
        return None
    name: str = obj[name_key]
    if not name.strip():
        return None
    args_key = next((k for k in _ARG_KEYS if k in obj), None)
    if args_key is not None:
        if "description" in obj and _is_schema(obj[args_key]):
            return None  # an echoed tool definition, not a call
        arguments, raw = arguments_of(obj[args_key])
        return Call(name[:MAX_NAME], arguments, raw)
    if names.resolve(name) is None:
        return None
    flat = {k: v for k, v in obj.items() if k != name_key and k not in _META_KEYS}
    return Call(name, flat, dumps(flat))


def _calls_in(value: Any, names: Names, depth: int = 0) -> list[Call] | None:
    """The calls a decoded JSON value holds, or None when it is not call-shaped."""
    if depth > 4:
        return None
    if isinstance(value, list):
        if not value or len(value) > MAX_CALLS:
            return None
        out: list[Call] = []
        for item in value:
            got = _calls_in(item, names, depth + 1)
            if got is None:
                return None
            out.extend(got)
        return out
    if not isinstance(value, dict):
        return None
    for key in _LIST_WRAPPERS:
        if isinstance(value.get(key), list):
            return _calls_in(value[key], names, depth + 1)
    for key in _ONE_WRAPPERS:
        if isinstance(value.get(key), dict):
            return _calls_in(value[key], names, depth + 1)
    one = _one_call(value, names)
    return [one] if one is not None else None


def json_values(scan: Scan) -> None:
    """Every matched `{"...` or `[{...` span, outermost first; a valid JSON value that is
    not call-shaped is consumed as prose, so nothing inside it is searched."""
    text = scan.text
    floor = 0
    for start in sorted(scan.pairs):
        if start < floor:
            continue
        close = scan.pairs[start]
        lead = skip_ws(text, start + 1)
        if lead > close or text[lead] != ('"' if text[start] == "{" else "{"):
            continue
        if not scan.free(start, close + 1):
            continue
        ok, value = scan.budget.loads(text, start, close + 1)
        if not ok:
            continue
        floor = close + 1
        calls = _calls_in(value, scan.names)
        if calls:
            scan.add(start, close + 1, calls)


def _salvage_name(body: str) -> tuple[str, str] | None:
    """(name, raw arguments) from a `{"name": ..., "arguments": ...` that is not JSON."""
    key = body.find('"name"')
    if key < 0:
        return None
    colon = skip_ws(body, key + len('"name"'))
    if not body.startswith(":", colon):
        return None
    quote = skip_ws(body, colon + 1)
    if not body.startswith('"', quote):
        return None
    try:
        name, _ = json.JSONDecoder().raw_decode(body, quote)
    except (ValueError, RecursionError):
        return None
    if not isinstance(name, str) or not name.strip():
        return None
    raw = ""
    args = nearest(body.find('"arguments"'), body.find('"parameters"'))
    if args >= 0:
        colon = body.find(":", args)
        if colon >= 0:
            raw = body[colon + 1 :].strip()
            if raw.endswith("}") and raw.count("}") > raw.count("{"):
                raw = raw[:-1].rstrip()
    return name[:MAX_NAME], raw


def broken_tool_call_tags(scan: Scan) -> None:
    """A `<tool_call>` whose body names a tool but is not valid JSON: a call, arguments
    None, the text kept raw."""
    text = scan.text
    for pos in occurrences(text, "<tool_call>"):
        start = pos + len("<tool_call>")
        close = text.find("</tool_call>", start)
        stop = nearest(close, text.find("<tool_call>", start))
        stop = len(text) if stop < 0 else stop
        end = stop + len("</tool_call>") if stop == close else stop
        body = text[start:stop].strip()
        if not body.startswith("{") or not scan.free(pos, end):
            continue
        if scan.budget.loads(body, 0, len(body))[0]:
            continue  # valid JSON that is not a call: prose
        salvaged = _salvage_name(body)
        if salvaged is not None:
            scan.add(pos, end, [Call(salvaged[0], None, salvaged[1])])
