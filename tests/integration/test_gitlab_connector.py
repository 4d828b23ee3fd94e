"""gitlab.release_timeline and gitlab.job through the policy gate, against the simulator.

The example world: a.petrov started (played) deploy:dc-b #5523817 of pipeline 90211 on
2026-07-20; m.orlova authored the commit, a.petrov committed it; the same pipeline deployed
dc-a (#5523816); the previous dc-b release was on 07-17 (#5480321).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from connectors.gitlab import GitLabTarget, build_tools
from evals.simulators.faults import FaultPlan
from evals.simulators.gitlab import build_app
from evals.simulators.querylog import QueryLog
from evals.simulators.server import BackgroundServer
from evals.world import Fault, World, load_world
from policy import CallContext, PolicyGate, Scope, TimeSpec, ToolResult, ToolSet

EXAMPLE = Path(__file__).resolve().parents[2] / "evals" / "scenarios" / "who-deployed-roles.yaml"
ENVS = ["dc-a", "dc-b", "stage"]
NOW = datetime.fromisoformat("2026-07-21T10:15:00+03:00")
YESTERDAY = {"start": "2026-07-20T00:00:00+03:00", "end": "2026-07-21T00:00:00+03:00"}
ASK = {"service": "service-c", "env": "dc-b", **YESTERDAY}


@pytest.fixture(scope="module")
def world() -> World:
    return load_world(EXAMPLE)


def ctx(env: str | None = "dc-b", obj: str | None = "service-c") -> CallContext:
    """'who deployed service-c to dc-b yesterday': 2026-07-20 in +03:00."""
    yesterday = TimeSpec(
        at=datetime.fromisoformat("2026-07-20T12:00:00+03:00"), window="PT24H", mode="historical"
    )
    scope = Scope(env=env, object=obj, time=yesterday)
    return CallContext(user="alice", role="engineer", scope=scope, now=NOW)


class Bot:
    def __init__(self, gate: PolicyGate, log: QueryLog) -> None:
        self.gate, self.log = gate, log

    async def call(self, tool: str, args: dict[str, Any], context: CallContext | None = None):
        return await self.gate.call(tool, args, context or ctx())


@contextmanager
def gitlab_bot(world: World, *faults: Fault, **settings: Any) -> Iterator[Bot]:
    log = QueryLog()
    app = build_app(world, FaultPlan(list(faults), stall_seconds=2), log)
    with BackgroundServer(Starlette(routes=[Mount("/gitlab", app=app)])) as server:
        target = GitLabTarget(url=server.base_url + "/gitlab", **{"timeout_s": 3, **settings})
        yield Bot(PolicyGate(ToolSet(build_tools(target, ENVS))), log)


def jobs(result: ToolResult, in_scope: bool = True) -> dict[int, Any]:
    return {
        f.attrs.job_id: f
        for f in result.facts
        if f.kind == "ci.job" and f.attrs.in_scope is in_scope
    }


def with_gitlab(world: World, **changes: Any) -> World:
    data = world.model_dump(mode="json")
    data["gitlab"].update(changes)
    return World.model_validate(data)


async def test_who_deployed_service_c_to_dc_b_yesterday(world: World) -> None:
    with gitlab_bot(world) as bot:
        result = await bot.call("gitlab.release_timeline", ASK)
    assert result.status == "ok", result.error
    assert list(jobs(result)) == [5523817]
    job = jobs(result)[5523817]
    assert job.attrs.user == "a.petrov" and job.attrs.env == "dc-b"
    assert job.attrs.pipeline_id == 90211 and job.attrs.status == "success"
    assert job.attrs.commit_sha.startswith("3f1c9a7e")
    assert job.attrs.image_tag is None  # no GitLab source states one
    assert "job deploy:dc-b #5523817" in job.text and "(pipeline 90211" in job.text
    assert "was started by a.petrov" in job.text and "finished 2026-07-20T13:44:40Z" in job.text
    assert job.link == "https://gitlab.example.com/orders/service-c/-/jobs/5523817"
    commit = next(f for f in result.facts if f.kind == "ci.commit")
    assert (commit.attrs.author, commit.attrs.committer) == ("m.orlova", "a.petrov")
    assert (
        "commit 3f1c9a7e 'Cache tariff lookups per region' was authored by m.orlova "
        "(committed by a.petrov)" in commit.text
    )
    assert commit.link.endswith("/-/commit/3f1c9a7e52d04b8c9a61e2f7b0d4c8a1e6f93b25")
    # the same pipeline deployed dc-a: context, attributed to dc-a, never to dc-b
    context = jobs(result, in_scope=False)
    assert list(context) == [5523816]
    assert context[5523816].attrs.env == "dc-a"
    assert context[5523816].text.startswith("context, environment dc-a, not dc-b")
    assert 5480321 not in jobs(result) | context  # the 07-17 release is not yesterday
    assert result.coverage.complete_for_negative and not result.coverage.truncated
    assert result.evidence == {"ci.release_timeline": "found"}
    assert ("job/5523817", "started_by", "user/a.petrov") in {
        (r.src, r.rel, r.dst) for r in result.relations
    }
    assert {r.source for r in bot.log.records()} == {"gitlab"}


async def test_a_job_link_on_another_host_is_not_shown_as_gitlabs(world: World) -> None:
    """A body naming a page elsewhere as the job's web_url: the job is still told (who,
    when, the pipeline), but no link labelled as GitLab's opens another site."""
    data = world.model_dump(mode="json")
    for job in data["gitlab"]["jobs"]:
        if job["id"] == 5523817:
            job["web_url"] = "https://gitlab.example.com.evil.example/-/jobs/5523817"
    with gitlab_bot(World.model_validate(data)) as bot:
        result = await bot.call("gitlab.release_timeline", ASK)
    job = jobs(result)[5523817]
    assert "was started by a.petrov" in job.text
    assert job.link is None and job.attrs.web_url is None
    assert not [f.link for f in result.facts if "evil.example" in (f.link or "")]


