"""Calls written as Python (`[name(key=value)]`, Gemma's `tool_code` fences, LFM2's
markers): read with `ast`, never evaluated."""

from __future__ import annotations

import ast
from typing import Any

from planner.model.textcalls._scan import MAX_CALLS, Call, Names, Scan, dumps, occurrences, skip_ws

_MAX_PYTHONIC = 8 * 1024  # characters of one pythonic call list handed to `ast.parse`


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute) and len(parts) < 16:
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id in ("true", "false", "null"):
        return {"true": True, "false": False, "null": None}[node.id]
    return ast.literal_eval(node)


def _call_nodes(src: str, single: bool) -> list[ast.expr] | None:
    """The elements of a list of calls, or (`single`) the one call; None when `src` is not
    Python of that shape (or too long, or too many)."""
    if not src or len(src) > _MAX_PYTHONIC:
        return None
    try:
        tree = ast.parse(src, mode="eval")
    except Exception:
        return None
    body = tree.body
    if isinstance(body, ast.List):
        elements = list(body.elts)
    elif single and isinstance(body, ast.Call):
        elements = [body]
    else:
        return None
    if not elements or len(elements) > MAX_CALLS:
        return None
    return elements


def _unprinted(call: ast.Call) -> ast.Call:
    """The call inside `print(call)` (Gemma's tool_code), else the call itself."""
    if (
        isinstance(call.func, ast.Name)
        and call.func.id == "print"
        and len(call.args) == 1
        and isinstance(call.args[0], ast.Call)
    ):
        return call.args[0]
    return call


def _python_call(src: str, call: ast.Call, names: Names) -> Call | None:
    """One call node as a call, or None when it is not one we can take."""
    name = _dotted(call.func)
    if name is None:
        return None
    segment = ast.get_source_segment(src, call) or ""
    func_text = ast.get_source_segment(src, call.func) or ""
    raw = segment[len(func_text) :].strip().removeprefix("(").removesuffix(")").strip()
    if call.args or any(kw.arg is None for kw in call.keywords):
        if names.resolve(name) is None:
            return None  # positional arguments to an unknown name: not a call we know
        return Call(name, None, raw)
    try:
        arguments = {str(kw.arg): _literal(kw.value) for kw in call.keywords}
    except Exception:
        return Call(name, None, raw)
    dumped = dumps(arguments)
    return Call(name, arguments if dumped else None, dumped or raw)


def _pythonic(source: str, names: Names, single: bool) -> list[Call] | None:
    """Calls written as Python: a list of calls, or (`single`) one call or `print(call)`."""
    src = source.strip()
    elements = _call_nodes(src, single)
    if elements is None:
        return None
    out: list[Call] = []
    for element in elements:
        if not isinstance(element, ast.Call):
            return None
        one = _python_call(src, _unprinted(element) if single else element, names)
        if one is None:
            return None
        out.append(one)
    return out


def pythonic_blocks(scan: Scan) -> None:
    text = scan.text
    # Gemma: ```tool_code\nname(key=value)\n```
    for pos in occurrences(text, "```tool_code"):
        start = pos + len("```tool_code")
        close = text.find("```", start)
        stop = len(text) if close < 0 else close
        calls = _pythonic(text[start:stop], scan.names, single=True)
        if calls:
            scan.add(pos, len(text) if close < 0 else close + 3, calls)
    # LFM2: <|tool_call_start|>[name(key=value)]<|tool_call_end|>
    for pos in occurrences(text, "<|tool_call_start|>"):
        start = skip_ws(text, pos + len("<|tool_call_start|>"))
        close = text.find("<|tool_call_end|>", start)
        stop = len(text) if close < 0 else close
        if text.startswith("[", start) and not text[start + 1 : start + 2].startswith("{"):
            calls = _pythonic(text[start:stop], scan.names, single=False)
            if calls:
                scan.add(start, stop, calls)
    # the whole answer (after any reasoning) is `[name(key=value), ...]`
    begin = max((e for _, e in scan.claimed), default=0)
    whole = text[begin:]
    body = whole.strip()
    for token in ("<|python_start|>", "<|python_tag|>"):
        body = body.removeprefix(token).lstrip()
    for token in ("<|eom_id|>", "<|eot_id|>", "<|python_end|>"):
        body = body.removesuffix(token).rstrip()
    if body.startswith("[") and body.endswith("]") and "(" in body:
        lead = skip_ws(body, 1)
        if lead < len(body) and (body[lead].isalpha() or body[lead] == "_"):
            calls = _pythonic(body, scan.names, single=False)
            if calls:
                scan.add(begin, len(text), calls)
