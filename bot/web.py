"""Fallback web chat: one page (threads, the rendered answer, expandable evidence and tool
calls) and a JSON API, on Starlette.

    POST /api/ask   {thread_id, question[, user]} -> {thread_id, kind, answer, presentation,
                                                      report, markdown}
                    with Accept: application/x-ndjson, a stream of JSON lines: each read
                    as it starts and ends ({"type": "progress", ...}), then the reply
    GET  /api/threads/{thread_id}               -> {thread_id, messages: [...]}
    GET  /api/info                              -> {title, questions, environments, user}
    GET  /healthz (the process is up)  /readyz (ready to answer: 503 while Mattermost is
         not connected; each source's last read)  /metrics (Prometheus text format)

The page renders the structured answer with DOM text nodes (never HTML from the answer:
log lines are untrusted) and only makes http(s) links clickable. The API accepts the
`application/json` media type only and refuses a browser's request from another origin, so
a page elsewhere cannot post a question on a user's behalf.

Identity (`bot.web_identity`): who is asking comes from the deployment (an authenticating
proxy's header, from the proxy's addresses only), never from the body; the demo takes the
page's name as a label and makes no one an admin. A thread belongs to whoever started it:
nobody else can read it or post into it (both are answered "no such thread").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import threading
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from datetime import datetime
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import structlog
import uvicorn
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.conversation import Conversation
from bot.knowledge import KnowledgeDesk, is_remember_request
from bot.presentation import present, without_links_to
from bot.render import markdown_of
from bot.telemetry import METRICS_CONTENT_TYPE, Telemetry
from bot.web_identity import Caller, Identity, Unidentified
from planner import (
    MAX_QUESTION_CHARS,
    Language,
    ProgressEvent,
    ProgressKey,
    ProgressSink,
    ThreadMessage,
    Turn,
    counted,
    language_of,
    reading_lines,
    summarize,
)
from policy.hostile import describe
from policy.redaction import redact

log = structlog.get_logger(__name__)

WEB_CHANNEL = "web"
_THREAD_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_BODY_BYTES = 64 * 1024
_STATIC = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
}
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _asset(name: str) -> str:
    return resources.files("bot").joinpath("static", name).read_text(encoding="utf-8")


class WebThreads:
    """Thread history kept by the server (bounded): the web chat's "Mattermost thread".
    Each thread belongs to the user who started it; to anyone else it does not exist."""

    def __init__(self, *, max_threads: int = 500, max_messages: int = 40) -> None:
        self._threads: OrderedDict[str, list[ThreadMessage]] = OrderedDict()
        self._owners: dict[str, str] = {}
        self._max_threads = max_threads
        self._max_messages = max_messages

    def open_to(self, thread_id: str, user: str) -> bool:
        """Whether `user` may read or post in the thread (theirs, or not started yet)."""
        return self._owners.get(thread_id, user) == user

    def get(self, thread_id: str, user: str) -> list[ThreadMessage]:
        if not self.open_to(thread_id, user):
            return []
        return list(self._threads.get(thread_id, []))

    def add(self, thread_id: str, user: str, *messages: ThreadMessage) -> None:
        """Adds to the user's thread (starting it); a thread of someone else's is kept as
        it is."""
        if not self.open_to(thread_id, user):
            return
        self._owners.setdefault(thread_id, user)
        items = self._threads.setdefault(thread_id, [])
        items.extend(messages)
        del items[: -self._max_messages]
        self._threads.move_to_end(thread_id)
        while len(self._threads) > self._max_threads:
            dropped, _ = self._threads.popitem(last=False)
            self._owners.pop(dropped, None)


class _BadRequest(Exception):
    pass


def _media_type(request: Request) -> str:
    """The request's media type alone ("text/plain; application/json" is text/plain): a
    page on another origin may send a "simple" text/plain body without asking first."""
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


def _cross_origin(request: Request) -> bool:
    """A browser says where a request comes from: another origin than this host's is a
    page elsewhere posting on the user's behalf."""
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin == "null"
    # behind a proxy the host the browser saw is the forwarded one
    hosts = {request.headers.get(h, "").lower() for h in ("host", "x-forwarded-host")}
    return urlsplit(origin).netloc.lower() not in hosts - {""}