async def test_window_defaults_to_the_question_scope(world: World) -> None:
    with gitlab_bot(world) as bot:
        result = await bot.call("gitlab.release_timeline", {"service": "service-c", "env": "dc-b"})
    assert list(jobs(result)) == [5523817]
    assert result.scope.env == "dc-b" and result.scope.object == "service-c"
    assert result.scope.time.mode == "historical"
    assert result.scope.time.bounds(NOW) == (
        datetime.fromisoformat(YESTERDAY["start"]),
        datetime.fromisoformat(YESTERDAY["end"]),
    )


async def test_no_fact_names_a_person_the_world_does_not(world: World) -> None:
    people: set[str] = set()
    for item in world.gitlab.jobs + world.gitlab.pipelines + world.gitlab.commits:
        for value in (item.get("user") or {}, item.get("commit") or {}, item):
            for key in ("username", "name", "author_name", "committer_name"):
                if isinstance(value, dict) and value.get(key):
                    people.add(value[key])
    with gitlab_bot(world) as bot:
        results = [
            await bot.call("gitlab.release_timeline", {"service": "service-c", **YESTERDAY}),
            await bot.call("gitlab.release_timeline", {"project": "orders/service-c"}),
            await bot.call("gitlab.job", {"job_id": 5480321}),
        ]
    facts = [f for r in results for f in r.facts]
    assert len(facts) >= 6
    for fact in facts:
        assert not re.search("[а-яА-ЯёЁ]", fact.text)
        for role in ("user", "author", "committer", "pipeline_user"):
            assert getattr(fact.attrs, role, None) in people | {None}, fact.attrs
        for named in re.findall(
            r"(?:started|authored|committed|triggered) by ([^\s,()]+)", fact.text
        ):
            assert named in people, fact.text


async def test_all_envs_when_no_env_is_given(world: World) -> None:
    with gitlab_bot(world) as bot:
        result = await bot.call("gitlab.release_timeline", {"service": "service-c", **YESTERDAY})
    found = jobs(result)
    assert sorted(found) == [5523816, 5523817]
    assert {found[5523816].attrs.env, found[5523817].attrs.env} == {"dc-a", "dc-b"}


