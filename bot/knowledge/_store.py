"""Confirmed knowledge entries, their JSONL file and the in-memory lexical index.

The JSONL file is a cache: every saved entry is also posted to its thread by the bot, so
the base can be rebuilt from the channel history (`KnowledgeBase.rebuild`). A line whose
content hash does not match its content is skipped on load (corrupt or edited by hand).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import structlog
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planner import AnswerFact
from policy.scope import Scope

log = structlog.get_logger(__name__)

SCOPE_KEYS = ("env", "namespace", "object", "subject")


class KnowledgePart(BaseModel):
    """One part of an entry's content and the person who wrote it."""

    model_config = ConfigDict(extra="forbid")

    author: str
    text: str


class KnowledgeEntry(BaseModel):
    """One confirmed piece of operational knowledge: a human correction, not a live fact."""

    model_config = ConfigDict(extra="forbid")

    id: str
    content: str = Field(description="the human correction, redacted; only allowed links")
    topic: str | None = Field(default=None, description="the question the thread was about")
    superseded_answer: str | None = Field(
        default=None, description="the bot's earlier answer it corrects; context, never truth"
    )
    links: list[str] = Field(default_factory=list)
    author: str = Field(description="the admin who asked to remember it")
    confirmed_by: str
    contributors: list[str] = Field(default_factory=list)
    parts: list[KnowledgePart] = Field(
        default_factory=list, description="each part of the content with who wrote it"
    )
    source: str = Field(description="link to the source thread")
    channel: str
    root_id: str
    created_at: datetime
    scope: dict[str, str] = Field(default_factory=dict)
    content_hash: str

    @staticmethod
    def hash_of(
        content: str,
        links: Iterable[str],
        scope: Mapping[str, str],
        parts: Sequence[KnowledgePart] = (),
    ) -> str:
        said: dict[str, Any] = {
            "content": content.strip(),
            "links": sorted(links),
            "scope": dict(sorted(scope.items())),
        }
        if parts:  # who wrote what is vouched for too (entries saved before had no parts)
            said["parts"] = [[p.author, p.text] for p in parts]
        data = json.dumps(
            said,
            ensure_ascii=False,
            sort_keys=True,
        )
        return hashlib.sha256(data.encode()).hexdigest()

    def hash_ok(self) -> bool:
        return self.content_hash == self.hash_of(self.content, self.links, self.scope, self.parts)


@dataclass(frozen=True)
class KnowledgeHit:
    entry: KnowledgeEntry
    score: float


# --- lexical index -------------------------------------------------------------------

_WORD_RE = re.compile(r"[0-9a-zа-яё][0-9a-zа-яё._-]*", re.IGNORECASE)
_STOP_WORDS = (
    "the and for this that what why how who when where which with from into there their "
    "are was were has have had been not but you your our can does did show tell about same "
    "please remember save next time infrabot again also just "
    "это что как где когда почему зачем кто для или при без над под про так там тут его "
    "она они был была были есть нет все всё тоже самое покажи скажи запомни сохрани"
)
_STOP = frozenset(_STOP_WORDS.split())


def _stem(word: str) -> str:
    if re.search("[а-яё]", word):
        return word[:5] if len(word) > 5 else word
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix) and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


def terms(text: str) -> set[str]:
    """Index terms: lower-cased words (and the parts of dotted/hyphenated names), crudely
    stemmed, stop words and very short words dropped (numbers like 502 are kept)."""
    out: set[str] = set()
    for raw in _WORD_RE.findall(text.lower()):
        word = raw.strip("._-")
        parts = {word, *re.split(r"[._-]+", word)} if re.search(r"[._-]", word) else {word}
        for part in parts:
            if len(part) >= 3 and part not in _STOP:
                out.add(_stem(part))
    return out


def _scope_dict(scope: Scope | Mapping[str, Any] | None) -> dict[str, str]:
    if scope is None:
        return {}
    if isinstance(scope, Scope):
        data: Mapping[str, Any] = scope.model_dump()
    else:
        data = scope
    return {k: str(data[k]) for k in SCOPE_KEYS if data.get(k)}


