"""The lines of a pasted alert: its labels, annotations, status, start, and the lines
that are not the alert's (the asker's own words).

Formats read (each line on its own, so the work is linear in the text):

- Alertmanager's title `[FIRING:2] <alertname> (<values>)`, its Slack/Mattermost blocks
  (`*Alert:* <summary> - `<severity>``, `*Description:* ...`, `*Details:*` and
  `• *<label>:* `<value>`` lines), and the text/email template's `Labels:` and
  `Annotations:` blocks of ` - <name> = <value>` lines;
- Grafana's message (`**Firing**`, `Value: A=...`, the same `Labels:`/`Annotations:`
  blocks, `Source:`, `Silence:`, `Dashboard:`, `Panel:` links);
- a label set in braces (`{alertname="...", pod="..."}`, `<Alertname>{...}`), one line
  of `alertname=<x>, <name>=<value>` pairs, and a `LABELS = map[<name>:<value> ...]` line;
- the labels in an alert link's query: Alertmanager's `/#/alerts?filter={...}`, Grafana's
  `/alerting/...?matcher=<name>=<value>` and `search=label:<name>=<value>`.

When a notification groups several alerts, the first one's labels and annotations are
kept. Reads at most `MAX_ALERT_CHARS` characters, `MAX_LINE` per line; never raises on
text (planner.question.alert catches what a stamp or a link may raise).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = [
    "MAX_ALERT_CHARS",
    "MAX_VALUE",
    "AlertLines",
    "AlertStatus",
    "parse_stamp",
    "read_alert_lines",
]

MAX_ALERT_CHARS = 20_000  # more than a question may be (planner.turn.early); the rest is not read
MAX_LINE = 2_000
MAX_LABELS = 64
MAX_VALUE = 256


class AlertStatus(StrEnum):
    FIRING = "firing"
    RESOLVED = "resolved"


@dataclass(frozen=True)
class AlertLines:
    """What the lines of a text hold of an alert (nothing, for an ordinary question)."""

    labels: dict[str, str]  # the first alert's, those of a link filling the missing
    annotations: dict[str, str]
    status: AlertStatus | None
    title_name: str | None  # the alert name a title or an `*Alert:*` line gives
    title_values: tuple[str, ...]  # the label values a title lists after the name
    severity: str | None
    starts_at: datetime | None
    own_words: str
    alerts: int  # how many the notification counts or holds
    marked: bool  # a notification's status, title, field or link was seen


# searched in a line: what precedes it is markup or an emoji (":fire: [FIRING:1] ...")
_TITLE = re.compile(
    r"\[(?P<status>FIRING|RESOLVED)(?::(?P<n>\d{1,4}))?[^\]\[]{0,80}\]\s*(?P<rest>.*)", re.I
)
# an emoji's shortcode (":rotating_light:") before a notification's line
_SHORTCODE = re.compile(r":[a-z0-9_+-]{1,40}:")
_STATUS_LINE = re.compile(
    r"[*_#\s]*(?:alerts?\s+)?(?P<status>firing|resolved)(?:\s+alerts?)?[*_:\s]*", re.I
)
# "*Alert:* ...", "Description: ...", "**Summary**: ...": a field of the notification
_FIELD = re.compile(r"[*_\s]*(?P<key>[A-Za-z][A-Za-z _]{0,20}?)[*_]*\s*:[*_]*\s*(?P<value>.*)")
_FIELDS = frozenset(
    {
        "alert", "alerts", "alertname", "summary", "description", "message", "severity",
        "details", "labels", "annotations", "source", "silence", "dashboard", "panel", "value",
        "values", "runbook", "runbook url", "runbook_url", "started", "starts at", "startsat",
        "started at", "ends at", "endsat", "ended", "status", "generatorurl", "graph",
        "fingerprint", "common labels", "common annotations", "group labels",
    }
)  # fmt: skip
# "• *namespace:* `orders`", "- *namespace*: `orders`", " - namespace = orders"
_BULLET = re.compile(
    r"[•\-*·]\s*\*?(?P<key>[a-z_][a-z0-9_]{0,62})(?::\*|\*:|:|\s*=)\s*`?(?P<value>[^`]*)`?",
    re.I,
)
_PAIR = re.compile(
    r"(?<![\w.])(?P<key>[a-z_][a-z0-9_]{0,62})\s*[=:]\s*\"?(?P<value>[^\s,\"\]}]*)\"?"
)
_QUOTED = re.compile(
    r"(?<![a-z0-9_])(?P<key>[a-z_][a-z0-9_]{0,62})\s*=~?\s*\"(?P<value>[^\"]{0,256})\"", re.I
)
_BRACES = re.compile(
    r"(?:(?<![A-Za-z0-9_])(?P<name>[A-Z][A-Za-z0-9_]{0,80}))?\{(?P<body>[^{}]{0,4000})\}"
)
_URL = re.compile(r"https?://[^\s<>|\"'`]{1,2000}")
_STAMP = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<clock>\d{2}:\d{2}(?::\d{2})?)(?:\.\d{1,9})?"
    r"\s?(?P<tz>Z|[+-]\d{2}:?\d{2})?",
    re.I,
)
_SEVERITY = re.compile(r"\s[-–]\s`?(?P<sev>[a-z]{2,12})`?$", re.I)
_ALERTNAME = re.compile(r"[A-Z][A-Za-z0-9_]{2,80}")


def parse_stamp(value: str) -> datetime | None:
    """A time with its zone, as Alertmanager writes it (ISO, or Go's
    "2006-01-02 15:04:05.999 +0000 UTC"); None without a zone."""
    m = _STAMP.search(value[:80])
    if m is None:
        return None
    tz = m["tz"] or ("+00:00" if "utc" in value.lower() else None)
    if tz is None:
        return None
    tz = "+00:00" if tz.upper() == "Z" else tz
    try:
        return datetime.fromisoformat(f"{m['date']}T{m['clock']}{tz}")
    except ValueError:
        return None


def _labels_in_url(url: str) -> dict[str, str]:
    """The labels an alert link's query names (Alertmanager's filter, Grafana's matchers
    and label search); none for any other link."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return {}
    if "/alerting/" in parts.path or parts.path.endswith("/alerting"):
        query = parts.query
    elif parts.fragment.startswith("/alerts") or parts.fragment.startswith("/silences"):
        query = parts.fragment.partition("?")[2]
    else:
        return {}
    found: dict[str, str] = {}
    params = parse_qs(query)
    for raw in params.get("filter", []):
        found |= {m["key"]: m["value"] for m in _QUOTED.finditer(raw)}
    for raw in params.get("matcher", []):
        key, sep, value = raw.partition("=")
        if sep and not key.endswith("!") and re.fullmatch(r"[a-zA-Z_]\w{0,62}", key):
            found.setdefault(key, value.lstrip("~").strip('"'))
    for raw in params.get("search", []):
        for token in unquote(raw).split():
            key, sep, value = token.removeprefix("label:").partition("=")
            if token.startswith("label:") and sep and re.fullmatch(r"[a-zA-Z_]\w{0,62}", key):
                found.setdefault(key, value.strip('"'))
    return found


