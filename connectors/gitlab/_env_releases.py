"""gitlab.env_releases: the deploy jobs of every project to one environment in a window.

Class "changes across a whole environment": "what changed in prod in the last 3 hours?"
names no service, and the release timeline of one project needs one; nothing maps an
environment to its projects, so the projects themselves are read, most recently active
first, and each is read as `gitlab.release_timeline` reads one (the same rules for which
job deployed where).

Reads:
    projects    order_by=last_activity_at, at most `max_projects` (simple=true)
    then, for each, at the same time: pipelines, deployments, jobs and commits
A result is complete (an empty one proves no release) only if GitLab holds no more
projects than were read, and every project was read completely.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from connectors.gitlab._bodies import ProjectBody
from connectors.gitlab._client import SOURCE, GitLabSession, mapped, utc
from connectors.gitlab._timeline import (
    ReleaseTimelineArgs,
    project_part,
    read_project,
    read_window,
    release_evidence,
)
from policy import CallContext, ToolResult
from policy.errors import attempt
from policy.facts import CiJob
from policy.findings import Findings
from policy.numbers import Nouns, count_said


class EnvReleasesArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str = Field(description="environment deployed to")
    start: AwareDatetime | None = None
    end: AwareDatetime | None = None
    limit: int = Field(20, ge=1, le=100, description="most deploy jobs to return")


def _active_projects(gl: Any, session: GitLabSession) -> tuple[list[ProjectBody], int | None, bool]:
    """The most recently active projects (up to max_projects), GitLab's total, and whether
    that list is all GitLab holds."""
    target = session.target
    cap = target.max_projects
    items: list[ProjectBody] = []
    with mapped("projects by last activity"):
        listing = gl.projects.list(
            iterator=True,
            per_page=min(cap, 100),
            order_by="last_activity_at",
            sort="desc",
            simple=True,
            obey_rate_limit=False,
        )
        for obj in listing:
            items.append(cast(ProjectBody, obj.asdict()))  # read as the API's project
            if len(items) >= cap:
                break
        total = listing.total
    return items, total, total is not None and len(items) >= total


async def env_releases(
    session: GitLabSession, envs: list[str], args: EnvReleasesArgs, ctx: CallContext
) -> ToolResult:
    start, end, scope = read_window(args, ctx)

    def listed() -> tuple[list[ProjectBody], int | None, bool]:
        with session.borrow() as gl:
            return _active_projects(gl, session)

    projects, total, whole = await session.threads.run(listed)
    found = Findings(SOURCE, complete=whole)
    if not whole:
        of = f"of {total}" if total is not None else "of more"
        found.gap(f"read the {len(projects)} most recently active {of} GitLab projects")
    per_project = ReleaseTimelineArgs(project="-", env=args.env, limit=args.limit)
    reads = await asyncio.gather(
        *(
            attempt(
                read_project(
                    session,
                    envs,
                    per_project.model_copy(update={"project": str(p["id"])}),
                    start,
                    end,
                    known=p,
                )
            )
            for p in projects
        )
    )
    deployed = 0
    shown = 0
    for project, (read, error) in zip(projects, reads, strict=True):
        name = project.get("path_with_namespace") or project.get("id")
        if error is not None:
            found.gap(f"{name}: {error.reason}")
            continue
        assert read is not None
        part = project_part(read, per_project, start, end)
        found.complete = found.complete and part.complete and not part.cut
        found.truncated = found.truncated or part.cut or not part.complete
        found.warnings += part.warnings
        ran = [
            f for f in part.facts if isinstance(f.attrs, CiJob) and f.attrs.in_scope and f.attrs.ran
        ]
        deployed += len(ran)
        if part.in_scope:
            shown += part.shown
            # other envs' deploys of the same project are no change to this one
            found.facts += [
                f for f in part.facts if not (isinstance(f.attrs, CiJob) and not f.attrs.in_scope)
            ]
            found.entities += part.entities
            found.relations += part.relations
    if reads and all(error is not None for _, error in reads):
        raise reads[0][1]  # type: ignore[misc]  # every project failed: the source did
    found.notes.append(
        f"read the deploy jobs of {count_said(len(projects), Nouns.PROJECT)} to {args.env} "
        f"between "
        f"{utc(start)} and {utc(end)}"
    )
    return found.result(
        "gitlab.env_releases",
        scope,
        returned=shown,
        found=bool(deployed),
        observed_at=ctx.now,
        limit=args.limit,
        total=deployed,
        total_is_exact=found.complete,
        evidence=release_evidence(bool(deployed), found.complete),
    )
