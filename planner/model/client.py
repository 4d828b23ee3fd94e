"""The model seam: one async method, any OpenAI-compatible server.

`ModelClient.complete(messages, tools, settings) -> ModelTurn`. vLLM, Ollama, llama.cpp
or any OpenAI-compatible endpoint differ only by `base_url`. Unit tests use
`ScriptedModel`, a function of the conversation so far; integration tests drive the real
`openai` client against a scripted HTTP server (evals.simulators.model_server).

The model only *suggests*: the tool names and arguments it returns go through the policy
gate like any other call, and its text never becomes a fact. Every way a server can fail
(an HTTP error, a timeout, a body that is not a completion, no choice) is one
`ModelError` with its `ModelFailure` kind, never an exception of the SDK's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, NotRequired, Protocol, TypedDict

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from policy.contracts import ToolContract


class ModelMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    tool_call_id: str | None = None


class ToolCallRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str  # our tool name (dots restored)
    arguments: dict[str, Any] | None = None
    raw_arguments: str = ""  # what the model sent, kept when it is not valid JSON


ModelMessage.model_rebuild()


class TokenUsage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0


class ModelTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str | None = None
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    elapsed_ms: int = 0
    usage: TokenUsage = Field(default_factory=TokenUsage)


@dataclass(frozen=True)
class CompletionSettings:
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout_s: float = 30.0


class ModelFailure(StrEnum):
    """Why a model call produced no turn: each becomes a gap that names the model."""

    TIMEOUT = "timeout"
    API_ERROR = "api_error"  # an HTTP error status, a refused or reset connection
    UNDECODABLE = "undecodable"  # a body that is not a chat completion
    EMPTY = "empty"  # a completion with no choice
    INVALID = "invalid"  # a choice that does not validate


class ModelError(Exception):
    """The model could not produce a turn."""

    def __init__(self, message: str, kind: ModelFailure = ModelFailure.API_ERROR) -> None:
        super().__init__(message)
        self.kind = kind


class ModelClient(Protocol):
    name: str

    async def complete(
        self,
        messages: Sequence[ModelMessage],
        tools: Sequence[ToolContract],
        settings: CompletionSettings,
    ) -> ModelTurn: ...


class FunctionSpec(TypedDict):
    name: str  # the wire name (`wire_name`)
    description: str
    parameters: dict[str, Any]  # the argument model's JSON Schema


class ToolSpec(TypedDict):
    """A tool as the chat-completions API takes it."""

    type: Literal["function"]
    function: FunctionSpec


class WireFunctionCall(TypedDict):
    name: str  # the wire name (`wire_name`)
    arguments: str  # a JSON object, as text


class WireToolCall(TypedDict):
    id: str
    type: Literal["function"]
    function: WireFunctionCall


class WireMessage(TypedDict):
    """A message as the chat-completions API takes it."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    tool_calls: NotRequired[list[WireToolCall]]
    tool_call_id: NotRequired[str]


def wire_name(tool: str) -> str:
    """OpenAI function names allow [a-zA-Z0-9_-]; ours have dots."""
    return tool.replace(".", "__")


def our_name(wire: str) -> str:
    return wire.replace("__", ".")


def tool_spec(contract: ToolContract) -> ToolSpec:
    """The untrimmed spec: every word of the contract (catalogue.trimmed_spec is sent)."""
    return {
        "type": "function",
        "function": {
            "name": wire_name(contract.name),
            "description": contract.description[:1024],
            "parameters": contract.input_schema(),
        },
    }


@dataclass
class ProviderSettings:
    base_url: str
    model: str
    api_key: SecretStr | None = None


def wire_messages(messages: Sequence[ModelMessage]) -> list[WireMessage]:
    """Our messages as the chat-completions API takes them. Arguments a model sent that
    were not a JSON object are never sent back (llama.cpp answers such a history with an
    HTTP 500): the call goes back with `{}` and its tool message says what was wrong."""
    payload: list[WireMessage] = []
    for m in messages:
        item: WireMessage = {"role": m.role, "content": m.content}
        if m.tool_calls:
            item["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": wire_name(c.name),
                        "arguments": json.dumps(c.arguments or {}, ensure_ascii=False),
                    },
                }
                for c in m.tool_calls
            ]
        if m.tool_call_id:
            item["tool_call_id"] = m.tool_call_id
        payload.append(item)
    return payload


def _failure_of(exc: Exception) -> ModelFailure:
    import openai

    if isinstance(exc, openai.APITimeoutError | TimeoutError):
        return ModelFailure.TIMEOUT
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return ModelFailure.UNDECODABLE
    return ModelFailure.API_ERROR