class _Reading:
    """The state of one pass over the lines: the first alert's labels and fields, and the
    lines that are the asker's."""

    def __init__(self) -> None:
        self.labels: dict[str, str] = {}
        self.annotations: dict[str, str] = {}
        self.url_labels: dict[str, str] = {}
        self.status: AlertStatus | None = None
        self.title_name: str | None = None
        self.title_values: tuple[str, ...] = ()
        self.severity: str | None = None
        self.starts_at: datetime | None = None
        self.own: list[str] = []
        self.block = 0  # which alert the lines belong to (1: the first)
        self.section: Literal["labels", "annotations", None] = None
        self.marked = False  # a status, a title or a field of a notification was seen
        self.titled = 0  # how many alerts the title counts
        self.block_labelled = False  # the alert read now has labels

    def start_block(self) -> None:
        """A new alert begins when the one read so far has labels."""
        if self.block == 0 or self.block_labelled:
            self.block += 1
            self.block_labelled = False

    def label(self, key: str, value: str) -> None:
        self.block_labelled = True
        if self.block <= 1 and len(self.labels) < MAX_LABELS:
            self.labels.setdefault(key, value.strip()[:MAX_VALUE])

    def annotation(self, key: str, value: str) -> None:
        if self.block <= 1 and len(self.annotations) < MAX_LABELS:
            self.annotations.setdefault(key.lower(), value.strip()[: MAX_VALUE * 4])


def _unmarked(text: str) -> str:
    """The line without the emoji (symbols, or their shortcodes) a template puts first
    ("📢 *Alert:* ...", ":fire: [FIRING:1] ...")."""
    at = 0
    while at < len(text):
        if unicodedata.category(text[at]) in ("So", "Cf", "Mn", "Zs"):
            at += 1
        elif (m := _SHORTCODE.match(text, at)) is not None:
            at = m.end()
        else:
            break
    return text[at:]


