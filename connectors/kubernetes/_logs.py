"""k8s.pod_logs: container log lines of a pod (or of a service's pods) in a window.

Lines are read with kubelet timestamps from `sinceTime` = the window start, then cut to the
window end and to an optional regex. The Kubernetes API keeps only the current and the
previous container's output of pods that still exist; coverage says so whenever the
window reaches past what could be read.
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import datetime
from itertools import groupby
from typing import Any

from connectors.kit.audit import parse_time
from connectors.kit.logtemplates import (
    LogLine,
    error_templates,
    message_of,
    raised_lines,
    template_fact,
)
from connectors.kit.patterns import LinePattern, line_pattern
from connectors.kubernetes._bodies import KubeObject
from connectors.kubernetes._client import KubeReader, LogRead
from connectors.kubernetes._common import Findings, belongs_to, iso, meta, name_of
from policy.errors import SourceMalformed
from policy.facts import K8sLog
from policy.numbers import Noun, Nouns, count_said
from policy.results import ResultFact, ToolResult
from policy.toolset import CallContext
from policy.window import resolve_window

LOG_RECORDS = Noun("log record", "log records", "запись лога", "записи лога", "записей лога")

LIMIT_BYTES = 4 * 1024 * 1024
MAX_PODS = 10
MAX_LINE = 2000
_LEVEL_RE = re.compile(r"\b(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL|PANIC)\b")
_REQUEST_ID_RE = re.compile(r"request[_-]?id[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9-]{6,})", re.I)


def _level_and_request(text: str) -> tuple[str | None, str | None]:
    if text.startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            level = doc.get("level") or doc.get("severity") or doc.get("lvl")
            rid = doc.get("request_id") or doc.get("requestId") or doc.get("request.id")
            return (str(level).upper() if level else None), (str(rid) if rid else None)
    level = _LEVEL_RE.search(text)
    rid = _REQUEST_ID_RE.search(text)
    return (level[1] if level else None), (rid[1] if rid else None)


async def _read_logs(
    reader: KubeReader,
    ns: str,
    jobs: list[tuple[KubeObject, str, bool]],
    start: datetime,
) -> list[LogRead]:
    """The log of each (pod, container, previous run?) from the window start, at once."""
    return list(
        await asyncio.gather(
            *(
                reader.pod_log(
                    ns,
                    name_of(pod),
                    container,
                    since_time=iso(start),
                    previous=previous,
                    limit_bytes=LIMIT_BYTES,
                )
                for pod, container, previous in jobs
            )
        )
    )


async def _service_pods(
    reader: KubeReader, found: Findings, ns: str, service: str
) -> list[KubeObject]:
    """The pods named service-* that exist now (at most MAX_PODS), holes said."""
    listed = found.took(await reader.list("pods", ns))
    pods = sorted((p for p in listed if belongs_to(name_of(p), service)), key=name_of)
    if not pods:
        found.gap(
            f"no pods of {service} exist now in namespace {ns}; logs of deleted pods cannot "
            "be read from the Kubernetes API"
        )
    if len(pods) > MAX_PODS:
        found.truncated = True
        found.gap(f"{len(pods)} pods match {service}; logs of the first {MAX_PODS} were read")
        pods = pods[:MAX_PODS]
    return pods


def _ran_before(pod: KubeObject, container: str) -> bool:
    """The container has a previous run to read: it restarted, or the kubelet kept the
    state of a run before this one. Unknown status: assume it has."""
    statuses = [
        *((pod.get("status") or {}).get("initContainerStatuses") or []),
        *((pod.get("status") or {}).get("containerStatuses") or []),
    ]
    for cs in statuses:
        if cs.get("name") == container:
            return bool(cs.get("restartCount")) or "terminated" in (cs.get("lastState") or {})
    return True


def _container_started(pod: KubeObject, container: str) -> tuple[datetime | None, int]:
    for cs in (pod.get("status") or {}).get("containerStatuses") or []:
        if cs.get("name") == container:
            running = (cs.get("state") or {}).get("running") or {}
            return parse_time(running.get("startedAt")), int(cs.get("restartCount") or 0)
    return None, 0


async def pod_logs(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    found = Findings(reader.source)
    start, end = resolve_window(args, ctx)
    ns = args.namespace
    if args.pod:
        pod = await reader.get("pods", args.pod, ns)
        pods = [pod] if pod is not None else []
        if pod is None:
            found.warnings.append(f"no pod named {args.pod} in namespace {ns} of {reader.env}")
    else:
        pods = await _service_pods(reader, found, ns, args.service)
    _replaced(found, pods, start)
    pattern = line_pattern(args.grep) if args.grep else None
    jobs: list[Any] = []
    for pod in pods:
        spec = pod.get("spec") or {}
        failing_init = {
            str(s.get("name"))
            for s in (pod.get("status") or {}).get("initContainerStatuses") or []
            if not s.get("ready")
            and (s.get("restartCount") or (s.get("state") or {}).get("waiting"))
        }
        names = (
            [args.container]
            if args.container
            # a failing init container blocks the pod: its log is where the reason is
            else [
                str(c.get("name"))
                for c in spec.get("initContainers") or []
                if str(c.get("name")) in failing_init
            ]
            + [str(c.get("name")) for c in spec.get("containers") or []]
        )
        # the previous run where the container restarted; one that ended and was never
        # restarted (a Job's pod, restartPolicy Never) has its failed run as its current log
        jobs.extend((pod, name, args.previous and _ran_before(pod, name)) for name in names)
    reads = await _read_logs(reader, ns, jobs, start)
    # which run each container's lines are from: the one read, not the one asked
    run_read = {(name_of(pod), container): previous for pod, container, previous in jobs}
    lines: list[tuple[datetime, str, str, str | None, str]] = []
    for (pod, container, previous), read in zip(jobs, reads, strict=True):
        lines.extend(_lines(reader, found, pod, container, read, previous, start, end, pattern))
    lines.sort(key=lambda line: line[0])
    matched = len(lines)
    # every line of the window was read and matched: how many there were is exact, however
    # few of them are shown (a count of a phrase is that total)
    exact = matched if found.complete else None
    if matched > args.limit:
        found.truncated = True
        found.gap(f"{matched} lines matched; only the latest {args.limit} are shown")
        lines = lines[-args.limit :]
    # the exception each container's stack traces end with, read over its lines in order
    raised = {
        key: raised_lines(LogLine(at, key, text) for at, _, _, _, text in group)
        for key, group in groupby(
            sorted(lines, key=lambda line: (line[1], line[2], line[0])),
            key=lambda line: f"{line[1]}/{line[2]}",
        )
    }
    for at, pod_name, container, node, text in lines:
        level, request_id = _level_and_request(text)
        found.facts.append(
            ResultFact(
                text=f"{pod_name}/{container}: {text}",
                source=reader.source,
                observed_at=at,
                link=reader.target.link("Pod", pod_name, ns),
                historical=True,
                attrs=K8sLog(
                    level=level,
                    request_id=request_id,
                    line=text,
                    # a JSON line's message fields (pino, bunyan, ECS, zap ...), else the line
                    message=message_of(text),
                    pod=pod_name,
                    container=container,
                    node=node,
                    previous=run_read.get((pod_name, container), args.previous),
                    raised=text.strip() in raised.get(f"{pod_name}/{container}", ()) or None,
                ),
            )
        )
    return found.finish(
        "k8s.pod_logs",
        args,
        ctx,
        returned=len(lines),
        limit=args.limit,
        raw={"pods": [name_of(p) for p in pods], "matched": matched},
        total=exact,
    )


def _lines(
    reader: KubeReader,
    found: Findings,
    pod: KubeObject,
    container: str,
    read: LogRead,
    previous: bool,
    start: datetime,
    end: datetime,
    pattern: LinePattern | None,
) -> list[tuple[datetime, str, str, str | None, str]]:
    name, node = name_of(pod), (pod.get("spec") or {}).get("nodeName")
    found.entity("pod", name, reader.env, meta(pod).get("namespace"), node=node)
    if node:
        found.relate(f"pod/{name}", "runs_on", f"node/{node}", None)
    if read.missing is not None:
        if previous and "previous" in read.missing:
            found.warnings.append(f"{name}/{container} has no previous container: {read.missing}")
        else:
            found.gap(f"logs of {name}/{container} could not be read: {read.missing}")
        return []
    raw_lines = read.body.splitlines()
    if len(read.body.encode()) >= LIMIT_BYTES:
        found.truncated = True
        found.gap(f"logs of {name}/{container} were cut at {LIMIT_BYTES} bytes")
        raw_lines = raw_lines[:-1]
    started, restarts = _container_started(pod, container)
    if not previous and restarts and started is not None and started > start:
        found.gap(
            f"{name}/{container} restarted at {iso(started)}, after the window start; "
            "earlier output is in the previous container (previous=true)"
        )
    out = []
    for raw in raw_lines:
        stamp, _, text = raw.partition(" ")
        at = parse_time(stamp)
        if at is None:
            if not raw.strip():
                continue
            raise SourceMalformed(
                reader.source,
                f"a log line of {name}/{container} in {reader.env} carries no kubelet timestamp",
            )
        if not start <= at <= end or (pattern is not None and not pattern.search(text)):
            continue
        text = text if len(text) <= MAX_LINE else text[:MAX_LINE] + " [line cut]"
        out.append((at, name, container, node, text))
    return out


MAX_TEMPLATES = 5


def _replaced(found: Findings, pods: list[KubeObject], start: datetime) -> None:
    """No pod of the workload existed at the window's start: the ones that served it then
    are gone, and the API holds no log of a deleted pod (a shipper's index may)."""
    later = []
    for pod in pods:
        created = parse_time(meta(pod).get("creationTimestamp"))
        if created is None or created <= start:
            return  # one served from the start: its log covers it
        later.append((name_of(pod), created))
    if later:
        shown = ", ".join(f"{name} (created {iso(at)})" for name, at in later[:3])
        found.gap(
            f"{shown}: created after the window start, so the pods that served the window "
            "before them are gone and their logs cannot be read from the API"
        )


def _waiting_after_a_run(pod: KubeObject, container: str) -> bool:
    """Waiting to restart after a run that ended: that run's log says why."""
    for cs in (pod.get("status") or {}).get("containerStatuses") or []:
        if cs.get("name") == container:
            waiting = "waiting" in (cs.get("state") or {})
            return waiting and "terminated" in (cs.get("lastState") or {})
    return False


async def log_errors(reader: KubeReader, args: Any, ctx: CallContext) -> ToolResult:
    """Error-like lines of every pod of a workload in the window, grouped by template
    (connectors/kit/logtemplates.py): the one error among thousands of normal lines, with its
    count, first and last time, the pods that wrote it and an example."""
    found = Findings(reader.source)
    start, end = resolve_window(args, ctx)
    ns = args.namespace
    pods = await _service_pods(reader, found, ns, args.service)
    _replaced(found, pods, start)
    jobs = [
        (pod, str(c.get("name")), _waiting_after_a_run(pod, str(c.get("name"))))
        for pod in pods
        for c in (pod.get("spec") or {}).get("containers") or []
    ]
    reads = await _read_logs(reader, ns, jobs, start)
    lines: list[LogLine] = []
    for (pod, container, previous), read in zip(jobs, reads, strict=True):
        for at, pod_name, _, _, text in _lines(
            reader, found, pod, container, read, previous, start, end, None
        ):
            origin = f"{pod_name}/{container}" + (" (previous run)" if previous else "")
            lines.append(LogLine(at, origin, text))
    templates, records, errors = error_templates(lines)
    for t in templates[:MAX_TEMPLATES]:
        link = reader.target.link("Pod", t.origins[0].split("/")[0], ns)
        found.facts.append(
            template_fact(t, args.service, source=reader.source, link=link, service=args.service)
        )
    if len(templates) > MAX_TEMPLATES:
        found.notes.append(f"the {MAX_TEMPLATES} first of {len(templates)} error templates")
    found.notes.append(
        f"read {count_said(records, LOG_RECORDS)} of {count_said(len(pods), Nouns.POD)} "
        f"between {iso(start)} and "
        f"{iso(end)}: {errors} error-like"
    )
    return found.finish("k8s.log_errors", args, ctx, returned=len(found.facts))
