"""A run that failed: a Job the job controller gave up on (its backoff limit reached, its
deadline passed, a pod failure policy matched), with what its own pods logged as the
reason, which the event never says ("why didn't last night's backup run?": the Job was
created on schedule, its pods exited, and their log names the cause).

The run is tied to its pods by the name Kubernetes gives them (`<job>-<suffix>`), and to
its error lines by the pods that wrote them; nothing is named that no fact returned."""

from __future__ import annotations

from datetime import datetime

from planner.conclude.rule import Confidence, Finding, IndexedFact, Seen, of_kind
from policy.facts import K8sEvent, K8sLog, LogTemplate
from policy.language import Bilingual, Language, phrase

# the job controller's reasons for marking a Job failed (pkg/controller/job)
JOB_FAILED_REASONS = frozenset({"BackoffLimitExceeded", "DeadlineExceeded", "PodFailurePolicy"})
_SEVERE = ("FATAL", "CRITICAL", "PANIC", "ERROR")

_FAILED: Bilingual = (
    "Job {job} failed ({reason}: {message})",
    "Job {job} завершился неудачей ({reason}: {message})",
)
_LOGGED: Bilingual = ("; its pods logged: {lines}", "; его pod'ы записали в лог: {lines}")


def failed_runs(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    """Each failed Job, said with the most severe lines its pods logged."""
    out: list[Finding] = []
    seen: set[str] = set()
    for ev in of_kind(facts, K8sEvent):
        job = _job_of(ev)
        if job is None or ev.a.reason not in JOB_FAILED_REASONS or job in seen:
            continue
        seen.add(job)
        templates = [t for t in of_kind(facts, LogTemplate) if _from_run(t.a.origins, job)]
        lines = [lf for lf in of_kind(facts, K8sLog) if _pod_of_run(lf.a.pod, job)]
        quoted, support = _quoted(templates, lines)
        text = phrase(
            _FAILED, lang, job=job, reason=ev.a.reason, message=(ev.a.message or "").rstrip(".")
        )
        if quoted:
            text += phrase(_LOGGED, lang, lines=" / ".join(quoted))
        confidence: Confidence = "high" if quoted else "medium"
        out.append(Finding(text + ".", text + ".", [ev.index, *support], confidence, weight=12))
    return out


def _job_of(ev: Seen[K8sEvent]) -> str | None:
    kind = (ev.a.object_kind or "").lower()
    if kind != "job":
        return None
    return ev.a.name or (ev.a.object or "").rpartition("/")[2] or None


def _pod_of_run(pod: str | None, job: str) -> bool:
    return pod is not None and pod.startswith(job + "-")


def _from_run(origins: list[str] | None, job: str) -> bool:
    return any(_pod_of_run(o.partition("/")[0], job) for o in origins or [])


def _quoted(
    templates: list[Seen[LogTemplate]], lines: list[Seen[K8sLog]]
) -> tuple[list[str], list[int]]:
    """The most severe of what the run's pods logged: its error templates by level, else
    its own lines by level; at most two, each once."""
    by_template = sorted(templates, key=lambda t: _severity(t.a.level))
    quoted = [str(t.a.example or t.a.template) for t in by_template if t.a.example or t.a.template]
    support = [t.index for t in by_template]
    if not quoted:
        severe = sorted(lines, key=lambda lf: _severity(str(lf.a.level or "")))
        quoted = [str(lf.a.message or lf.a.line) for lf in severe if lf.a.message or lf.a.line]
        support = [lf.index for lf in severe]
    return list(dict.fromkeys(quoted))[:2], support[:2]


def _severity(level: str | None) -> int:
    """FATAL first; a level the lines do not state after those they do."""
    upper = str(level or "").upper()
    return _SEVERE.index(upper) if upper in _SEVERE else len(_SEVERE)
