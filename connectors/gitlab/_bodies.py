"""What the GitLab REST API answers, typed where it enters the connector (`_client.get_one`
and `read_all` name the body each read expects): projects, pipelines, jobs with the user,
commit and pipeline they embed, commits, and deployments.

Only the fields the connector reads are named; every one is optional (`total=False`), as
GitLab leaves some out (an unplayed manual job has no `started_at`, an old server no
`environment` on a job), and every read goes through `.get`.
"""

from __future__ import annotations

from typing import TypedDict


class UserBody(TypedDict, total=False):
    id: int
    username: str
    name: str


class CommitBody(TypedDict, total=False):
    id: str  # the full sha
    short_id: str
    title: str
    author_name: str
    committer_name: str
    authored_date: str
    committed_date: str
    web_url: str


class PipelineBody(TypedDict, total=False):
    id: int
    status: str
    source: str  # what triggered it: push, web, schedule, api, ...
    user: UserBody
    ref: str
    created_at: str
    updated_at: str
    web_url: str


class EnvironmentBody(TypedDict, total=False):
    id: int
    name: str


class JobBody(TypedDict, total=False):
    id: int
    name: str
    stage: str
    status: str
    ref: str
    tag: bool
    created_at: str
    started_at: str | None
    finished_at: str | None
    web_url: str
    user: UserBody
    commit: CommitBody
    pipeline: PipelineBody
    # a job's own environment: an object on newer servers, a name on some older ones
    environment: EnvironmentBody | str | None


class DeploymentBody(TypedDict, total=False):
    id: int
    environment: EnvironmentBody
    deployable: JobBody | None  # the job that deployed (None for one made by the API)


class ProjectBody(TypedDict, total=False):
    id: int
    name: str
    path_with_namespace: str
    web_url: str