def _what(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    return f"{type(exc).__name__}" + (f" (HTTP {status})" if status else "")


def _decode_calls(message: Any, model: str) -> list[ToolCallRequest]:
    listed = getattr(message, "tool_calls", None) or []
    if not isinstance(listed, list):
        raise ModelError(f"model {model}: tool_calls is not a list", ModelFailure.INVALID)
    calls = []
    for n, c in enumerate(listed):
        fn = getattr(c, "function", None)
        name = getattr(fn, "name", None)
        if not isinstance(name, str) or not name:
            continue
        given = getattr(fn, "arguments", None)
        args: Any
        if isinstance(given, dict):  # some servers send the object itself, not its text
            args, raw = given, json.dumps(given, ensure_ascii=False)
        else:
            raw = given if isinstance(given, str) else ""
            try:
                args = json.loads(raw or "{}")
            except (json.JSONDecodeError, RecursionError):
                args = None
        calls.append(
            ToolCallRequest(
                id=str(getattr(c, "id", None) or f"call-{n + 1}"),
                name=our_name(name),
                arguments=args if isinstance(args, dict) else None,
                raw_arguments=raw,
            )
        )
    return calls


def _count(value: Any) -> int:
    """A token count as a server reported it; anything but a whole number counts 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


class OpenAICompatibleModel:
    """`openai.AsyncOpenAI` against any OpenAI-compatible base URL; retries are the
    caller's (planner.model.roles), so the SDK's own are off."""

    def __init__(
        self,
        provider: ProviderSettings,
        spec: Callable[[ToolContract], ToolSpec] = tool_spec,
    ) -> None:
        from openai import AsyncOpenAI

        self.name = provider.model
        self._model = provider.model
        self._spec = spec
        self._client = AsyncOpenAI(
            base_url=provider.base_url,
            api_key=provider.api_key.get_secret_value() if provider.api_key else "unused",
            max_retries=0,
        )

    async def complete(
        self,
        messages: Sequence[ModelMessage],
        tools: Sequence[ToolContract],
        settings: CompletionSettings,
    ) -> ModelTurn:
        import openai

        started = time.perf_counter()
        try:
            resp = await self._client.chat.completions.create(
                model=self._model,
                messages=wire_messages(messages),  # type: ignore[arg-type]
                tools=[self._spec(c) for c in tools] or openai.NOT_GIVEN,  # type: ignore[arg-type,misc]
                temperature=settings.temperature,
                max_tokens=settings.max_tokens,
                timeout=settings.timeout_s,
            )
        except (openai.APIError, TimeoutError, json.JSONDecodeError) as exc:
            raise ModelError(f"model {self._model}: {_what(exc)}", _failure_of(exc)) from exc
        # a 200 whose body is not JSON comes back from the SDK as the body's text
        choices = getattr(resp, "choices", None)
        if not isinstance(choices, list):
            raise ModelError(
                f"model {self._model}: the answer is not a chat completion",
                ModelFailure.UNDECODABLE,
            )
        if not choices:
            raise ModelError(f"model {self._model}: the answer has no choice", ModelFailure.EMPTY)
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if message is None or not (content is None or isinstance(content, str)):
            raise ModelError(
                f"model {self._model}: the choice has no message", ModelFailure.INVALID
            )
        usage = getattr(resp, "usage", None)
        return ModelTurn(
            content=content,
            tool_calls=_decode_calls(message, self._model),
            elapsed_ms=int((time.perf_counter() - started) * 1000),
            usage=TokenUsage(
                prompt_tokens=_count(getattr(usage, "prompt_tokens", 0)),
                completion_tokens=_count(getattr(usage, "completion_tokens", 0)),
            ),
        )

    async def served(self, timeout_s: float) -> list[str]:
        """The models the server lists (GET /models); the SDK's errors pass through, for
        `infrabot doctor` to tell a server that lists nothing from one that is down."""
        return [m.id async for m in self._client.models.list(timeout=timeout_s)]

    async def aclose(self) -> None:
        await self._client.close()


class ScriptedModel:
    """A model for unit tests: `script(messages, tools) -> ModelTurn`, no network. A script
    that raises ModelError is a failing model."""

    def __init__(
        self,
        script: Callable[[list[ModelMessage], list[ToolContract]], ModelTurn],
        name: str = "scripted",
    ) -> None:
        self.name = name
        self._script = script
        self.calls = 0

    async def complete(
        self,
        messages: Sequence[ModelMessage],
        tools: Sequence[ToolContract],
        settings: CompletionSettings,
    ) -> ModelTurn:
        self.calls += 1
        return self._script(list(messages), list(tools))
