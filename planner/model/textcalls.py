"""Tool calls that a model wrote as text in `message.content` instead of `tool_calls`.

Small models behind llama.cpp, Ollama or vLLM often print their call when the server's
parser did not recognise it (wrong chat template, a parser not enabled, a slightly
malformed block). `recover_calls(content, known)` finds those calls, so the planner can run
them through the policy gate like any other call and tell the model it used the wrong
format. Recovered text is only a *suggestion*, exactly like a native call.

Formats recognised (where each comes from):

- JSON objects `{"name": ..., "arguments": {...}}` anywhere in the text, bare, in a
  Markdown fence (```` ```json ````, ```` ```xml ````, ```` ``` ````) or in the tags of
  llama.cpp's Hermes 2 Pro parser: `<tool_call>` (Hermes, Qwen2.5 and Qwen3 chat
  templates), `<function_call>`, `<tool>`, `<tools>`, `<response>`, `<json>`, `<JSON>`,
  `<xml>`; several objects in one tag, one a line, or separated by `;` (vLLM's
  llama3_json parser) or a space.
- Llama 3.x / Gemma JSON: `{"name": ..., "parameters": {...}}`, optionally with
  `"type": "function"`, optionally after `<|python_tag|>`.
- OpenAI-shaped objects: `{"type": "function", "function": {"name": ..., "arguments":
  "<JSON string>"}}`, and llama.cpp's generic format `{"tool_call": {...}}` /
  `{"tool_calls": [...]}`; `{"tool": ..., "args": ...}`, `{"tool_name": ...,
  "parameters": ...}` (Command R7B's `<|START_ACTION|>[...]<|END_ACTION|>`),
  `{"name": ..., "input": ...}`.
- JSON arrays of such objects after a marker: Mistral `[TOOL_CALLS] [...]`, Firefunction
  v2 / Phi-4-mini `functools[...]`, Granite `<|tool_call|>[...]`, Nemotron
  `<TOOLCALL>[...]</TOOLCALL>`, LFM2 `<|tool_call_start|>[...]<|tool_call_end|>`.
- The name outside the JSON: Mistral tokenizer v11+ `[TOOL_CALLS]name[ARGS]{...}` and
  `[TOOL_CALLS]name{...}` (vLLM's mistral parser); Llama 3.1 / Functionary
  `<function=name>{...}</function>` and `<function name="name">{...}</function>`
  (llama.cpp); Qwen3-Coder XML `<function=name><parameter=key>value</parameter>
  </function>` inside `<tool_call>` (vLLM qwen3coder parser; values that read as JSON
  numbers, booleans, null, objects or arrays are decoded, the rest are strings);
  DeepSeek `<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` + a fenced JSON block, or
  `name<｜tool▁sep｜>{...}` (V3.1); gpt-oss harmony `to=functions.name ...
  <|message|>{...}`.
- Pythonic calls: the whole answer `[name(key=value, ...), ...]` (vLLM's pythonic parser;
  Llama 3.2 / 4, Gemma 3's documented prompt), the same inside LFM2's markers, and
  Gemma's ```` ```tool_code ```` fences (`name(key=value)`, `print(name(...))`).
  Values must be Python literals (`true`/`false`/`null` too); they are read with `ast`,
  never evaluated, else the call keeps them raw with arguments None. A call with
  positional arguments counts only when its name is a known tool, so prose such as
  `[see(this)]` stays prose.

What counts: only a *call-shaped* block, an object with a name-like key (`name`,
`tool_name`, `function_name`, `tool`, `function`) holding a string and an arguments-like
key (`arguments`, `parameters`, `args`, `params`, `input`, `tool_input`), or a name key
whose value names a known tool (the other keys are then the arguments). A JSON value
that is not call-shaped (an answer that happens to be JSON) stays prose and nothing
inside it is searched; an echoed tool *definition* (`description` plus a JSON-schema
`parameters`) is not a call. Text inside a closed `<think>...</think>` block (or before a
`</think>` whose opening tag was in the prompt) is the model's reasoning: it is never
searched and stays in the prose. Each call-shaped object is one format error; a JSON array
of two calls is two.

Bounded work: at most `MAX_CONTENT` characters are read; brackets are matched in one
linear pass (a regex of single characters, nothing that backtracks) and JSON is decoded
only on matched spans, under a budget of attempts and characters; marker scans are
capped. `recover_calls` never raises: on any internal failure it returns the content as
prose with no calls.
"""

