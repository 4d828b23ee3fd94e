"""What `infrabot serve` tells its operators: `/metrics` in Prometheus format, and the last
health of each source for `/readyz`.

One `Telemetry` per process, with a registry of its own (no process-global collector):
every finished turn is observed once, from its Answer (questions, answers, gaps by
reason, tool calls and their latency by source, refusals by the gate's reason, model
calls and tokens), and a turn that failed is counted as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST as METRICS_CONTENT_TYPE
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from planner import Answer, ToolCallRecord
from policy.errors import ErrorKind

__all__ = ["METRICS_CONTENT_TYPE", "SourceHealth", "Telemetry"]

# the gate's own refusals (policy/gate.py): a call the code would not make
_REFUSALS = frozenset(
    {
        ErrorKind.UNKNOWN_TOOL,
        ErrorKind.NOT_ADMITTED,
        ErrorKind.INVALID_ARGUMENTS,
        ErrorKind.CURRENT_ONLY,
    }
)
# failures in which the source answered, and well: the question asked for what it lacks
_ANSWERED = frozenset(
    {
        ErrorKind.NOT_FOUND,
        ErrorKind.AMBIGUOUS,
        ErrorKind.INVALID_QUERY,
        ErrorKind.UNSUPPORTED,
    }
)
_SECONDS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 45, 90)


@dataclass(frozen=True)
class SourceHealth:
    """How the last read of a source went: `ok` for data or a clean empty read."""

    ok: bool
    status: str
    at: datetime
    error: str | None = None


class Telemetry:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.questions = Counter("infrabot_questions", "Questions asked", registry=r)
        self.answers = Counter(
            "infrabot_answers", "Answers given", ["final"], registry=r
        )  # final: every required objective settled
        self.failed_turns = Counter(
            "infrabot_turns_failed", "Turns that ended in an internal error", registry=r
        )
        self.gaps = Counter("infrabot_gaps", "Gaps in answers, by reason", ["reason"], registry=r)
        self.tool_calls = Counter(
            "infrabot_tool_calls",
            "Tool calls, by source and status",
            ["source", "status"],
            registry=r,
        )
        self.tool_seconds = Histogram(
            "infrabot_tool_call_seconds",
            "Tool call latency, by source",
            ["source"],
            buckets=_SECONDS,
            registry=r,
        )
        self.refused = Counter(
            "infrabot_refused_calls",
            "Calls the policy gate refused, by reason",
            ["reason"],
            registry=r,
        )
        self.model_calls = Counter(
            "infrabot_model_calls", "Model calls, by outcome", ["outcome"], registry=r
        )
        self.model_tokens = Counter(
            "infrabot_model_tokens", "Model tokens, by kind", ["kind"], registry=r
        )
        self.turn_seconds = Histogram(
            "infrabot_turn_seconds", "Time to answer a turn", buckets=_SECONDS, registry=r
        )
        self.sources: dict[tuple[str, str | None], SourceHealth] = {}

    def asked(self) -> None:
        self.questions.inc()

    def failed(self) -> None:
        self.failed_turns.inc()

    def answered(self, answer: Answer, at: datetime) -> None:
        self.answers.labels(final=str(answer.final).lower()).inc()
        for gap in answer.gaps:
            self.gaps.labels(reason=gap.kind.value).inc()
        for call in answer.tool_calls:
            self._call(call, at)
        t = answer.timings
        self.turn_seconds.observe(t.total_ms / 1000)
        if t.model_calls:
            self.model_calls.labels(outcome="ok").inc(t.model_calls - t.model_failed_calls)
            self.model_calls.labels(outcome="failed").inc(t.model_failed_calls)
            self.model_tokens.labels(kind="prompt").inc(t.prompt_tokens)
            self.model_tokens.labels(kind="completion").inc(t.completion_tokens)

    def _call(self, call: ToolCallRecord, at: datetime) -> None:
        source = call.source or "unknown"
        status = call.status
        kind = call.error_kind
        if status == "denied" and kind in _REFUSALS:
            self.refused.labels(reason=str(kind)).inc()
            return  # never reached the source: says nothing of its health
        if call.cached or kind == ErrorKind.SOURCE_UNAVAILABLE:
            return  # no read of the source now: a kept list, or skipped as down
        self.tool_calls.labels(source=source, status=status).inc()
        self.tool_seconds.labels(source=source).observe(call.duration_ms / 1000)
        env = call.env
        self.sources[(source, env or None)] = SourceHealth(
            # a name not found or a query refused is the question's, not the source's fault
            ok=status in ("ok", "empty", "partial") or kind in _ANSWERED,
            status=status,
            at=at,
            error=call.error[:200] if call.error else None,
        )

    def exposition(self) -> bytes:
        return generate_latest(self.registry)

    def source_report(self) -> list[dict[str, Any]]:
        return [
            {
                "source": source,
                "env": env,
                "ok": h.ok,
                "status": h.status,
                "at": h.at.isoformat(),
                **({"error": h.error} if h.error else {}),
            }
            for (source, env), h in sorted(self.sources.items(), key=lambda kv: str(kv[0]))
        ]
