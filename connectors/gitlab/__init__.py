"""GitLab connector: who released what, when and from which job (python-gitlab, sync,
called in its own worker threads through kept-alive clients: `GitLabSession`).

Tools: `gitlab.release_timeline` (deploy jobs of a service in a window, per environment),
`gitlab.env_releases` (every project's deploy jobs to one environment: "what changed in
prod?") and `gitlab.job` (one job by id). Roles stay apart, each named as GitLab returned it:
job.user started the job, the commit author wrote the change, the committer committed it.

Errors (no SDK exception escapes; each is raised `from` the original):
    SourceForbidden     HTTP 401 (GitlabAuthenticationError), 403
    SourceNotFound      404: the project, job or commit does not exist or is hidden from us
    SourceUnavailable   429, 5xx, connection refused or reset
    SourceUnsupported   any other 4xx: GitLab rejected the query
    SourceTimeout       requests connect/read timeout (`timeout_s`, per request)
    SourceMalformed     GitlabParsingError (bad JSON) or a body of the wrong shape
"""

from __future__ import annotations

from connectors.gitlab._client import GitLabSession, GitLabTarget
from connectors.gitlab._env_releases import EnvReleasesArgs, env_releases
from connectors.gitlab._job import JobArgs, job
from connectors.gitlab._probe import probe
from connectors.gitlab._timeline import ReleaseTimelineArgs, release_timeline
from policy import AgentMeta, CallContext, FunctionTool, Tool, ToolContract, ToolResult

__all__ = [
    "EnvReleasesArgs",
    "GitLabTarget",
    "JobArgs",
    "ReleaseTimelineArgs",
    "build_tools",
    "probe",
]


def build_tools(target: GitLabTarget | None, envs: list[str]) -> list[Tool]:
    """The GitLab tools; none when GitLab is not configured."""
    if target is None:
        return []

    session = GitLabSession(target)

    async def run_timeline(args: ReleaseTimelineArgs, ctx: CallContext) -> ToolResult:
        return await release_timeline(session, envs, args, ctx)

    async def run_env(args: EnvReleasesArgs, ctx: CallContext) -> ToolResult:
        return await env_releases(session, envs, args, ctx)

    async def run_job(args: JobArgs, ctx: CallContext) -> ToolResult:
        return await job(session, envs, args, ctx)

    def meta(output_kind: str, negative: str) -> AgentMeta:
        return AgentMeta(
            evidence=["ci.release_timeline"],
            sources=["gitlab"],
            output_kind=output_kind,
            freshness="event_time",
            negative_semantics=negative,
            supports_history=True,
            current_only=False,
            read_only=True,
        )

    timeline = ToolContract(
        name="gitlab.release_timeline",
        description=(
            "Deploy jobs of a service's GitLab project in a time window, optionally for one "
            "environment: who started each job (job user), status, ref, pipeline, commit with "
            "its author and committer (separate roles), image tag only where GitLab states "
            "it, links. Deploy jobs of other environments are listed as context."
        ),
        args_model=ReleaseTimelineArgs,
        agent=meta("timeline", "complete_read"),
        enums={"env": list(envs)},
    )
    whole_env = ToolContract(
        name="gitlab.env_releases",
        description=(
            "Deploy jobs to one environment in a time window across GitLab projects (the "
            "most recently active first), when no service is named: who started each job, "
            "status, ref, pipeline, commit with its author and committer, links."
        ),
        args_model=EnvReleasesArgs,
        agent=meta("timeline", "complete_read"),
        enums={"env": list(envs)},
    )
    one_job = ToolContract(
        name="gitlab.job",
        description=(
            "One GitLab CI job by id: who started it (job user), status, times, pipeline and "
            "who triggered it, commit with its author and committer, link."
        ),
        args_model=JobArgs,
        agent=meta("events", "none"),
    )
    return [
        FunctionTool(timeline, run_timeline, resources=(session,)),
        FunctionTool(whole_env, run_env, resources=(session,)),
        FunctionTool(one_job, run_job, resources=(session,)),
    ]