async def test_env_without_deploys_is_a_complete_empty(world: World) -> None:
    with gitlab_bot(world) as bot:
        result = await bot.call("gitlab.release_timeline", {**ASK, "env": "stage"})
    assert result.status == "empty" and result.proves_absence
    assert result.evidence == {"ci.release_timeline": "none_complete"}
    assert sorted(jobs(result, in_scope=False)) == [5523816, 5523817]
    assert any("no deploy job to stage" in w for w in result.warnings)


async def test_pagination_is_read_to_the_end(world: World) -> None:
    with gitlab_bot(world, per_page=1, max_pages=10) as bot:
        result = await bot.call("gitlab.release_timeline", ASK)
    assert list(jobs(result)) == [5523817] and result.coverage.complete_for_negative
    job_pages = [
        r.params.get("page", "1") for r in bot.log.records() if r.path.endswith("90211/jobs")
    ]
    assert job_pages == ["1", "2", "3"]


async def test_page_cap_makes_the_read_partial(world: World) -> None:
    with gitlab_bot(world, per_page=1, max_pages=1) as bot:
        result = await bot.call("gitlab.release_timeline", ASK)
    assert result.status == "empty" and not result.coverage.complete_for_negative
    assert result.evidence == {"ci.release_timeline": "none_partial"}


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        (Fault(source="gitlab", kind="timeout", resource="pipelines"), "timeout"),
        (Fault(source="gitlab", kind="http_error", status=503), "unavailable"),
        (Fault(source="gitlab", kind="forbidden", resource="projects"), "forbidden"),
        (Fault(source="gitlab", kind="forbidden", status=401), "forbidden"),
        (Fault(source="gitlab", kind="unsupported", resource="pipelines"), "not_found"),
        (Fault(source="gitlab", kind="malformed", resource="jobs"), "malformed"),
    ],
)
async def test_a_failed_read_becomes_a_gap(world: World, fault: Fault, kind: str) -> None:
    settings = {"timeout_s": 0.5} if fault.kind == "timeout" else {}
    with gitlab_bot(world, fault, **settings) as bot:
        result = await bot.call("gitlab.release_timeline", ASK)
    assert result.status == "error" and result.error_kind == kind, result
    assert result.facts == [] and not result.coverage.complete_for_negative
    assert result.coverage.source == "gitlab"


async def test_truncated_jobs_never_prove_absence(world: World) -> None:
    fault = Fault(source="gitlab", kind="truncate", resource="jobs", max_hits=1)
    with gitlab_bot(world, fault) as bot:
        result = await bot.call("gitlab.release_timeline", ASK)
    assert jobs(result) == {}  # only the build job was served
    assert result.status == "empty" and not result.proves_absence
    assert result.evidence == {"ci.release_timeline": "none_partial"}


async def test_missing_total_never_proves_absence(world: World) -> None:
    fault = Fault(source="gitlab", kind="truncate", resource="pipelines")
    with gitlab_bot(world, fault) as bot:
        result = await bot.call("gitlab.release_timeline", {**ASK, "env": "stage"})
    assert result.status == "empty" and not result.coverage.complete_for_negative
    assert not result.coverage.total_is_exact


async def test_failed_commit_read_keeps_the_roles_from_the_job(world: World) -> None:
    fault = Fault(source="gitlab", kind="forbidden", resource="commits")
    with gitlab_bot(world, fault) as bot:
        result = await bot.call("gitlab.release_timeline", ASK)
    assert result.status == "partial" and list(jobs(result)) == [5523817]
    commit = next(f for f in result.facts if f.kind == "ci.commit")
    assert commit.attrs.author == "m.orlova" and commit.link is None
    assert any("403" in w for w in result.warnings)


async def test_deployments_name_the_environment(world: World) -> None:
    renamed = [dict(j, name="deploy") if j["id"] == 5523817 else j for j in world.gitlab.jobs]
    deployment = {
        "id": 31, "iid": 5, "project_id": 412, "status": "success", "ref": "main",
        "created_at": "2026-07-20T13:42:05Z", "updated_at": "2026-07-20T13:44:40Z",
        "environment": {"id": 7, "name": "production/dc-b"},
        "deployable": {"id": 5523817, "name": "deploy"},
    }  # fmt: skip
    changed = with_gitlab(world, jobs=renamed, deployments=[deployment])
    with gitlab_bot(changed) as bot:
        result = await bot.call("gitlab.release_timeline", ASK)
        broken = Fault(source="gitlab", kind="http_error", status=500, resource="deployments")
    assert list(jobs(result)) == [5523817]
    assert jobs(result)[5523817].attrs.environment == "production/dc-b"
    with gitlab_bot(changed, broken) as bot:
        degraded = await bot.call("gitlab.release_timeline", ASK)
    # without deployments the job names no environment: it may be dc-b, nothing is proven
    assert jobs(degraded) == {} and degraded.status == "empty"
    assert not degraded.coverage.complete_for_negative
    assert jobs(degraded, in_scope=False)[5523817].attrs.env is None
    assert any("maybe dc-b" in w for w in degraded.warnings)


