"""gitlab.job: one CI job by id, with who started it, its pipeline and its commit."""

from __future__ import annotations

from typing import Any, TypedDict

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from connectors.gitlab import _facts as facts
from connectors.gitlab._bodies import CommitBody, JobBody, PipelineBody, ProjectBody
from connectors.gitlab._client import SOURCE, B, GitLabSession, get_one, read_all
from policy import CallContext, SourceError, SourceNotFound, ToolResult
from policy.findings import Findings
from policy.numbers import Nouns, count_said
from policy.toolset import scope_of


class JobArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    job_id: int = Field(ge=1, le=2**53, description="GitLab job id")
    project: str | SkipJsonSchema[None] = Field(
        None, min_length=1, max_length=300, description="GitLab project path (group/name) or id"
    )


def _owned_by(project: ProjectBody, service: str | None, mapped: str | None) -> bool:
    """Whether this is the service's project: its mapped one, or else the one of its name."""
    if mapped is not None:
        names = (str(project.get("path_with_namespace")).lower(), str(project.get("id")))
        return mapped.lower() in names
    return bool(service) and str(project.get("name", "")).lower() == str(service).lower()


class _JobRead(TypedDict):
    job: JobBody
    project: ProjectBody
    pipeline: PipelineBody | None
    commit: CommitBody | None
    warnings: list[str]


def _embedded(manager: Any, ident: Any, what: str, body: type[B], warnings: list[str]) -> B | None:
    """The full object a job names (its pipeline, its commit); None, with the reason in
    `warnings`, when it could not be read."""
    if ident is None:
        return None
    try:
        return get_one(manager, ident, what, body)
    except SourceError as exc:
        warnings.append(exc.reason)
        return None


def _read(session: GitLabSession, args: JobArgs, hint: str | None) -> _JobRead:
    target = session.target
    warnings: list[str] = []
    with session.borrow() as gl:
        if args.project:
            projects = [get_one(gl.projects, args.project, f"project {args.project}", ProjectBody)]
        else:
            projects, complete = read_all(target, gl.projects, "projects", ProjectBody)
            # the question's object first: the likeliest owner of the job
            mapped = target.project_of(hint)
            projects.sort(key=lambda p: not _owned_by(p, hint, mapped))
            if not complete or len(projects) > target.max_job_lookups:
                warnings.append("not every project was searched for this job id")
        tried = projects[: target.max_job_lookups]
        for project in tried:
            handle = gl.projects.get(project["id"], lazy=True)
            where = f"job {args.job_id} in {project.get('path_with_namespace')}"
            try:
                job = get_one(handle.jobs, args.job_id, where, JobBody)
            except SourceNotFound:
                continue
            pipe_id = (job.get("pipeline") or {}).get("id")
            pipeline = _embedded(
                handle.pipelines,
                pipe_id,
                f"pipeline {pipe_id} of job {args.job_id}",
                PipelineBody,
                warnings,
            )
            sha = (job.get("commit") or {}).get("id")
            commit = _embedded(
                handle.commits, sha, f"commit {sha} of job {args.job_id}", CommitBody, warnings
            )
            return {
                "job": job,
                "project": project,
                "warnings": warnings,
                "pipeline": pipeline,
                "commit": commit,
            }
    where = args.project or f"searched {count_said(len(tried), Nouns.PROJECT)}"
    raise SourceNotFound(SOURCE, f"job {args.job_id} not found ({where})")


async def job(
    session: GitLabSession, envs: list[str], args: JobArgs, ctx: CallContext
) -> ToolResult:
    target = session.target
    read = await session.threads.run(_read, session, args, ctx.scope.object)
    job, project, pipeline, warnings = (
        read["job"],
        read["project"],
        read["pipeline"],
        read["warnings"],
    )
    environment = facts.environment_name(job, {})
    env = facts.job_env(job, environment, envs, target.env_job_pattern)
    fact = facts.job_fact(job, project, env, environment, f"{env} deploy: " if env else "")
    if pipeline:
        username, said = facts.who(pipeline.get("user"))
        fact.attrs = fact.attrs.model_copy(
            update={
                "pipeline_user": username,
                "pipeline_web_url": facts.project_link(pipeline.get("web_url"), project),
            }
        )
        if username:
            fact.text += (
                f"; pipeline {pipeline.get('id')} was triggered by {said}"
                f" (source {pipeline.get('source')})"
            )
    out_facts = [fact]
    if (job.get("commit") or {}).get("id"):
        served = read["commit"] or {}
        out_facts.append(
            facts.commit_fact(
                {**job["commit"], **served}, facts.project_link(served.get("web_url"), project)
            )
        )
    entities, relations = facts.graph(job, env)
    scope = scope_of(args, ctx)
    scope = scope.model_copy(update={"env": env or scope.env})
    found = Findings(
        SOURCE,
        facts=out_facts,
        entities=entities,
        relations=relations,
        warnings=warnings,
        complete=not warnings,  # a part of the job's story (its pipeline) could not be read
    )
    return found.result(
        "gitlab.job",
        scope,
        returned=1,
        observed_at=ctx.now,
        total=1,
        evidence={"ci.release_timeline": "found"},
        raw={
            "job": read["job"],
            "project": read["project"],
            "pipeline": read["pipeline"],
            "commit": read["commit"],
        },
    )
