"""What an alerting pipeline POSTs: Alertmanager's webhook (payload version 4) and
Grafana's webhook contact point (the same shape with a few fields of its own), typed
where it enters.

Both group alerts: one notification holds a group's key, its status, the labels the
group shares and the alerts with their own labels, annotations, start, end, link and
fingerprint. Fields neither sends are not required; what is bounded here (the number of
alerts, the length of a label) keeps a hostile body from growing a turn.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = [
    "AlertState",
    "MalformedNotification",
    "Notification",
    "NotificationSource",
    "WebhookAlert",
    "parse_notification",
]

MAX_ALERTS = 200  # alerts read from one notification; Alertmanager's own max_alerts is 0 (all)
MAX_LABEL_CHARS = 1_000
MAX_ANNOTATION_CHARS = 4_000
_ZERO_TIME = "0001-01-01"  # Alertmanager's endsAt of an alert that has not ended


class NotificationSource(StrEnum):
    """Who sent the notification: the two senders share one payload shape."""

    ALERTMANAGER = "alertmanager"
    GRAFANA = "grafana"


class AlertState(StrEnum):
    FIRING = "firing"
    RESOLVED = "resolved"


class MalformedNotification(ValueError):
    """A body that is not a notification; the message names the field."""


def _bounded(values: dict[str, str], limit: int) -> dict[str, str]:
    return {str(k)[:200]: str(v)[:limit] for k, v in list(values.items())[:100]}


class WebhookAlert(BaseModel):
    """One alert of a notification."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    status: AlertState
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    starts_at: datetime | None = Field(default=None, alias="startsAt")
    ends_at: datetime | None = Field(default=None, alias="endsAt")
    generator_url: str = Field(default="", alias="generatorURL")
    fingerprint: str = ""
    # Grafana's links beside the rule's
    dashboard_url: str = Field(default="", alias="dashboardURL")
    panel_url: str = Field(default="", alias="panelURL")
    value_string: str = Field(default="", alias="valueString")

    @field_validator("labels")
    @classmethod
    def _labels(cls, value: dict[str, str]) -> dict[str, str]:
        return _bounded(value, MAX_LABEL_CHARS)

    @field_validator("annotations")
    @classmethod
    def _annotations(cls, value: dict[str, str]) -> dict[str, str]:
        return _bounded(value, MAX_ANNOTATION_CHARS)

    @field_validator("ends_at", mode="before")
    @classmethod
    def _not_ended(cls, value: object) -> object:
        return None if isinstance(value, str) and value.startswith(_ZERO_TIME) else value

    @property
    def name(self) -> str:
        return self.labels.get("alertname", "")

    @property
    def key(self) -> str:
        """The alert's identity within its group: Alertmanager's fingerprint, else one of
        its labels (Alertmanager's own is a hash of them too)."""
        if self.fingerprint:
            return self.fingerprint[:64]
        canonical = json.dumps(sorted(self.labels.items()))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


class Notification(BaseModel):
    """One webhook notification: a group's alerts as they stand now."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    status: AlertState
    receiver: str = ""
    group_key: str = Field(default="", alias="groupKey")
    group_labels: dict[str, str] = Field(default_factory=dict, alias="groupLabels")
    common_labels: dict[str, str] = Field(default_factory=dict, alias="commonLabels")
    common_annotations: dict[str, str] = Field(default_factory=dict, alias="commonAnnotations")
    external_url: str = Field(default="", alias="externalURL")
    truncated_alerts: int = Field(default=0, alias="truncatedAlerts")
    alerts: list[WebhookAlert] = Field(default_factory=list)
    source: NotificationSource = NotificationSource.ALERTMANAGER

    @field_validator("alerts", mode="before")
    @classmethod
    def _few(cls, value: object) -> object:
        return value[:MAX_ALERTS] if isinstance(value, list) else value

    @field_validator("group_labels", "common_labels")
    @classmethod
    def _labels(cls, value: dict[str, str]) -> dict[str, str]:
        return _bounded(value, MAX_LABEL_CHARS)

    @property
    def group(self) -> str:
        """The group's identity: Alertmanager's group key (its route and group labels),
        else the group labels themselves."""
        if self.group_key:
            return hashlib.sha256(self.group_key.encode()).hexdigest()[:16]
        canonical = json.dumps(sorted({**self.group_labels, "": self.receiver}.items()))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    @property
    def labels(self) -> dict[str, str]:
        """The labels the group's alerts share (the route is matched on them)."""
        if self.common_labels:
            return {**self.group_labels, **self.common_labels}
        first = self.alerts[0].labels if self.alerts else {}
        return {**first, **self.group_labels}

    def firing(self) -> list[WebhookAlert]:
        return [a for a in self.alerts if a.status is AlertState.FIRING]


def parse_notification(body: bytes, source: NotificationSource) -> Notification:
    """The notification in `body`; `MalformedNotification` names what is wrong."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise MalformedNotification(f"the body is not JSON ({exc})"[:200]) from None
    if not isinstance(data, dict):
        raise MalformedNotification("the body is not a JSON object")
    try:
        return Notification.model_validate({**data, "source": source})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise MalformedNotification(f"{where}: {first['msg']}"[:300]) from None