class KnowledgeBase:
    """Entries by id, an inverted index (term -> ids) and the JSONL cache. No global state:
    each surface is handed the instance the composition root built."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._entries: dict[str, KnowledgeEntry] = {}
        self._index: dict[str, set[str]] = {}
        self._terms: dict[str, set[str]] = {}
        self._hashes: set[str] = set()

    @classmethod
    def load(cls, path: Path | None) -> KnowledgeBase:
        kb = cls(path)
        if path is None or not path.exists():
            return kb
        with path.open(encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    entry = KnowledgeEntry.model_validate_json(line)
                except ValidationError:
                    log.warning("knowledge.bad_line", path=str(path), line=number)
                    continue
                if not entry.hash_ok():
                    log.warning("knowledge.hash_mismatch", path=str(path), line=number)
                    continue
                kb._index_entry(entry)
        return kb

    def __len__(self) -> int:
        return len(self._entries)

    def entries(self) -> list[KnowledgeEntry]:
        return sorted(self._entries.values(), key=lambda e: e.created_at)

    def _index_entry(self, entry: KnowledgeEntry) -> None:
        self._entries[entry.id] = entry
        self._hashes.add(entry.content_hash)
        words = terms(" ".join([entry.content, entry.topic or "", *entry.scope.values()]))
        self._terms[entry.id] = words
        for word in words:
            self._index.setdefault(word, set()).add(entry.id)

    def has(self, content_hash: str) -> bool:
        return content_hash in self._hashes

    def add(self, entry: KnowledgeEntry) -> bool:
        """Index and append to the JSONL file; False (and nothing written) for a duplicate."""
        if not entry.hash_ok():
            raise ValueError("knowledge entry: content hash does not match its content")
        if self.has(entry.content_hash):
            return False
        if self._path is not None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with self._path.open("a", encoding="utf-8") as fh:
                fh.write(entry.model_dump_json() + "\n")
        self._index_entry(entry)
        log.info("knowledge.saved", id=entry.id, author=entry.author, scope=entry.scope)
        return True

    def rebuild(self, entries: Iterable[KnowledgeEntry]) -> int:
        """Replace everything with `entries` (from the channel history) and rewrite the file."""
        self._entries.clear()
        self._index.clear()
        self._terms.clear()
        self._hashes.clear()
        for entry in sorted(entries, key=lambda e: e.created_at):
            if entry.hash_ok() and not self.has(entry.content_hash):
                self._index_entry(entry)
        if self._path is not None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._path.with_name(self._path.name + ".tmp")
            with tmp.open("w", encoding="utf-8") as fh:
                for entry in self.entries():
                    fh.write(entry.model_dump_json() + "\n")
            os.replace(tmp, self._path)
        log.info("knowledge.rebuilt", entries=len(self._entries))
        return len(self._entries)

    def search(
        self, question: str, scope: Scope | Mapping[str, Any] | None = None, *, limit: int = 3
    ) -> list[KnowledgeHit]:
        """Entries sharing enough rare words with the question, never from another scope:
        an entry for dc-a is not returned for a question about dc-b."""
        want = _scope_dict(scope)
        query = terms(question) | terms(" ".join(v for k, v in want.items() if k == "object"))
        if not query or not self._entries:
            return []
        total = len(self._entries)
        hits: list[KnowledgeHit] = []
        candidates = set().union(*(self._index.get(t, set()) for t in query))
        for entry_id in candidates:
            entry = self._entries[entry_id]
            if any(
                k in entry.scope and k in want and entry.scope[k] != want[k]
                for k in ("env", "namespace", "object")
            ):
                continue
            shared = query & self._terms[entry_id]
            same_object = bool(want.get("object")) and entry.scope.get("object") == want["object"]
            if len(shared) < 2 and not (shared and same_object):
                continue
            score = sum(math.log(1 + total / len(self._index[t])) for t in shared)
            hits.append(KnowledgeHit(entry, score + (1.0 if same_object else 0.0)))
        hits.sort(key=lambda h: (-h.score, h.entry.created_at))
        return hits[:limit]


def knowledge_facts(
    kb: KnowledgeBase | None,
    question: str,
    scope: Scope | Mapping[str, Any] | None = None,
    *,
    limit: int = 3,
) -> list[AnswerFact]:
    """Retrieved knowledge as answer facts, marked `knowledge=True`: confirmed by a human
    earlier, linked to its thread, never a live observation."""
    if kb is None:
        return []
    out = []
    for hit in kb.search(question, scope, limit=limit):
        e = hit.entry
        # who wrote it, beside who saved it: the admin vouches, the words may be others'
        written = [c for c in e.contributors if c != e.author]
        by = (f"written by {', '.join(written)}, " if written else "") + f"saved by {e.author}"
        text = f"Confirmed knowledge ({by} on {e.created_at:%Y-%m-%d}): {e.content}"
        if e.links:
            text += " See: " + ", ".join(e.links)
        out.append(
            AnswerFact(
                text=text,
                source="knowledge",
                observed_at=e.created_at,
                link=e.source,
                scope=dict(e.scope),
                kind="knowledge",
                knowledge=True,
            )
        )
    return out