from __future__ import annotations

import ast
import bisect
import json
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from planner.model.client import ToolCallRequest

MAX_CONTENT = 64 * 1024  # characters of content read; the rest is ignored
MAX_CALLS = 64  # call-shaped blocks looked at in one content
_MAX_PYTHONIC = 8 * 1024  # characters of one pythonic call list handed to `ast.parse`
_MAX_DEPTH = 64  # bracket nesting beyond this is not a tool call
_MAX_DECODES = 512  # json.loads attempts in one content
_MAX_DECODE_CHARS = 16 * MAX_CONTENT  # characters handed to json.loads in one content
_MAX_MARKERS = 256  # occurrences of one marker looked at
_MAX_NAME = 200

# a character that matters to bracket matching; a single character class cannot backtrack
_INTERESTING = re.compile(r'[{}\[\]"\\\n]')

_NAME_KEYS = ("name", "tool_name", "function_name", "tool", "function")
_ARG_KEYS = ("arguments", "parameters", "args", "params", "input", "tool_input")
_META_KEYS = frozenset({"type", "id", "index", "call_id", "tool_call_id"})
_LIST_WRAPPERS = ("tool_calls", "function_calls")
_ONE_WRAPPERS = ("tool_call", "function_call", "function")

# (opening, closing) around a call; "" where the format has no closing marker
_WRAPPERS: tuple[tuple[str, str], ...] = (
    ("<tool_call>", "</tool_call>"),
    ("<function_call>", "</function_call>"),
    ("<tool_calls>", "</tool_calls>"),
    ("<tools>", "</tools>"),
    ("<tool>", "</tool>"),
    ("<response>", "</response>"),
    ("<json>", "</json>"),
    ("<JSON>", "</JSON>"),
    ("<xml>", "</xml>"),
    ("<TOOLCALL>", "</TOOLCALL>"),
    ("<|tool_call_start|>", "<|tool_call_end|>"),
    ("<|START_ACTION|>", "<|END_ACTION|>"),
    ("<|python_start|>", "<|python_end|>"),
    ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"),
    ("[TOOL_CALLS]", ""),
    ("functools", ""),
    ("<|python_tag|>", ""),
    ("<|tool_call|>", ""),
)
# end-of-turn tokens a server may leave after a call
_TRAILERS = ("<|eom_id|>", "<|eot_id|>", "<|im_end|>", "<|call|>", "<|end|>", "</s>")

_DS_CALL = "<｜tool▁call▁begin｜>"
_DS_SEP = "<｜tool▁sep｜>"
_DS_END = "<｜tool▁call▁end｜>"


@dataclass(frozen=True)
class Recovered:
    calls: list[ToolCallRequest]  # ids "text-1", "text-2"...; names are our names (dots)
    prose: str  # the content with the recovered call blocks removed, stripped
    format_errors: int  # call-shaped objects found in text, recovered or not (one each)
    unknown: list[str]  # names (as the model wrote them) that matched no known tool


@dataclass(frozen=True)
class _Call:
    name: str  # as the model wrote it
    arguments: dict[str, Any] | None
    raw: str


@dataclass(frozen=True)
class _Block:
    start: int
    end: int
    calls: tuple[_Call, ...]


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


class _Names:
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
        if not written or len(written) > _MAX_NAME:
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


def normalise_name(name: str, known: Collection[str]) -> str | None:
    """The known tool `name` denotes, or None.

    `functions.`/`function.` prefixes are dropped and wire names (`__`) read as dots, then
    the name must match exactly; failing that it may differ from one known tool only in
    case and in `.`, `_`, `-` separators, and only when exactly one tool matches that way.
    """
    try:
        return _Names(known).resolve(name)
    except Exception:
        return None


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


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return ""