def _read_line(line: str, r: _Reading) -> None:
    """One line: a part of the alert (recorded in `r`) or the asker's (kept)."""
    text = line.strip()
    for url in _URL.findall(text):
        found = _labels_in_url(url)
        if found:
            r.marked = True
            for k, v in found.items():
                r.url_labels.setdefault(k, v)
            text = text.replace(url, " ")
    text = _unmarked(text.strip(" <>|"))
    if not text:
        r.section = None if not line.strip() else r.section
        return
    if (m := _TITLE.search(text)) is not None:
        r.marked = True
        r.status = AlertStatus(m["status"].lower())
        r.titled = int(m["n"] or 1)
        name = _ALERTNAME.match(m["rest"])
        r.title_name = name.group(0) if name else None
        rest = m["rest"][name.end() if name else 0 :]
        r.title_values = tuple(rest.replace("(", " ").replace(")", " ").split()[:MAX_LABELS])
        return
    if len(text) < 30 and (m := _STATUS_LINE.fullmatch(text)) is not None:
        r.marked = True
        r.status = r.status or AlertStatus(m["status"].lower())
        return
    if r.section is not None and text.startswith("- "):
        key, sep, value = text[2:].partition("=")
        if sep and re.fullmatch(r"[A-Za-z_][\w.]{0,62}", key.strip()):
            if r.section == "labels":
                r.label(key.strip(), value)
            else:
                r.annotation(key.strip(), value)
            return
    if (
        (m := _BULLET.fullmatch(text)) is not None
        # a lower-case name is a label's; a capitalised one only with a value in
        # backticks, and not a field of the notification ("*Alert:* ... - `critical`")
        and (m["key"].islower() or ("`" in text and m["key"].lower() not in _FIELDS))
    ):
        r.label(m["key"], m["value"])
        return
    if (m := _FIELD.fullmatch(text)) is not None and m["key"].strip().lower() in _FIELDS:
        _field(m["key"].strip().lower(), m["value"].strip(), r)
        return
    text = _label_sets(text, r)
    if text:
        r.section = None
        r.own.append(text)


def _field(key: str, value: str, r: _Reading) -> None:
    r.marked = True
    r.section = None
    if key in ("labels", "common labels", "group labels"):
        if key == "labels":
            r.start_block()
        r.section = "labels"
        for m in _PAIR.finditer(value):
            r.label(m["key"], m["value"])
        return
    if key in ("annotations", "common annotations"):
        r.section = "annotations"
        for m in _PAIR.finditer(value):
            r.annotation(m["key"], value[m.start("value") :].split(", ", 1)[0])
        return
    if key in ("alert", "value", "values"):
        if key == "alert" or r.block_labelled:
            r.start_block()
        if key == "alert":
            sev = _SEVERITY.search(value)
            if sev is not None:
                r.severity = r.severity or sev["sev"].lower()
                value = value[: sev.start()]
            name = _ALERTNAME.fullmatch(value.strip())
            if name is not None:
                r.title_name = r.title_name or name.group(0)
            elif value.strip():
                r.annotation("summary", value)
        return
    if key == "alertname":
        r.label("alertname", value.strip("`* "))
    elif key == "severity":
        r.severity = r.severity or value.strip("`* ").lower()[:20] or None
    elif key in ("started", "starts at", "startsat", "started at"):
        r.starts_at = r.starts_at or parse_stamp(value)
    elif key in ("summary", "description", "message"):
        r.annotation(key, value)
    elif key in ("runbook", "runbook url", "runbook_url"):
        r.annotation("runbook_url", value)
    elif key == "status" and value.lower().strip("`* ") in ("firing", "resolved"):
        r.status = AlertStatus(value.lower().strip("`* "))


def _label_sets(text: str, r: _Reading) -> str:
    """Label sets written inline: `{k="v", ...}` (after an alert's name, or holding
    `alertname`), `LABELS = map[k:v ...]`, and `alertname=<x>, k=v` pairs; what is left of
    the line is the asker's."""
    for m in _BRACES.finditer(text):
        pairs = {p["key"]: p["value"] for p in _QUOTED.finditer(m["body"])}
        if "alertname" in pairs or (m["name"] and pairs):
            r.marked = True
            r.start_block()
            if m["name"]:
                r.label("alertname", m["name"])
            for k, v in pairs.items():
                r.label(k, v)
            text = text.replace(m.group(0), " ")
    low = text.lower()
    if low.startswith("value =") and r.marked:
        return ""  # "VALUE = <n>" of a description that lists its value and labels
    at = low.find("map[")
    if at >= 0 and "labels" in low[:at]:
        body = text[at + 4 :].split("]", 1)[0]
        r.marked = True
        for token in body.split():
            key, sep, value = token.partition(":")
            if sep:
                r.label(key, value)
        return ""
    if re.search(r"(?<![\w.])alertname\s*[=:]", text[:MAX_LINE], re.I):
        r.marked = True
        r.start_block()
        for m in _PAIR.finditer(text):
            r.label(m["key"], m["value"])
        return ""
    return text.strip()


def read_alert_lines(text: str) -> AlertLines:
    """Every line of `text` (bounded) read as a part of an alert or the asker's."""
    r = _Reading()
    for line in text[:MAX_ALERT_CHARS].splitlines():
        _read_line(line[:MAX_LINE], r)
    return AlertLines(
        labels={**r.url_labels, **r.labels},
        annotations=r.annotations,
        status=r.status,
        title_name=r.title_name,
        title_values=r.title_values,
        severity=r.severity,
        starts_at=r.starts_at,
        own_words="\n".join(r.own).strip(),
        alerts=max(r.titled, r.block, 1),
        marked=r.marked,
    )
