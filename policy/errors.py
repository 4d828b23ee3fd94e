"""The three kinds of error, kept apart.

bad arguments          the caller (model or planner) can fix them: not raised; the
                       gate answers a `denied` result (error_kind "invalid_arguments")
                       naming every field, and that goes back to the model.
SourceError            ends this call; becomes a gap with its reason.
  SourceTimeout        the source did not answer in time (transient)
  SourceUnavailable    connection refused, 5xx (transient)
  SourceForbidden      401/403: our credentials may not read this
  SourceUnsupported    the environment, index or resource is not served
  SourceMalformed      the source answered with something we cannot parse
  SourceNotFound       the object asked for does not exist (404)
ConfigError            our own bug or a bad configuration: raised, loud.
"""

from __future__ import annotations

from collections.abc import Awaitable
from enum import StrEnum
from typing import TypeVar

T = TypeVar("T")


class ErrorKind(StrEnum):
    """Why a call ended without data. The executor's retry and skip rules read this."""

    ERROR = "error"
    TIMEOUT = "timeout"
    UNAVAILABLE = "unavailable"
    FORBIDDEN = "forbidden"
    UNSUPPORTED = "unsupported"
    MALFORMED = "malformed"
    NOT_FOUND = "not_found"
    AMBIGUOUS = "ambiguous"  # the name matches several objects of the source
    INVALID_QUERY = "invalid_query"  # the source rejected a raw query
    SOURCE_UNAVAILABLE = "source_unavailable"  # skipped: the source failed earlier this turn
    INTERNAL_ERROR = "internal_error"  # a bug in a tool, caught so the others' evidence stays
    # the policy gate refused the call
    UNKNOWN_TOOL = "unknown_tool"
    NOT_ADMITTED = "not_admitted"
    INVALID_ARGUMENTS = "invalid_arguments"
    CURRENT_ONLY = "current_only"

    @property
    def transient(self) -> bool:
        """Worth one retry: the source may answer the same read a moment later."""
        return self in (ErrorKind.TIMEOUT, ErrorKind.UNAVAILABLE)

    @property
    def source_down(self) -> bool:
        """The source, not this read, is broken: skip it for the rest of the turn (a 404
        or a refused resource says nothing about the next read)."""
        return self.transient or self is ErrorKind.MALFORMED


class InfrabotError(Exception):
    """Base of every error we raise on purpose."""


class ConfigError(InfrabotError):
    """A bad configuration or a programming error; names the key or place."""


class SourceError(InfrabotError):
    """A source could not be read; the call ends and becomes a gap. Its `kind` says why,
    and `kind.transient` whether the same read is worth one retry (the one home of that
    rule)."""

    kind: ErrorKind = ErrorKind.ERROR

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"{source}: {reason}")


class SourceTimeout(SourceError):
    kind: ErrorKind = ErrorKind.TIMEOUT


class SourceUnavailable(SourceError):
    kind: ErrorKind = ErrorKind.UNAVAILABLE


class SourceForbidden(SourceError):
    kind: ErrorKind = ErrorKind.FORBIDDEN


class SourceUnsupported(SourceError):
    kind: ErrorKind = ErrorKind.UNSUPPORTED


class SourceMalformed(SourceError):
    kind: ErrorKind = ErrorKind.MALFORMED


class SourceNotFound(SourceError):
    kind: ErrorKind = ErrorKind.NOT_FOUND


async def attempt(read: Awaitable[T]) -> tuple[T | None, SourceError | None]:
    """(result, None), or (None, the SourceError): for reads made side by side, so one
    failing neither cancels nor orphans the others and each failure keeps its reason."""
    try:
        return await read, None
    except SourceError as exc:
        return None, exc
