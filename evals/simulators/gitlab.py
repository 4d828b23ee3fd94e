"""GitLab API v4 simulator: serves `world.gitlab` so that python-gitlab works unchanged.

Mounted at /gitlab (one instance for all environments); the client's url is "<base>/gitlab".
Routing reads the raw path, because a project id may be a URL-encoded path
(`orders%2Fservice-c`) that the ASGI server would otherwise split at the decoded slash.

Pagination is GitLab's offset pagination: `page`/`per_page` (default 20, at most 100) and
the headers X-Page, X-Per-Page, X-Total, X-Total-Pages, X-Next-Page, X-Prev-Page and Link.

Faults (source "gitlab", `resource` = projects | pipelines | jobs | commits | deployments |
environments): timeout / http_error / malformed as FaultPlan answers them; forbidden ->
403 `{"message": "403 Forbidden"}` (401 when the fault says `status: 401`); unsupported ->
404; truncate -> a collection serves at most `max_hits` items while X-Total still counts
them all, or, without `max_hits`, one page and no X-Total/X-Total-Pages (as GitLab does for
very large sets). Every request is recorded in the QueryLog (source "gitlab", env None).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import unquote, urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from evals.simulators.faults import FaultPlan
from evals.simulators.querylog import QueryLog, QueryRecord
from evals.world import Fault, World

Item = dict[str, Any]
SIMPLE_PROJECT_FIELDS = (
    "id", "description", "name", "name_with_namespace", "path", "path_with_namespace",
    "created_at", "default_branch", "web_url", "last_activity_at",
)  # fmt: skip
FINISHED = {"success", "failed", "canceled", "skipped"}


class _Reply(Exception):
    """An early answer (404, 400) from deep inside a handler."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.body = body


def _sha_of(job: Item) -> Any:
    return (job.get("commit") or {}).get("id")