def _arguments(value: Any) -> tuple[dict[str, Any] | None, str]:
    """(arguments, raw_arguments) for what the model gave as the arguments."""
    if isinstance(value, dict):
        return value, _dumps(value)
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
    return None, _dumps(value)


def _is_schema(value: Any) -> bool:
    return isinstance(value, dict) and ("properties" in value or value.get("type") == "object")


def _one_call(obj: dict[str, Any], names: _Names) -> _Call | None:
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
        arguments, raw = _arguments(obj[args_key])
        return _Call(name[:_MAX_NAME], arguments, raw)
    if names.resolve(name) is None:
        return None
    flat = {k: v for k, v in obj.items() if k != name_key and k not in _META_KEYS}
    return _Call(name, flat, _dumps(flat))


def _calls_in(value: Any, names: _Names, depth: int = 0) -> list[_Call] | None:
    """The calls a decoded JSON value holds, or None when it is not call-shaped."""
    if depth > 4:
        return None
    if isinstance(value, list):
        if not value or len(value) > MAX_CALLS:
            return None
        out: list[_Call] = []
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


# --- scanning helpers ------------------------------------------------------------------


class _Scan:
    def __init__(self, text: str, names: _Names) -> None:
        self.text = text
        self.names = names
        self.pairs = _match_brackets(text)
        self.budget = _Budget()
        self.claimed: list[tuple[int, int]] = []  # disjoint regions, sorted by start
        self.blocks: list[_Block] = []
        self.found = 0

    def free(self, start: int, end: int) -> bool:
        """Whether [start, end) overlaps no claimed region (a binary search)."""
        at = bisect.bisect_right(self.claimed, (start, len(self.text) + 1))
        if at > 0 and self.claimed[at - 1][1] > start:
            return False
        return at >= len(self.claimed) or self.claimed[at][0] >= end

    def claim(self, start: int, end: int) -> None:
        bisect.insort(self.claimed, (start, end))

    def add(self, start: int, end: int, calls: list[_Call]) -> bool:
        if not calls or self.found >= MAX_CALLS or not self.free(start, end):
            return False
        calls = calls[: MAX_CALLS - self.found]
        self.found += len(calls)
        self.blocks.append(_Block(start, end, tuple(calls)))
        self.claim(start, end)
        return True

    def json_at(self, pos: int) -> tuple[bool, Any, int]:
        """(ok, value, end) for the JSON value whose bracket opens at `pos`."""
        close = self.pairs.get(pos)
        if close is None:
            return False, None, pos
        ok, value = self.budget.loads(self.text, pos, close + 1)
        return ok, value, close + 1


def _occurrences(text: str, needle: str, start: int = 0, end: int | None = None) -> list[int]:
    stop = len(text) if end is None else end
    out: list[int] = []
    pos = text.find(needle, start, stop)
    while pos >= 0 and len(out) < _MAX_MARKERS:
        out.append(pos)
        pos = text.find(needle, pos + len(needle), stop)
    return out


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _nearest(*positions: int) -> int:
    found = [p for p in positions if p >= 0]
    return min(found) if found else -1


def _name_ok(name: str) -> bool:
    return 0 < len(name) <= _MAX_NAME and all(c.isalnum() or c in "._-:" for c in name)


def _args_text(scan: _Scan, start: int, end: int) -> tuple[dict[str, Any] | None, str]:
    """Arguments written as text between `start` and `end`: a JSON object or nothing."""
    body = scan.text[start:end].strip()
    if not body:
        return {}, ""
    lead = _skip_ws(scan.text, start)
    if scan.text[lead] == "{":
        ok, value, stop = scan.json_at(lead)
        if ok and isinstance(value, dict) and not scan.text[stop:end].strip():
            return value, body
    return None, body


# --- scanners, in order of precedence --------------------------------------------------


