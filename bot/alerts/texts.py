"""What the alert threads say: the root post (the alert), the question an alert asks the
investigation, the closing reply, the notes of the safety valves and the storm summary.

The investigation reads the alert the way it reads one pasted in a question
(planner.question.alert: its subject told from the exporter's labels, its ask from its
name, its time from its start): the question is the alert as Alertmanager's JSON, with the
environment label the configuration names written as the one the reader knows.
"""

from __future__ import annotations

import json
from datetime import datetime, tzinfo

from bot.alerts.payload import Notification, WebhookAlert
from planner import ENV_LABELS, subject_of
from policy.language import Bilingual, Language, phrase, pick

__all__ = [
    "QUESTION_BUDGET",
    "alert_question",
    "closing_text",
    "environment_of",
    "limited_text",
    "refired_text",
    "root_text",
    "storm_text",
]

_MAX_LISTED = 10  # alerts a root post lists by name
_STORM_LISTED = 40  # groups a storm summary lists


def environment_of(labels: dict[str, str], env_label: str, env_values: dict[str, str]) -> str:
    """The environment an alert's labels name ("" when the label is absent)."""
    value = labels.get(env_label, "")
    return env_values.get(value, value)


def alert_question(
    alert: WebhookAlert, notification: Notification, env_label: str, env_values: dict[str, str]
) -> str:
    """The question the alert asks: the alert itself, as the JSON an engineer would paste,
    its environment under the label the reader takes it from. Within `QUESTION_BUDGET`
    characters (a longer question is refused as too long): the annotations the reader
    uses, each cut, then the longest label values left out first (never the name or the
    environment)."""
    labels = {**notification.common_labels, **alert.labels}
    env = environment_of(labels, env_label, env_values)
    if env:
        labels = {k: v for k, v in labels.items() if k not in ENV_LABELS and k != env_label}
        labels[ENV_LABELS[0]] = env
    notes = {**notification.common_annotations, **alert.annotations}
    body = {
        "status": alert.status.value,
        "labels": labels,
        "annotations": {k: notes[k][:_NOTE_CHARS] for k in _READ_NOTES if notes.get(k)},
        "startsAt": alert.starts_at.isoformat() if alert.starts_at else None,
    }
    text = json.dumps(body, ensure_ascii=False, indent=1)
    kept = {"alertname", ENV_LABELS[0]}
    while len(text) > QUESTION_BUDGET and set(labels) - kept:
        longest = max(set(labels) - kept, key=lambda k: (len(labels[k]), k))
        del labels[longest]
        text = json.dumps(body, ensure_ascii=False, indent=1)
    return text


QUESTION_BUDGET = 6_000  # below the longest question a turn reads (8,000)
_READ_NOTES = ("summary", "description", "message")  # what the alert reader takes
_NOTE_CHARS = 1_000


_FIRING: Bilingual = ("FIRING", "ГОРИТ")
_RESOLVED: Bilingual = ("RESOLVED", "РАЗРЕШЁН")
_SINCE: Bilingual = ("since {time}", "с {time}")
_MORE_FIRING: Bilingual = ("{n} alerts firing", "горит алертов: {n}")
_AND_MORE: Bilingual = ("and {n} more", "и ещё {n}")
_LINKS: tuple[tuple[str, Bilingual], ...] = (
    ("rule", ("rule", "правило")),
    ("runbook", ("runbook", "ранбук")),
    ("dashboard", ("dashboard", "дашборд")),
    ("alertmanager", ("Alertmanager", "Alertmanager")),
)


def _clock(at: datetime | None, zone: tzinfo) -> str:
    return at.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z") if at else "?"


def _subject_line(alert: WebhookAlert) -> str:
    """The object the alert is about, from its labels (not the exporter's)."""
    s = subject_of(alert.labels)
    where = "/".join(p for p in (s.namespace, s.workload or s.pod or s.service) if p)
    parts = [
        where,
        f"pod {s.pod}" if s.pod and s.workload else "",
        f"node {s.node}" if s.node else "",
    ]
    return " · ".join(p for p in parts if p)


def _links(alert: WebhookAlert, notification: Notification, language: Language) -> str:
    urls = {
        "rule": alert.generator_url,
        "runbook": alert.annotations.get("runbook_url")
        or notification.common_annotations.get("runbook_url", ""),
        "dashboard": alert.dashboard_url or alert.panel_url,
        "alertmanager": notification.external_url,
    }
    shown = [f"[{pick(label, language)}]({urls[key]})" for key, label in _LINKS if urls[key]]
    return " · ".join(shown)


