"""An alert pasted as JSON: Alertmanager's webhook payload (`{"status": "firing",
"alerts": [...], "commonLabels": {...}}`), the alerts its API returns
(`amtool -o json`, `/api/v2/alerts`: a list of `{"labels", "annotations", "startsAt",
"status": {"state"}}`), or one such alert.

The JSON starts at the first line that opens an object or a list; the lines before it
are the asker's. Its shape is typed here (`_Alert`, `_Payload`) where it enters; a text
that is not such JSON is left to planner.question.alertlines. Reads at most
`MAX_ALERT_CHARS` characters; never raises.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planner.question.alertlines import (
    MAX_ALERT_CHARS,
    MAX_VALUE,
    AlertLines,
    AlertStatus,
    parse_stamp,
)

__all__ = ["json_alert_lines"]


class _State(BaseModel):
    model_config = ConfigDict(extra="ignore")

    state: str | None = None  # the API's "active", "suppressed", "unprocessed"


class _Alert(BaseModel):
    """One alert as Alertmanager's webhook and API write it."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    status: str | _State | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    starts_at: str | None = Field(default=None, alias="startsAt")  # nanoseconds: parse_stamp


class _Payload(BaseModel):
    """The webhook's notification: a status and the alerts it groups."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    status: str | None = None
    alerts: list[_Alert] = Field(default_factory=list)
    common_labels: dict[str, str] = Field(default_factory=dict, alias="commonLabels")


def _status(raw: str | _State | None) -> AlertStatus | None:
    """ "firing"/"resolved" (webhook); an active alert of the API is firing."""
    word = raw.state if isinstance(raw, _State) else raw
    if word in ("firing", "active"):
        return AlertStatus.FIRING
    return AlertStatus.RESOLVED if word == "resolved" else None


def _parsed(text: str) -> tuple[str, object] | None:
    """The lines before the JSON, and the JSON; None when none parses."""
    lines = text[:MAX_ALERT_CHARS].splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip()[:1] in ("{", "[")), None)
    if start is None:
        return None
    try:
        data = json.loads("\n".join(lines[start:]))
    except (ValueError, RecursionError):
        return None
    return "\n".join(lines[:start]).strip(), data


def _alerts(data: object) -> tuple[_Payload, list[_Alert]] | None:
    """The payload and its alerts, whichever of the three shapes `data` has."""
    try:
        if isinstance(data, list):
            alerts = [_Alert.model_validate(item) for item in data[:50]]
            return _Payload(alerts=alerts), alerts
        if isinstance(data, dict) and "alerts" in data:
            payload = _Payload.model_validate(data)
            return payload, payload.alerts
        if isinstance(data, dict) and "labels" in data:
            alert = _Alert.model_validate(data)
            return _Payload(), [alert]
    except (ValidationError, RecursionError):
        return None
    return None


def json_alert_lines(text: str) -> AlertLines | None:
    """The first alert of the JSON pasted in `text`, or None when it holds none."""
    parsed = _parsed(text)
    if parsed is None:
        return None
    own, data = parsed
    found = _alerts(data)
    if found is None or not found[1]:
        return None
    payload, alerts = found
    first = alerts[0]
    labels = {k: v[:MAX_VALUE] for k, v in {**payload.common_labels, **first.labels}.items()}
    if "alertname" not in labels:
        return None
    return AlertLines(
        labels=labels,
        annotations={k.lower(): v[: MAX_VALUE * 4] for k, v in first.annotations.items()},
        status=_status(first.status) or _status(payload.status),
        title_name=None,
        title_values=(),
        severity=labels.get("severity"),
        starts_at=parse_stamp(first.starts_at) if first.starts_at else None,
        own_words=own,
        alerts=len(alerts),
        marked=True,
    )