async def test_env_job_pattern_and_image_tag_from_a_git_tag(world: World) -> None:
    tagged = [
        dict(j, name="release to dc-b", tag=True, ref="v1.14.0") if j["id"] == 5523817 else j
        for j in world.gitlab.jobs
    ]
    with gitlab_bot(with_gitlab(world, jobs=tagged), env_job_pattern="release to {env}") as bot:
        result = await bot.call("gitlab.release_timeline", ASK)
    job = jobs(result)[5523817]
    assert (job.attrs.image_tag, job.attrs.image_tag_source) == ("v1.14.0", "git tag")
    assert "image tag v1.14.0 (stated by the git tag)" in job.text


async def test_ambiguous_service_name(world: World) -> None:
    twin = {
        "id": 913, "name": "service-c", "path_with_namespace": "sandbox/service-c",
        "web_url": "https://gitlab.example.com/sandbox/service-c",
    }  # fmt: skip
    changed = with_gitlab(world, projects=[*world.gitlab.projects, twin])
    with gitlab_bot(changed) as bot:
        result = await bot.call("gitlab.release_timeline", ASK)
        exact = await bot.call("gitlab.release_timeline", {**ASK, "project": "orders/service-c"})
    assert result.status == "error" and result.error_kind == "ambiguous"
    assert "orders/service-c" in result.error and "sandbox/service-c" in result.error
    assert list(jobs(exact)) == [5523817]


async def test_unknown_service_is_not_found(world: World) -> None:
    with gitlab_bot(world) as bot:
        result = await bot.call("gitlab.release_timeline", {**ASK, "service": "service-z"})
    assert result.error_kind == "not_found" and "service-z" in result.error


@pytest.mark.parametrize(
    "args",
    [{"env": "dc-b"}, {"service": "service-c", "env": "dc-z"}, {"service": "c", "limit": 0}],
)
async def test_bad_arguments_are_denied(world: World, args: dict[str, Any]) -> None:
    with gitlab_bot(world) as bot:
        result = await bot.call("gitlab.release_timeline", args)
    assert result.status == "denied" and result.error_kind == "invalid_arguments"
    assert bot.log.records() == []


async def test_job_by_id_without_project(world: World) -> None:
    with gitlab_bot(world) as bot:
        result = await bot.call("gitlab.job", {"job_id": 5523817})
        with_project = await bot.call(
            "gitlab.job", {"job_id": 5523816, "project": "orders/service-c"}
        )
    assert result.status == "ok"
    job = next(f for f in result.facts if f.kind == "ci.job")
    assert job.attrs.user == "a.petrov" and job.attrs.env == "dc-b"
    assert job.attrs.pipeline_user == "a.petrov"
    assert "pipeline 90211 was triggered by a.petrov" in job.text
    commit = next(f for f in result.facts if f.kind == "ci.commit")
    assert commit.attrs.author == "m.orlova"
    assert result.scope.env == "dc-b"
    other = next(f for f in with_project.facts if f.kind == "ci.job")
    assert other.attrs.env == "dc-a" and other.text.startswith("dc-a deploy:")


async def test_job_not_found_and_job_faults(world: World) -> None:
    with gitlab_bot(world) as bot:
        missing = await bot.call("gitlab.job", {"job_id": 1, "project": "orders/service-c"})
    assert missing.status == "error" and missing.error_kind == "not_found"
    fault = Fault(source="gitlab", kind="timeout", resource="jobs")
    with gitlab_bot(world, fault, timeout_s=0.5) as bot:
        slow = await bot.call("gitlab.job", {"job_id": 5523817, "project": "412"})
    assert slow.status == "error" and slow.error_kind == "timeout"


