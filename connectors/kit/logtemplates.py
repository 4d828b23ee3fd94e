"""Error-like lines of any log, grouped by message template, with counts.

Class "generic log evidence": the cause of an incident is often one error line repeated
among thousands of normal ones, written in whatever layout the program uses (JSON, logfmt,
Spring, klog, Go panics, Python tracebacks, PostgreSQL). Instead of a rule per format:

- a *record* is a line and its continuation lines (a stack trace's frames, "Caused by:",
  a traceback's final exception), read as one;
- a record is *error-like* by its level when it states one (ERROR, FATAL, a klog `E`, or a
  WARN that says it failed), by its content when it does not (an exception, "failed",
  "refused", "timeout", "not set", "denied", a panic);
- records are grouped by *template*: their message with numbers, ids, addresses and
  quoted values masked, so a thousand "connection to 10.1.2.3:5432 refused" lines are one
  entry with a count, the first and last time, where it came from, and an example.

Used by every source that reads raw lines; it decides nothing about a cause.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise

from policy.bounded_text import bounded
from policy.facts import LogTemplate
from policy.numbers import Nouns, noun_for
from policy.results import ResultFact

MAX_EXAMPLE = 400

_SEVERE = {"ERROR", "ERR", "FATAL", "CRITICAL", "CRIT", "PANIC", "EMERG", "ALERT", "SEVERE"}
_WARN = {"WARN", "WARNING"}
_LEVEL_WORD = re.compile(
    r"(?<![\w-])(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|CRIT|PANIC|SEVERE)"
    r"(?![\w-])"
)
_LOGFMT_LEVEL = re.compile(r"\b(?:level|lvl|severity)=\"?(\w+)", re.I)
_KLOG = re.compile(r"^([IWEF])\d{4} \d{2}:\d{2}:\d{2}")
_KLOG_LEVEL = {"I": "INFO", "W": "WARN", "E": "ERROR", "F": "FATAL"}
# what a line says when it failed, in any program's words
_FAILED = re.compile(
    r"\b(?:exception|traceback|panic|fatal|errors?|failed|failure|fail|refused|timed out|"
    r"i/o timeout|timeout (?:exceeded|expired|after|while|waiting)|deadline exceeded|denied|"
    r"forbidden|not set|cannot|can't|unable to|no such|expired|unreachable|reset by peer|"
    r"too many|out of memory|oom|unavailable|unauthorized)\b",
    re.I,
)
# "0 errors", "no failures", "without error": a count or a negation of a failure is none
_NONE_FAILED = re.compile(
    r"\b(?:0|no|zero|without|never)\s+(?:\w+\s+)?(?:errors?|failures?|failed|exceptions?)\b",
    re.I,
)
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'|`[^`]*`")
_EXCEPTION_LINE = re.compile(r"^[\w.$]+(?:Error|Exception|Exit|Interrupt|Warning|Fault)\b")
_CONTINUATION = re.compile(
    r"^(?:\s|at |Caused by:|\.\.\. \d+ more|goroutine \d+|created by |File \")"
)
_TRACEBACK = "Traceback (most recent call last)"
# a chained Python exception: one traceback after another, one record
_CHAINED = re.compile(
    r"^(?:During handling of the above exception|The above exception was the direct cause)"
)
_NUMERIC_LEVELS = ((50, "ERROR"), (40, "WARN"), (30, "INFO"), (20, "DEBUG"), (0, "TRACE"))
# the keys are read case-insensitively: Microsoft.Extensions.Logging writes "LogLevel",
# "Message", "Exception"; Serilog's compact JSON "@l", "@m", "@mt", "@x"
_JSON_MESSAGE_KEYS = (
    "msg",
    "message",
    "@m",
    "@mt",
    "error",
    "err",
    "exception",
    "@x",
    "error.message",
)
_JSON_LEVEL_KEYS = ("level", "severity", "lvl", "log.level", "loglevel", "@l")
_TIME = r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"
_MASKS = (
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<id>"),
    # a pod's generated suffix (<replicaset hash>-<5 chars>): the same error from each pod
    (re.compile(r"(?<=[a-z0-9])-[a-z0-9]{8,10}-[a-z0-9]{5}\b"), "-<pod>"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<addr>"),
    (re.compile(_TIME), "<time>"),
    (re.compile(r"\b0x[0-9a-f]+\b|\b[0-9a-f]{12,}\b", re.I), "<hex>"),
    (re.compile(r"\"[^\"]{0,200}\"|'[^']{0,200}'"), "<q>"),
    (re.compile(r"\d+(?:\.\d+)?"), "<n>"),
)  # fmt: skip


@dataclass(frozen=True)
class LogLine:
    """One line as a source read it: when, from where (a pod, an index), its text (bounded
    when made: a 10 MB line costs every rule what a long one costs)."""

    at: datetime
    origin: str
    text: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", bounded(self.text))


@dataclass
class Template:
    key: str
    level: str | None
    example: str
    first: datetime
    last: datetime
    count: int = 0
    origins: list[str] = field(default_factory=list)

    def add(self, at: datetime, origin: str) -> None:
        self.count += 1
        self.first, self.last = min(self.first, at), max(self.last, at)
        if origin not in self.origins:
            self.origins.append(origin)


@dataclass(frozen=True)
class _Record:
    """One logged event: its first line and the lines that continue it (a traceback's),
    each bounded, and at most MAX_RECORD_LINES of them."""

    at: datetime
    origin: str
    head: str
    lines: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "head", bounded(self.head))
        kept = self.lines[:MAX_RECORD_LINES]
        object.__setattr__(self, "lines", tuple(bounded(line) for line in kept))


# the lines of one record read for its error and template: a traceback's worth
MAX_RECORD_LINES = 400


def level_of(text: str) -> str | None:
    """The level a line states (JSON field, logfmt, klog, a level word), upper case."""
    doc = _json(text)
    if doc is not None:
        for key in _JSON_LEVEL_KEYS:
            if (name := level_name(doc.get(key))) is not None:
                return name
        return None
    if re.match(r"^[\w.@-]+=", text) and (m := _LOGFMT_LEVEL.search(text)):
        return m[1].upper()  # a logfmt line (key=value from its start)
    if m := _KLOG.match(text):
        return _KLOG_LEVEL[m[1]]
    m = _LEVEL_WORD.search(text[:160])
    return m[1] if m else None


def level_name(value: object) -> str | None:
    """A stated level as a name: pino / bunyan numbers (50 error, 60 fatal, 40 warn, 30
    info) and words, upper case; None for no level."""
    if isinstance(value, int) and not isinstance(value, bool):
        return "FATAL" if value >= 60 else next(n for v, n in _NUMERIC_LEVELS if value >= v)
    if isinstance(value, str) and value.strip():
        return value.strip().upper()
    return None


def _json(text: str) -> dict[str, object] | None:
    if not text.startswith("{"):
        return None
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # a line nested past the parser's depth
        return None
    if not isinstance(doc, dict):
        return None
    # a key's case is the logger's choice ("LogLevel", "Message"): read as lower case
    return {str(k).lower(): v for k, v in doc.items()}


def message_of(text: str) -> str:
    """What a line says, without its layout: a JSON line's message fields, else the text."""
    doc = _json(text)
    if doc is None:
        return text.strip()
    parts = [said for k in _JSON_MESSAGE_KEYS if (said := _field_said(doc.get(k)))]
    return ": ".join(dict.fromkeys(parts)) or text.strip()


def _field_said(value: object) -> str:
    """A message field as words: a string or a number as is; an error object (pino's and
    bunyan's `err`, ECS's `error`) by its type and message, never its stack."""
    if isinstance(value, str | int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, dict):
        kind = value.get("type") or value.get("name") or value.get("kind")
        message = value.get("message") or value.get("msg")
        said = ": ".join(str(x) for x in (kind, message) if isinstance(x, str) and x)
        target = _target(value)
        return f"{said} ({target})" if said and target else said
    return ""


def _target(error: dict[str, object]) -> str | None:
    """What a structured error says it called: axios's config.url, a URL, Node's
    address and port."""
    config = error.get("config")
    url = error.get("url") or (config.get("url") if isinstance(config, dict) else None)
    if isinstance(url, str) and url:
        return url
    address, port = error.get("address"), error.get("port")
    if isinstance(address, str) and address:
        return f"{address}:{port}" if isinstance(port, int | str) and port else address
    return None


def template_of(message: str) -> str:
    for rx, mask in _MASKS:
        message = rx.sub(mask, message)
    return re.sub(r"\s+", " ", message).strip()[:300]


def _records(lines: Iterable[LogLine]) -> list[_Record]:
    out: list[_Record] = []
    current: list[LogLine] = []

    def close() -> None:
        if current:
            first = current[0]
            out.append(
                _Record(first.at, first.origin, first.text, tuple(x.text for x in current[1:]))
            )

    last_origin: str | None = None
    for line in lines:
        continues = bool(current) and line.origin == last_origin and _continues(current, line)
        if not continues:
            close()
            current = []
        current.append(line)
        last_origin = line.origin
    close()
    return out


def shipped_records(docs: Iterable[tuple[datetime, str, str]]) -> list[_Record]:
    """Records from shipped documents: a document that holds several lines is a record
    (the shipper joined them); one-line documents of the same origin are joined the way
    a pod's log is (a shipper without multiline settings sends a traceback line by line)."""
    whole: list[tuple[datetime, str, str]] = []
    single: list[tuple[datetime, str, str]] = []
    for doc in docs:
        (whole if "\n" in doc[2].strip() else single).append(doc)
    lines = [
        LogLine(at, origin, text) for at, origin, text in sorted(single, key=lambda d: (d[1], d[0]))
    ]
    return sorted([*document_records(whole), *_records(lines)], key=lambda r: r.at)


def _continues(current: list[LogLine], line: LogLine) -> bool:
    """A frame, a "Caused by:", or the exception itself on the line after the message that
    logged it (Java) or after a traceback's frames (Python), unindented; inside a Python
    traceback also a blank line and the sentences that chain one exception to another. A
    new "Traceback" starts a record of its own unless it is such a chained one."""
    text = line.text
    in_traceback = any(_TRACEBACK in x.text for x in current)
    if text.startswith(_TRACEBACK):
        if in_traceback:
            return bool(_CHAINED.match(current[-1].text) or not current[-1].text)
        # the traceback of the error just logged (logger.exception), not of an INFO line
        return level_of(current[0].text) in _SEVERE
    if in_traceback and (not text.strip() or _CHAINED.match(text)):
        return True
    if in_traceback and current[-1].text[:1].isspace() and text[:1].isalpha():
        return True  # the exception a traceback ends with, whatever its class is called
    return bool(_CONTINUATION.match(text) or _EXCEPTION_LINE.match(text.strip()))


def _raised(record: _Record) -> list[str]:
    """The exception lines of a record: a traceback's closing line (unindented, after a
    frame), a Java exception or "Caused by:" line."""
    out: list[str] = []
    lines = [record.head, *record.lines]
    traceback = any(_TRACEBACK in x for x in lines)
    for before, line in pairwise(lines):
        text = line.strip()
        closing = (
            traceback and before[:1].isspace() and line[:1].isalpha() and not _CHAINED.match(line)
        )
        if text and (closing or _EXCEPTION_LINE.match(text) or text.startswith("Caused by:")):
            out.append(text)
    return out


def raised_lines(lines: Iterable[LogLine]) -> set[str]:
    """The exception lines (stripped) the stack traces among `lines` end with: a Python
    traceback's closing line, a Java exception or "Caused by:" line."""
    return {text for record in _records(lines) for text in _raised(record)}


def _summary(record: _Record) -> str:
    """The record's message: a traceback by its exception, a stack trace by its first line
    and its root cause."""
    head = message_of(record.head)
    raised = _raised(record)
    if record.head.startswith(_TRACEBACK):
        return raised[-1] if raised else head
    causes = [x for x in raised if x.startswith("Caused by:")]
    if causes:
        return f"{head} / {causes[-1]}"
    return f"{head} / {raised[-1]}" if raised else head


def _error_like(record: _Record) -> tuple[bool | None, str | None]:
    """(True: error-like, None: a warning that says nothing failed, False: neither; the
    level the record states)."""
    level = level_of(record.head)
    said = " ".join([message_of(record.head), *(x for x in record.lines if not x[:1].isspace())])
    said = _NONE_FAILED.sub(" ", _QUOTED.sub(" ", said))
    if level in _SEVERE:
        return True, level
    if level in _WARN:
        return (True if _FAILED.search(said) else None), level
    raised = any(_TRACEBACK in x for x in record.lines) or bool(_raised(record))
    if raised and level not in _WARN:
        return True, None  # an uncaught exception after whatever line came before it
    if level is not None:
        # a stated level below WARN is not an error, whatever the words (INFO "0 failed")
        return False, level
    return bool(_FAILED.search(said)), None


def document_records(docs: Iterable[tuple[datetime, str, str]]) -> list[_Record]:
    """One record per shipped document (its lines joined by the shipper), in time order."""
    out = []
    for at, origin, text in sorted(docs, key=lambda d: d[0]):
        first, *rest = text.splitlines() or [""]
        out.append(_Record(at, origin, first, tuple(rest)))
    return out


def error_templates(
    lines: Iterable[LogLine], *, records: list[_Record] | None = None
) -> tuple[list[Template], int, int]:
    """(templates: the error-like ones first, most frequent first, then the warnings that
    say nothing failed, so an answer can say what it saw; records read; error-like
    records). `records`: already whole (shipped documents), instead of `lines`."""
    groups: dict[str, Template] = {}
    records = _records(lines) if records is None else records
    errors = 0
    warned: set[str] = set()
    for record in records:
        bad, level = _error_like(record)
        if bad is False:
            continue
        errors += bool(bad)
        summary = _summary(record)
        key = template_of(summary)
        example = summary if len(summary) <= MAX_EXAMPLE else summary[:MAX_EXAMPLE] + " [cut]"
        found = groups.setdefault(key, Template(key, level, example, record.at, record.at))
        found.add(record.at, record.origin)
        if bad is None:
            warned.add(key)
    ranked = sorted(
        groups.values(),
        key=lambda t: (t.key in warned, t.level in _WARN, -t.count, t.first),
    )  # errors, then warnings that failed, then other warnings; the most frequent first
    return ranked, len(records), errors


def template_fact(
    t: Template,
    subject: str,
    *,
    source: str,
    link: str | None,
    service: str | None,
) -> ResultFact:
    """One template as a fact: '<subject>: 33 ERROR lines like "…" from <pods>, first ..
    last', every source's the same way."""
    lines = noun_for(t.count, Nouns.LINE)
    what = f"{t.level} {lines}" if t.level else f"error-like {lines}"
    more = len(t.origins) - 3
    where = ", ".join(t.origins[:3]) + (f" and {more} more" if more > 0 else "")
    first, last = _utc(t.first), _utc(t.last)
    return ResultFact(
        text=f'{subject}: {t.count} {what} like "{t.example}" from {where}, {first} .. {last}',
        source=source,
        observed_at=t.last,
        link=link,
        historical=True,
        attrs=LogTemplate(
            template=t.key,
            level=t.level,
            count=t.count,
            first_seen=first,
            last_seen=last,
            example=t.example,
            origins=t.origins,
            service=service,
        ),
    )


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
