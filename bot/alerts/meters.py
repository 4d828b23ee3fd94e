"""What the alert receiver tells /metrics: notifications in, groups opened, investigations
run and held back by each safety valve, duplicates, storms; on the process's registry."""

from __future__ import annotations

from enum import StrEnum

from prometheus_client import CollectorRegistry, Counter, Gauge

__all__ = ["AlertMeters", "GroupOutcome", "Held", "Rejected"]


class Rejected(StrEnum):
    """Why a notification was refused at the door."""

    UNAUTHORIZED = "unauthorized"
    TOO_LARGE = "too_large"
    MALFORMED = "malformed"
    BUSY = "busy"  # too many notifications in hand: the sender retries


class GroupOutcome(StrEnum):
    """What became of an alert group seen for the first time."""

    THREAD = "thread"  # a thread of its own
    STORM = "storm"  # listed in the channel's storm summary
    UNROUTED = "unrouted"  # no route matches it


class Held(StrEnum):
    """Why an alert that asked for an investigation got none."""

    GROUP_LIMIT = "group_limit"
    QUEUE_FULL = "queue_full"


class AlertMeters:
    def __init__(self, registry: CollectorRegistry) -> None:
        r = registry
        self.notifications = Counter(
            "infrabot_alert_notifications",
            "Alert notifications received",
            ["source", "status"],
            registry=r,
        )
        self.rejected = Counter(
            "infrabot_alert_rejected", "Notifications refused", ["reason"], registry=r
        )
        self.groups = Counter(
            "infrabot_alert_groups", "Alert groups seen first, by outcome", ["outcome"], registry=r
        )
        self.duplicates = Counter(
            "infrabot_alert_duplicates",
            "Notifications that added nothing (a repeat of a group's known alerts)",
            registry=r,
        )
        self.investigations = Counter(
            "infrabot_alert_investigations", "Investigations of alerts started", registry=r
        )
        self.failed = Counter(
            "infrabot_alert_investigation_failures",
            "Investigations of alerts that ended in an error",
            registry=r,
        )
        self.held = Counter(
            "infrabot_alert_investigations_held",
            "Alerts not investigated, by the valve that held them",
            ["valve"],
            registry=r,
        )
        self.resolved = Counter(
            "infrabot_alert_groups_resolved", "Alert threads closed as resolved", registry=r
        )
        self.running = Gauge(
            "infrabot_alert_investigations_running", "Investigations of alerts running", registry=r
        )
        self.peak = Gauge(
            "infrabot_alert_investigations_peak",
            "The most investigations of alerts that ran at once",
            registry=r,
        )
        self.waiting = Gauge(
            "infrabot_alert_investigations_waiting",
            "Investigations of alerts waiting for a slot",
            registry=r,
        )
        self.storms = Gauge(
            "infrabot_alert_storm_channels", "Channels in storm mode now", registry=r
        )
        self._running = 0
        self._peak = 0

    def started(self) -> None:
        self._running += 1
        self.running.set(self._running)
        if self._running > self._peak:
            self._peak = self._running
            self.peak.set(self._peak)
        self.investigations.inc()

    def ended(self) -> None:
        self._running -= 1
        self.running.set(self._running)
