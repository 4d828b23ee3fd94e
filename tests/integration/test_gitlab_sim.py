"""The GitLab simulator, driven by the official python-gitlab client over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import gitlab
import httpx
import pytest
import requests
from starlette.applications import Starlette
from starlette.routing import Mount

from evals.simulators.faults import FaultPlan
from evals.simulators.gitlab import build_app
from evals.simulators.querylog import QueryLog
from evals.simulators.server import BackgroundServer
from evals.world import Fault, World, load_world

EXAMPLE = Path(__file__).resolve().parents[2] / "evals" / "scenarios" / "who-deployed-roles.yaml"


@pytest.fixture(scope="module")
def world() -> World:
    return load_world(EXAMPLE)


@contextmanager
def serve(world: World, *faults: Fault, stall: float = 2.0) -> Iterator[tuple[str, QueryLog]]:
    """The simulator mounted at /gitlab, as WorldSimulators mounts it."""
    log = QueryLog()
    app = build_app(world, FaultPlan(list(faults), stall_seconds=stall), log)
    with BackgroundServer(Starlette(routes=[Mount("/gitlab", app=app)])) as server:
        yield server.base_url + "/gitlab", log


@contextmanager
def client(world: World, *faults: Fault, timeout: float = 5.0):
    with serve(world, *faults) as (url, log), gitlab.Gitlab(url, timeout=timeout) as gl:
        yield gl, log


def test_version_and_project_by_id_and_by_encoded_path(world: World) -> None:
    with client(world) as (gl, log):
        assert gl.version()[0]
        by_path = gl.projects.get("orders/service-c")
        by_id = gl.projects.get(412)
        assert by_path.id == by_id.id == 412
        assert by_path.web_url == "https://gitlab.example.com/orders/service-c"
        with pytest.raises(gitlab.exceptions.GitlabGetError) as missing:
            gl.projects.get("orders/nope")
    assert missing.value.response_code == 404
    assert missing.value.error_message == "404 Project Not Found"
    paths = [r.path for r in log.records()]
    assert "/api/v4/projects/orders%2Fservice-c" in paths
    assert {r.source for r in log.records()} == {"gitlab"}
    assert {r.env for r in log.records()} == {None}
    assert log.records()[-1].status == 404


def test_project_search_and_simple(world: World) -> None:
    with client(world) as (gl, _):
        found = gl.projects.list(search="service-c", simple=True, membership=True, get_all=True)
        assert [p.path_with_namespace for p in found] == ["orders/service-c"]
        assert gl.projects.list(search="billing", get_all=True) == []


def test_pagination_follows_link_headers_page_by_page(world: World) -> None:
    with client(world) as (gl, log):
        project = gl.projects.get(412, lazy=True)
        listing = project.jobs.list(per_page=1, iterator=True)
        assert (listing.total, listing.total_pages, listing.per_page) == (4, 4, 1)
        assert [j.id for j in listing] == [5523817, 5523816, 5523801, 5480321]
        everything = project.jobs.list(per_page=3, get_all=True)
    assert len(everything) == 4
    pages = [r.params.get("page", "1") for r in log.records() if r.params.get("per_page") == "1"]
    assert pages == ["1", "2", "3", "4"]


def test_pagination_headers(world: World) -> None:
    with serve(world) as (url, _):
        answer = httpx.get(f"{url}/api/v4/projects/412/jobs", params={"per_page": 3, "page": 1})
        last = httpx.get(f"{url}/api/v4/projects/412/jobs", params={"per_page": 3, "page": 2})
    head = answer.headers
    assert (head["X-Total"], head["X-Total-Pages"], head["X-Page"]) == ("4", "2", "1")
    assert (head["X-Next-Page"], head["X-Prev-Page"]) == ("2", "")
    assert 'rel="next"' in head["Link"] and f"{url}/api/v4/projects/412/jobs?" in head["Link"]
    assert last.headers["X-Next-Page"] == "" and 'rel="next"' not in last.headers["Link"]
    assert [j["id"] for j in last.json()] == [5480321]


def test_pipeline_filters_and_order(world: World) -> None:
    with client(world) as (gl, log):
        project = gl.projects.get(412, lazy=True)
        recent = project.pipelines.list(
            updated_after="2026-07-19T21:00:00Z", order_by="updated_at", sort="asc", get_all=True
        )
        assert [p.id for p in recent] == [90211]
        assert recent[0].web_url.endswith("/-/pipelines/90211")
        older = project.pipelines.list(updated_before="2026-07-18T00:00:00Z", get_all=True)
        assert [p.id for p in older] == [89950]
        assert [p.id for p in project.pipelines.list(get_all=True)] == [90211, 89950]
        assert project.pipelines.list(status="failed", get_all=True) == []
        assert project.pipelines.get(90211).user["username"] == "a.petrov"
        with pytest.raises(gitlab.exceptions.GitlabListError) as bad:
            project.pipelines.list(updated_after="yesterday", get_all=True)
    assert bad.value.response_code == 400
    assert log.records()[0].params["updated_after"] == "2026-07-19T21:00:00Z"


def test_jobs_of_a_pipeline_with_scope(world: World) -> None:
    with client(world) as (gl, log):
        project = gl.projects.get("orders/service-c", lazy=True)
        jobs = project.pipelines.get(90211, lazy=True).jobs.list(get_all=True)
        assert [(j.id, j.name) for j in jobs] == [
            (5523801, "build"),
            (5523816, "deploy:dc-a"),
            (5523817, "deploy:dc-b"),
        ]
        assert project.jobs.list(scope=["failed", "canceled"], get_all=True) == []
        job = project.jobs.get(5523817)
        assert job.user["username"] == "a.petrov"
        assert job.commit["author_name"] == "m.orlova"
        assert job.pipeline["id"] == 90211
    assert any(r.params.get("scope[]") == ["failed", "canceled"] for r in log.records())


def test_commits_by_full_or_short_sha_and_by_time(world: World) -> None:
    with client(world) as (gl, _):
        project = gl.projects.get(412, lazy=True)
        short = project.commits.get("3f1c9a7e")
        full = project.commits.get("3f1c9a7e52d04b8c9a61e2f7b0d4c8a1e6f93b25")
        assert short.id == full.id
        assert (short.author_name, short.committer_name) == ("m.orlova", "a.petrov")
        since = project.commits.list(since="2026-07-19T00:00:00Z", get_all=True)
        assert [c.short_id for c in since] == ["3f1c9a7e"]
        on_main = project.commits.list(ref_name="main", get_all=True)
        assert [c.short_id for c in on_main] == ["3f1c9a7e", "8d2e6b1f"]
        with pytest.raises(gitlab.exceptions.GitlabGetError) as missing:
            project.commits.get("deadbeef")
    assert missing.value.error_message == "404 Commit Not Found"


def test_deployments_and_environments(world: World) -> None:
    data = world.model_dump(mode="json")
    data["gitlab"]["environments"] = [
        {"id": 7, "project_id": 412, "name": "dc-b", "state": "available"}
    ]
    data["gitlab"]["deployments"] = [
        {
            "id": 31, "iid": 5, "project_id": 412, "status": "success", "ref": "main",
            "created_at": "2026-07-20T13:42:05Z", "updated_at": "2026-07-20T13:44:40Z",
            "environment": {"id": 7, "name": "dc-b"},
            "deployable": {"id": 5523817, "name": "deploy:dc-b"},
        }
    ]  # fmt: skip
    with client(World.model_validate(data)) as (gl, _):
        project = gl.projects.get(412, lazy=True)
        deps = project.deployments.list(
            environment="dc-b", updated_after="2026-07-20T00:00:00Z", order_by="updated_at",
            get_all=True,
        )  # fmt: skip
        assert [d.deployable["id"] for d in deps] == [5523817]
        assert project.deployments.list(environment="dc-a", get_all=True) == []
        assert [e.name for e in project.environments.list(get_all=True)] == ["dc-b"]


def test_timeout_fault_stalls_past_the_client_timeout(world: World) -> None:
    fault = Fault(source="gitlab", kind="timeout", resource="jobs")
    with client(world, fault, timeout=0.5) as (gl, log):
        assert gl.projects.get(412).name == "service-c"
        with pytest.raises(requests.exceptions.Timeout):
            gl.projects.get(412, lazy=True).jobs.list(get_all=True)
    assert log.records()[-1].status == 504


@pytest.mark.parametrize(
    ("fault", "error", "code"),
    [
        (Fault(source="gitlab", kind="http_error", status=503), gitlab.GitlabListError, 503),
        (Fault(source="gitlab", kind="forbidden"), gitlab.GitlabListError, 403),
        (
            Fault(source="gitlab", kind="forbidden", status=401),
            gitlab.GitlabAuthenticationError,
            401,
        ),
        (Fault(source="gitlab", kind="unsupported"), gitlab.GitlabListError, 404),
        (Fault(source="gitlab", kind="malformed"), gitlab.GitlabParsingError, None),
    ],
)
def test_error_faults(world: World, fault: Fault, error: type[Exception], code: int | None) -> None:
    with client(world, fault) as (gl, log), pytest.raises(error) as raised:
        gl.projects.list(get_all=True)
    if code is not None:
        assert raised.value.response_code == code
    assert len(log.records()) == 1


def test_fault_only_hits_its_resource(world: World) -> None:
    fault = Fault(source="gitlab", kind="forbidden", resource="commits")
    with client(world, fault) as (gl, _):
        project = gl.projects.get(412, lazy=True)
        assert len(project.jobs.list(get_all=True)) == 4
        with pytest.raises(gitlab.exceptions.GitlabGetError) as raised:
            project.commits.get("3f1c9a7e")
    assert raised.value.response_code == 403
    assert raised.value.error_message == "403 Forbidden"


def test_truncate_with_max_hits_keeps_the_true_total(world: World) -> None:
    fault = Fault(source="gitlab", kind="truncate", resource="jobs", max_hits=2)
    with client(world, fault) as (gl, _):
        listing = gl.projects.get(412, lazy=True).jobs.list(per_page=1, iterator=True)
        read = [j.id for j in listing]
    assert read == [5523817, 5523816]
    assert listing.total == 4  # the server admits there were more


def test_truncate_without_max_hits_omits_the_total(world: World) -> None:
    fault = Fault(source="gitlab", kind="truncate", resource="jobs")
    with client(world, fault) as (gl, _):
        listing = gl.projects.get(412, lazy=True).jobs.list(per_page=3, iterator=True)
        read = [j.id for j in listing]
    assert len(read) == 3
    assert listing.total is None and listing.total_pages is None


def test_unknown_path_and_write_methods(world: World) -> None:
    with serve(world) as (url, log):
        unknown = httpx.get(f"{url}/api/v4/projects/412/merge_requests")
        write = httpx.post(f"{url}/api/v4/projects/412/pipelines", json={"ref": "main"})
    assert unknown.status_code == 404 and write.status_code == 405
    assert [(r.method, r.status) for r in log.records()] == [("GET", 404), ("POST", 405)]
