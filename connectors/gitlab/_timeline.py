"""gitlab.release_timeline: the deploy jobs of one project in a window, per environment.

Reads (all bounded by max_pages / max_pipelines):
    project      by path or id; for a service, its entry in the target's `projects` map,
                 or else a search for its name (exact name or path tail)
    pipelines    updated_after=start, order_by=updated_at: any pipeline with activity in
                 the window (a manual job played later updates its pipeline)
    jobs         of each such pipeline created before the window's end
    deployments  updated_after=start: which GitLab environment each deploy job targeted
    commits      each distinct commit of the reported jobs, for its own link
The result is complete (an empty one proves absence) only if every list was read to its
exact X-Total, no sub-read failed and no deploy job left its environment unstated.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from connectors.gitlab import _facts as facts
from connectors.gitlab._bodies import (
    CommitBody,
    DeploymentBody,
    JobBody,
    PipelineBody,
    ProjectBody,
)
from connectors.gitlab._client import (
    SOURCE,
    B,
    GitLabSession,
    GitLabTarget,
    get_one,
    read_all,
    ts,
    utc,
)
from policy import (
    CallContext,
    Coverage,
    Entity,
    Scope,
    SourceError,
    SourceNotFound,
    TimeSpec,
    ToolResult,
)
from policy.errors import ErrorKind, attempt
from policy.findings import Findings
from policy.numbers import Nouns, count_said
from policy.results import EvidenceState
from policy.toolset import scope_of
from policy.window import resolve_window

CONTEXT_FACTS = 5
T = TypeVar("T")
MAX_COMMITS = 10


class ReleaseTimelineArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    service: str | SkipJsonSchema[None] = Field(
        None,
        min_length=1,
        max_length=200,
        description="service name: its configured GitLab project, or the project of that name",
    )
    project: str | SkipJsonSchema[None] = Field(
        None, min_length=1, max_length=300, description="GitLab project path (group/name) or id"
    )
    env: str | SkipJsonSchema[None] = Field(None, description="environment deployed to")
    start: AwareDatetime | None = None
    end: AwareDatetime | None = None
    limit: int = Field(20, ge=1, le=100, description="most deploy jobs to return")

    @model_validator(mode="after")
    def _check(self) -> ReleaseTimelineArgs:
        if not self.service and not self.project:
            raise ValueError("give service or project")
        if self.start and self.end and self.start >= self.end:
            raise ValueError("start must be before end")
        return self


@dataclass
class _Read:
    project: ProjectBody = field(default_factory=lambda: ProjectBody())
    ambiguous: list[ProjectBody] = field(default_factory=list)
    jobs: list[tuple[JobBody, str | None, str | None]] = field(default_factory=list)
    commits: dict[str, CommitBody] = field(default_factory=dict)
    complete: bool = True
    warnings: list[str] = field(default_factory=list)
    note: str = ""


def find_project(
    gl: Any, target: GitLabTarget, service: str | None, project: str | None
) -> tuple[ProjectBody, list[ProjectBody]]:
    """(project, []) or ({}, candidates) when the service name matches several projects.
    A service in the projects map is read as that project, never searched: the map is the
    operator's word, and a mapped project that is gone is a gap naming it."""
    if project:
        return get_one(gl.projects, project, f"project {project}", ProjectBody), []
    mapped = target.project_of(service)
    if mapped is not None:
        return get_one(
            gl.projects, mapped, f"project {mapped} (mapped for {service})", ProjectBody
        ), []
    wanted = str(service)
    items, complete = read_all(
        target, gl.projects, f"project search {wanted}", ProjectBody, search=wanted
    )
    exact = [
        p
        for p in items
        if str(p.get("name", "")).lower() == wanted.lower()
        or str(p.get("path_with_namespace", "")).lower().endswith("/" + wanted.lower())
    ]
    if len(exact) == 1:
        return exact[0], []
    if not exact:
        cut = "" if complete else " (the project search was cut short)"
        raise SourceNotFound(SOURCE, f"no GitLab project named {wanted}{cut}")
    return {}, exact


def _began(job: JobBody) -> datetime | None:
    return ts(job.get("started_at")) or ts(job.get("created_at"))


