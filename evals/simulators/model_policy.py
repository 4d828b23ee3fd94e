"""`evidence_echo`: a scripted model policy that plays each role plainly, for model-mode
evaluation without a real model (CI runs the required suite through it).

It reads only the request, as a model would, and answers the way a careful small model
does, plus one thing a careless one does:

- planner (a request with tools): on its first step it calls the first offered tool whose
  required arguments it can fill from the `Scope:` line of the prompt (an enum's first
  value where the scope says nothing), then closes with a short note (`diligent`, the
  policy of `--planning free` runs, calls every such tool not called yet, each step);
- rerank (a request asking for a JSON array of tool names): the names in the order given;
- finalizer (a request with `Items:`): the conclusion `[C]` sentence by sentence, the first
  two facts, each with its citation, and sentences that cite an item for what it does not
  hold (an environment and a time nobody read, a count, "healthy" from a gap): the
  evidence guard must drop them, so an eval run in this mode also shows that no invented
  sentence reaches a user (`INVENTED_MARKERS`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from evals.simulators.model_server import ModelReply, Script, WireCall

INVENTED = "Everything else in zz-nowhere-9 is healthy since 03:07"
# what a careless model adds, each citing an item that does not hold it: an env and a time
# nobody read, a count, a "healthy" drawn from what could not be checked
INVENTED_MARKERS = ("zz-nowhere-9", "9731", "healthy and works")
_ITEM = re.compile(r"^\[([CFHG]\d*)\] (.*)$", re.MULTILINE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _last_user(body: dict[str, Any]) -> str:
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            return str(m["content"])
    return ""


def _scope(prompt: str) -> dict[str, Any]:
    for line in prompt.splitlines():
        if line.startswith("Scope: "):
            try:
                value = json.loads(line[len("Scope: ") :])
            except json.JSONDecodeError:
                return {}
            return value if isinstance(value, dict) else {}
    return {}


def _arguments(params: dict[str, Any], scope: dict[str, Any]) -> dict[str, Any] | None:
    """Arguments for the required parameters, from the scope or an enum; None if some
    required one cannot be filled."""
    props = params.get("properties") or {}
    wanted = {"env": scope.get("env"), "namespace": scope.get("namespace")}
    wanted["service"] = wanted["object"] = wanted["name"] = scope.get("object")
    wanted["request_id"] = scope.get("request_id")
    args: dict[str, Any] = {}
    for name in params.get("required") or []:
        prop = props.get(name) or {}
        value = wanted.get(name)
        enum = prop.get("enum")
        if value is None and enum:
            value = enum[0]
        if value is None or (enum and value not in enum):
            return None
        args[name] = value
    return args


def _plan(body: dict[str, Any]) -> ModelReply:
    if any(m.get("role") == "tool" for m in body.get("messages") or []):
        return ModelReply(content="I read what the offered tools could show.")
    scope = _scope(_last_user(body))
    for tool in body.get("tools") or []:
        fn = tool.get("function") or {}
        args = _arguments(fn.get("parameters") or {}, scope)
        if args is not None and not str(fn.get("name", "")).startswith("workspace"):
            return ModelReply(tool_calls=(WireCall(fn["name"], json.dumps(args)),))
    return ModelReply(content="No offered tool fits the scope.")


def _scope_of_conversation(body: dict[str, Any]) -> dict[str, Any]:
    """The `Scope:` line of whichever user message holds it (the first one, once the
    conversation has a history)."""
    for m in body.get("messages") or []:
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            scope = _scope(m["content"])
            if scope:
                return scope
    return {}


def _called(body: dict[str, Any]) -> set[str]:
    return {
        str((c.get("function") or {}).get("name"))
        for m in body.get("messages") or []
        if m.get("role") == "assistant"
        for c in m.get("tool_calls") or []
    }


# at most this many calls in one step, as a model's parallel tool calls
_DILIGENT_CALLS = 6


# a request id as edge proxies and tracing write it (hex, 16 to 32 digits)
_REQUEST_ID = re.compile(r"\b[0-9a-f]{16,32}\b")


def _question_ids(body: dict[str, Any]) -> dict[str, Any]:
    """What a careful model copies from the question into a tool's arguments: the request
    id it quotes."""
    for m in body.get("messages") or []:
        text = m.get("content") if m.get("role") == "user" else None
        if isinstance(text, str) and text.startswith("Question: "):
            found = _REQUEST_ID.search(text.splitlines()[0].lower())
            return {"request_id": found.group(0)} if found else {}
    return {}


def _plan_diligently(body: dict[str, Any]) -> ModelReply:
    """Every offered tool it can fill from the scope (and the request id the question
    quotes) and has not called yet, each step; a short note once none is left."""
    scope, called = _scope_of_conversation(body) | _question_ids(body), _called(body)
    calls = []
    for tool in body.get("tools") or []:
        fn = tool.get("function") or {}
        name = str(fn.get("name", ""))
        if name in called or name.startswith("workspace"):
            continue
        params = fn.get("parameters") or {}
        args = _arguments(params, scope)
        if args is not None:
            # a careful model names the object too where the tool takes it (a tool may
            # need one of several optional arguments: "give a pod or a service")
            props = params.get("properties") or {}
            known = {"namespace": scope.get("namespace"), "service": scope.get("object")}
            args |= {k: v for k, v in known.items() if v and k in props and k not in args}
            calls.append(WireCall(name, json.dumps(args)))
    if not calls:
        return ModelReply(content="I read what the offered tools could show.")
    return ModelReply(tool_calls=tuple(calls[:_DILIGENT_CALLS]))


def _finalize(prompt: str) -> ModelReply:
    items = dict(_ITEM.findall(prompt))
    sentences = [f"{s.rstrip('.')} [C]." for s in _SENTENCE.split(items.get("C", "")) if s.strip()]
    for key in ("F1", "F2"):
        if key in items:
            text = items[key].split(" (source ")[0].strip().rstrip(".")
            sentences.append(f"{text} [{key}].")
    if "F1" in items:
        sentences.append(f"{INVENTED} [F1].")
        sentences.append("There were 9731 such errors [F1].")
    if "G1" in items:
        sentences.append("Everything else is healthy and works [G1].")
    return ModelReply(content=" ".join(sentences) or "Nothing to say [C].")


def _rerank(prompt: str) -> ModelReply:
    names = re.findall(r"^\d+\. ([\w.]+):", prompt, re.MULTILINE)
    return ModelReply(content=json.dumps(names))


def _script(plan: Callable[[dict[str, Any]], ModelReply]) -> Script:
    def script(body: dict[str, Any]) -> ModelReply:
        if body.get("tools"):
            return plan(body)
        prompt = _last_user(body)
        if "\nItems:\n" in prompt:
            return _finalize(prompt)
        return _rerank(prompt)

    return script


def evidence_echo() -> Script:
    return _script(_plan)


def diligent() -> Script:
    """`evidence_echo` with a planner that reads every tool it is offered and can fill:
    the scripted stand-in for a model that plans every objective (`--planning free`)."""
    return _script(_plan_diligently)
