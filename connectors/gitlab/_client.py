"""Settings, the python-gitlab client, error mapping and complete-or-not pagination."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

import structlog
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from connectors.kit.threads import SourceThreads
from connectors.kit.unreachable import safe_url, unreachable_said
from policy import (
    SourceForbidden,
    SourceMalformed,
    SourceNotFound,
    SourceTimeout,
    SourceUnavailable,
    SourceUnsupported,
)

if TYPE_CHECKING:  # imported where first used: python-gitlab and requests cost a cold start
    import gitlab

log = structlog.get_logger("connectors.gitlab")
SOURCE = "gitlab"
B = TypeVar("B", bound=Mapping[str, object])  # a TypedDict of _bodies


class GitLabTarget(BaseModel):
    """One GitLab instance (it serves every environment).

    `projects` names the project of a service where the names differ ({"<service>":
    "<group>/<project>"}, or a numeric project id): a mapped service's project is read
    directly; any other service is found by a project search for its name."""

    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    url: str = Field(description="base URL, e.g. https://gitlab.example.com (without /api/v4)")
    token: SecretStr | None = None
    timeout_s: float = Field(10.0, gt=0, le=120, description="per HTTP request")
    per_page: int = Field(50, ge=1, le=100)
    max_pages: int = Field(5, ge=1, le=50, description="pages read per collection")
    env_job_pattern: str = Field(
        "{env}",
        description="how an environment appears in a deploy job name: '{env}', 'deploy:{env}'",
    )
    max_pipelines: int = Field(30, ge=1, le=200, description="pipelines whose jobs are read")
    max_job_lookups: int = Field(20, ge=1, le=200, description="projects tried for a bare job id")
    max_projects: int = Field(
        20, ge=1, le=100, description="most recently active projects read for a whole env"
    )
    ssl_verify: bool = True
    projects: dict[str, str] = Field(
        default_factory=dict, description="service name -> project path (group/name) or id"
    )

    @field_validator("projects")
    @classmethod
    def _paths(cls, value: dict[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for service, path in value.items():
            name, where = service.strip().lower(), path.strip().strip("/")
            if not name:
                raise ValueError("a service name in projects is empty")
            if not where or " " in where:
                raise ValueError(f"projects.{service}: {path!r} is not a project path or id")
            if name in out and out[name] != where:
                raise ValueError(f"projects: {name} is mapped twice ({out[name]}, {where})")
            out[name] = where
        return out

    def project_of(self, service: str | None) -> str | None:
        """The mapped project of a service, or None: then it is searched by name."""
        return self.projects.get(service.strip().lower()) if service else None


@contextmanager
def mapped(what: str, url: str | None = None) -> Iterator[None]:
    """Turn every python-gitlab / requests failure of one read into our error tree; a
    connection that failed names the URL (`url`, else the request's) and how it failed."""
    import gitlab
    import requests

    try:
        yield
    except gitlab.exceptions.GitlabAuthenticationError as exc:
        raise SourceForbidden(SOURCE, f"{what}: HTTP 401, the token was rejected") from exc
    except gitlab.exceptions.GitlabParsingError as exc:
        raise SourceMalformed(SOURCE, f"{what}: the answer is not valid JSON") from exc
    except gitlab.exceptions.GitlabError as exc:
        code = exc.response_code
        at = f" from {safe_url(url)}" if url else ""
        reason = f"{what}: HTTP {code}{at} {str(exc.error_message)[:160]}".rstrip()
        if code == 403:
            raise SourceForbidden(SOURCE, reason) from exc
        if code == 404:
            raise SourceNotFound(SOURCE, reason) from exc
        if code is None or code == 429 or code >= 500:
            raise SourceUnavailable(SOURCE, reason) from exc
        raise SourceUnsupported(SOURCE, reason) from exc
    except requests.exceptions.RequestException as exc:
        request = getattr(exc, "request", None)
        where = url or str(getattr(request, "url", None) or "GitLab")
        if isinstance(exc, requests.exceptions.Timeout):
            reason = f"{what}: GitLab ({safe_url(where)}) did not answer in time"
            raise SourceTimeout(SOURCE, reason) from exc
        raise SourceUnavailable(SOURCE, f"{what}: {unreachable_said(where, exc)}") from exc
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        reason = f"{what}: unexpected answer ({type(exc).__name__})"
        raise SourceMalformed(SOURCE, reason) from exc


class GitLabSession:
    """Keep-alive python-gitlab clients for one instance, and the threads that use them.

    A `requests` session is not shared between threads, so each concurrent read borrows
    a client of its own and gives it back; its kept-alive connections then serve the next
    read instead of a new connect (and TLS handshake) per tool call."""

    def __init__(self, target: GitLabTarget, max_workers: int = 4) -> None:
        self.target = target
        self.threads = SourceThreads("gitlab", max_workers)
        self._idle: list[gitlab.Gitlab] = []
        self._lock = threading.Lock()

    @contextmanager
    def borrow(self) -> Iterator[gitlab.Gitlab]:
        with self._lock:
            gl = self._idle.pop() if self._idle else None
        gl = gl or client(self.target)
        try:
            yield gl
        finally:
            with self._lock:
                self._idle.append(gl)

    async def aclose(self) -> None:
        self.threads.close()
        with self._lock:
            idle, self._idle = self._idle, []
        for gl in idle:
            gl.session.close()


def client(target: GitLabTarget) -> gitlab.Gitlab:
    """A new client (`GitLabSession.borrow` keeps them for reuse)."""
    import gitlab

    token = target.token.get_secret_value() if target.token else None
    return gitlab.Gitlab(
        target.url,
        private_token=token,
        timeout=target.timeout_s,
        ssl_verify=target.ssl_verify,
        retry_transient_errors=False,
        keep_base_url=True,
    )


def get_one(manager: Any, ident: Any, what: str, body: type[B]) -> B:
    """One object, read as `body` (the endpoint's TypedDict, from _bodies: python-gitlab
    hands back plain dicts, and this is where they get their type)."""
    with mapped(what):
        return cast(B, manager.get(ident, obey_rate_limit=False).asdict())


def read_all(
    target: GitLabTarget, manager: Any, what: str, body: type[B], **filters: Any
) -> tuple[list[B], bool]:
    """Every item of a paginated collection (each read as `body`), up to max_pages pages.
    The flag is True only when the read was complete: GitLab sent an exact X-Total and that
    many were read (it omits X-Total for very large sets, and then nothing can be proven
    absent)."""
    cap = target.per_page * target.max_pages
    with mapped(what):
        listing = manager.list(
            iterator=True, per_page=target.per_page, obey_rate_limit=False, **filters
        )
        items: list[B] = []
        for obj in listing:
            items.append(cast(B, obj.asdict()))
            if len(items) >= cap:
                break
        total = listing.total
        complete = total is not None and len(items) >= total and listing.next_page is None
    log.debug("gitlab.read", what=what, returned=len(items), total=total, complete=complete)
    return items, complete


def ts(value: Any) -> datetime | None:
    """An aware datetime from GitLab's ISO-8601 text; None for anything else."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def utc(value: Any) -> str | None:
    """ISO-8601 text or datetime -> '2026-07-20T13:44:40Z' (None if not a timestamp)."""
    parsed = value if isinstance(value, datetime) else ts(value)
    return parsed.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if parsed else None