def _think(scan: _Scan) -> None:
    text = scan.text
    first_close = text.find("</think>")
    if first_close >= 0 and text.find("<think>", 0, first_close) < 0:
        # the server opened the reasoning in the prompt: the content starts inside it
        scan.claim(0, first_close + len("</think>"))
    for pos in _occurrences(text, "<think>"):
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
    for _ in range(_MAX_MARKERS):
        start = body.find("<parameter=", pos)
        if start < 0:
            break
        gt = body.find(">", start, start + _MAX_NAME)
        if gt < 0:
            break
        key = body[start + len("<parameter=") : gt].strip()
        if close != -1 and close < gt:
            close = body.find("</parameter>", gt)
        stop = _nearest(close, body.find("<parameter=", gt))
        stop = len(body) if stop < 0 else stop
        if key:
            out[key] = _xml_value(body[gt + 1 : stop].strip())
        pos = stop + (len("</parameter>") if stop == close else 0)
        if stop >= len(body):
            break
    return out


def _function_tags(scan: _Scan) -> None:
    """`<function=name>...</function>` and `<function name="name">...</function>`."""
    text = scan.text
    for marker, name_end in (("<function=", ">"), ('<function name="', '">')):
        for pos in _occurrences(text, marker):
            start = pos + len(marker)
            gt = text.find(name_end, start, start + _MAX_NAME + 1)
            if gt < 0:
                continue
            name = text[start:gt].strip()
            if not _name_ok(name):
                continue
            body_start = gt + len(name_end)
            close = text.find("</function>", body_start)
            stop = _nearest(
                close, text.find("</tool_call>", body_start), text.find("<function", body_start)
            )
            stop = len(text) if stop < 0 else stop
            end = stop + len("</function>") if stop == close else stop
            body = text[body_start:stop]
            if "<parameter=" in body and not body.strip().startswith("{"):
                params = _xml_parameters(body)
                call = _Call(name, params, _dumps(params))
            else:
                arguments, raw = _args_text(scan, body_start, stop)
                call = _Call(name, arguments, raw)
            scan.add(pos, end, [call])


def _mistral_v11(scan: _Scan) -> None:
    """`[TOOL_CALLS]name[ARGS]{...}` and `[TOOL_CALLS]name{...}`."""
    text = scan.text
    marker = "[TOOL_CALLS]"
    for pos in _occurrences(text, marker):
        start = _skip_ws(text, pos + len(marker))
        if start >= len(text) or text[start] in "[{":
            continue  # the JSON-array form: the JSON scan finds it
        window_end = min(len(text), start + _MAX_NAME + 1)
        stop = _nearest(text.find("[ARGS]", start, window_end), text.find("{", start, window_end))
        if stop < 0:
            continue
        name = text[start:stop].strip()
        if not _name_ok(name):
            continue
        args_at = stop + len("[ARGS]") if text.startswith("[ARGS]", stop) else stop
        args_at = _skip_ws(text, args_at)
        ok, value, end = scan.json_at(args_at) if args_at < len(text) else (False, None, 0)
        if ok and isinstance(value, dict):
            scan.add(pos, end, [_Call(name, value, text[args_at:end])])
            continue
        nxt = text.find(marker, args_at)
        end = len(text) if nxt < 0 else nxt
        scan.add(pos, end, [_Call(name, None, text[args_at:end].strip())])


def _deepseek(scan: _Scan) -> None:
    """`<｜tool▁call▁begin｜>function<｜tool▁sep｜>name` + ```json {...} ```, or
    `<｜tool▁call▁begin｜>name<｜tool▁sep｜>{...}`, up to `<｜tool▁call▁end｜>`."""
    text = scan.text
    for pos in _occurrences(text, _DS_CALL):
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
        if not _name_ok(name):
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
        scan.add(pos, end, [_Call(name, arguments, raw)])


def _harmony(scan: _Scan) -> None:
    """gpt-oss: `<|channel|>commentary to=functions.name <|constrain|>json<|message|>{...}`."""
    text = scan.text
    marker = "to=functions."
    for pos in _occurrences(text, marker):
        start = pos + len(marker)
        stop = start
        while stop < len(text) and stop - start <= _MAX_NAME and _name_ok(text[stop]):
            stop += 1
        name = text[start:stop]
        if not _name_ok(name):
            continue
        message = text.find("<|message|>", stop, stop + _MAX_NAME)
        if message < 0:
            continue
        args_at = _skip_ws(text, message + len("<|message|>"))
        ok, value, end = scan.json_at(args_at) if args_at < len(text) else (False, None, 0)
        if not ok or not isinstance(value, dict):
            continue
        lookback = max(0, pos - 120)
        head = max(text.rfind("<|start|>", lookback, pos), text.rfind("<|channel|>", lookback, pos))
        scan.add(
            pos if head < 0 else head, end, [_Call("functions." + name, value, text[args_at:end])]
        )


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