async def read_project(
    session: GitLabSession,
    envs: list[str],
    args: ReleaseTimelineArgs,
    start: datetime,
    end: datetime,
    known: ProjectBody | None = None,
) -> _Read:
    """The project (unless `known`: listed already), then its pipelines and deployments
    together, then the jobs of every candidate pipeline together, then the commits: each
    read that does not need another's answer is made at the same time (one round trip each
    stage, not one per read)."""
    target = session.target
    out = _Read()

    def on_client(fn: Callable[..., T], *fn_args: Any) -> Awaitable[T]:
        def call() -> T:
            with session.borrow() as gl:  # a client per concurrent read
                return fn(gl, *fn_args)

        return session.threads.run(call)

    if known is not None:
        out.project = known
    else:
        out.project, out.ambiguous = await on_client(
            find_project, target, args.service, args.project
        )
    if out.ambiguous:
        return out
    project_id = out.project["id"]
    after = start.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    since = {"updated_after": after, "order_by": "updated_at", "sort": "asc"}

    def listing(
        gl: Any,
        what: str,
        manager_of: Callable[[Any], Any],
        body: type[B],
        filters: dict[str, str],
    ) -> tuple[list[B], bool]:
        manager = manager_of(gl.projects.get(project_id, lazy=True))
        return read_all(target, manager, what, body, **filters)

    # both attempted to the end: a failed pipeline read must not leave the other running
    (pipelines_read, pipelines_error), (deployments_read, deployments_error) = await asyncio.gather(
        attempt(on_client(listing, "pipelines", lambda p: p.pipelines, PipelineBody, since)),
        attempt(on_client(listing, "deployments", lambda p: p.deployments, DeploymentBody, since)),
    )
    if pipelines_error is not None:
        raise pipelines_error
    assert pipelines_read is not None
    pipelines, out.complete = pipelines_read
    if not out.complete:
        out.warnings.append("the pipeline list was cut short; releases may be missing")
    # a job cannot start before its pipeline was created
    candidates = [p for p in pipelines if (ts(p.get("created_at")) or start) <= end]
    if len(candidates) > target.max_pipelines:
        out.complete = False
        out.warnings.append(f"read jobs of {target.max_pipelines} of {len(candidates)} pipelines")
    candidates = candidates[: target.max_pipelines]

    def jobs_of(pipeline_id: Any) -> Callable[[Any], Any]:
        return lambda p: p.pipelines.get(pipeline_id, lazy=True).jobs

    job_reads = await asyncio.gather(
        *(
            attempt(
                on_client(
                    listing, f"jobs of pipeline {pipe['id']}", jobs_of(pipe["id"]), JobBody, {}
                )
            )
            for pipe in candidates
        )
    )
    jobs: list[JobBody] = []
    failures: list[SourceError] = []
    for found, error in job_reads:
        if error is not None:
            failures.append(error)
            out.warnings.append(error.reason)
            continue
        assert found is not None
        out.complete = out.complete and found[1]
        jobs += found[0]
    if failures and len(failures) == len(candidates):
        raise failures[0]
    out.complete = out.complete and not failures
    deployed_to: dict[Any, str] = {}
    if deployments_error is None:
        assert deployments_read is not None
        deployments, whole = deployments_read
        out.complete = out.complete and whole
    else:
        deployments, out.complete = [], False
        out.warnings.append(
            f"{deployments_error.reason}; environments are taken from job names only"
        )
    for dep in deployments:
        name, job_id = (
            (dep.get("environment") or {}).get("name"),
            (dep.get("deployable") or {}).get("id"),
        )
        if name and job_id is not None:
            deployed_to[job_id] = str(name)
    known_envs = [*envs, *([args.env] if args.env else [])]
    for job in jobs:
        environment = facts.environment_name(job, deployed_to)
        first = _began(job)
        last = ts(job.get("finished_at")) or first
        if not facts.is_deploy(job, environment) or first is None or last is None:
            continue
        if first <= end and last >= start:
            env = facts.job_env(job, environment, known_envs, target.env_job_pattern)
            out.jobs.append((job, env, environment))
    out.jobs.sort(key=lambda t: _began(t[0]) or start, reverse=True)
    wanted = [j for j, env, _ in out.jobs if args.env is None or env == args.env]
    shas = [(j.get("commit") or {}).get("id") for j in wanted[: args.limit]]
    unique = list(dict.fromkeys(s for s in shas if s))[:MAX_COMMITS]

    def commit(gl: Any, sha: str) -> CommitBody:
        handle = gl.projects.get(project_id, lazy=True)
        return get_one(handle.commits, sha, f"commit {sha[:8]}", CommitBody)

    commit_reads = await asyncio.gather(*(attempt(on_client(commit, sha)) for sha in unique))
    for sha, (item, error) in zip(unique, commit_reads, strict=True):
        if error is not None:
            out.complete = False
            out.warnings.append(f"{error.reason}; author and committer come from the job")
        else:
            assert item is not None
            out.commits[sha] = item
    out.note = (
        f"read {count_said(len(pipelines), Nouns.PIPELINE)} updated since {after}, the jobs "
        f"of {len(candidates)} of them and {count_said(len(deployments), Nouns.DEPLOYMENT)}"
    )
    return out


def read_window(args: Any, ctx: CallContext) -> tuple[datetime, datetime, Scope]:
    """(start, end, the result's scope): the arguments' window, else the question's; the
    result is about that past span, whatever the question's time mode."""
    start, end = resolve_window(args, ctx)
    spec = TimeSpec(at=start + (end - start) / 2, window=end - start, mode="historical")
    return start, end, scope_of(args, ctx).model_copy(update={"time": spec})