async def _read_request(request: Request) -> tuple[str, str, str | None]:
    if _media_type(request) != "application/json":
        raise _BadRequest("send JSON (Content-Type: application/json)")
    if _cross_origin(request):
        raise _BadRequest("a request from another origin is refused")
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise _BadRequest(f"request body over {MAX_BODY_BYTES} bytes")
    try:
        data = json.loads(body)
    except RecursionError:
        raise _BadRequest("the body is nested too deeply") from None
    except ValueError:
        raise _BadRequest("the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise _BadRequest("the body must be a JSON object")
    thread_id = data.get("thread_id")
    question = data.get("question")
    user = data.get("user") or None
    if not isinstance(thread_id, str) or not _THREAD_RE.match(thread_id):
        raise _BadRequest("thread_id: 1-64 letters, digits, '-' or '_'")
    if not isinstance(question, str) or not question.strip():
        raise _BadRequest("question: a non-empty string")
    if len(question) > MAX_QUESTION_CHARS:
        raise _BadRequest(f"question: at most {MAX_QUESTION_CHARS} characters")
    try:
        question.encode("utf-8")
    except UnicodeEncodeError:
        # a lone surrogate ("\ud800") parses as JSON but is no text: it could not be
        # stored, answered or sent back
        raise _BadRequest("question: not valid Unicode text (a lone surrogate)") from None
    if user is not None and not isinstance(user, str):
        raise _BadRequest("user: a string")
    return thread_id, " ".join(question.split()), user


def build_web_app(
    *,
    conversation: Conversation,
    identity: Identity,
    clock: Callable[[], datetime],
    desk: KnowledgeDesk | None = None,
    questions: Sequence[str] = (),
    environments: Sequence[str] = (),
    title: str = "infrabot",
    max_concurrent: int = 4,
    extra_routes: Sequence[BaseRoute] = (),
    telemetry: Telemetry | None = None,
    readiness: Callable[[], Readiness] | None = None,
    allowed_hosts: Sequence[str] = (),
    metrics_here: bool = True,
    unlinked: set[str] | None = None,
) -> Starlette:
    """The chat's app. `metrics_here=False`: /metrics is served on its own port
    (`metrics_app`), not the chat's. `unlinked`: origins whose links open nothing (the
    demo's simulators serve APIs, not Kibana or VMUI): left out of the answers shown."""
    threads = WebThreads()
    slots = asyncio.Semaphore(max_concurrent)
    locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def secured(response: Response) -> Response:
        response.headers.update(_SECURITY_HEADERS)
        return response

    async def index(request: Request) -> Response:
        return secured(Response(_asset("index.html"), media_type="text/html; charset=utf-8"))

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _STATIC:
            return secured(Response("not found", status_code=404))
        return secured(Response(_asset(name), media_type=_STATIC[name]))

    def refused(exc: Unidentified | _BadRequest) -> Response:
        status = exc.status if isinstance(exc, Unidentified) else 400
        return secured(JSONResponse({"error": str(exc)}, status_code=status))

    async def info(request: Request) -> Response:
        try:
            caller: Caller | None = identity.caller(request, None)
        except Unidentified:
            caller = None  # the page still loads, and says why it cannot answer
        return secured(
            JSONResponse(
                {
                    "title": title,
                    "questions": list(questions),
                    "environments": list(environments),
                    # the name the server knows the asker by; None: the page's own field
                    "user": None if identity.names_from_body or caller is None else caller.user,
                }
            )
        )

    async def thread(request: Request) -> Response:
        thread_id = request.path_params["thread_id"]
        if not _THREAD_RE.match(thread_id):
            return secured(JSONResponse({"error": "bad thread_id"}, status_code=400))
        try:
            caller = identity.caller(request, request.query_params.get("user") or None)
        except Unidentified as exc:
            return refused(exc)
        if not threads.open_to(thread_id, caller.user):
            return secured(_no_such_thread())
        messages = [m.model_dump(mode="json") for m in threads.get(thread_id, caller.user)]
        return secured(JSONResponse({"thread_id": thread_id, "messages": messages}))

    async def respond(
        thread_id: str, question: str, caller: Caller, base: str, progress: ProgressSink | None
    ) -> tuple[dict[str, Any], int]:
        """The reply to one question in a thread: (JSON payload, HTTP status)."""
        user, role = caller.user, caller.role
        lock = locks.get(thread_id)
        if lock is None:
            lock = locks[thread_id] = asyncio.Lock()
        async with lock, slots:
            if not threads.open_to(thread_id, user):
                return _NO_SUCH_THREAD_BODY, 404
            history = threads.get(thread_id, user)
            # kept redacted, and an instruction in it described: the thread is read back
            # by GET /api/threads/{id} and is the next turn's history
            asked = ThreadMessage(author=user, text=describe(redact(question)), at=clock())
            if desk is not None:
                reply = desk.answer(
                    channel=WEB_CHANNEL, root_id=thread_id, user=user, role=role, text=question
                )
                if reply is None and is_remember_request(question):
                    context = conversation.memory.last_context(WEB_CHANNEL, thread_id)
                    reply = desk.request(
                        channel=WEB_CHANNEL,
                        root_id=thread_id,
                        user=user,
                        role=role,
                        text=question,
                        thread=history,
                        scope=context.scope.model_dump(mode="json") if context else {},
                        source=f"{base}/#thread={thread_id}",
                    )
                if reply is not None:
                    said = ThreadMessage(author=title, text=reply.text, is_bot=True, at=clock())
                    threads.add(thread_id, user, asked, said)
                    return {
                        "thread_id": thread_id,
                        "kind": reply.kind,
                        "answer": None,
                        "markdown": reply.text,
                    }, 200
            turn = Turn(
                question=question,
                user=user,
                role=role,
                channel=WEB_CHANNEL,
                root_id=thread_id,
                now=clock(),
                thread=history,
            )
            try:
                outcome = await conversation.answer(turn, progress)
            except Exception as exc:
                log.error("web.answer_failed", thread=thread_id, error=repr(exc)[:300])
                return {
                    "error": f"the investigation failed ({type(exc).__name__}); "
                    "nothing was changed, please ask again"
                }, 500
            answer = outcome.answer
            # a link to where nothing opens it (a demo's simulators) is left out
            answer, _ = without_links_to(answer, unlinked or set())
            shown = present(answer)
            markdown = markdown_of(answer, shown)
            threads.add(
                thread_id,
                user,
                asked,
                ThreadMessage(author=title, text=markdown, is_bot=True, at=clock()),
            )
            return _within_limit(
                {
                    "thread_id": thread_id,
                    "kind": "answer",
                    "answer": answer.model_dump(mode="json"),
                    "presentation": shown.model_dump(mode="json"),
                    "report": present(answer, evidence=None).model_dump(mode="json"),
                    "markdown": markdown,
                }
            ), 200

    async def ask(request: Request) -> Response:
        try:
            thread_id, question, claimed = await _read_request(request)
            caller = identity.caller(request, claimed)
        except (_BadRequest, Unidentified) as exc:
            return refused(exc)
        if not threads.open_to(thread_id, caller.user):
            return secured(_no_such_thread())
        base = str(request.base_url).rstrip("/")
        if _NDJSON not in request.headers.get("accept", ""):
            payload, status = await respond(thread_id, question, caller, base, None)
            return secured(JSONResponse(payload, status_code=status))

        async def run(progress: ProgressSink) -> tuple[dict[str, Any], int]:
            return await respond(thread_id, question, caller, base, progress)

        streamed = _streamed(run, language_of(question))
        return secured(StreamingResponse(streamed, media_type=_NDJSON))

    async def health(request: Request) -> Response:
        """The process is up and serving (liveness)."""
        return JSONResponse({"status": "ok"})

    async def ready(request: Request) -> Response:
        """Ready to answer (readiness): the configuration is loaded and Mattermost, where
        configured, is connected; each source's last read is reported, and a source that
        is down does not make the pod unready (a restart would not bring it back)."""
        state = readiness() if readiness is not None else Readiness(ready=True)
        body = state.model_dump(mode="json")
        if telemetry is not None:
            body["sources"] = telemetry.source_report()
        return JSONResponse(body, status_code=200 if state.ready else 503)

    return Starlette(
        middleware=[Middleware(_HostAllowlist, allowed=tuple(allowed_hosts))],
        routes=[
            Route("/", index),
            Route("/static/{name}", static),
            Route("/api/info", info),
            Route("/api/threads/{thread_id}", thread),
            Route("/api/ask", ask, methods=["POST"]),
            Route("/healthz", health),
            Route("/readyz", ready),
            *([Route("/metrics", _metrics_of(telemetry))] if metrics_here else []),
            *extra_routes,
        ],
    )


# the most one reply sends a browser: every fact is bounded, but an answer of many long
# facts is sent four ways (answer, presentation, report, markdown)
MAX_REPLY_CHARS = 1_000_000
# what goes first when a reply is over the limit: the copies the page can do without
_SHED = ("report", "answer", "presentation")


def _within_limit(payload: dict[str, Any]) -> dict[str, Any]:
    """The reply, over MAX_REPLY_CHARS only never: the report, the raw answer and the
    presentation are left out in turn (the page renders the markdown then), and the
    markdown itself is cut last, saying so."""
    size = len(json.dumps(payload, ensure_ascii=False))
    for key in _SHED:
        if size <= MAX_REPLY_CHARS:
            break
        size -= len(json.dumps(payload.pop(key, None), ensure_ascii=False))
        payload["trimmed"] = [*payload.get("trimmed", []), key]
    markdown = str(payload.get("markdown") or "")
    if len(markdown) > MAX_REPLY_CHARS // 2:
        payload["markdown"] = markdown[: MAX_REPLY_CHARS // 2] + "\n\n_[… the rest is cut]_"
    return payload


def _metrics_of(telemetry: Telemetry | None) -> Callable[[Request], Awaitable[Response]]:
    async def metrics(request: Request) -> Response:
        if telemetry is None:
            return Response("no metrics in this process", status_code=404)
        return Response(telemetry.exposition(), media_type=METRICS_CONTENT_TYPE)

    return metrics


def metrics_app(telemetry: Telemetry) -> Starlette:
    """/metrics alone, for a port of its own (`web.metrics_port`): a scraper reaches it
    while the chat's port is open only to the proxy in front of it."""
    return Starlette(routes=[Route("/metrics", _metrics_of(telemetry))])


_NDJSON = "application/x-ndjson"
# another user's thread is answered as one that does not exist: its id tells nothing
_NO_SUCH_THREAD_BODY = {"error": "thread_id: no such thread of yours"}


def _no_such_thread() -> JSONResponse:
    return JSONResponse(_NO_SUCH_THREAD_BODY, status_code=404)


# what a probe or a scraper reaches by the pod's address, whatever name it uses
_ANY_HOST_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    """A Host header's name (its port dropped) against the allowlist: an exact name, or
    "*.<domain>" for any name under it; an empty list allows every name."""
    if not allowed:
        return True
    name = host.strip().lower()
    if name.startswith("[") and "]" in name:  # [::1]:8080
        name = name[1 : name.index("]")]
    elif name.count(":") == 1:  # chat.example.com:8080
        name = name.rsplit(":", 1)[0]
    for entry in allowed:
        entry = entry.strip().lower().strip("[]")
        if entry.startswith("*.") and name.endswith(entry[1:]) and name != entry[2:]:
            return True
        if name == entry:
            return True
    return False


class _HostAllowlist:
    """Refuses a request whose Host is not one the chat is reached by (DNS rebinding: a
    page elsewhere pointing its own name at this address), except the probes'."""

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...]) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") not in _ANY_HOST_PATHS:
            host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
            if not host_allowed(host, self.allowed):
                response = JSONResponse({"error": f"host {host!r} is not served"}, 421)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class Readiness(BaseModel):
    """What `/readyz` says: ready, and why not (each part that is not)."""

    ready: bool
    config: str = "loaded"
    mattermost: str = "not configured"  # "connected", "connecting: <why>"


