"""Calls whose name is written outside the JSON, after a dialect's own marker: reasoning
blocks, `<function=name>` tags (with JSON or Qwen3-Coder XML parameters), Mistral v11,
DeepSeek and gpt-oss harmony."""

from __future__ import annotations

import json
from typing import Any

from planner.model.textcalls._scan import (
    MAX_MARKERS,
    MAX_NAME,
    Call,
    Scan,
    args_text,
    dumps,
    name_ok,
    nearest,
    occurrences,
    skip_ws,
)

_DS_CALL = "<｜tool▁call▁begin｜>"
_DS_SEP = "<｜tool▁sep｜>"
_DS_END = "<｜tool▁call▁end｜>"


def think(scan: Scan) -> None:
    text = scan.text
    first_close = text.find("</think>")
    if first_close >= 0 and text.find("<think>", 0, first_close) < 0:
        # the server opened the reasoning in the prompt: the content starts inside it
        scan.claim(0, first_close + len("</think>"))
    for pos in occurrences(text, "<think>"):
        close = text.find("</think>", pos)
        if close < 0:
            break
        if scan.free(pos, close + len("</think>")):
            scan.claim(pos, close + len("</think>"))


def _xml_value(value: str) -> Any:
    if value and (value[0] in '{["-0123456789' or value in ("true", "false", "null")):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _xml_parameters(body: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pos = 0
    close = -2  # the next `</parameter>` at or after `pos`, found again only when passed
    for _ in range(MAX_MARKERS):
        start = body.find("<parameter=", pos)
        if start < 0:
            break
        gt = body.find(">", start, start + MAX_NAME)
        if gt < 0:
            break
        key = body[start + len("<parameter=") : gt].strip()
        if close != -1 and close < gt:
            close = body.find("</parameter>", gt)
        stop = nearest(close, body.find("<parameter=", gt))
        stop = len(body) if stop < 0 else stop
        if key:
            out[key] = _xml_value(body[gt + 1 : stop].strip())
        pos = stop + (len("</parameter>") if stop == close else 0)
        if stop >= len(body):
            break
    return out


def function_tags(scan: Scan) -> None:
    """`<function=name>...</function>` and `<function name="name">...</function>`."""
    text = scan.text
    for marker, name_end in (("<function=", ">"), ('<function name="', '">')):
        for pos in occurrences(text, marker):
            start = pos + len(marker)
            gt = text.find(name_end, start, start + MAX_NAME + 1)
            if gt < 0:
                continue
            name = text[start:gt].strip()
            if not name_ok(name):
                continue
            body_start = gt + len(name_end)
            close = text.find("</function>", body_start)
            stop = nearest(
                close, text.find("</tool_call>", body_start), text.find("<function", body_start)
            )
            stop = len(text) if stop < 0 else stop
            end = stop + len("</function>") if stop == close else stop
            body = text[body_start:stop]
            if "<parameter=" in body and not body.strip().startswith("{"):
                params = _xml_parameters(body)
                call = Call(name, params, dumps(params))
            else:
                arguments, raw = args_text(scan, body_start, stop)
                call = Call(name, arguments, raw)
            scan.add(pos, end, [call])


def mistral_v11(scan: Scan) -> None:
    """`[TOOL_CALLS]name[ARGS]{...}` and `[TOOL_CALLS]name{...}`."""
    text = scan.text
    marker = "[TOOL_CALLS]"
    for pos in occurrences(text, marker):
        start = skip_ws(text, pos + len(marker))
        if start >= len(text) or text[start] in "[{":
            continue  # the JSON-array form: the JSON scan finds it
        window_end = min(len(text), start + MAX_NAME + 1)
        stop = nearest(text.find("[ARGS]", start, window_end), text.find("{", start, window_end))
        if stop < 0:
            continue
        name = text[start:stop].strip()
        if not name_ok(name):
            continue
        args_at = stop + len("[ARGS]") if text.startswith("[ARGS]", stop) else stop
        args_at = skip_ws(text, args_at)
        ok, value, end = scan.json_at(args_at) if args_at < len(text) else (False, None, 0)
        if ok and isinstance(value, dict):
            scan.add(pos, end, [Call(name, value, text[args_at:end])])
            continue
        nxt = text.find(marker, args_at)
        end = len(text) if nxt < 0 else nxt
        scan.add(pos, end, [Call(name, None, text[args_at:end].strip())])


def deepseek(scan: Scan) -> None:
    """`<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` + ```json {...} ```, or
    `<｜tool▁call▁begin｜>name<｜tool▁sep｜>{...}`, up to `<｜tool▁call▁end｜>`."""
    text = scan.text
    for pos in occurrences(text, _DS_CALL):
        start = pos + len(_DS_CALL)
        close = text.find(_DS_END, start)
        stop = len(text) if close < 0 else close
        sep = text.find(_DS_SEP, start, stop)
        if sep < 0:
            continue
        left = text[start:sep].strip()
        after = sep + len(_DS_SEP)
        if left in ("", "function"):
            newline = text.find("\n", after, stop)
            name_stop = stop if newline < 0 else newline
            name = text[after:name_stop].strip()
            args_from = name_stop
        else:
            name, args_from = left, after
        if not name_ok(name):
            continue
        raw = text[args_from:stop].strip()
        if raw.startswith("```"):
            raw = raw[3:].removeprefix("json").strip()
        raw = raw.removesuffix("```").strip()
        brace = text.find("{", args_from, stop)
        arguments: dict[str, Any] | None = None
        if brace >= 0:
            ok, value, _ = scan.json_at(brace)
            arguments = value if ok and isinstance(value, dict) else None
        elif not raw:
            arguments = {}
        end = stop if close < 0 else close + len(_DS_END)
        scan.add(pos, end, [Call(name, arguments, raw)])


def harmony(scan: Scan) -> None:
    """gpt-oss: `<|channel|>commentary to=functions.name <|constrain|>json<|message|>{...}`."""
    text = scan.text
    marker = "to=functions."
    for pos in occurrences(text, marker):
        start = pos + len(marker)
        stop = start
        while stop < len(text) and stop - start <= MAX_NAME and name_ok(text[stop]):
            stop += 1
        name = text[start:stop]
        if not name_ok(name):
            continue
        message = text.find("<|message|>", stop, stop + MAX_NAME)
        if message < 0:
            continue
        args_at = skip_ws(text, message + len("<|message|>"))
        ok, value, end = scan.json_at(args_at) if args_at < len(text) else (False, None, 0)
        if not ok or not isinstance(value, dict):
            continue
        lookback = max(0, pos - 120)
        head = max(text.rfind("<|start|>", lookback, pos), text.rfind("<|channel|>", lookback, pos))
        scan.add(
            pos if head < 0 else head, end, [Call("functions." + name, value, text[args_at:end])]
        )