async def release_timeline(
    session: GitLabSession, envs: list[str], args: ReleaseTimelineArgs, ctx: CallContext
) -> ToolResult:
    start, end, scope = read_window(args, ctx)
    read = await read_project(session, envs, args, start, end)
    if read.ambiguous:
        names = [str(p.get("path_with_namespace")) for p in read.ambiguous]
        return ToolResult(
            tool="gitlab.release_timeline",
            status="error",
            scope=scope,
            coverage=Coverage(source=SOURCE, complete_for_negative=False),
            entities=[Entity(kind="project", name=n) for n in names],
            error=f"{args.service} matches several GitLab projects ({', '.join(names)}); "
            "name the project",
            error_kind=ErrorKind.AMBIGUOUS,
        )
    return _result(read, args, scope, ctx.now, start, end)


@dataclass
class ProjectPart:
    """What one project's read says for the environment asked about."""

    facts: list[Any]
    entities: list[Entity]
    relations: list[Any]
    warnings: list[str]
    in_scope: int  # deploy jobs to the env asked about (all envs when none was)
    shown: int
    complete: bool
    cut: bool
    raw_jobs: list[JobBody]


def project_part(
    read: _Read, args: ReleaseTimelineArgs, start: datetime, end: datetime
) -> ProjectPart:
    project, warnings, complete = read.project, read.warnings, read.complete
    in_scope = [t for t in read.jobs if args.env is None or t[1] == args.env]
    others = [t for t in read.jobs if args.env is not None and t[1] not in (args.env, None)]
    unstated = [t for t in read.jobs if args.env is not None and t[1] is None]
    if unstated:
        complete = False
        names = ", ".join(f"{j.get('name')} #{j.get('id')}" for j, _, _ in unstated)
        jobs = "deploy job that names" if len(unstated) == 1 else "deploy jobs that name"
        warnings.append(f"{jobs} no environment, maybe {args.env}: {names}")
    shown = in_scope[: args.limit]
    entities = [Entity(kind="project", name=str(project.get("path_with_namespace")))]
    relations, out_facts = [], []
    for job, env, environment in shown:
        note = f"{env} deploy: " if env else "deploy (environment not stated by GitLab): "
        out_facts.append(facts.job_fact(job, project, env, environment, note))
        more_entities, more_relations = facts.graph(job, env)
        entities += more_entities
        relations += more_relations
    commits = {
        j["commit"]["id"]: j["commit"] for j, _, _ in shown if (j.get("commit") or {}).get("id")
    }
    for sha, job_commit in commits.items():
        served = read.commits.get(sha, {})
        out_facts.append(
            facts.commit_fact(
                {**job_commit, **served}, facts.project_link(served.get("web_url"), project)
            )
        )
    for job, env, environment in (others + unstated)[:CONTEXT_FACTS]:
        where = f"environment {env}" if env else "environment not stated by GitLab"
        note = f"context, {where}, not {args.env}: "
        out_facts.append(facts.job_fact(job, project, env, environment, note, in_scope=False))
    cut = len(in_scope) > args.limit
    if cut:
        warnings.append(f"showing the {args.limit} newest of {len(in_scope)} deploy jobs")
    return ProjectPart(
        out_facts,
        entities,
        relations,
        warnings,
        len(in_scope),
        len(shown),
        complete,
        cut,
        [j for j, _, _ in read.jobs],
    )


def release_evidence(found: bool, complete: bool) -> dict[str, EvidenceState]:
    state: EvidenceState = "found" if found else "none_complete" if complete else "none_partial"
    return {"ci.release_timeline": state}


def _result(
    read: _Read,
    args: ReleaseTimelineArgs,
    scope: Scope,
    now: datetime,
    start: datetime,
    end: datetime,
) -> ToolResult:
    part = project_part(read, args, start, end)
    project, complete = read.project, part.complete
    if not part.in_scope:
        to_env = f" to {args.env}" if args.env else ""
        part.warnings.append(
            f"no deploy job{to_env} of {project.get('path_with_namespace')} between "
            f"{utc(start)} and {utc(end)}"
            + ("" if complete else "; GitLab was not read completely, so this proves nothing")
        )
    found = Findings(
        SOURCE,
        facts=part.facts,
        entities=part.entities,
        relations=part.relations,
        warnings=part.warnings,
        notes=[read.note] if read.note else [],
        complete=complete and not part.cut,
        truncated=part.cut or not complete,
    )
    return found.result(
        "gitlab.release_timeline",
        scope,
        returned=part.shown,
        found=bool(part.in_scope),
        observed_at=now,
        limit=args.limit,
        total=part.in_scope,
        total_is_exact=complete,
        evidence=release_evidence(bool(part.in_scope), complete),
        raw={"project": project, "deploy_jobs": part.raw_jobs},
    )
