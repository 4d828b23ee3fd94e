"""The indices of one environment and how an index expression resolves against them.

Besides the world's `logs`, the store holds its Kubernetes `audit` events the way a
cluster ships them: the API server's log backend writes one audit.k8s.io/v1 Event per
line, and Filebeat or Fluent Bit indexes each line as one document into a daily index
(`k8s-audit-YYYY.MM.DD`, by the request's date), adding `@timestamp`. An index the world
writes itself under that name is served as written, never mixed with derived documents.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
from collections.abc import Iterable
from datetime import UTC
from typing import Any

from evals.simulators.elasticsearch._errors import index_not_found
from evals.simulators.elasticsearch._fields import looks_like_date, parse_date, to_millis
from evals.simulators.elasticsearch._matchers import StoredDoc


def _doc_id(index: str, position: int) -> str:
    digest = hashlib.sha1(f"{index}/{position}".encode()).digest()[:15]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


AUDIT_INDEX_PREFIX = "k8s-audit-"
AUDIT_PATTERN = AUDIT_INDEX_PREFIX + "*"


def _shipped_at(event: dict[str, Any]) -> str | None:
    """`@timestamp` as a shipper sets it from the line: the time the event was written
    (its stage), in the milliseconds a date field keeps."""
    for key in ("stageTimestamp", "requestReceivedTimestamp"):
        stamp = event.get(key)
        moment = parse_date(stamp) if looks_like_date(stamp) else None
        if moment is not None:
            moment = moment.astimezone(UTC)
            return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return None


def audit_indices(events: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Audit events as shipped documents, by daily index of the request's (UTC) date. An
    event with no time of its own has no day to be filed under, and is not shipped."""
    out: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        received = event.get("requestReceivedTimestamp") or event.get("stageTimestamp")
        moment = parse_date(received) if looks_like_date(received) else None
        if moment is None:
            continue
        doc = dict(event)
        if "@timestamp" not in doc:
            doc["@timestamp"] = _shipped_at(event)
        day = moment.astimezone(UTC).strftime("%Y.%m.%d")
        out.setdefault(f"{AUDIT_INDEX_PREFIX}{day}", []).append(doc)
    return out


class Store:
    """Documents by index, as the world gives them; `_id` comes from the doc or is derived.
    `audit`: the env's audit events, served as their shipped indices as well."""

    def __init__(
        self,
        docs_by_index: dict[str, list[dict[str, Any]]],
        *,
        audit: Iterable[dict[str, Any]] = (),
    ) -> None:
        shipped = {
            name: docs for name, docs in audit_indices(audit).items() if name not in docs_by_index
        }
        docs_by_index = {**docs_by_index, **shipped}
        self.indices: dict[str, list[StoredDoc]] = {}
        order = 0
        for index in sorted(docs_by_index):
            stored = []
            for position, raw in enumerate(docs_by_index[index]):
                source = {k: v for k, v in raw.items() if k != "_id"}
                doc_id = str(raw.get("_id") or _doc_id(index, position))
                stamp = source.get("@timestamp")
                # only a date string: a search compares other forms differently (see
                # _matchers.range_), so they are never narrowed out by time
                moment = parse_date(stamp) if looks_like_date(stamp) else None
                stored.append(
                    StoredDoc(
                        index=index,
                        id=doc_id,
                        source=source,
                        order=order,
                        timestamp_ms=to_millis(moment) if moment is not None else None,
                    )
                )
                order += 1
            self.indices[index] = stored

    def resolve(
        self, expression: str | None, *, ignore_unavailable: bool, allow_no_indices: bool
    ) -> list[str]:
        """Index names an expression (`a,b-*,-b-old`) names; errors as Elasticsearch's."""
        if expression in (None, "", "_all", "*"):
            names = [n for n in self.indices if not n.startswith(".")]
            if not names and not allow_no_indices:
                raise index_not_found(expression or "_all")
            return names
        chosen: list[str] = []
        for part in str(expression).split(","):
            part = part.strip()
            if not part:
                continue
            if part.startswith("-") and chosen:
                chosen = [n for n in chosen if not fnmatch.fnmatchcase(n, part[1:])]
                continue
            if "*" in part or "?" in part:
                hits = [
                    n
                    for n in self.indices
                    if fnmatch.fnmatchcase(n, part) and (part.startswith(".") or n[:1] != ".")
                ]
                if not hits and not allow_no_indices:
                    raise index_not_found(part)
            elif part in self.indices:
                hits = [part]
            elif ignore_unavailable:
                hits = []
            else:
                raise index_not_found(part)
            chosen.extend(n for n in hits if n not in chosen)
        if not chosen and not allow_no_indices:
            raise index_not_found(str(expression))
        return chosen

    def docs(self, names: list[str]) -> list[StoredDoc]:
        return [doc for name in names for doc in self.indices.get(name, [])]