def _pythonic(source: str, names: _Names, single: bool) -> list[_Call] | None:
    """Calls written as Python: a list of calls, or (`single`) one call or `print(call)`."""
    src = source.strip()
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
    out: list[_Call] = []
    for element in elements:
        if not isinstance(element, ast.Call):
            return None
        call = element
        if (
            single
            and isinstance(call.func, ast.Name)
            and call.func.id == "print"
            and len(call.args) == 1
            and isinstance(call.args[0], ast.Call)
        ):
            call = call.args[0]
        name = _dotted(call.func)
        if name is None:
            return None
        segment = ast.get_source_segment(src, call) or ""
        func_text = ast.get_source_segment(src, call.func) or ""
        raw = segment[len(func_text) :].strip().removeprefix("(").removesuffix(")").strip()
        if call.args or any(kw.arg is None for kw in call.keywords):
            if names.resolve(name) is None:
                return None  # positional arguments to an unknown name: not a call we know
            out.append(_Call(name, None, raw))
            continue
        try:
            arguments = {str(kw.arg): _literal(kw.value) for kw in call.keywords}
        except Exception:
            out.append(_Call(name, None, raw))
            continue
        dumped = _dumps(arguments)
        out.append(_Call(name, arguments if dumped else None, dumped or raw))
    return out


def _pythonic_blocks(scan: _Scan) -> None:
    text = scan.text
    # Gemma: ```tool_code\nname(key=value)\n```
    for pos in _occurrences(text, "```tool_code"):
        start = pos + len("```tool_code")
        close = text.find("```", start)
        stop = len(text) if close < 0 else close
        calls = _pythonic(text[start:stop], scan.names, single=True)
        if calls:
            scan.add(pos, len(text) if close < 0 else close + 3, calls)
    # LFM2: <|tool_call_start|>[name(key=value)]<|tool_call_end|>
    for pos in _occurrences(text, "<|tool_call_start|>"):
        start = _skip_ws(text, pos + len("<|tool_call_start|>"))
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
        lead = _skip_ws(body, 1)
        if lead < len(body) and (body[lead].isalpha() or body[lead] == "_"):
            calls = _pythonic(body, scan.names, single=False)
            if calls:
                scan.add(begin, len(text), calls)


def _json_values(scan: _Scan) -> None:
    """Every matched `{"...` or `[{...` span, outermost first; a valid JSON value that is
    not call-shaped is consumed as prose, so nothing inside it is searched."""
    text = scan.text
    floor = 0
    for start in sorted(scan.pairs):
        if start < floor:
            continue
        close = scan.pairs[start]
        lead = _skip_ws(text, start + 1)
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
    colon = _skip_ws(body, key + len('"name"'))
    if not body.startswith(":", colon):
        return None
    quote = _skip_ws(body, colon + 1)
    if not body.startswith('"', quote):
        return None
    try:
        name, _ = json.JSONDecoder().raw_decode(body, quote)
    except (ValueError, RecursionError):
        return None
    if not isinstance(name, str) or not name.strip():
        return None
    raw = ""
    args = _nearest(body.find('"arguments"'), body.find('"parameters"'))
    if args >= 0:
        colon = body.find(":", args)
        if colon >= 0:
            raw = body[colon + 1 :].strip()
            if raw.endswith("}") and raw.count("}") > raw.count("{"):
                raw = raw[:-1].rstrip()
    return name[:_MAX_NAME], raw


