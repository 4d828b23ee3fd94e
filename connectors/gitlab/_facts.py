"""GitLab jobs and commits -> facts, entities and relations, each role named explicitly.

`job.user.username` started (played) the job; the commit's `author_name` wrote the change;
its `committer_name` committed it. Names are used exactly as GitLab returned them: a
`name` is shown only when GitLab sent one that differs from the username, never built.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from connectors.gitlab._bodies import CommitBody, JobBody, ProjectBody
from connectors.gitlab._client import SOURCE, ts, utc
from policy import Entity, Relation, ResultFact
from policy.facts import CiCommit, CiJob

# Only a title that says it is a release states a version; "Bump base image to debian
# 12.6" states nothing about our image.
_RELEASE_TITLE = re.compile(
    r"^(?:release|version|bump version to)\s+v?(\d+\.\d+\.\d+[\w.+-]*)", re.IGNORECASE
)


def _bounded(needle: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(needle)}(?![A-Za-z0-9])", re.IGNORECASE)


def job_env(job: JobBody, environment: str | None, envs: list[str], pattern: str) -> str | None:
    """The configured environment a job deployed to: from the GitLab environment name,
    else from the job name (`pattern`, e.g. 'deploy:{env}'); None when neither says."""
    ordered = sorted(set(envs), key=len, reverse=True)
    if environment:
        for env in ordered:
            if _bounded(env).search(environment):
                return env
    name = str(job.get("name", ""))
    for env in ordered:
        if _bounded(pattern.format(env=env)).search(name):
            return env
    return None


def environment_name(job: JobBody, deployed_to: dict[Any, str]) -> str | None:
    """The GitLab environment of a job: from a deployment, or the job's own field."""
    env = job.get("environment")
    name = env.get("name") if isinstance(env, dict) else env
    return deployed_to.get(job.get("id")) or (str(name) if name else None)


def is_deploy(job: JobBody, environment: str | None) -> bool:
    name = str(job.get("name", "")).lower()
    return job.get("stage") == "deploy" or "deploy" in name or bool(environment)


def image_tag(job: JobBody) -> tuple[str | None, str | None]:
    """(tag, where it was stated), only where a source states one; never guessed."""
    if job.get("tag") is True and job.get("ref"):
        return str(job["ref"]), "git tag"
    title = str((job.get("commit") or {}).get("title") or "")
    match = _RELEASE_TITLE.match(title)
    return (match.group(1), "commit title") if match else (None, None)


def who(user: Any) -> tuple[str | None, str]:
    """(username, how to say it)."""
    if not isinstance(user, dict) or not user.get("username"):
        return None, "a user GitLab did not name (no job.user returned)"
    username, name = str(user["username"]), user.get("name")
    if name and name != username:
        return username, f"{username} (GitLab name: {name})"
    return username, username


def project_link(url: str | None, project: ProjectBody) -> str | None:
    """`url` when it opens this GitLab: on the host the project's own page is on (what
    GitLab says its address is); a link elsewhere in a body is never shown as GitLab's."""
    own = project.get("web_url")
    if not url or not own:
        return url or None
    try:
        same = urlsplit(url).netloc.lower() == urlsplit(str(own)).netloc.lower()
    except ValueError:
        return None
    return url if same and url.startswith(("https://", "http://")) else None