def _ts(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def _param_ts(params: dict[str, list[str]], name: str) -> datetime | None:
    if name not in params:
        return None
    parsed = _ts(params[name][-1])
    if parsed is None:
        raise _Reply(400, {"error": f"{name} is invalid"})
    return parsed


def _one(params: dict[str, list[str]], name: str) -> str | None:
    values = params.get(name)
    return values[-1] if values else None


def _within(
    items: list[Item], field: str, after: datetime | None, before: datetime | None
) -> list[Item]:
    out: list[Item] = []
    for item in items:
        when = _ts(item.get(field))
        if after is not None and (when is None or when <= after):
            continue
        if before is not None and (when is None or when >= before):
            continue
        out.append(item)
    return out


def _sorted(items: list[Item], params: dict[str, list[str]], order: str, sort: str) -> list[Item]:
    key = _one(params, "order_by") or order
    desc = (_one(params, "sort") or sort) == "desc"

    def sort_key(item: Item) -> tuple[int, Any]:
        value = item.get(key)
        if key == "user_id":
            value = (item.get("user") or {}).get("id")
        stamp = _ts(value)
        if stamp is not None:
            return (1, stamp.timestamp())
        return (0, "") if value is None else (1, value)

    return sorted(items, key=sort_key, reverse=desc)


class _GitLab:
    """Read-only indexes over world.gitlab, plus GitLab's derived fields."""

    def __init__(self, world: World) -> None:
        gl = world.gitlab
        self.projects = list(gl.projects)
        self.pipelines = list(gl.pipelines)
        self.jobs = list(gl.jobs)
        # python-gitlab keys objects by `id`; number any the world left without one
        self.deployments = [{"id": i, **x} for i, x in enumerate(gl.deployments, 1)]
        self.environments = [{"id": i, **x} for i, x in enumerate(gl.environments, 1)]
        self.commits: list[Item] = list(gl.commits)
        known = {c.get("id") for c in self.commits}
        for job in self.jobs:  # commits embedded in jobs are served too, world wins
            commit = job.get("commit") or {}
            if commit.get("id") and commit["id"] not in known:
                known.add(commit["id"])
                self.commits.append({**commit, "project_id": job.get("project_id")})
        self.projects = [self._with_activity(p) for p in self.projects]

    def _with_activity(self, project: Item) -> Item:
        """GitLab derives `last_activity_at` from what happens in a project; a world that
        leaves it out gets the latest time among its pipelines, jobs and commits."""
        if project.get("last_activity_at"):
            return project
        pid = project.get("id")
        stamps = [project.get("created_at")]
        for item in self.pipelines + self.jobs:
            if item.get("project_id") == pid:
                stamps += [item.get("updated_at"), item.get("finished_at"), item.get("created_at")]
        stamps += [c.get("created_at") for c in self.commits if c.get("project_id") == pid]
        times = [(t, str(v)) for v in stamps if (t := _ts(v)) is not None]
        return {**project, "last_activity_at": max(times)[1]} if times else project

    def project(self, ident: str) -> Item:
        for project in self.projects:
            if str(project.get("id")) == ident or (
                str(project.get("path_with_namespace", "")).lower() == ident.lower()
            ):
                return project
        raise _Reply(404, {"message": "404 Project Not Found"})

    def commit_projects(self, commit: Item) -> set[Any]:
        if commit.get("project_id") is not None:
            return {commit["project_id"]}
        sha = commit.get("id")
        owners = {p.get("project_id") for p in self.pipelines if p.get("sha") == sha}
        owners |= {j.get("project_id") for j in self.jobs if _sha_of(j) == sha}
        if not owners and len(self.projects) == 1:
            owners = {self.projects[0].get("id")}
        return owners

    def project_commits(self, project: Item) -> list[Item]:
        return [c for c in self.commits if project.get("id") in self.commit_projects(c)]

    def reachable(self, project: Item, ref: str) -> list[Item]:
        """Commits reachable from a branch, tag or sha, following parent_ids in the world."""
        commits = self.project_commits(project)
        if ref == project.get("default_branch"):
            return commits
        by_sha = {c["id"]: c for c in commits if c.get("id")}
        heads = [s for s in by_sha if s.startswith(ref)] if len(ref) >= 7 else []
        for item in self.pipelines + self.jobs:
            if item.get("project_id") == project.get("id") and item.get("ref") == ref:
                heads.append(item.get("sha") or (item.get("commit") or {}).get("id"))
        seen: set[str] = set()
        while heads:
            sha = heads.pop()
            if sha in seen or sha not in by_sha:
                continue
            seen.add(sha)
            heads.extend(by_sha[sha].get("parent_ids") or [])
        return [c for c in commits if c.get("id") in seen]


def _fill(kind: str, item: Item, project: Item) -> Item:
    """GitLab's derived fields: web_url from the project, short_id, title, pipeline ids."""
    out = dict(item)
    base = str(project.get("web_url", "")).rstrip("/")
    if kind == "commit":
        out.pop("project_id", None)  # the API does not return it; the world uses it to link
        if out.get("id"):
            out.setdefault("short_id", out["id"][:8])
            out.setdefault("web_url", f"{base}/-/commit/{out['id']}")
        if out.get("message") and not out.get("title"):
            out["title"] = out["message"].splitlines()[0]
    elif kind == "pipeline":
        out.setdefault("web_url", f"{base}/-/pipelines/{out.get('id')}")
    elif kind == "job":
        out.setdefault("web_url", f"{base}/-/jobs/{out.get('id')}")
        if isinstance(out.get("pipeline"), dict):
            out["pipeline"] = {"project_id": project.get("id"), **out["pipeline"]}
    elif kind == "project":
        pwn = str(out.get("path_with_namespace", ""))
        out.setdefault("path", pwn.rsplit("/", 1)[-1])
        out.setdefault("name", out["path"])
        out.setdefault("name_with_namespace", pwn.replace("/", " / "))
    return out


def _page(request: Request, raw_path: str, items: list[Item], fault: Fault | None) -> Response:
    params = request.query_params
    try:
        page = max(1, int(params.get("page", "1")))
        per_page = min(100, max(1, int(params.get("per_page", "20"))))
    except ValueError:
        return JSONResponse({"error": "page or per_page is invalid"}, status_code=400)
    total = len(items)
    visible, exact = items, True
    if fault is not None and fault.kind == "truncate":
        if fault.max_hits is not None:
            visible = items[: fault.max_hits]
        else:
            visible, exact = items[:per_page], False
    chunk = visible[(page - 1) * per_page : page * per_page]
    has_next = page * per_page < len(visible)
    pages = max(1, math.ceil(total / per_page))
    headers = {
        "X-Page": str(page),
        "X-Per-Page": str(per_page),
        "X-Prev-Page": str(page - 1) if page > 1 else "",
        "X-Next-Page": str(page + 1) if has_next else "",
    }
    if exact:
        headers.update({"X-Total": str(total), "X-Total-Pages": str(pages)})

    base = f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}{raw_path}"
    query = [(k, v) for k, v in params.multi_items() if k != "page"]

    def link(number: int, rel: str) -> str:
        return f'<{base}?{urlencode([*query, ("page", str(number))])}>; rel="{rel}"'

    links = [link(page - 1, "prev")] if page > 1 else []
    links += [link(page + 1, "next")] if has_next else []
    links += [link(1, "first")] + ([link(pages, "last")] if exact else [])
    headers["Link"] = ", ".join(links)
    return JSONResponse(chunk, headers=headers)


