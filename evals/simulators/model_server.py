"""A scripted OpenAI-compatible chat-completions server, for tests and evaluations.

The bot's real model client (`openai.AsyncOpenAI`) talks to it over real HTTP, so what is
tested is the whole wire path: the request the client builds, the response it parses, the
errors and timeouts it raises. What the model "says" is a script: a callable from the
request's JSON body to a `ModelReply`, or a sequence of replies replayed one per request.

Endpoints (under /v1, the base URL the openai client takes):

- `POST /v1/chat/completions`: a full `chat.completion` object, or what the reply asks
  for instead: an OpenAI-style error body with a non-200 status, a raw non-JSON body, an
  empty `choices` list, or a delay first (cancelled at once when the server stops). A
  script that raises, or a sequence that has run out, answers 500 with the reason; a body
  that is not a JSON object with a `messages` list answers 400. Only well-formed bodies
  reach the script and `ModelServer.requests`.
- `GET /v1/models`: the one model this server serves.

Usage is the reply's own token counts, or else an estimate (`estimate_tokens`, about four
characters a token): not a tokenizer, only enough for budgets and reports to have numbers.

`python -m evals.simulators.model_server --port PORT --policy MODULE:CALLABLE` serves a
policy (a zero-argument factory returning a script) until SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import importlib
import json
import math
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.sockets import bind
from evals.simulators.server import BackgroundServer, _PromptServer

HOST = "127.0.0.1"


@dataclass(frozen=True)
class WireCall:
    """One tool call the server sends back, exactly as it goes on the wire."""

    name: str  # the wire name, sent as is
    arguments: str  # the raw arguments string: it may be invalid JSON on purpose


@dataclass(frozen=True)
class ModelReply:
    """One answer to one chat-completions request."""

    content: str | None = None
    tool_calls: tuple[WireCall, ...] = ()
    # non-200: an OpenAI-style error body {"error": {"message", "type", "code"}}, whose
    # message is `content` when given
    status: int = 200
    raw_body: str | None = None  # sent as is, with `status` and content-type text/html
    delay_s: float = 0.0  # a sleep before answering (a slow model); cancelled on stop
    empty_choices: bool = False  # a completion with `"choices": []`
    prompt_tokens: int | None = None  # None: estimated from the request
    completion_tokens: int | None = None  # None: estimated from the reply


Script = Callable[[dict[str, Any]], ModelReply]  # the request's JSON body -> the reply


class ScriptExhausted(Exception):
    """A sequence script got more requests than it has replies."""


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4): a documented estimate of a token count, not a tokenizer."""
    return math.ceil(len(text) / 4)


def replay(replies: Sequence[ModelReply]) -> Script:
    """A script answering with `replies` in order, one per request, then raising."""
    queue = tuple(replies)
    lock = threading.Lock()
    served = 0

    def script(_body: dict[str, Any]) -> ModelReply:
        nonlocal served
        with lock:
            index = served
            served += 1
        if index >= len(queue):
            raise ScriptExhausted(
                f"the script ran out: {len(queue)} replies, this is request {index + 1}"
            )
        return queue[index]

    return script


# OpenAI's error `type` and `code` for the statuses a script is likely to ask for
_ERROR_KINDS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}


def error_response(status: int, message: str) -> JSONResponse:
    kind, code = _ERROR_KINDS.get(status, ("server_error" if status >= 500 else "api_error", None))
    return JSONResponse(
        {"error": {"message": message, "type": kind, "code": code}}, status_code=status
    )


