"""Pod logs (`GET /api/v1/namespaces/{ns}/pods/{pod}/log`) as the kubelet serves them.

A world stores each container's output as text under "namespace/pod/container" (the
documented key; "namespace/pod/container/previous" may add a previous run). For a
container waiting to restart (CrashLoopBackOff) the documented text is its last
terminated run, which a previous=true read gets, as from a kubelet. A line's
time is when the program wrote it, as the text states it: the RFC 3339 timestamp it
starts with (or has near its start, after a bracket), the time field of a JSON line
("time", "ts", "timestamp", "@timestamp"), or a "22 Apr 2027 10:06:01.118" stamp near
its start (Redis); a line without one (a stack trace continuation) has the time of the
line before it. `timestamps=true` prefixes every line
with that time in RFC3339Nano, as the kubelet does; `sinceSeconds` counts back from the
wall clock, as on a real node (scenario worlds use `sinceTime`, which needs no clock).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

_TS_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)")


class LogRequestError(ValueError):
    """What the API server answers with 400 BadRequest or 404 NotFound for a log read."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def parse_time(text: str) -> datetime | None:
    value = text.strip().replace(" ", "T", 1).replace(",", ".")
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    frac = re.search(r"\.(\d+)", value)
    if frac and len(frac[1]) > 6:
        value = value.replace(frac[0], "." + frac[1][:6], 1)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def rfc3339nano(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond * 1000:09d}Z"


@dataclass(frozen=True)
class LogLine:
    at: datetime
    text: str


# read case-insensitively ("Timestamp" of Microsoft.Extensions.Logging, Serilog's "@t")
_JSON_TIME_KEYS = ("time", "ts", "timestamp", "@timestamp", "t", "@t")
# a stamp after a bracket or a prefix near the start: "[2026-08-11 08:53:14,902: ERROR/…]"
_TS_NEAR_START = re.compile(
    r"^.{0,16}?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)"
)
_SLASHED_RE = re.compile(r"^(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2})")
_CLF_RE = re.compile(r"\[(\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4})\]")
_DAY_MONTH_RE = re.compile(r"^.{0,24}?\b(\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}(?:\.\d+)?)")


def _json_time(value: object) -> datetime | None:
    """A JSON log's time field: an RFC 3339 string, epoch milliseconds (pino) or seconds
    (zap's "ts"), or MongoDB's {"$date": ...}."""
    if isinstance(value, dict):
        value = value.get("$date")
    if isinstance(value, str):
        return parse_time(value)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 1e9:
        seconds = value / 1000 if value > 1e11 else value
        return datetime.fromtimestamp(seconds, UTC)
    return None


def line_time(line: str) -> datetime | None:
    """When the line says it was written, in any of the layouts above; None otherwise."""
    if m := _TS_RE.match(line):
        return parse_time(m[1])
    if line.startswith("{"):
        try:
            doc = json.loads(line)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            low = {str(k).lower(): v for k, v in doc.items()}
            for key in _JSON_TIME_KEYS:
                if (parsed := _json_time(low.get(key))) is not None:
                    return parsed
    if m := _TS_NEAR_START.match(line):
        return parse_time(m[1])
    if m := _SLASHED_RE.match(line):  # nginx's error log: "2026/12/02 09:15:07 [error]"
        return parse_time(m[1].replace("/", "-"))
    if m := _CLF_RE.search(line[:120]):  # the common log format: "[02/Dec/2026:09:13:50 +0000]"
        try:
            return datetime.strptime(m[1], "%d/%b/%Y:%H:%M:%S %z")
        except ValueError:
            return None
    if m := _DAY_MONTH_RE.match(line):
        try:
            return datetime.strptime(m[1].split(".")[0], "%d %b %Y %H:%M:%S").replace(tzinfo=UTC)
        except ValueError:
            return None
    return None


def timed_lines(text: str, fallback: datetime) -> list[LogLine]:
    stamped = [(line_time(line), line) for line in text.splitlines()]
    first = next((at for at, _ in stamped if at is not None), None)
    current = fallback if fallback.year > 1970 else (first or fallback)
    out: list[LogLine] = []
    for at, line in stamped:
        if at is not None:
            current = at
        out.append(LogLine(current, line))
    return out


