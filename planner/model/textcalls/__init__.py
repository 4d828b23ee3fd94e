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

from collections.abc import Collection
from dataclasses import dataclass

from planner.model.client import ToolCallRequest
from planner.model.textcalls._json import broken_tool_call_tags, json_values
from planner.model.textcalls._markers import deepseek, function_tags, harmony, mistral_v11, think
from planner.model.textcalls._prose import without_calls
from planner.model.textcalls._pythonic import pythonic_blocks
from planner.model.textcalls._scan import MAX_CALLS, MAX_CONTENT, Names, Scan

__all__ = ["MAX_CALLS", "MAX_CONTENT", "Recovered", "normalise_name", "recover_calls"]


@dataclass(frozen=True)
class Recovered:
    calls: list[ToolCallRequest]  # ids "text-1", "text-2"...; names are our names (dots)
    prose: str  # the content with the recovered call blocks removed, stripped
    format_errors: int  # call-shaped objects found in text, recovered or not (one each)
    unknown: list[str]  # names (as the model wrote them) that matched no known tool


def normalise_name(name: str, known: Collection[str]) -> str | None:
    """The known tool `name` denotes, or None.

    `functions.`/`function.` prefixes are dropped and wire names (`__`) read as dots, then
    the name must match exactly; failing that it may differ from one known tool only in
    case and in `.`, `_`, `-` separators, and only when exactly one tool matches that way.
    """
    try:
        return Names(known).resolve(name)
    except Exception:
        return None


def _recover(content: str, known: Collection[str]) -> Recovered:
    text = content[:MAX_CONTENT]
    scan = Scan(text, Names(known))
    for scanner in (
        think,
        function_tags,
        mistral_v11,
        deepseek,
        harmony,
        pythonic_blocks,
        json_values,
        broken_tool_call_tags,
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
        prose=without_calls(text, removed) if removed else text.strip(),
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