def _broken_tool_call_tags(scan: _Scan) -> None:
    """A `<tool_call>` whose body names a tool but is not valid JSON: a call, arguments
    None, the text kept raw."""
    text = scan.text
    for pos in _occurrences(text, "<tool_call>"):
        start = pos + len("<tool_call>")
        close = text.find("</tool_call>", start)
        stop = _nearest(close, text.find("<tool_call>", start))
        stop = len(text) if stop < 0 else stop
        end = stop + len("</tool_call>") if stop == close else stop
        body = text[start:stop].strip()
        if not body.startswith("{") or not scan.free(pos, end):
            continue
        if scan.budget.loads(body, 0, len(body))[0]:
            continue  # valid JSON that is not a call: prose
        salvaged = _salvage_name(body)
        if salvaged is not None:
            scan.add(pos, end, [_Call(salvaged[0], None, salvaged[1])])


# --- prose -----------------------------------------------------------------------------


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow a removed range over the wrappers, fences and end tokens around it."""
    for _ in range(8):
        left = start
        while left > 0 and text[left - 1].isspace():
            left -= 1
        right = _skip_ws(text, end)
        grown = False
        for opening, closing in _WRAPPERS:
            at = left - len(opening)
            if at >= 0 and text.startswith(opening, at):
                start, grown = at, True
                if closing and text.startswith(closing, right):
                    end = right + len(closing)
                break
        if not grown:
            lang = left
            while (
                lang > 0
                and left - lang < 16
                and (text[lang - 1].isalnum() or text[lang - 1] in "_-")
            ):
                lang -= 1
            if lang >= 3 and text.startswith("```", lang - 3):
                start, grown = lang - 3, True
                if text.startswith("```", right):
                    end = right + 3
        if not grown:
            for closing in [c for _, c in _WRAPPERS if c] + list(_TRAILERS):
                if text.startswith(closing, right):
                    end, grown = right + len(closing), True
                    break
        if not grown:
            break
    return start, end


def _merge(ranges: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and (start <= out[-1][1] or not text[out[-1][1] : start].strip(" \t\r\n;,")):
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _prose(text: str, removed: list[tuple[int, int]]) -> str:
    ranges = _merge([_widen(text, s, e) for s, e in _merge(removed, text)], text)
    pieces: list[str] = []
    pos = 0
    for start, end in ranges:
        pieces.append(text[pos:start])
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces).strip()


# --- entry point -----------------------------------------------------------------------


def _recover(content: str, known: Collection[str]) -> Recovered:
    text = content[:MAX_CONTENT]
    scan = _Scan(text, _Names(known))
    for scanner in (
        _think,
        _function_tags,
        _mistral_v11,
        _deepseek,
        _harmony,
        _pythonic_blocks,
        _json_values,
        _broken_tool_call_tags,
    ):
        scanner(scan)
    calls: list[ToolCallRequest] = []
    unknown: list[str] = []
    removed: list[tuple[int, int]] = []
    for block in sorted(scan.blocks, key=lambda b: b.start):
        recovered = False
        for call in block.calls:
            name = scan.names.resolve(call.name)
            if name is None:
                unknown.append(call.name)
                continue
            recovered = True
            calls.append(
                ToolCallRequest(
                    id=f"text-{len(calls) + 1}",
                    name=name,
                    arguments=call.arguments,
                    raw_arguments=call.raw,
                )
            )
        if recovered:
            removed.append((block.start, block.end))
    return Recovered(
        calls=calls,
        prose=_prose(text, removed) if removed else text.strip(),
        format_errors=scan.found,
        unknown=unknown,
    )


def recover_calls(content: str | None, known: Collection[str]) -> Recovered:
    """The tool calls written as text in `content`, and the prose around them.

    A block is removed from the prose when at least one of its calls names a known tool
    (a JSON array with known and unknown names goes as a whole; the unknown ones are
    listed). Blocks whose every name is unknown stay in the prose. Never raises.
    """
    if not isinstance(content, str) or not content:
        return Recovered(calls=[], prose="", format_errors=0, unknown=[])
    try:
        return _recover(content, known)
    except Exception:
        return Recovered(calls=[], prose=content[:MAX_CONTENT].strip(), format_errors=0, unknown=[])
