"""One model client for every role: limits per role, one retry, then the fallback model.

The reference design runs two models: one plans, a second explains and takes over
planning when the first fails. `ModelSet` holds them and the limits of each role;
`ModelDesk` is its use within one turn: every call goes through `complete`, which

- gives each attempt the role's timeout and max tokens, never more than the time the
  caller has left (`budget_s`);
- retries once, then asks the fallback model, on any failure: an API error, a timeout, an
  undecodable body, a choice that does not validate; a model whose retry failed is not
  asked again in that turn (a rate-limited server stays so for a while);
- recovers tool calls a model wrote as text (planner.model.textcalls) and counts each as a
  format error of that model;
- records every call (model, role, latency, tokens, failure) in the turn's `ModelLedger`,
  which outlives a cancelled loop: a turn cut by its deadline keeps its accounting.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import structlog

from planner.model.client import (
    CompletionSettings,
    ModelClient,
    ModelError,
    ModelFailure,
    ModelMessage,
    ModelTurn,
)
from planner.model.textcalls import recover_calls
from policy.contracts import ToolContract

log = structlog.get_logger(__name__)

ATTEMPTS_PER_MODEL = 2  # one retry
MIN_ATTEMPT_S = 0.05  # less time than this left: the attempt is not started


class ModelRole(StrEnum):
    PLANNER = "planner"  # picks tools for what deterministic routes left open
    FINALIZER = "finalizer"  # writes the answer's prose from the evidence packet
    RERANK = "rerank"  # orders the lexically prefiltered catalogue


@dataclass(frozen=True)
class RoleLimits:
    timeout_s: float = 30.0
    max_tokens: int = 1024


@dataclass(frozen=True)
class ModelSet:
    """The configured models. With one model it does every role; with two, the finalizer
    model explains, and takes over planning (and reranking) when the planner fails, while
    the planner model is the finalizer's fallback."""

    planner: ModelClient
    finalizer: ModelClient | None = None
    limits: dict[ModelRole, RoleLimits] = field(default_factory=dict)
    max_tool_schemas: int = 8
    rerank: bool = True
    synthesis_reserve_s: float = 10.0

    def order(self, role: ModelRole) -> list[ModelClient]:
        """The models asked for a role, first choice first."""
        if self.finalizer is None or self.finalizer is self.planner:
            return [self.planner]
        if role is ModelRole.FINALIZER:
            return [self.finalizer, self.planner]
        return [self.planner, self.finalizer]

    def limits_of(self, role: ModelRole) -> RoleLimits:
        return self.limits.get(role, RoleLimits())

    def names(self) -> list[str]:
        return list(dict.fromkeys(m.name for m in self.order(ModelRole.PLANNER)))

    def desk(self) -> ModelDesk:
        return ModelDesk(self, ModelLedger())

    async def aclose(self) -> None:
        """Close the clients' connection pools (on the loop that used them)."""
        for model in dict.fromkeys(self.order(ModelRole.PLANNER)):
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()


@dataclass
class ModelCall:
    model: str
    role: ModelRole
    ms: int
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failure: ModelFailure | None = None
    format_errors: int = 0


