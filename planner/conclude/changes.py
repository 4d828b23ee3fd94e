"""What changed before a symptom began, and who deployed: the causality rules of the
diagnosis (a change after the symptom's start cannot be offered as its cause)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from planner.conclude.diagnosis_text import Said, said
from planner.conclude.rule import Finding, IndexedFact, Seen, of_kind
from policy.facts import (
    CiCommit,
    CiJob,
    K8sAudit,
    K8sEvent,
    K8sTermination,
    K8sWaiting,
    MetricsRestarts,
)
from policy.language import Language


def _parse(value: str | None) -> datetime | None:
    if value:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        # a source that drops the offset means UTC (Kubernetes and Elasticsearch do)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


FAILURE_EVENTS = {"BackOff", "Failed", "Unhealthy", "FailedMount", "FailedScheduling", "Killing"}


def symptom_start(facts: list[IndexedFact], waiting: list[Seen[K8sWaiting]]) -> datetime | None:
    """When the failure began, from the earliest evidence of it: the first warning event,
    the first restart, the first termination. A release after that cannot explain it."""
    started = failure_start(facts, {str(w.a.pod) for w in waiting})
    if started is not None:
        return started
    observed = [w.fact.observed_at for w in waiting if w.fact.observed_at]
    return min(observed) if observed else None


def failure_start(facts: list[IndexedFact], pods: set[str]) -> datetime | None:
    """The earliest evidence that `pods` fail: a warning event, a restart, a termination."""
    times: list[datetime] = []
    for ev in of_kind(facts, K8sEvent):
        failing = ev.a.reason in FAILURE_EVENTS and any(p in str(ev.a.name) for p in pods)
        if failing and (t := _parse(ev.a.first_seen)) is not None:
            times.append(t)
    for r in of_kind(facts, MetricsRestarts):
        if str(r.a.pod) in pods and (t := _parse(r.a.first_increase_at)) is not None:
            times.append(t)
    for term in of_kind(facts, K8sTermination):
        if str(term.a.pod) in pods and (t := _parse(term.a.finished_at)) is not None:
            times.append(t)
    return min(times) if times else None


def _job_start(job: Seen[CiJob]) -> datetime | None:
    """A deploy job changes the cluster while it runs: it can explain what began after it
    started, even before it finished."""
    return _parse(job.a.started_at) or job.fact.observed_at


# A clock time a person gives for the start of a symptom is rounded ("since 12:30" for a
# first failure at 12:32): a change that soon after it may still come before the symptom,
# whose start the evidence then fixes.
ONSET_SLACK = timedelta(minutes=5)
_MUTATING = frozenset({"create", "update", "patch", "delete", "deletecollection"})
_NO_CHANGE_SUBRESOURCES = frozenset(
    {"exec", "attach", "portforward", "proxy", "log", "eviction", "binding", "status"}
)

Change = Seen[CiJob] | Seen[K8sAudit]


def changes_before(facts: list[IndexedFact], symptom: datetime | None) -> list[Change]:
    """What changed before the symptom began, oldest first: deploy jobs in scope that ran
    (successful or not), and what a person or a CI identity changed in the cluster (the
    object, or a ConfigMap or Secret its pods mount). A change after the start of the
    symptom is no cause (class "causality in code")."""
    jobs = [
        (at, j)
        for j in of_kind(facts, CiJob)
        if j.a.in_scope and j.a.ran and (at := _job_start(j)) is not None
    ]
    runs = [(at, _parse(j.a.finished_at) or at) for at, j in jobs]
    timed: list[tuple[datetime, Change]] = list(jobs)
    timed += [
        (at, a)
        for a in of_kind(facts, K8sAudit)
        if (at := a.fact.observed_at) is not None
        and not _is_controller(a.a.actor)
        and a.a.verb in _MUTATING
        and (a.a.code is None or a.a.code < 400)
        # a shell in a pod, an eviction, a pod deleted or made: no change to what runs
        and a.a.subresource not in _NO_CHANGE_SUBRESOURCES
        and a.a.resource != "pods"
        # a program's write while a deploy job ran is that job's release, said once
        and not (a.a.actor_type == "service_account" and _during(at, runs))
    ]
    before = [(at, c) for at, c in timed if symptom is None or at <= symptom]
    return [c for _, c in sorted(before, key=lambda pair: pair[0])]


def _during(at: datetime, runs: list[tuple[datetime, datetime]]) -> bool:
    return any(start <= at <= end + timedelta(minutes=1) for start, end in runs)


def change_text(change: Change, lang: Language) -> str:
    a = change.a
    if isinstance(a, CiJob):
        return said(Said.CHANGE_JOB, lang, job=a.job_name, id=a.job_id)
    at = change.fact.observed_at
    stamp = at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if at else None
    when = said(Said.CHANGE_AT, lang, at=stamp) if stamp else ""
    what = f"{a.resource} {a.namespace + '/' if a.namespace else ''}{a.name}"
    mounted = said(Said.CHANGE_MOUNTED, lang, by=a.mounted_by) if a.mounted_by else ""
    return said(
        Said.CHANGE_AUDIT, lang, actor=a.actor, verb=a.verb, what=what, at=when, mounted=mounted
    )


def _is_controller(actor: str | None) -> bool:
    """Kubernetes' own controllers act on every rollout; they are not who deployed."""
    return (actor or "").startswith(
        ("system:serviceaccount:kube-system:", "system:kube-", "system:node:")
    )


