"""`doctor` for GitLab: does it answer with this token, which version, can it list
projects, and do the mapped projects exist."""

from __future__ import annotations

from connectors.gitlab._bodies import ProjectBody
from connectors.gitlab._client import GitLabSession, GitLabTarget, get_one, mapped
from policy.errors import SourceError
from policy.probe import Probe


def _check(session: GitLabSession) -> tuple[str, list[str], list[str]]:
    found: list[str] = []
    missing: list[str] = []
    with session.borrow() as gl:
        with mapped("list projects", session.target.url):
            projects = gl.projects.list(per_page=1, get_all=False, obey_rate_limit=False)
        with mapped("version", session.target.url):
            version, _revision = gl.version()
        found.append(f"projects readable ({len(projects)} seen on the first page)")
        for service, path in session.target.projects.items():
            try:
                get_one(gl.projects, path, f"project {path}", ProjectBody)
                found.append(f"project of {service}: {path}")
            except SourceError as err:
                missing.append(f"project of {service}: {path}: {err.reason}")
    where = f"GitLab {version}" if version and version != "unknown" else "GitLab"
    return f"{where} at {session.target.url}", found, missing


async def probe(target: GitLabTarget) -> Probe:
    session = GitLabSession(target, max_workers=1)
    try:
        detail, found, missing = await session.threads.run(_check, session)
    except SourceError as err:
        return Probe(source="gitlab", answered=False, detail=err.reason)
    finally:
        await session.aclose()
    return Probe(source="gitlab", answered=True, detail=detail, found=found, missing=missing)