@dataclass
class ModelLedger:
    """What one turn asked of its models."""

    calls: list[ModelCall] = field(default_factory=list)
    denied_calls: int = 0  # tool calls the code refused: unknown names, bad arguments, scope
    failures: list[str] = field(default_factory=list)  # one line per failed role, with models

    @property
    def ms(self) -> int:
        return sum(c.ms for c in self.calls)

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.calls)

    @property
    def format_errors(self) -> int:
        return sum(c.format_errors for c in self.calls)

    def format_errors_by_model(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for c in self.calls:
            if c.format_errors:
                out[c.model] = out.get(c.model, 0) + c.format_errors
        return out


@dataclass(frozen=True)
class _Request:
    """One `ModelDesk.complete` call: what every attempt of every model is asked."""

    role: ModelRole
    messages: Sequence[ModelMessage]
    tools: Sequence[ToolContract]
    known_tools: Collection[str]
    limits: RoleLimits
    ends: float | None  # time.monotonic() by which the call must be done, or None
    single_attempt: bool

    def time_left(self) -> float:
        if self.ends is None:
            return self.limits.timeout_s
        return min(self.limits.timeout_s, self.ends - time.monotonic())

    def recovered(self, turn: ModelTurn) -> tuple[ModelTurn, int]:
        """The turn with the calls a model wrote as text made calls, and how many
        call-shaped blocks its text held (format errors)."""
        if turn.tool_calls or not turn.content or not (self.known_tools or self.tools):
            return turn, 0
        found = recover_calls(turn.content, set(self.known_tools) | {t.name for t in self.tools})
        if found.calls:
            turn = turn.model_copy(update={"tool_calls": found.calls, "content": found.prose})
        return turn, found.format_errors


@dataclass
class ModelDesk:
    models: ModelSet
    ledger: ModelLedger
    down: set[int] = field(default_factory=set)  # models (by id) whose retry failed this turn

    async def complete(
        self,
        role: ModelRole,
        messages: Sequence[ModelMessage],
        tools: Sequence[ToolContract] = (),
        *,
        budget_s: float | None = None,
        known_tools: Collection[str] = (),
        single_attempt: bool = False,
    ) -> tuple[ModelTurn, str]:
        """The first usable turn for `role` and the name of the model that gave it; raises
        ModelError naming every model tried and why when none did. `single_attempt`: one
        try of the first model, no retry, no fallback, nobody marked down."""
        request = _Request(
            role=role,
            messages=messages,
            tools=tools,
            known_tools=known_tools,
            limits=self.models.limits_of(role),
            ends=None if budget_s is None else time.monotonic() + budget_s,
            single_attempt=single_attempt,
        )
        tried: list[str] = []
        order = self.models.order(role)
        for model in order[:1] if single_attempt else order:
            if id(model) in self.down:
                tried.append(f"{model.name}: failed earlier in this turn")
                continue
            turn = await self._from_model(model, request, tried)
            if turn is not None:
                return turn, model.name
        line = f"{role.value}: " + "; ".join(dict.fromkeys(tried))
        self.ledger.failures.append(line)
        raise ModelError(line, ModelFailure.API_ERROR)

    async def _from_model(
        self, model: ModelClient, request: _Request, tried: list[str]
    ) -> ModelTurn | None:
        """A turn from one model within its attempts, or None (why is added to `tried`)."""
        for _ in range(1 if request.single_attempt else ATTEMPTS_PER_MODEL):
            left = request.time_left()
            if left < MIN_ATTEMPT_S:
                tried.append(f"{model.name}: no time left")
                return None
            turn = await self._attempt(model, request, left, tried)
            if turn is not None:
                return turn
        # its retry failed too: the rest of the turn goes to the other model at once
        if not request.single_attempt:
            self.down.add(id(model))
        return None

    async def _attempt(
        self, model: ModelClient, request: _Request, left: float, tried: list[str]
    ) -> ModelTurn | None:
        """One call of one model, recorded in the ledger; None when it failed."""
        role = request.role
        settings = CompletionSettings(max_tokens=request.limits.max_tokens, timeout_s=left)
        started = time.perf_counter()
        try:
            # the SDK's timeout is per read: the wait bounds the whole call
            turn = await asyncio.wait_for(
                model.complete(request.messages, request.tools, settings), left
            )
        except asyncio.CancelledError:
            # the turn's deadline cut the loop: the call still counts
            self._record(model.name, role, started, failure=ModelFailure.TIMEOUT)
            raise
        except (ModelError, TimeoutError) as exc:
            kind = exc.kind if isinstance(exc, ModelError) else ModelFailure.TIMEOUT
            self._record(model.name, role, started, failure=kind)
            tried.append(f"{model.name}: {kind.value}")
            log.warning("model.failed", model=model.name, role=role.value, kind=kind.value)
            return None
        except Exception as exc:  # a client bug must cost the call, not the turn
            log.exception("model.client_error", model=model.name, role=role.value)
            self._record(model.name, role, started, failure=ModelFailure.INVALID)
            tried.append(f"{model.name}: {type(exc).__name__}")
            return None
        turn, errors = request.recovered(turn)
        self._record(
            model.name,
            role,
            started,
            prompt=turn.usage.prompt_tokens,
            completion=turn.usage.completion_tokens,
            format_errors=errors,
        )
        return turn

    def _record(
        self,
        model: str,
        role: ModelRole,
        started: float,
        *,
        prompt: int = 0,
        completion: int = 0,
        failure: ModelFailure | None = None,
        format_errors: int = 0,
    ) -> None:
        self.ledger.calls.append(
            ModelCall(
                model=model,
                role=role,
                ms=int((time.perf_counter() - started) * 1000),
                prompt_tokens=prompt,
                completion_tokens=completion,
                failure=failure,
                format_errors=format_errors,
            )
        )
