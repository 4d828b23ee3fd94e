"""Why something in an answer is not established: a closed set, and the sentence for each.

Every gap an answer carries is a `GapNote`: its reason, the env it is about, what it is
about (a tool, a source, an objective's title) and the detail a source gave (its error,
the coverage of a partial read). Decisions read the reason, never the sentence;
`sentence()` is the only place the words are made, so the same kind of gap reads the
same wherever it arises.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class GapReason(StrEnum):
    # the evidence was read, and is not enough
    PARTIAL_READ = "partial_read"  # nothing found, but the read was cut: absence not proven
    HISTORY_ONLY = "history_only"  # only observations older than "now": cannot confirm now
    ABSENCE_ONLY = "absence_only"  # a complete read found none: no cause is established by it
    TRUNCATED = "truncated"  # some data, but only part of it was read
    # the evidence could not be read
    SOURCE_FAILED = "source_failed"  # the call failed or the gate refused it
    SOURCE_DOWN = "source_down"  # its source failed earlier in the turn
    NO_SOURCE = "no_source"  # no configured tool serves it in this env
    NOT_ALLOWED = "not_allowed"  # the user's role may not use the tools that could
    MISSING_INPUT = "missing_input"  # the question lacks what it needs (a request id)
    NOT_OBSERVED = "not_observed"  # an entity the evidence has not yielded (a node, a pod)
    NOT_BOUND = "not_bound"  # a tool's required arguments could not be bound
    NO_CALL = "no_call"  # no call could be made for it
    OUT_OF_TIME = "out_of_time"  # the turn's time budget ran out first
    # the question itself
    AMBIGUOUS_NAME = "ambiguous_name"
    UNKNOWN_ENV = "unknown_env"
    FUTURE_TIME = "future_time"
    MODEL = "model"  # what the model planner reported it could not do

    @property
    def leaves_unresolved(self) -> bool:
        """Open for lack of input or evidence, not for lack of a source: the objective is
        `unresolved`, not `unavailable`."""
        return self in (
            GapReason.PARTIAL_READ,
            GapReason.HISTORY_ONLY,
            GapReason.MISSING_INPUT,
            GapReason.NOT_OBSERVED,
            GapReason.NO_CALL,
            GapReason.OUT_OF_TIME,
        )


_SENTENCES: dict[GapReason, str] = {
    GapReason.PARTIAL_READ: (
        "{subject} found nothing, but the read was partial ({detail}); absence is not proven"
    ),
    GapReason.HISTORY_ONLY: (
        "{subject} has only historical data (latest observation {detail}); history cannot "
        "confirm the current state"
    ),
    GapReason.ABSENCE_ONLY: (
        "no {subject} was found (complete read of {detail}), so the cause is not established by it"
    ),
    GapReason.TRUNCATED: (
        "{subject} read only part of the data ({detail}); what was not read is not covered"
    ),
    GapReason.SOURCE_FAILED: "{subject}: {detail}",
    GapReason.SOURCE_DOWN: "{subject} is unavailable in this turn: {detail}",
    GapReason.NO_SOURCE: "no source for {subject} is configured",
    GapReason.NOT_ALLOWED: "not allowed for {subject}: {detail}",
    GapReason.MISSING_INPUT: "{detail}",
    GapReason.NOT_OBSERVED: "{detail}",
    GapReason.NOT_BOUND: "{detail}",
    GapReason.NO_CALL: "no call could be made for it",
    GapReason.OUT_OF_TIME: "the turn's time budget ran out before it was read",
    GapReason.AMBIGUOUS_NAME: "the name matches several objects: {detail}",
    GapReason.UNKNOWN_ENV: "{detail}",
    GapReason.FUTURE_TIME: "{detail}",
    GapReason.MODEL: "{detail}",
}


@dataclass(frozen=True)
class GapNote:
    """One thing not established. `env` None: not about one env (the question, a source
    serving every env), and the sentence then names none."""

    reason: GapReason
    env: str | None = None
    subject: str = ""
    detail: str = ""

    def sentence(self) -> str:
        text = _SENTENCES[self.reason].format(subject=self.subject, detail=self.detail)
        return f"{self.env}: {text}" if self.env else text
