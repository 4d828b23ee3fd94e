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
from typing import TypeVar

T = TypeVar("T")


class InfrabotError(Exception):
    """Base of every error we raise on purpose."""


class ConfigError(InfrabotError):
    """A bad configuration or a programming error; names the key or place."""


class SourceError(InfrabotError):
    """A source could not be read; the call ends and becomes a gap."""

    transient = False
    kind = "error"

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"{source}: {reason}")


class SourceTimeout(SourceError):
    transient = True
    kind = "timeout"


class SourceUnavailable(SourceError):
    transient = True
    kind = "unavailable"


class SourceForbidden(SourceError):
    kind = "forbidden"


class SourceUnsupported(SourceError):
    kind = "unsupported"


class SourceMalformed(SourceError):
    kind = "malformed"


class SourceNotFound(SourceError):
    kind = "not_found"


async def attempt(read: Awaitable[T]) -> tuple[T | None, SourceError | None]:
    """(result, None), or (None, the SourceError): for reads made side by side, so one
    failing neither cancels nor orphans the others and each failure keeps its reason."""
    try:
        return await read, None
    except SourceError as exc:
        return None, exc