async def _streamed(
    run: Callable[[ProgressSink], Awaitable[tuple[dict[str, Any], int]]],
    language: Language,
) -> AsyncIterator[bytes]:
    """The answer as a stream of JSON lines: {"type": "progress", ...} for each read as it
    starts and ends, then {"type": "answer" | "error", "status": HTTP status, ...}. A client
    that goes away cancels the turn.

    A progress line is the event (what is read, of which object, where, its state) and what
    the page shows for all reads so far, in the question's language: `status` ("3 of 7
    reads done") and `lines` ("Reading events and logs of X in prod", merged and capped)."""
    events: asyncio.Queue[ProgressEvent] = asyncio.Queue()
    reads: dict[ProgressKey, ProgressEvent] = {}

    def progress(event: ProgressEvent) -> bytes:
        reads[event.key] = event
        summary = summarize(reads.values(), language)
        return _line(
            {
                "type": "progress",
                **event.model_dump(mode="json"),
                "status": counted(summary, language),
                "lines": reading_lines(summary, language),
            }
        )

    task = asyncio.ensure_future(run(events.put_nowait))
    try:
        while not task.done():
            getter = asyncio.ensure_future(events.get())
            await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
            if getter.done():
                yield progress(getter.result())
            else:
                getter.cancel()
        while not events.empty():
            yield progress(events.get_nowait())
        payload, status = task.result()
        yield _line({"type": "answer" if status == 200 else "error", "status": status, **payload})
    finally:
        task.cancel()


def _line(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, ensure_ascii=False) + "\n").encode()


def uvicorn_server(app: Starlette) -> uvicorn.Server:
    return uvicorn.Server(
        uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
            # uvicorn's lines go through the root handler: redacted, and JSON under serve
            log_config=None,
        )
    )


@contextlib.contextmanager
def term_as_exit() -> Iterator[None]:
    """SIGTERM raises SystemExit, so `with` blocks (the demo world's simulator processes)
    are cleaned up; uvicorn re-raises the signal it caught once it has shut down."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _exit(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, _exit)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