def _routes(sim: _GitLab) -> list[tuple[tuple[str, ...], str, Callable[..., Any]]]:
    """(pattern, fault resource, handler); ':x' segments are captured, handlers return
    a list (a paginated collection) or a dict (one object)."""

    def projects(p: dict[str, list[str]]) -> list[Item]:
        items = [_fill("project", x, x) for x in sim.projects]
        if search := (_one(p, "search") or "").lower():
            fields = ("name", "path", "path_with_namespace", "description")
            items = [x for x in items if any(search in str(x.get(f) or "").lower() for f in fields)]
        items = _sorted(items, p, "created_at", "desc")
        if _one(p, "simple") in ("true", "1"):
            items = [{k: x[k] for k in SIMPLE_PROJECT_FIELDS if k in x} for x in items]
        return items

    def project(p: dict[str, list[str]], pid: str) -> Item:
        return _fill("project", sim.project(pid), sim.project(pid))

    def pipelines(p: dict[str, list[str]], pid: str) -> list[Item]:
        proj = sim.project(pid)
        items = [x for x in sim.pipelines if x.get("project_id") == proj.get("id")]
        for name in ("ref", "status", "source", "sha", "name"):
            if (want := _one(p, name)) is not None:
                items = [x for x in items if str(x.get(name)) == want]
        if (user := _one(p, "username")) is not None:
            items = [x for x in items if (x.get("user") or {}).get("username") == user]
        scope = _one(p, "scope")
        if scope in ("running", "pending"):
            items = [x for x in items if x.get("status") == scope]
        elif scope == "finished":
            items = [x for x in items if x.get("status") in FINISHED]
        after, before = _param_ts(p, "updated_after"), _param_ts(p, "updated_before")
        items = _within(items, "updated_at", after, before)
        return [_fill("pipeline", x, proj) for x in _sorted(items, p, "id", "desc")]

    def pipeline(p: dict[str, list[str]], pid: str, pipe: str) -> Item:
        proj = sim.project(pid)
        for x in sim.pipelines:
            if x.get("project_id") == proj.get("id") and str(x.get("id")) == pipe:
                return _fill("pipeline", x, proj)
        raise _Reply(404, {"message": "404 Not found"})

    def _jobs(
        p: dict[str, list[str]], proj: Item, keep: Callable[[Item], bool], sort: str
    ) -> list[Item]:
        items = [x for x in sim.jobs if x.get("project_id") == proj.get("id") and keep(x)]
        if scopes := p.get("scope[]", []) + p.get("scope", []):
            items = [x for x in items if x.get("status") in scopes]
        return [_fill("job", x, proj) for x in _sorted(items, {}, "id", sort)]

    def pipeline_jobs(p: dict[str, list[str]], pid: str, pipe: str) -> list[Item]:
        proj = sim.project(pid)
        pipeline(p, pid, pipe)
        return _jobs(p, proj, lambda x: str((x.get("pipeline") or {}).get("id")) == pipe, "asc")

    def jobs(p: dict[str, list[str]], pid: str) -> list[Item]:
        return _jobs(p, sim.project(pid), lambda x: True, "desc")

    def job(p: dict[str, list[str]], pid: str, jid: str) -> Item:
        proj = sim.project(pid)
        for x in sim.jobs:
            if x.get("project_id") == proj.get("id") and str(x.get("id")) == jid:
                return _fill("job", x, proj)
        raise _Reply(404, {"message": "404 Not found"})

    def commits(p: dict[str, list[str]], pid: str) -> list[Item]:
        proj = sim.project(pid)
        ref = _one(p, "ref_name")
        items = sim.project_commits(proj) if ref is None else sim.reachable(proj, ref)
        since, until = _param_ts(p, "since"), _param_ts(p, "until")
        items = [
            x
            for x in items
            if (when := _ts(x.get("committed_date")) or _ts(x.get("created_at"))) is None
            or ((since is None or when >= since) and (until is None or when <= until))
        ]
        items = _sorted(items, {}, "committed_date", "desc")
        return [_fill("commit", x, proj) for x in items]

    def commit(p: dict[str, list[str]], pid: str, sha: str) -> Item:
        proj = sim.project(pid)
        found = [x for x in sim.project_commits(proj) if str(x.get("id", "")).startswith(sha)]
        if len(sha) < 4 or len(found) != 1:
            raise _Reply(404, {"message": "404 Commit Not Found"})
        return _fill("commit", found[0], proj)

    def deployments(p: dict[str, list[str]], pid: str) -> list[Item]:
        proj = sim.project(pid)
        items = [x for x in sim.deployments if x.get("project_id") == proj.get("id")]
        if (env := _one(p, "environment")) is not None:
            items = [x for x in items if (x.get("environment") or {}).get("name") == env]
        if (status := _one(p, "status")) is not None:
            items = [x for x in items if x.get("status") == status]
        after, before = _param_ts(p, "updated_after"), _param_ts(p, "updated_before")
        items = _within(items, "updated_at", after, before)
        return _sorted(items, p, "id", "asc")

    def environments(p: dict[str, list[str]], pid: str) -> list[Item]:
        proj = sim.project(pid)
        items = [x for x in sim.environments if x.get("project_id") == proj.get("id")]
        if (name := _one(p, "name")) is not None:
            items = [x for x in items if x.get("name") == name]
        if (search := _one(p, "search")) is not None:
            items = [x for x in items if search in str(x.get("name", ""))]
        if (states := _one(p, "states")) is not None:
            items = [x for x in items if x.get("state") == states]
        return _sorted(items, {}, "id", "asc")

    def version(p: dict[str, list[str]]) -> Item:
        return {"version": "17.2.0", "revision": "simulated", "kas": {"enabled": False}}

    return [
        (("version",), "version", version),
        (("projects",), "projects", projects),
        (("projects", ":"), "projects", project),
        (("projects", ":", "pipelines"), "pipelines", pipelines),
        (("projects", ":", "pipelines", ":"), "pipelines", pipeline),
        (("projects", ":", "pipelines", ":", "jobs"), "jobs", pipeline_jobs),
        (("projects", ":", "jobs"), "jobs", jobs),
        (("projects", ":", "jobs", ":"), "jobs", job),
        (("projects", ":", "repository", "commits"), "commits", commits),
        (("projects", ":", "repository", "commits", ":"), "commits", commit),
        (("projects", ":", "deployments"), "deployments", deployments),
        (("projects", ":", "environments"), "environments", environments),
    ]


