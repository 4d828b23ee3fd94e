"""The model seam: one async method, any OpenAI-compatible server.

`ModelClient.complete(messages, tools, settings) -> ModelTurn`. vLLM, Ollama or any
OpenAI-compatible endpoint differ only by `base_url`. Tests use `ScriptedModel`, a
function of the conversation so far; no test reaches a network model.

The model only *suggests*: the tool names and arguments it returns go through the policy
gate like any other call, and its text never becomes a fact.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

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


class ModelTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str | None = None
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    elapsed_ms: int = 0


@dataclass(frozen=True)
class CompletionSettings:
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout_s: float = 30.0


class ModelError(Exception):
    """The model could not produce a turn (timeout, HTTP error, unusable answer)."""


class ModelClient(Protocol):
    name: str

    async def complete(
        self, messages: list[ModelMessage], tools: list[ToolContract], settings: CompletionSettings
    ) -> ModelTurn: ...


def wire_name(tool: str) -> str:
    """OpenAI function names allow [a-zA-Z0-9_-]; ours have dots."""
    return tool.replace(".", "__")


def our_name(wire: str) -> str:
    return wire.replace("__", ".")


def tool_spec(contract: ToolContract) -> dict[str, Any]:
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


class OpenAICompatibleModel:
    """`openai.AsyncOpenAI` against any OpenAI-compatible base URL."""

    def __init__(self, provider: ProviderSettings) -> None:
        from openai import AsyncOpenAI

        self.name = provider.model
        self._model = provider.model
        self._client = AsyncOpenAI(
            base_url=provider.base_url,
            api_key=provider.api_key.get_secret_value() if provider.api_key else "unused",
            max_retries=0,
        )

    async def complete(
        self, messages: list[ModelMessage], tools: list[ToolContract], settings: CompletionSettings
    ) -> ModelTurn:
        import openai

        payload: list[dict[str, Any]] = []
        for m in messages:
            item: dict[str, Any] = {"role": m.role, "content": m.content}
            if m.tool_calls:
                item["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {
                            "name": wire_name(c.name),
                            "arguments": c.raw_arguments or json.dumps(c.arguments or {}),
                        },
                    }
                    for c in m.tool_calls
                ]
            if m.tool_call_id:
                item["tool_call_id"] = m.tool_call_id
            payload.append(item)
        started = time.perf_counter()
        try:
            resp = await self._client.chat.completions.create(
                model=self._model,
                messages=payload,  # type: ignore[arg-type]
                tools=[tool_spec(c) for c in tools] or openai.NOT_GIVEN,  # type: ignore[arg-type,misc]
                temperature=settings.temperature,
                max_tokens=settings.max_tokens,
                timeout=settings.timeout_s,
            )
        except openai.APIError as exc:
            raise ModelError(f"model {self._model}: {type(exc).__name__}") from exc
        if not resp.choices:
            raise ModelError(f"model {self._model}: empty answer")
        msg = resp.choices[0].message
        calls = []
        for c in msg.tool_calls or []:
            fn = getattr(c, "function", None)
            if fn is None:
                continue
            try:
                args = json.loads(fn.arguments or "{}")
                args = args if isinstance(args, dict) else None
            except json.JSONDecodeError:
                args = None
            calls.append(
                ToolCallRequest(
                    id=c.id,
                    name=our_name(fn.name),
                    arguments=args,
                    raw_arguments=fn.arguments or "",
                )
            )
        return ModelTurn(
            content=msg.content,
            tool_calls=calls,
            elapsed_ms=int((time.perf_counter() - started) * 1000),
        )


class ScriptedModel:
    """A model for tests: `script(messages, tools) -> ModelTurn`, no network."""

    def __init__(
        self,
        script: Callable[[list[ModelMessage], list[ToolContract]], ModelTurn],
        name: str = "scripted",
    ) -> None:
        self.name = name
        self._script = script
        self.calls = 0

    async def complete(
        self, messages: list[ModelMessage], tools: list[ToolContract], settings: CompletionSettings
    ) -> ModelTurn:
        self.calls += 1
        return self._script(messages, tools)