def root_text(notification: Notification, env: str, zone: tzinfo, language: Language) -> str:
    """The thread's root post: the alert's name, state, severity, environment, the
    objects it is about, its summary and links."""
    firing = notification.firing()
    shown = firing or notification.alerts
    labels = notification.labels
    state = _FIRING if firing else _RESOLVED
    head = [f"**{pick(state, language)}**", f"`{labels.get('alertname', '?')}`"]
    head += [v for v in (labels.get("severity"), env) if v]
    lines = [" · ".join(head)]
    if not shown:
        return lines[0]
    first, listed = shown[0], shown[:_MAX_LISTED]
    subjects = [line for line in dict.fromkeys(_subject_line(a) for a in listed) if line]
    lines += [f"- {s}" for s in subjects]
    extra = len(shown) - len(listed)
    if extra > 0:
        lines.append(f"- {phrase(_AND_MORE, language, n=extra)}")
    summary = first.annotations.get("summary") or first.annotations.get("description", "")
    if summary:
        lines.append("> " + " ".join(summary.split())[:400])
    tail = [phrase(_SINCE, language, time=_clock(first.starts_at, zone))]
    if len(firing) > 1:
        tail.append(phrase(_MORE_FIRING, language, n=len(firing)))
    links = _links(first, notification, language)
    lines.append(" · ".join([*tail, links] if links else tail))
    return "\n".join(lines)


_CLOSED: Bilingual = (
    "Resolved at {time} (firing for {minutes} min). The investigation above is as of when "
    "it fired.",
    "Разрешён в {time} (горел {minutes} мин). Разбор выше — на момент срабатывания.",
)


def closing_text(
    notification: Notification, opened: datetime, zone: tzinfo, language: Language
) -> str:
    """The short reply that closes a resolved group's thread."""
    ends = [a.ends_at for a in notification.alerts if a.ends_at is not None]
    starts = [a.starts_at for a in notification.alerts if a.starts_at is not None]
    end = max(ends) if ends else opened
    start = min(starts) if starts else opened
    minutes = max(0, round((end - start).total_seconds() / 60))
    return phrase(_CLOSED, language, time=_clock(end, zone), minutes=minutes)


_NEW_FIRING: Bilingual = (
    "{n} more alert(s) of this group firing: {names}.",
    "В этой группе загорелось ещё {n}: {names}.",
)
_GROUP_LIMIT: Bilingual = (
    " Not investigated: this group was investigated {limit} times in the last hour.",
    " Не разбираю: эту группу уже разбирали {limit} раз за последний час.",
)
_QUEUE_FULL: Bilingual = (
    " Not investigated: {queued} investigations are already waiting.",
    " Не разбираю: в очереди уже {queued} разборов.",
)
_REFIRED: Bilingual = ("Firing again since {time}.", "Снова горит с {time}.")


def limited_text(
    new: list[WebhookAlert], language: Language, *, group_limit: int = 0, queued: int = 0
) -> str:
    """A note in the thread for alerts not investigated, saying which valve held them."""
    names = ", ".join(_subject_line(a) or a.name for a in new[:_MAX_LISTED])
    text = phrase(_NEW_FIRING, language, n=len(new), names=names)
    if group_limit:
        text += phrase(_GROUP_LIMIT, language, limit=group_limit)
    elif queued:
        text += phrase(_QUEUE_FULL, language, queued=queued)
    return text


def refired_text(alert: WebhookAlert, zone: tzinfo, language: Language) -> str:
    return phrase(_REFIRED, language, time=_clock(alert.starts_at, zone))


_STORM: Bilingual = (
    "**Alert storm**: {n} alert groups arrived within {minutes} min. The first {first} have "
    "threads of their own; these are listed, not investigated one by one:",
    "**Шторм алертов**: {n} групп за {minutes} мин. Первые {first} разбираются в своих "
    "тредах; эти только перечислены:",
)


def storm_text(
    groups: list[Notification], *, first: int, window_s: float, language: Language
) -> str:
    """The one post a storm gets per channel: the groups beyond the limit, by name and
    subject, the newest last."""
    head = phrase(
        _STORM, language, n=first + len(groups), minutes=round(window_s / 60), first=first
    )
    lines = [head]
    for group in groups[:_STORM_LISTED]:
        labels = group.labels
        alerts = group.firing() or group.alerts
        subject = _subject_line(alerts[0]) if alerts else ""
        lines.append(f"- `{labels.get('alertname', '?')}` {subject}".rstrip())
    if len(groups) > _STORM_LISTED:
        lines.append(f"- {phrase(_AND_MORE, language, n=len(groups) - _STORM_LISTED)}")
    return "\n".join(lines)