def _match(
    routes: list[tuple[tuple[str, ...], str, Callable[..., Any]]], segments: list[str]
) -> tuple[str, Callable[..., Any], list[str]] | None:
    for pattern, resource, handler in routes:
        if len(pattern) != len(segments):
            continue
        pairs = list(zip(pattern, segments, strict=True))
        if all(want in (":", got) for want, got in pairs):
            return resource, handler, [got for want, got in pairs if want == ":"]
    return None


def build_app(world: World, faults: FaultPlan, log: QueryLog) -> Starlette:
    sim = _GitLab(world)
    routes = _routes(sim)

    async def handle(request: Request) -> Response:
        raw = request.scope.get("raw_path", request.url.path.encode()).decode("latin-1")
        root = request.scope.get("root_path", "")
        rel = raw[len(root) :] if root and raw.startswith(root) else raw
        segments = [unquote(s) for s in rel.strip("/").split("/")]
        params: dict[str, list[str]] = {}
        for key, value in request.query_params.multi_items():
            params.setdefault(key, []).append(value)

        def record(status: int) -> None:
            flat = {k: v[0] if len(v) == 1 else v for k, v in params.items()}
            log.add(QueryRecord("gitlab", None, request.method, rel, flat, None, status))

        found = _match(routes, segments[2:]) if segments[:2] == ["api", "v4"] else None
        if found is None:
            record(404)
            return JSONResponse({"error": "404 Not Found"}, status_code=404)
        if request.method != "GET":
            record(405)
            return JSONResponse({"message": "405 Method Not Allowed"}, status_code=405)
        resource, handler, captured = found
        fault = faults.find("gitlab", None, resource=resource)
        if fault is not None and fault.kind in ("timeout", "http_error", "malformed"):
            status = {"timeout": 504, "malformed": 200}.get(fault.kind, fault.status or 500)
            record(status)
            answer = await faults.generic_response(fault)
            if answer is not None:
                return answer
        if fault is not None and fault.kind == "forbidden":
            status = 401 if fault.status == 401 else 403
            record(status)
            message = "401 Unauthorized" if status == 401 else "403 Forbidden"
            return JSONResponse({"message": message}, status_code=status)
        if fault is not None and fault.kind == "unsupported":
            record(404)
            return JSONResponse({"message": "404 Not Found"}, status_code=404)
        try:
            body = handler(params, *captured)
        except _Reply as reply:
            record(reply.status)
            return JSONResponse(reply.body, status_code=reply.status)
        if isinstance(body, list):
            response = _page(request, raw, body, fault)
        else:
            response = JSONResponse(body)
        record(response.status_code)
        return response

    methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
    return Starlette(routes=[Route("/{rest:path}", handle, methods=methods)])
