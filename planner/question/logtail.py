"""A question that asks for log lines themselves: "show the last 20 log lines of
<pod>", "покажи последние 10 строк лога <pod>", "the log of the previous (killed)
container of <pod>".

Class "log lines asked, a diagnosis given": the answer is a bounded tail of the container
asked about (its previous run when the question says so), not the story around it.

Read by a grammar of three slots, in English and Russian: a request to show the log, how
many lines (when it says), and which run (the previous one: "previous", "killed",
"crashed", "предыдущ", "упавш"). The pod is a name in the message that extends the
object's name with a pod suffix (a ReplicaSet hash and a pod hash, or an ordinal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_LINES = 20
MAX_LINES = 500

_SHOW_LOG = re.compile(
    # room for a pod's full name between the verb and "logs" ("show the last 5 lines of
    # <workload>-<hash>-<id> logs")
    r"(?:show|print|give|get|tail|paste|list)\b[^.?!\n]{0,100}\blogs?\b|"
    r"\b(?:errors?|exceptions?)\b[^.?!\n]{0,30}\blogs?\b|"
    r"(?:ошибк|исключени)\w{0,3}[^.?!\n]{0,30}(?<![а-яё])лог|"
    r"\blog\s+lines\b|\blines?\s+of\s+(?:the\s+)?log|"
    r"(?:покажи|выведи|дай|скинь|пришли)\b[^.?!\n]{0,100}(?:лог\w{0,3}|строк\w{0,2})|"
    r"строк\w{0,2}\s+лог\w{0,2}",
    re.I,
)
_COUNT = re.compile(
    r"(?:last|latest|final|tail)\s+(\d{1,3})\b|(\d{1,3})\s+(?:last\s+)?(?:log\s+)?lines\b|"
    r"последни\w{0,2}\s+(\d{1,3})\b|(\d{1,3})\s+(?:последни\w{0,2}\s+)?строк",
    re.I,
)
_PREVIOUS = re.compile(
    r"\bprevious\b|\bkilled\b|\bcrashed\b|\bbefore (?:the|its) restart|\blast run\b|"
    r"предыдущ\w{0,3}|упавш\w{0,3}|убит\w{0,3}|до\s+рестарт\w{0,2}|прошл\w{0,3}\s+запуск",
    re.I,
)
# the question asks for the error lines alone: "errors in the logs", "ошибки в логах"
_ERRORS = re.compile(
    r"\berrors?\b|\bexceptions?\b|\btracebacks?\b|\bpanics?\b|"
    r"(?<![а-яё])(?:ошибк|исключени|эксепшн|трейсбек|паник)\w{0,3}",
    re.I,
)
ERROR_LINES = (
    r"(?i)(?:^|[^a-z])(?:error|fatal|critical|crit|panic|severe|emerg|alert|exception|"
    r"traceback|warn|warning)(?:[^a-z]|$)"
)
"""A line at a warning or error level or carrying an exception (RE2: the log tools' grep
syntax); its words are the levels of syslog, log4j, Go, Python and JSON loggers. The
warnings come along so that "no errors" can say what the log did complain about."""
_POD_SUFFIX = r"(?:-[a-z0-9]{6,10})?-[a-z0-9]{5}|-\d{1,3}"


@dataclass(frozen=True)
class LogTail:
    """How many of the latest lines are asked for, and of which run."""

    lines: int
    previous: bool = False
    pods: tuple[str, ...] = ()  # the pods of the object the message names in full
    errors: bool = False  # the error lines of the window alone


def log_tail_asked(message: str) -> LogTail | None:
    """The tail the message asks for, or None when it asks for no log lines."""
    if _SHOW_LOG.search(message) is None:
        return None
    count = _COUNT.search(message)
    given = next((g for g in (count.groups() if count else ()) if g), None)
    lines = max(1, min(int(given), MAX_LINES)) if given else DEFAULT_LINES
    return LogTail(
        lines,
        previous=_PREVIOUS.search(message) is not None,
        errors=_ERRORS.search(message) is not None,
    )


def pods_named(message: str, workload: str | None) -> list[str]:
    """The pods of `workload` the message names by their full name."""
    if not workload:
        return []
    rx = re.compile(rf"(?<![\w.-]){re.escape(workload)}(?:{_POD_SUFFIX})(?![\w.-])", re.I)
    return list(dict.fromkeys(m.group(0).lower() for m in rx.finditer(message)))
