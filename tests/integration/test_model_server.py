"""The scripted model server, driven by the real `openai.AsyncOpenAI` client over HTTP."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from evals.simulators.model_server import (
    ModelReply,
    ModelServer,
    Script,
    WireCall,
    estimate_tokens,
)

ROOT = Path(__file__).resolve().parents[2]
MESSAGES: list[Any] = [
    {"role": "system", "content": "You investigate infrastructure."},
    {"role": "user", "content": "Why is <service> failing in <env>?"},
]
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "logs__search",
            "description": "Search logs.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
]


@asynccontextmanager
async def model(
    script: Script | Sequence[ModelReply], *, timeout: float = 5.0, strict: bool = False
) -> AsyncIterator[tuple[openai.AsyncOpenAI, ModelServer]]:
    with ModelServer(script) as server:
        client = openai.AsyncOpenAI(
            base_url=server.url,
            api_key="unused",
            max_retries=0,
            timeout=timeout,
            _strict_response_validation=strict,
        )
        async with client:
            yield client, server


async def ask(client: openai.AsyncOpenAI, **extra: Any) -> Any:
    return await client.chat.completions.create(
        model="scripted", messages=MESSAGES, max_tokens=256, temperature=0.0, **extra
    )


async def test_content_reply_comes_back_as_a_chat_completion() -> None:
    async with model([ModelReply(content="The pods are out of memory.")]) as (client, server):
        resp = await ask(client)
    assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/v1")
    assert resp.object == "chat.completion"
    assert resp.model == "scripted"
    assert resp.id
    assert len(resp.choices) == 1
    choice = resp.choices[0]
    assert choice.index == 0
    assert choice.finish_reason == "stop"
    assert choice.message.role == "assistant"
    assert choice.message.content == "The pods are out of memory."
    assert choice.message.tool_calls is None


async def test_tool_calls_come_back_exactly_as_scripted_even_invalid_json() -> None:
    calls = (
        WireCall("logs__search", '{"query": "error"}'),
        WireCall("metrics__query", '{"promql": "up", '),  # truncated JSON, on purpose
        WireCall("weird.name-1", "not json at all"),
    )
    async with model([ModelReply(tool_calls=calls)]) as (client, _server):
        resp = await ask(client, tools=TOOLS)
    choice = resp.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    got = choice.message.tool_calls
    assert [(c.type, c.function.name, c.function.arguments) for c in got] == [
        ("function", c.name, c.arguments) for c in calls
    ]
    assert len({c.id for c in got}) == 3  # ids are unique, so tool results can answer them


async def test_content_and_tool_calls_together() -> None:
    reply = ModelReply(content="Checking logs.", tool_calls=(WireCall("logs__search", "{}"),))
    async with model([reply]) as (client, _server):
        resp = await ask(client, tools=TOOLS)
    msg = resp.choices[0].message
    assert msg.content == "Checking logs."
    assert [c.function.name for c in msg.tool_calls] == ["logs__search"]
    assert resp.choices[0].finish_reason == "tool_calls"


async def test_status_429_raises_rate_limit_error() -> None:
    async with model([ModelReply(status=429, content="slow down")]) as (client, _server):
        with pytest.raises(openai.RateLimitError) as caught:
            await ask(client)
    assert caught.value.status_code == 429
    assert caught.value.code == "rate_limit_exceeded"
    assert "slow down" in caught.value.message


async def test_status_500_raises_internal_server_error() -> None:
    async with model([ModelReply(status=500)]) as (client, _server):
        with pytest.raises(openai.InternalServerError) as caught:
            await ask(client)
    assert caught.value.status_code == 500
    assert caught.value.type == "server_error"


async def test_non_json_200_body_is_returned_as_a_str_by_default() -> None:
    # What the openai client really does with a 200 whose content-type is not JSON: unless
    # the client was built with `_strict_response_validation=True`, `create` does NOT raise;
    # it returns the body's text as a plain `str` instead of a ChatCompletion. A caller that
    # goes on to read `resp.choices` then gets an AttributeError, which is no openai.APIError.
    page = "<html><body>502 Bad Gateway</body></html>"
    async with model([ModelReply(raw_body=page)]) as (client, _server):
        resp = await ask(client)
    assert isinstance(resp, str)
    assert resp == page
    with pytest.raises(AttributeError):
        _ = resp.choices  # type: ignore[attr-defined]


async def test_non_json_200_body_raises_only_under_strict_validation() -> None:
    page = "<html>maintenance</html>"
    async with model([ModelReply(raw_body=page)], strict=True) as (client, _server):
        with pytest.raises(openai.APIResponseValidationError) as caught:
            await ask(client)
    assert caught.value.body == page


async def test_raw_body_keeps_its_status() -> None:
    async with model([ModelReply(raw_body="<html>oops</html>", status=502)]) as (client, _):
        with pytest.raises(openai.InternalServerError) as caught:
            await ask(client)
    assert caught.value.status_code == 502
    assert caught.value.response.headers["content-type"].startswith("text/html")
    assert caught.value.response.text == "<html>oops</html>"


async def test_empty_choices() -> None:
    async with model([ModelReply(content="ignored", empty_choices=True)]) as (client, _server):
        resp = await ask(client)
    assert resp.object == "chat.completion"
    assert resp.choices == []
    assert resp.usage is not None


async def test_delay_past_the_client_timeout_raises_and_stop_is_immediate() -> None:
    async with model([ModelReply(content="late", delay_s=30.0)], timeout=0.2) as (client, _):
        with pytest.raises(openai.APITimeoutError):
            await ask(client)
        stopping = time.monotonic()
    assert time.monotonic() - stopping < 1.0  # the sleeping reply is cancelled, not awaited


async def test_short_delay_still_answers() -> None:
    async with model([ModelReply(content="slow", delay_s=0.05)]) as (client, _server):
        started = time.monotonic()
        resp = await ask(client)
    assert time.monotonic() - started >= 0.05
    assert resp.choices[0].message.content == "slow"


async def test_usage_is_estimated_when_not_given() -> None:
    calls = (WireCall("logs__search", '{"query": "oom"}'),)
    async with model([ModelReply(content="Looking.", tool_calls=calls)]) as (client, server):
        resp = await ask(client, tools=TOOLS)
    body = server.requests[0]
    prompt = estimate_tokens(json.dumps(body["messages"]) + json.dumps(body["tools"]))
    completion = estimate_tokens("Looking." + '{"query": "oom"}')
    assert resp.usage.prompt_tokens == prompt > 0
    assert resp.usage.completion_tokens == completion > 0
    assert resp.usage.total_tokens == prompt + completion


async def test_usage_given_by_the_script_is_sent_as_is() -> None:
    reply = ModelReply(content="x", prompt_tokens=1234, completion_tokens=56)
    async with model([reply]) as (client, _server):
        resp = await ask(client)
    assert (resp.usage.prompt_tokens, resp.usage.completion_tokens) == (1234, 56)
    assert resp.usage.total_tokens == 1290


def test_estimate_tokens_is_a_quarter_of_the_characters_rounded_up() -> None:
    assert [estimate_tokens("x" * n) for n in (0, 1, 4, 5, 8, 9)] == [0, 1, 1, 2, 2, 3]


async def test_requests_records_the_bodies_in_order_with_tools() -> None:
    replies = [ModelReply(content="one"), ModelReply(content="two")]
    async with model(replies) as (client, server):
        first = await ask(client, tools=TOOLS)
        second = await client.chat.completions.create(
            model="other-name", messages=[{"role": "user", "content": "again"}]
        )
        recorded = server.requests
        recorded[0]["messages"].clear()  # a copy: changing it changes nothing recorded
        again = server.requests
    assert [first.choices[0].message.content, second.choices[0].message.content] == [
        "one",
        "two",
    ]
    assert len(again) == 2
    assert again[0]["model"] == "scripted"
    assert again[0]["messages"] == MESSAGES
    assert again[0]["tools"] == TOOLS
    assert again[0]["max_tokens"] == 256
    assert again[0]["temperature"] == 0.0
    assert again[1]["model"] == "other-name"
    assert again[1]["messages"] == [{"role": "user", "content": "again"}]
    assert "tools" not in again[1]  # the client omits what it was not given


async def test_callable_script_sees_the_request_body() -> None:
    def script(body: dict[str, Any]) -> ModelReply:
        last = body["messages"][-1]["content"]
        return ModelReply(content=f"echo: {last}; tools: {len(body.get('tools') or [])}")

    async with model(script) as (client, _server):
        resp = await ask(client, tools=TOOLS)
    assert resp.choices[0].message.content == "echo: Why is <service> failing in <env>?; tools: 1"


async def test_sequence_past_its_end_answers_500_saying_the_script_ran_out() -> None:
    async with model([ModelReply(content="only one")]) as (client, server):
        assert (await ask(client)).choices[0].message.content == "only one"
        with pytest.raises(openai.InternalServerError) as caught:
            await ask(client)
        assert len(server.requests) == 2
    assert caught.value.status_code == 500
    assert "ran out" in caught.value.message


async def test_script_that_raises_answers_500_with_the_exception_text() -> None:
    def script(_body: dict[str, Any]) -> ModelReply:
        raise ValueError("no rule for this prompt")

    async with model(script) as (client, _server):
        with pytest.raises(openai.InternalServerError) as caught:
            await ask(client)
    assert "no rule for this prompt" in caught.value.message


async def test_malformed_request_bodies_answer_400_and_are_not_recorded() -> None:
    async with model([ModelReply(content="unused")]) as (_client, server):
        async with httpx.AsyncClient(base_url=server.url) as raw:
            not_json = await raw.post("/chat/completions", content=b"{not json")
            no_messages = await raw.post("/chat/completions", json={"model": "scripted"})
            a_list = await raw.post("/chat/completions", json=[1, 2])
        recorded = server.requests
    for resp in (not_json, no_messages, a_list):
        assert resp.status_code == 400
        assert resp.json()["error"]["type"] == "invalid_request_error"
    assert recorded == []


async def test_models_endpoint_lists_the_model() -> None:
    with ModelServer([], model="scripted-7b") as server:
        async with openai.AsyncOpenAI(
            base_url=server.url, api_key="unused", max_retries=0, timeout=5.0
        ) as client:
            page = await client.models.list()
    assert [m.id for m in page.data] == ["scripted-7b"]


def policy() -> Callable[[dict[str, Any]], ModelReply]:
    """A Script factory for the command-line test below (`--policy MODULE:CALLABLE`)."""

    def script(body: dict[str, Any]) -> ModelReply:
        if body["messages"][-1]["content"] == "take your time":
            return ModelReply(content="late", delay_s=60.0)
        return ModelReply(content=f"{len(body['messages'])} messages")

    return script


def test_command_line_serves_a_policy_until_sigterm() -> None:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evals.simulators.model_server",
            "--port",
            "0",
            "--policy",
            "tests.integration.test_model_server:policy",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        assert line.startswith("model server: http://127.0.0.1:") and line.endswith("/v1")
        url = line.removeprefix("model server: ")
        resp = httpx.post(
            f"{url}/chat/completions", json={"model": "scripted", "messages": MESSAGES}
        )
        assert resp.status_code == 200
        assert resp.json()["choices"][0]["message"]["content"] == "2 messages"
        # a reply still sleeping does not hold the shutdown up
        slow = json.dumps({"messages": [{"role": "user", "content": "take your time"}]})
        port = int(url.rsplit(":", 1)[1].removesuffix("/v1"))
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\n"
                + f"Content-Length: {len(slow)}\r\n\r\n{slow}".encode()
            )
            time.sleep(0.1)  # the request reaches the script and starts sleeping
            stopping = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=5) == 0
        assert time.monotonic() - stopping < 2.0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