class ScriptedModel:
    """The ASGI app: answers requests from a script and records their bodies."""

    def __init__(self, script: Script | Sequence[ModelReply], model: str = "scripted") -> None:
        self._script: Script = script if callable(script) else replay(script)
        self.model = model
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._completions = 0
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
            ]
        )

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(self._requests)

    async def _models(self, _request: Request) -> Response:
        entry = {"id": self.model, "object": "model", "created": 0, "owned_by": "infrabot-evals"}
        return JSONResponse({"object": "list", "data": [entry]})

    async def _chat(self, request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return error_response(400, f"the request body is not JSON: {exc}")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return error_response(400, "the request body must be a JSON object with `messages`")
        with self._lock:
            self._requests.append(body)
            self._completions += 1
            number = self._completions
        try:
            reply = self._script(copy.deepcopy(body))  # the script may not alter the record
        except Exception as exc:
            return error_response(500, f"the script raised {type(exc).__name__}: {exc}")
        if reply.delay_s > 0:
            await asyncio.sleep(reply.delay_s)  # cancelled when the server stops
        if reply.raw_body is not None:
            return Response(reply.raw_body, status_code=reply.status, media_type="text/html")
        if reply.status != 200:
            message = reply.content or f"scripted error {reply.status}"
            return error_response(reply.status, message)
        return JSONResponse(self._completion(number, body, reply))

    def _completion(self, number: int, body: dict[str, Any], reply: ModelReply) -> dict[str, Any]:
        prompt = reply.prompt_tokens
        if prompt is None:
            sent = json.dumps(body["messages"]) + json.dumps(body.get("tools") or [])
            prompt = estimate_tokens(sent)
        completion = reply.completion_tokens
        if completion is None:
            said = (reply.content or "") + "".join(c.arguments for c in reply.tool_calls)
            completion = estimate_tokens(said)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{number}_{i}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for i, call in enumerate(reply.tool_calls)
            ]
        choice = {
            "index": 0,
            "message": message,
            "finish_reason": "tool_calls" if reply.tool_calls else "stop",
        }
        return {
            "id": f"chatcmpl-scripted-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [] if reply.empty_choices else [choice],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }


class ModelServer:
    """The scripted model on a random port of 127.0.0.1, served from a background thread.

    One use: start, stop (also as a context manager). A sequence script is replayed in
    order; past its end every request answers 500.
    """

    def __init__(self, script: Script | Sequence[ModelReply], model: str = "scripted") -> None:
        self._model = ScriptedModel(script, model)
        self._server = BackgroundServer(self._model.app, HOST)

    @property
    def url(self) -> str:
        """The base URL for `openai.AsyncOpenAI(base_url=...)`: http://127.0.0.1:PORT/v1."""
        return f"{self._server.base_url}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The well-formed request bodies received so far, in order (a copy)."""
        return self._model.requests

    def start(self) -> ModelServer:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def load_policy(spec: str) -> Script | Sequence[ModelReply]:
    """`MODULE:CALLABLE` -> the script that zero-argument factory returns."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"--policy wants MODULE:CALLABLE, not {spec!r}")
    target: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        target = getattr(target, part)
    script: Script | Sequence[ModelReply] = target()
    if not callable(script) and (not isinstance(script, Sequence) or isinstance(script, str)):
        raise TypeError(f"{spec}() returned {type(script).__name__}, not a script")
    return script


class _ForegroundServer(_PromptServer):
    """The simulators' promptly stopping server, run in the foreground: `main` handles the
    signals itself (uvicorn would raise them again after shutdown, ending the process with
    a signal instead of status 0), and stopping cancels a reply still sleeping."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def _serve(server: _ForegroundServer, sock: socket.socket) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, server.wake.set)
    await server.serve(sockets=[sock])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evals.simulators.model_server",
        description="Serve a scripted OpenAI-compatible chat-completions API on 127.0.0.1.",
    )
    parser.add_argument("--port", type=int, default=0, help="0: any free port (default)")
    parser.add_argument(
        "--policy", required=True, help="MODULE:CALLABLE, a zero-argument script factory"
    )
    parser.add_argument("--model", default="scripted", help="the model name served")
    args = parser.parse_args(argv)
    try:
        script = load_policy(args.policy)
    except (ImportError, AttributeError, ValueError, TypeError) as exc:
        parser.error(f"--policy {args.policy}: {exc}")
    app = ScriptedModel(script, args.model).app
    sock = bind(HOST, args.port)
    sock.listen()  # so a client may connect as soon as the URL is printed (uvicorn accepts)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    print(f"model server: http://{HOST}:{sock.getsockname()[1]}/v1", flush=True)
    try:
        asyncio.run(_serve(_ForegroundServer(config), sock))
    finally:
        sock.close()
    return 0


if __name__ == "__main__":
    # run the importable module's main, so that the classes a policy builds its replies
    # from are this server's own (not a second copy of them in __main__)
    from evals.simulators import model_server

    sys.exit(model_server.main())