def job_fact(
    job: JobBody,
    project: ProjectBody,
    env: str | None,
    environment: str | None,
    note: str,
    *,
    in_scope: bool = True,
) -> ResultFact:
    """'job deploy:dc-b #5523817 ... (pipeline 90211, ...) was started by a.petrov, ...'."""
    username, started_by = who(job.get("user"))
    # a manual job nobody played, or one still waiting, changed nothing; GitLab still
    # names a user for it (the pipeline's), who did not start it
    ran = bool(job.get("started_at")) or job.get("status") in ("success", "running")
    commit = job.get("commit") or {}
    pipeline = job.get("pipeline") or {}
    tag, tag_source = image_tag(job)
    started, finished = utc(job.get("started_at")), utc(job.get("finished_at"))
    details = [f"status {job.get('status')}"]
    details += [f"started {started}"] if started else []
    details += [f"finished {finished}"] if finished else []
    details += [f"image tag {tag} (stated by the {tag_source})"] if tag else []
    context = [f"pipeline {pipeline.get('id')}"]
    context += [f"ref {job['ref']}"] if job.get("ref") else []
    if commit.get("id"):
        context.append(f"commit {commit.get('short_id') or str(commit['id'])[:8]}")
    context += [f"GitLab environment {environment}"] if environment else []
    text = (
        f"{note}job {job.get('name')} #{job.get('id')} of {project.get('path_with_namespace')} "
        f"({', '.join(context)}) "
        + (
            f"was started by {started_by}"
            if ran
            else f"has not run (GitLab names {started_by} as its user)"
        )
        + f", {', '.join(details)}"
    )
    attrs = CiJob(
        job_id=job.get("id"),
        job_name=job.get("name"),
        stage=job.get("stage"),
        status=job.get("status"),
        ref=job.get("ref"),
        user=username,
        pipeline_id=pipeline.get("id"),
        commit_sha=commit.get("id"),
        image_tag=tag,
        image_tag_source=tag_source,
        environment=environment,
        env=env,
        started_at=started,
        finished_at=finished,
        web_url=project_link(job.get("web_url"), project),
        project=project.get("path_with_namespace"),
        in_scope=in_scope,
        ran=ran,
    )
    when = ts(job.get("finished_at")) or ts(job.get("started_at")) or ts(job.get("created_at"))
    return ResultFact(
        text=text,
        source=SOURCE,
        observed_at=when,
        link=project_link(job.get("web_url"), project),
        attrs=attrs,
    )


def commit_fact(commit: CommitBody, link: str | None) -> ResultFact:
    """ "commit 3f1c9a7e 'Title' was authored by m.orlova (committed by a.petrov)"."""
    short = commit.get("short_id") or str(commit.get("id", ""))[:8]
    author, committer = commit.get("author_name"), commit.get("committer_name")
    text = f"commit {short} '{commit.get('title', '')}' "
    text += f"was authored by {author}" if author else "has no author name in GitLab"
    text += f" (committed by {committer})" if committer else ""
    authored = utc(commit.get("authored_date"))
    text += f", authored {authored}" if authored else ""
    attrs = {
        "sha": commit.get("id"),
        "short_id": short,
        "title": commit.get("title"),
        "author": author,
        "committer": committer,
        "authored_date": authored,
        "committed_date": utc(commit.get("committed_date")),
    }
    return ResultFact(
        text=text,
        source=SOURCE,
        observed_at=ts(commit.get("committed_date")) or ts(commit.get("authored_date")),
        link=link,
        attrs=CiCommit.model_validate(attrs),
    )


def graph(job: JobBody, env: str | None) -> tuple[list[Entity], list[Relation]]:
    """job -> pipeline, job -> started_by user, job -> commit -> authored_by/committed_by."""
    jid = f"job/{job.get('id')}"
    when = ts(job.get("started_at")) or ts(job.get("created_at"))
    entities = [
        Entity(kind="job", name=str(job.get("id")), env=env, attrs={"name": job.get("name")})
    ]
    relations: list[Relation] = []

    def link(src: str, rel: str, dst: str) -> None:
        relations.append(Relation(src=src, rel=rel, dst=dst, source=SOURCE, observed_at=when))

    if (pipe := (job.get("pipeline") or {}).get("id")) is not None:
        entities.append(Entity(kind="pipeline", name=str(pipe)))
        link(jid, "part_of", f"pipeline/{pipe}")
    if username := who(job.get("user"))[0]:
        entities.append(Entity(kind="user", name=username))
        link(jid, "started_by", f"user/{username}")
    commit = job.get("commit") or {}
    if sha := commit.get("id"):
        entities.append(Entity(kind="commit", name=str(sha)))
        link(jid, "runs_commit", f"commit/{sha}")
        for rel, user in (
            ("authored_by", commit.get("author_name")),
            ("committed_by", commit.get("committer_name")),
        ):
            if user:
                entities.append(Entity(kind="user", name=str(user)))
                link(f"commit/{sha}", rel, f"user/{user}")
    if env:
        link(jid, "deploys_to", f"env/{env}")
    return entities, relations
