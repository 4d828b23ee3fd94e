"""The arguments every environment-scoped tool shares: `env`, and an optional window;
and the one rule that turns a call's optional start/end into the span a source reads.

One definition for every connector, so the JSON Schema a model sees says the same thing
for each tool and a window that ends before it starts is refused the same way (by the
gate, naming the field) wherever it is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from policy.vocabulary import ARGUMENT_NAMES

if TYPE_CHECKING:
    from policy.toolset import CallContext


class EnvArgs(BaseModel):
    """`env`: closed to the configured environments by the contract's run-time enum."""

    model_config = ConfigDict(extra="forbid")

    env: str = Field(description=ARGUMENT_NAMES["env"])


class WindowArgs(EnvArgs):
    """`env` plus an optional [start, end]; the question's window where left out."""

    start: AwareDatetime | None = Field(default=None, description=ARGUMENT_NAMES["start"])
    end: AwareDatetime | None = Field(default=None, description=ARGUMENT_NAMES["end"])

    @model_validator(mode="after")
    def _ordered(self) -> WindowArgs:
        if self.start is not None and self.end is not None and self.start > self.end:
            raise ValueError("start must not be after end")
        return self


class Bounded(Protocol):
    """A call's arguments with an optional start and end (WindowArgs, or a source's own
    arguments that carry the same two fields)."""

    @property
    def start(self) -> datetime | None: ...

    @property
    def end(self) -> datetime | None: ...


OneBound = Literal["question_bound", "question_length"]
"""Where the missing end of a half-given window comes from: the question window's own
bound, or the question window's length measured from the bound that was given."""

Inverted = Literal["keep", "collapse"]
"""A half-given window can end up inverted (start after end, when the given bound lies
beyond the question window's other end): kept as it is (nothing falls inside it), or
collapsed to the instant that was given."""


@dataclass(frozen=True)
class WindowRule:
    """How one source fills in a call's window; the defaults are the plain rule (each
    missing bound is the question window's)."""

    one_bound: OneBound = "question_bound"
    inverted: Inverted = "keep"
    # a range read past now only returns empty steps: end the span at the clock
    clamp_to_now: bool = False


PLAIN = WindowRule()


def resolve_window(
    args: Bounded, ctx: CallContext, rule: WindowRule = PLAIN
) -> tuple[datetime, datetime]:
    """The [start, end] a call reads: the arguments' bounds win over the question's window
    (`ctx.scope.time` at `ctx.now`), each missing one filled in by the source's rule."""
    default_start, default_end = ctx.scope.time.bounds(ctx.now)
    start, end = args.start, args.end
    if rule.one_bound == "question_length":
        length = default_end - default_start
        end = end or (start + length if start else default_end)
        start = start or end - length
    else:
        start, end = start or default_start, end or default_end
    if rule.inverted == "collapse" and start > end:
        start, end = (start, start) if args.start else (end, end)
    if rule.clamp_to_now:
        end = min(end, ctx.now)
    return start, end
