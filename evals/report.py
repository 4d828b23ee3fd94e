"""Evaluation reports: DIR/report.json and one self-contained DIR/report.html.

The JSON keys other tools read ("summary" and "scenarios" with their runs and
failures) are read by other tools: add keys freely, never rename those. The HTML page
has inline CSS only (no scripts, no external assets); every text is escaped.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

from policy.hostile import describe_obj
from policy.redaction import redact_obj


def _percentile(values: Sequence[float], pct: float) -> float | None:
    """Nearest-rank percentile."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)]


def build_report(
    scenarios: list[dict[str, Any]],
    *,
    mode: str,
    model: str | None,
    wall_seconds: float,
    runs: int | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """The report from the runner's scenario entries (see evals.runner)."""
    seconds = [r["seconds"] for s in scenarios for r in s["runs"]]
    run_counts = {len(s["runs"]) for s in scenarios if s["runs"]}
    summary: dict[str, Any] = {
        "scenarios": len(scenarios),
        "completed": sum(1 for s in scenarios if s["completed"]),
        "passed": sum(1 for s in scenarios if s["passed"]),
        "required": sum(1 for s in scenarios if s["required"]),
        "required_passed": sum(1 for s in scenarios if s["required"] and s["passed"]),
        "runs": runs if runs is not None else (max(run_counts) if run_counts else 0),
        "runs_total": len(seconds),
        "mode": mode,
        "model": model,
        "wall_seconds": round(wall_seconds, 3),
        "median_seconds": round(statistics.median(seconds), 3) if seconds else None,
        "p95_seconds": round(p95, 3) if (p95 := _percentile(seconds, 95)) is not None else None,
        "failed": [s["id"] for s in scenarios if not s["passed"]],
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    use = [r["model"] for s in scenarios for r in s["runs"] if "model" in r]
    if use:
        summary["model_use"] = _model_summary(use)
    if error:
        summary["error"] = error
    return {"summary": summary, "scenarios": scenarios}


def sum_tallies(parts: Iterable[Mapping[str, Mapping[str, int]]]) -> dict[str, dict[str, int]]:
    """Per-model tallies (`Timings.by_model`) added up over turns or runs."""
    out: dict[str, dict[str, int]] = {}
    for part in parts:
        for name, tally in part.items():
            row = out.setdefault(name, {})
            for key, value in tally.items():
                row[key] = row.get(key, 0) + int(value)
    return out


def _model_summary(use: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals over every run, and medians per turn (what a user's turn costs)."""
    tokens = [n for u in use for n in u.get("prompt_tokens_per_turn", [])]
    calls = [n for u in use for n in u.get("calls_per_turn", [])]
    out: dict[str, Any] = {
        k: sum(int(u.get(k, 0)) for u in use)
        for k in (
            "calls",
            "failed_calls",
            "prompt_tokens",
            "completion_tokens",
            "latency_ms",
            "format_errors",
            "denied_calls",
            "turns",
        )
    }
    out["by_model"] = sum_tallies(u.get("by_model") or {} for u in use)
    out["median_prompt_tokens_per_turn"] = statistics.median(tokens) if tokens else 0
    out["median_calls_per_turn"] = statistics.median(calls) if calls else 0
    return out


def write_report(directory: Path, report: dict[str, Any]) -> tuple[Path, Path]:
    """Write the report as JSON and HTML, redacted first (see `_redacted`)."""
    report = _redacted(report)
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / "report.json"
    html_path = directory / "report.html"
    json_path.write_text(
        json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )
    html_path.write_text(render_html(report), encoding="utf-8")
    return json_path, html_path


# what the bot answered left its exit redacted already, with the links to our own
# dashboards keeping their queries; redacting it again here would cut those
_ANSWERED = frozenset({"rendered", "answer", "markdown", "tool_calls"})


def _redacted(value: Any) -> Any:
    """The report with everything not already redacted by the bot redacted: the questions
    as the scenario wrote them, the simulators' query log, the checks' expectations and
    error texts. A scenario that plants secrets must not find them kept here."""
    if isinstance(value, dict):
        return {
            k: v
            if k in _ANSWERED
            else _redacted(v)
            if isinstance(v, dict | list)
            # a scalar under a secret-like key ("password", "X-Api-Key") is blanked whole
            else describe_obj(redact_obj({k: v})[k])
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redacted(v) for v in value]
    # and an instruction to the assistant in a question, described like any data's
    return describe_obj(redact_obj(value))


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1d2330;
max-width:1200px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #d5d9e0}
h3{font-size:15px;margin:14px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px;width:100%}
th,td{border:1px solid #d5d9e0;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f2f4f7}
pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:8px;white-space:pre-wrap;
word-break:break-word;font-size:12.5px;max-height:480px;overflow:auto}
details{margin:6px 0 6px 4px}summary{cursor:pointer}
.pass{color:#116329;font-weight:600}.fail{color:#b3261e;font-weight:600}
.muted{color:#5b6475}.run{border-left:3px solid #d5d9e0;padding-left:10px;margin:10px 0}
.run.failed{border-left-color:#b3261e}code{font-size:12.5px}
"""


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _or_dash(value: Any) -> Any:
    return "—" if value is None else value


def _json(value: Any) -> str:
    return _e(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def _verdict(passed: bool, completed: bool = True) -> str:
    if passed:
        return '<span class="pass">PASS</span>'
    return '<span class="fail">FAIL</span>' + ("" if completed else " (incomplete)")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Cells are HTML already (escaped by the caller)."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _failures(failures: Sequence[dict[str, Any]]) -> str:
    if not failures:
        return ""
    rows = [
        [
            _e(f.get("turn")),
            f"<code>{_e(f.get('check'))}</code>",
            _e(f.get("expected")),
            _e(f.get("seen")),
        ]
        for f in failures
    ]
    return "<h3>Failed checks</h3>" + _table(["turn", "check", "expected", "seen"], rows)


def _tool_calls(calls: Sequence[dict[str, Any]]) -> str:
    rows = [
        [
            _e(c.get("tool")),
            f"<pre>{_json(c.get('arguments', {}))}</pre>",
            _e(c.get("status")),
            _e(c.get("duration_ms")),
            _e(c.get("error", "")),
        ]
        for c in calls
    ]
    table = _table(["tool", "arguments", "status", "ms", "error"], rows) if rows else ""
    return f"<details><summary>Tool calls ({len(calls)})</summary>{table}</details>"


def _queries(queries: Sequence[dict[str, Any]]) -> str:
    rows = [
        [
            _e(q.get("source")),
            _e(q.get("env") or "-"),
            _e(q.get("method")),
            f"<code>{_e(q.get('path'))}</code>",
            f"<pre>{_json(q.get('params'))}</pre>" if q.get("params") else "",
            f"<pre>{_json(q.get('body'))}</pre>" if q.get("body") is not None else "",
            _e(q.get("status")),
        ]
        for q in queries
    ]
    table = (
        _table(["source", "env", "method", "path", "params", "body", "status"], rows)
        if rows
        else ""
    )
    return f"<details><summary>Query log ({len(queries)} reads)</summary>{table}</details>"


def _turn(turn: dict[str, Any]) -> str:
    head = (
        f"Turn {_e(turn.get('turn'))} · {_verdict(bool(turn.get('passed')))} · "
        f"{_e(turn.get('user'))} ({_e(turn.get('role'))}) at {_e(turn.get('at'))} · "
        f"{_e(turn.get('seconds'))} s"
    )
    parts = [f"<p><b>Question:</b> {_e(turn.get('question'))}</p>"]
    if "rendered" in turn:
        parts.append(f"<h3>Answer</h3><pre>{_e(turn['rendered'])}</pre>")
        timings = (turn.get("answer") or {}).get("timings") or {}
        parts.append(
            f'<p class="muted">Timings: turn {_e(turn.get("seconds"))} s; answer total '
            f"{_e(timings.get('total_ms'))} ms, tools {_e(timings.get('tools_ms'))} ms, "
            f"model {_e(timings.get('model_ms'))} ms"
            + (
                f"; {_e(timings.get('model_calls'))} model calls, "
                f"{_e(timings.get('prompt_tokens'))} prompt and "
                f"{_e(timings.get('completion_tokens'))} completion tokens, "
                f"{_e(timings.get('model_format_errors'))} format errors, "
                f"{_e(timings.get('model_denied_calls'))} denied calls"
                if timings.get("model_calls")
                else ""
            )
            + "</p>"
        )
        parts.append(
            "<details><summary>Answer structure (JSON)</summary>"
            f"<pre>{_json(turn.get('answer'))}</pre></details>"
        )
        parts.append(_tool_calls(turn.get("tool_calls") or []))
    if "error" in turn:
        parts.append(
            f"<details open><summary>Error</summary><pre>{_e(turn['error'])}</pre></details>"
        )
    parts.append(_queries(turn.get("queries") or []))
    is_open = " open" if not turn.get("passed") else ""
    return f"<details{is_open}><summary>{head}</summary>{''.join(parts)}</details>"


def _run(run: dict[str, Any]) -> str:
    passed = bool(run.get("passed"))
    head = (
        f"Run {_e(run.get('run'))}: {_verdict(passed, bool(run.get('completed')))} · "
        f"{_e(run.get('seconds'))} s answering, {_e(run.get('setup_seconds'))} s setup · "
        f"{_e(run.get('tool_calls'))} tool calls"
    )
    if "model" in run:
        m = run["model"]
        head += (
            f" · model: {_e(m.get('calls'))} calls ({_e(m.get('failed_calls'))} failed), "
            f"{_e(m.get('prompt_tokens'))} prompt + "
            f"{_e(m.get('completion_tokens'))} completion tokens, {_e(m.get('latency_ms'))} ms, "
            f"{_e(m.get('format_errors'))} format errors, {_e(m.get('denied_calls'))} denied"
        )
    body = [_failures(run.get("failures") or [])]
    if "error" in run:
        body.append(f"<pre>{_e(run['error'])}</pre>")
    body += [_turn(t) for t in run.get("turns") or []]
    cls = "run" if passed else "run failed"
    is_open = "" if passed else " open"
    return (
        f'<div class="{cls}"><details{is_open}><summary>{head}</summary>{"".join(body)}'
        "</details></div>"
    )


def _anchor(scenario_id: Any) -> str:
    return "sc-" + _e(scenario_id)


def render_html(report: dict[str, Any]) -> str:
    summary = report.get("summary", {})
    scenarios = report.get("scenarios", [])
    keys = [
        "scenarios",
        "completed",
        "passed",
        "required",
        "required_passed",
        "runs",
        "runs_total",
        "mode",
        "model",
        "wall_seconds",
        "median_seconds",
        "p95_seconds",
        "generated_at",
    ]
    summary_rows = [[_e(k), _e(_or_dash(summary.get(k)))] for k in keys if k in summary]
    for k, v in (summary.get("model_use") or {}).items():
        if k == "by_model":
            for name, tally in v.items():
                shown = ", ".join(f"{key.replace('_', ' ')} {n}" for key, n in tally.items())
                summary_rows.append([_e(f"model {name}"), _e(shown)])
        else:
            summary_rows.append([_e(f"model {k.replace('_', ' ')}"), _e(v)])
    if summary.get("error"):
        summary_rows.append(["error", f'<span class="fail">{_e(summary["error"])}</span>'])
    overview = [
        [
            f'<a href="#{_anchor(s.get("id"))}">{_e(s.get("id"))}</a>',
            _e(s.get("title")),
            "yes" if s.get("required") else "no",
            _verdict(bool(s.get("passed")), bool(s.get("completed"))),
            _e(f"{sum(1 for r in s.get('runs', []) if r.get('passed'))}/{len(s.get('runs', []))}"),
            _e(s.get("median_seconds")),
            _e(sum(len(r.get("failures") or []) for r in s.get("runs", []))),
        ]
        for s in scenarios
    ]
    sections = []
    for s in scenarios:
        tags = ", ".join(s.get("tags") or [])
        runs_html = "".join(_run(r) for r in s.get("runs", [])) or ('<p class="muted">Not run.</p>')
        sections.append(
            f'<section id="{_anchor(s.get("id"))}"><h2>{_e(s.get("id"))} '
            f"{_verdict(bool(s.get('passed')), bool(s.get('completed')))}</h2>"
            f'<p>{_e(s.get("title"))}</p><p class="muted">{_e(s.get("file"))}'
            f" · {'required' if s.get('required') else 'optional'}"
            f"{' · tags: ' + _e(tags) if tags else ''}</p>{runs_html}</section>"
        )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>infrabot evaluation report</title><style>{_CSS}</style></head><body>"
        "<h1>infrabot evaluation report</h1><h2>Summary</h2>"
        + _table(["key", "value"], summary_rows)
        + "<h2>Scenarios</h2>"
        + _table(
            ["id", "title", "required", "verdict", "runs passed", "median s", "failed checks"],
            overview,
        )
        + "".join(sections)
        + "</body></html>\n"
    )