def releases(facts: list[IndexedFact], onset: datetime | None, lang: Language) -> list[Finding]:
    """Who deployed, with the roles kept apart: the job's user started the job, the commit
    author wrote the change, the audit actor changed the object in the cluster."""
    # a job that ran is a release; one nobody played comes after, said as not run
    jobs = sorted((j for j in of_kind(facts, CiJob) if j.a.in_scope), key=lambda j: not j.a.ran)
    # a request the API server refused (403, 409, 422...) changed nothing
    audits = [
        a
        for a in of_kind(facts, K8sAudit)
        if not _is_controller(a.a.actor) and not (a.a.code is not None and a.a.code >= 400)
    ]
    if not jobs and not audits:
        return []
    parts = []
    support = []
    for j in jobs[:3]:
        user = j.a.user
        # what the release changed: the project and the version it deployed
        of = said(Said.JOB_OF, lang, project=j.a.project) if j.a.project else ""
        version = j.a.image_tag or j.a.ref
        parts.append(
            said(
                Said.JOB,
                lang,
                name=j.a.job_name,
                id=j.a.job_id,
                pipeline=j.a.pipeline_id,
                of=of,
                version=said(Said.JOB_VERSION, lang, version=version) if version else "",
            )
            + (
                said(Said.JOB_NOT_RUN, lang)
                if not j.a.ran
                else said(Said.JOB_STARTED_BY, lang, user=user)
                if user
                else said(Said.JOB_NO_USER, lang)
            )
            + said(Said.JOB_STATUS, lang, status=j.a.status)
        )
        support.append(j.index)
    shas = {j.a.commit_sha or "" for j in jobs}
    for c in of_kind(facts, CiCommit):
        sha = c.a.sha or ""
        if jobs and not any(s and (sha.startswith(s) or s.startswith(sha)) for s in shas):
            continue
        parts.append(said(Said.COMMIT_AUTHOR, lang, sha=sha[:8], author=c.a.author))
        support.append(c.index)
    for a in audits[:2]:
        parts.append(
            said(
                Said.CLUSTER_CHANGE,
                lang,
                actor=a.a.actor,
                verb=a.a.verb,
                resource=a.a.resource,
                name=a.a.name,
            )
            + (said(Said.CLUSTER_IMAGES, lang, images=", ".join(a.a.images)) if a.a.images else "")
        )
        support.append(a.index)
    summary = "; ".join(parts) + "."
    return [Finding(summary[0].upper() + summary[1:], None, support, "high", weight=40)]