def _second_project(world: World) -> World:
    """billing-api beside service-c: yesterday its deploy:dc-b job waited for a manual play
    nobody gave, and its deploy:dc-a ran."""
    gl = world.model_dump(mode="json")["gitlab"]
    user = {"id": 1301, "username": "n.kim", "name": "n.kim", "state": "active"}
    pipeline = {"id": 90300, "iid": 12, "project_id": 413, "sha": "a" * 40, "ref": "main",
                "status": "manual", "source": "push", "created_at": "2026-07-20T08:00:00.000Z",
                "updated_at": "2026-07-20T08:20:00.000Z", "user": user}  # fmt: skip

    def job(ident: int, name: str, status: str, started: str | None) -> dict[str, Any]:
        return {"id": ident, "project_id": 413, "name": name, "stage": "deploy", "status": status,
                "ref": "main", "tag": False, "created_at": "2026-07-20T08:00:00.000Z",
                "started_at": started, "finished_at": started, "user": user,
                "commit": {"id": "a" * 40, "title": "Retry ledger writes"},
                "pipeline": {"id": 90300, "project_id": 413}}  # fmt: skip

    project = {"id": 413, "name": "billing-api", "path_with_namespace": "orders/billing-api",
               "web_url": "https://gitlab.example.com/orders/billing-api",
               "created_at": "2025-01-10T10:00:00.000Z"}  # fmt: skip
    return with_gitlab(
        world,
        projects=[*gl["projects"], project],
        pipelines=[*gl["pipelines"], pipeline],
        jobs=[
            *gl["jobs"],
            job(6000001, "deploy:dc-b", "manual", None),
            job(6000002, "deploy:dc-a", "success", "2026-07-20T08:10:00.000Z"),
        ],
    )


ENV_WIDE = {"env": "dc-b", **YESTERDAY}


async def test_a_whole_env_reads_the_deploys_of_every_project_and_no_other_env(
    world: World,
) -> None:
    """ "What was deployed to dc-b yesterday?" names no service: every project is read."""
    with gitlab_bot(_second_project(world)) as bot:
        result = await bot.call("gitlab.env_releases", ENV_WIDE, ctx(obj=None))
    assert result.status == "ok", result.error
    found = jobs(result)
    assert found[5523817].attrs.project == "orders/service-c" and found[5523817].attrs.ran
    # billing-api's dc-b job waited for a play nobody gave: said, never as a release
    waiting = found[6000001]
    assert not waiting.attrs.ran and "has not run (GitLab names n.kim as its user)" in waiting.text
    assert "was started by" not in waiting.text
    assert not jobs(result, in_scope=False)  # another env's deploys are no change to dc-b
    assert 6000002 not in found and 5523816 not in found
    assert result.coverage.total == 1  # the one that ran
    assert result.coverage.complete_for_negative


async def test_an_env_with_more_projects_than_read_proves_no_absence(world: World) -> None:
    with gitlab_bot(_second_project(world), max_projects=1) as bot:
        result = await bot.call("gitlab.env_releases", ENV_WIDE, ctx(obj=None))
    assert not result.coverage.complete_for_negative
    assert "read the 1 most recently active of 2 GitLab projects" in (result.coverage.note or "")


async def test_an_env_where_only_a_manual_job_waits_has_no_release(world: World) -> None:
    """The manual job is context; the read found no release, so it is empty, and with a
    complete read of every project that absence is proven."""
    data = _second_project(world).model_dump(mode="json")["gitlab"]
    only_billing = with_gitlab(
        world,
        projects=[p for p in data["projects"] if p["id"] == 413],
        pipelines=[p for p in data["pipelines"] if p["project_id"] == 413],
        jobs=[j for j in data["jobs"] if j["project_id"] == 413],
    )
    with gitlab_bot(only_billing) as bot:
        result = await bot.call("gitlab.env_releases", ENV_WIDE, ctx(obj=None))
    assert result.status == "empty"
    assert result.evidence == {"ci.release_timeline": "none_complete"}
    assert [f.attrs.job_id for f in result.facts if f.kind == "ci.job"] == [6000001]
