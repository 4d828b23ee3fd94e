"""What /metrics and /readyz say about the sources, from the answers' tool calls."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.telemetry import Telemetry
from planner.shapes.answer import Answer, Gap, Timings, ToolCallRecord
from policy.gaps import GapReason
from policy.scope import Scope

AT = datetime(2026, 7, 20, 11, 0, tzinfo=UTC)


def _sample(t: Telemetry, name: str, **labels: str) -> float:
    return t.registry.get_sample_value(name, labels) or 0.0


def _answer(*calls: dict[str, object], gaps: list[Gap] | None = None) -> Answer:
    return Answer(
        question="q",
        scope=Scope(),
        summary="s",
        # every call has arguments and an env (None: a tool without one)
        tool_calls=[
            ToolCallRecord.model_validate({"arguments": {}, "env": None, **c}) for c in calls
        ],
        gaps=gaps or [],
        timings=Timings(total_ms=1200, model_calls=3, model_failed_calls=1, prompt_tokens=900),
    )


def test_reads_refusals_gaps_and_tokens_are_counted_once_each() -> None:
    t = Telemetry()
    t.answered(
        _answer(
            {
                "tool": "k8s.inventory",
                "source": "kubernetes",
                "env": "prod",
                "status": "ok",
                "duration_ms": 0,
                "cached": True,
            },
            {
                "tool": "metrics.rate",
                "source": "victoriametrics",
                "env": "prod",
                "status": "ok",
                "duration_ms": 250,
            },
            {
                "tool": "x.y",
                "source": "policy",
                "status": "denied",
                "duration_ms": 0,
                "error_kind": "not_admitted",
            },
            gaps=[Gap(objective="o", reason="r", kind=GapReason.PARTIAL_READ)],
        ),
        AT,
    )
    # a kept list is no read of the source
    assert _sample(t, "infrabot_tool_calls_total", source="kubernetes", status="ok") == 0
    assert _sample(t, "infrabot_tool_calls_total", source="victoriametrics", status="ok") == 1
    assert _sample(t, "infrabot_tool_call_seconds_sum", source="victoriametrics") == 0.25
    assert _sample(t, "infrabot_refused_calls_total", reason="not_admitted") == 1
    assert _sample(t, "infrabot_gaps_total", reason="partial_read") == 1
    assert _sample(t, "infrabot_model_calls_total", outcome="failed") == 1
    assert _sample(t, "infrabot_model_tokens_total", kind="prompt") == 900
    assert [s["source"] for s in t.source_report()] == ["victoriametrics"]


def test_a_name_not_found_is_no_sign_of_a_source_down() -> None:
    t = Telemetry()
    t.answered(
        _answer(
            {
                "tool": "k8s.pods",
                "source": "kubernetes",
                "env": "prod",
                "status": "error",
                "error_kind": "not_found",
                "error": "no pod x",
                "duration_ms": 5,
            },
            {
                "tool": "logs.search",
                "source": "elasticsearch",
                "env": "prod",
                "status": "error",
                "error_kind": "timeout",
                "error": "read timed out",
                "duration_ms": 10000,
            },
        ),
        AT,
    )
    health = {s["source"]: s for s in t.source_report()}
    assert health["kubernetes"]["ok"] is True
    assert health["elasticsearch"]["ok"] is False
    assert health["elasticsearch"]["error"] == "read timed out"