def _container_started(pod: dict[str, Any] | None, container: str, previous: bool) -> datetime:
    status = (pod or {}).get("status") or {}
    for cs in status.get("containerStatuses") or []:
        if cs.get("name") == container:
            state = (cs.get("lastState") if previous else cs.get("state")) or {}
            for sub in state.values():
                if isinstance(sub, dict) and sub.get("startedAt"):
                    return parse_time(str(sub["startedAt"])) or datetime.fromtimestamp(0, UTC)
    started = status.get("startTime")
    return (parse_time(str(started)) if started else None) or datetime.fromtimestamp(0, UTC)


def _waiting_after_a_run(pod: dict[str, Any] | None, container: str) -> bool:
    """The container is waiting now and an earlier run of it terminated."""
    status = (pod or {}).get("status") or {}
    for cs in [
        *(status.get("initContainerStatuses") or []),
        *(status.get("containerStatuses") or []),
    ]:
        if cs.get("name") == container:
            waiting = "waiting" in (cs.get("state") or {})
            return waiting and "terminated" in (cs.get("lastState") or {})
    return False


def read_log(
    pod: dict[str, Any] | None,
    streams: dict[str, str],
    namespace: str,
    name: str,
    params: dict[str, str],
) -> str:
    """The body of one log read, or LogRequestError with the API server's message."""
    key_prefix = f"{namespace}/{name}/"
    logged = sorted(
        {k[len(key_prefix) :].split("/")[0] for k in streams if k.startswith(key_prefix)}
    )
    if pod is not None:
        spec = pod.get("spec") or {}
        containers = [c.get("name") for c in spec.get("containers") or []]
        allowed = containers + [c.get("name") for c in spec.get("initContainers") or []]
    elif logged:
        containers = allowed = logged
    else:
        raise LogRequestError(404, f'pods "{name}" not found')
    container = params.get("container")
    if not container:
        if len(containers) != 1:
            choices = " ".join(str(c) for c in containers)
            raise LogRequestError(
                400,
                f"a container name must be specified for pod {name}, choose one of: [{choices}]",
            )
        container = str(containers[0])
    if container not in allowed:
        raise LogRequestError(400, f"container {container} is not valid for pod {name}")
    previous = params.get("previous", "").lower() == "true"
    key = f"{namespace}/{name}/{container}" + ("/previous" if previous else "")
    if previous and key not in streams:
        if not _waiting_after_a_run(pod, container):
            raise LogRequestError(
                400, f'previous terminated container "{container}" in pod "{name}" not found'
            )
        # a container waiting to restart (CrashLoopBackOff) has no running instance: the
        # output the world holds for it is its last terminated run's, which the kubelet
        # serves for previous=true
        key = f"{namespace}/{name}/{container}"
    lines = timed_lines(streams.get(key, ""), _container_started(pod, container, previous))
    since = _since(params)
    if since is not None:
        lines = [line for line in lines if line.at >= since]
    if params.get("tailLines"):
        tail = _int(params["tailLines"], "tailLines")
        lines = lines[-tail:] if tail > 0 else []
    stamp = params.get("timestamps", "").lower() == "true"
    body = "".join(
        (f"{rfc3339nano(line.at)} " if stamp else "") + line.text + "\n" for line in lines
    )
    if params.get("limitBytes"):
        body = body.encode()[: _int(params["limitBytes"], "limitBytes")].decode(errors="ignore")
    return body


def _int(value: str, name: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise LogRequestError(400, f"{name}: invalid value {value!r}") from None


def _since(params: dict[str, str]) -> datetime | None:
    if params.get("sinceTime") and params.get("sinceSeconds"):
        raise LogRequestError(400, "at most one of sinceTime or sinceSeconds may be specified")
    if params.get("sinceTime"):
        parsed = parse_time(params["sinceTime"])
        if parsed is None:
            raise LogRequestError(400, f"sinceTime: invalid value {params['sinceTime']!r}")
        return parsed
    if params.get("sinceSeconds"):
        return datetime.now(UTC) - timedelta(seconds=_int(params["sinceSeconds"], "sinceSeconds"))
    return None
