"""Elasticsearch error bodies, in the shape the real API (and the official client) uses."""

from __future__ import annotations

from typing import Any


class EsError(Exception):
    """Raised anywhere in the simulator; the app renders it as the real error body."""

    def __init__(self, status: int, type_: str, reason: str, **extra: Any) -> None:
        super().__init__(reason)
        self.status = status
        self.type = type_
        self.reason = reason
        self.extra = extra

    def body(self) -> dict[str, Any]:
        cause = {"type": self.type, "reason": self.reason, **self.extra}
        return {"error": {"root_cause": [dict(cause)], **cause}, "status": self.status}


def parsing_error(reason: str) -> EsError:
    return EsError(400, "parsing_exception", reason, line=1, col=1)


def illegal_argument(reason: str) -> EsError:
    return EsError(400, "illegal_argument_exception", reason)


def index_not_found(index: str) -> EsError:
    return EsError(
        404,
        "index_not_found_exception",
        f"no such index [{index}]",
        **{
            "resource.type": "index_or_alias",
            "resource.id": index,
            "index_uuid": "_na_",
            "index": index,
        },
    )


def security_exception(index: str, user: str = "infrabot") -> EsError:
    return EsError(
        403,
        "security_exception",
        f"action [indices:data/read/search] is unauthorized for user [{user}] with effective "
        f"roles [infrabot_reader] on indices [{index}], this action is granted by the index "
        "privileges [read,all]",
    )
