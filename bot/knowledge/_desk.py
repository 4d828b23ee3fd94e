""" "Remember this": draft from the thread, confirmation by an admin, expiry.

Surface-independent: Mattermost and the web chat hand in the thread (human messages and
the bot's earlier answers) and post whatever `DeskReply.text` says. Only an admin may ask
and confirm; a draft that nobody confirms expires (the clock is injected).

What goes into an entry: the human messages that correct the bot (after its last
answer), the trigger phrase and @mentions removed; links only to `allowed_link_hosts`;
secret-like data redacted. The bot's own earlier answer is kept apart as
`superseded_answer`, never mixed into the content.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal
from urllib.parse import urlsplit

import structlog

from bot.knowledge._store import SCOPE_KEYS, KnowledgeBase, KnowledgeEntry, KnowledgePart
from planner import ThreadMessage
from policy.hostile import describe
from policy.redaction import redact

log = structlog.get_logger(__name__)

_REMEMBER_RE = re.compile(
    r"\b(?:remember (?:this|that|it)\b|remember\s*:|please remember|memori[sz]e (?:this|that|it)"
    r"|save (?:this|that|it)\b|save for (?:next time|later)|for next time"
    r"|keep (?:this|that|it) in mind|add (?:this|that|it) to (?:the )?knowledge)"
    r"|(?<![а-яё])(?:запомни|запомните|сохрани|сохраните|запиши себе|запиши это|учти на будущее"
    r"|на будущее|занеси в базу)(?![а-яё])",
    re.IGNORECASE,
)
_MENTION_RE = re.compile(r"(?<![\w@])@[\w.-]+")
_URL_RE = re.compile(r"\b[a-z][a-z0-9+.-]{0,15}://[^\s<>\"'`)\]]+", re.IGNORECASE)
_YES_RE = re.compile(
    r"^(?:yes|y|yep|yeah|confirm(?:ed)?|ok(?:ay)?|save(?: it)?|go ahead|да|ага|подтверждаю"
    r"|сохраняй|сохрани|ок|\+1|👍|✅)[\s.!]*$",
    re.IGNORECASE,
)
_NO_RE = re.compile(
    r"^(?:no|nope|cancel|discard|don'?t save|нет|отмена|отменить|не сохраняй|не надо)[\s.!]*$",
    re.IGNORECASE,
)
CONFIRM_REACTIONS = frozenset(
    {"+1", "thumbsup", "white_check_mark", "heavy_check_mark", "ballot_box_with_check"}
)
_MAX_CONTENT = 2000

ReplyKind = Literal["refused", "draft", "saved", "duplicate", "expired", "cancelled", "empty"]


def is_remember_request(text: str) -> bool:
    return _REMEMBER_RE.search(_MENTION_RE.sub(" ", text)) is not None


def _bare(text: str) -> str:
    return " ".join(_MENTION_RE.sub(" ", text).split())


def is_confirmation(text: str) -> bool:
    return _YES_RE.match(_bare(text)) is not None


def is_rejection(text: str) -> bool:
    return _NO_RE.match(_bare(text)) is not None


def host_allowed(url: str, allowed: Sequence[str]) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    host = (parts.hostname or "").lower().rstrip(".")
    if parts.scheme.lower() not in ("http", "https") or not host:
        return False
    return any(host == h.lower() or host.endswith("." + h.lower()) for h in allowed)


def _hostname(url: str) -> str:
    """The host a link names, "?" where it names none readable ("https://[REDACTED]@x")."""
    try:
        return urlsplit(url).hostname or "?"
    except ValueError:
        return "?"


@dataclass
class Draft:
    entry: KnowledgeEntry
    created: datetime
    post_id: str | None = None


@dataclass
class DeskReply:
    kind: ReplyKind
    text: str
    entry: KnowledgeEntry | None = None


@dataclass
class _Cleaned:
    text: str
    links: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def _clean(text: str, allowed: Sequence[str]) -> _Cleaned:
    out = _Cleaned("")
    keep = frozenset(h.lower() for h in allowed)

    def swap(m: re.Match[str]) -> str:
        url = m.group(0).rstrip(".,;:!?")
        tail = m.group(0)[len(url) :]
        if host_allowed(url, allowed):
            clean = redact(url, keep_query_hosts=keep)
            out.links.append(clean)
            return clean + tail
        out.dropped.append(_hostname(url))
        return "(link removed)" + tail

    text = _REMEMBER_RE.sub(" ", _MENTION_RE.sub(" ", text))
    # redacted first, as written (before links are swapped and whitespace folded): a rule
    # may need the line it stood on or a command's arguments in their places; an
    # instruction to the assistant is described, never kept as knowledge to say later
    text = redact(text, keep_query_hosts=keep)
    clean = describe(_URL_RE.sub(swap, text))
    out.text = " ".join(clean.split()).strip(" :,.-—")
    return out


def build_entry(
    *,
    thread: Sequence[ThreadMessage],
    request: str,
    requester: str,
    scope: Mapping[str, Any],
    source: str,
    channel: str,
    root_id: str,
    allowed_hosts: Sequence[str],
    now: datetime,
) -> tuple[KnowledgeEntry | None, list[str]]:
    """The draft entry (None when the request points at no correction) and the hosts of
    links that were removed because they are not allowed.

    Only what the admin points at becomes knowledge: the words after the request's own
    "remember this", the message just above the request, the admin's own messages since
    the bot's answer, the messages of the people the request names (@bob) since then,
    and lines the request quotes (`> ...`, credited to whoever wrote them in the thread).
    Nobody else's message gets in by being posted in the thread."""
    bots = [i for i, m in enumerate(thread) if m.is_bot]
    named = {m.group(0)[1:].lower() for m in _MENTION_RE.finditer(request)}
    quoted, own = _quoted(request, thread, requester)
    # a bare "remember this" points at the message just above it (the bot's replies and
    # other requests in between are not what it points at); one that quotes or names
    # someone points there instead
    above = (
        None
        if quoted or any(not m.is_bot and m.author.lower() in named for m in thread)
        else max(
            (i for i, m in enumerate(thread) if not m.is_bot and not is_remember_request(m.text)),
            default=None,
        )
    )

    def pointed_after(index: int) -> list[int]:
        return [
            i
            for i, m in enumerate(thread)
            if i > index
            and not m.is_bot
            and (m.author == requester or m.author.lower() in named or i == above)
            # a "remember this" is a request, not knowledge: refused or not, it never
            # becomes part of the entry
            and not is_remember_request(m.text)
        ]

    picked = pointed_after(bots[-1] if bots else -1)
    if not picked and bots:
        picked = pointed_after(bots[0])
    corrected = max((i for i in bots if i < picked[0]), default=None) if picked else None
    if corrected is None and bots:
        corrected = bots[-1]
    parts = [thread[i] for i in picked] + quoted
    request_part = ThreadMessage(author=requester, text=own)
    pieces = [(m.author, _clean(m.text, allowed_hosts)) for m in [*parts, request_part]]
    # a request that points elsewhere says little of its own ("remember this from @bob"
    # leaves "from"): its words count when they make a statement
    least = [2] * len(parts) + [3 if parts else 2]
    pieces = [
        (a, c)
        for (a, c), n in zip(pieces, least, strict=True)
        if len(c.text.split()) >= n or c.links
    ]
    dropped = [h for _, c in pieces for h in c.dropped]
    if not pieces:
        return None, dropped
    content = "\n".join(c.text for _, c in pieces)[:_MAX_CONTENT]
    written = _parts([(a, c.text) for a, c in pieces])
    links = list(dict.fromkeys(link for _, c in pieces for link in c.links))
    topic = next((m.text for m in thread[: bots[0]] if not m.is_bot), None) if bots else None
    bot_text = thread[corrected].text if corrected is not None else None
    clean_scope = {k: redact(str(scope[k])) for k in SCOPE_KEYS if scope.get(k)}
    digest = KnowledgeEntry.hash_of(content, links, clean_scope, written)
    entry = KnowledgeEntry(
        id=digest[:12],
        content=content,
        topic=_clean(topic, allowed_hosts).text[:300] if topic else None,
        superseded_answer=_clean(bot_text.splitlines()[0], allowed_hosts).text[:300]
        if bot_text
        else None,
        links=links,
        author=requester,
        confirmed_by="",
        contributors=list(dict.fromkeys(a for a, _ in pieces)),
        parts=written,
        source=source,
        channel=channel,
        root_id=root_id,
        created_at=now,
        scope=clean_scope,
        content_hash=digest,
    )
    return entry, dropped


def _parts(pieces: Sequence[tuple[str, str]]) -> list[KnowledgePart]:
    """Each piece with its writer, within the content's length."""
    out: list[KnowledgePart] = []
    room = _MAX_CONTENT
    for author, text in pieces:
        if room <= 0:
            break
        out.append(KnowledgePart(author=author, text=text[:room]))
        room -= len(text) + 1
    return out


def _quoted(
    request: str, thread: Sequence[ThreadMessage], requester: str
) -> tuple[list[ThreadMessage], str]:
    """(the lines the request quotes, each credited to the person in the thread who wrote
    it, else to the requester; the request's own words). A quote of the bot's answer is
    context, not a correction: it is left out."""
    quotes: list[str] = []
    own: list[str] = []
    for line in request.splitlines():
        (quotes if line.lstrip().startswith(">") else own).append(line.lstrip().lstrip(">"))
    out: list[ThreadMessage] = []
    for quote in (" ".join(q.split()) for q in quotes):
        if not quote:
            continue
        source = next((m for m in thread if quote in " ".join(m.text.split())), None)
        if source is not None and source.is_bot:
            continue
        out.append(ThreadMessage(author=source.author if source else requester, text=quote))
    return out, "\n".join(own)


def draft_text(entry: KnowledgeEntry, dropped: Sequence[str], ttl: timedelta) -> str:
    minutes = int(ttl.total_seconds() // 60)
    scope = ", ".join(f"{k}={v}" for k, v in entry.scope.items()) or "no scope"
    lines = [
        "**Draft for confirmed knowledge (not saved yet)**",
        *(
            f"> {line}" + (f" _({part.author})_" if i == 0 else "")
            for part in entry.parts
            for i, line in enumerate(part.text.splitlines())
        ),
        *(f"> {line}" for line in ([] if entry.parts else entry.content.splitlines())),
        f"_Scope: {scope} · from: {', '.join(entry.contributors)}_",
    ]
    if entry.links:
        lines.append("Links: " + ", ".join(entry.links))
    if dropped:
        lines.append(
            "Removed links to hosts that are not allowed: " + ", ".join(sorted(set(dropped)))
        )
    if entry.superseded_answer:
        lines.append(
            f"_Corrects my earlier answer (kept apart, not saved as truth): "
            f"{entry.superseded_answer}_"
        )
    lines.append(
        f"An admin confirms with a reply **yes** / **да** / **confirm** (or a :+1: reaction "
        f"on this post); **no** discards it. The draft expires in {minutes} minutes."
    )
    return "\n".join(lines)


class KnowledgeDesk:
    """Pending drafts per thread (channel, root); confirmation saves into the base."""

    def __init__(
        self,
        kb: KnowledgeBase,
        *,
        clock: Callable[[], datetime],
        allowed_hosts: Sequence[str],
        draft_ttl: timedelta = timedelta(minutes=30),
        max_pending: int = 100,
    ) -> None:
        self.kb = kb
        self._clock = clock
        self._allowed = list(allowed_hosts)
        self._ttl = draft_ttl
        self._max_pending = max_pending
        self._pending: dict[tuple[str, str], Draft] = {}

    def pending(self, channel: str, root_id: str) -> Draft | None:
        return self._pending.get((channel, root_id))

    def _expired(self, draft: Draft) -> bool:
        return self._clock() - draft.created > self._ttl

    def request(
        self,
        *,
        channel: str,
        root_id: str,
        user: str,
        role: str,
        text: str,
        thread: Sequence[ThreadMessage],
        scope: Mapping[str, Any],
        source: str,
    ) -> DeskReply:
        if role != "admin":
            log.info("knowledge.refused", user=user)
            return DeskReply(
                "refused",
                "Only an admin can save confirmed knowledge; "
                'ask an admin to write "remember this" in this thread.',
            )
        entry, dropped = build_entry(
            thread=thread,
            request=text,
            requester=user,
            scope=scope,
            source=source,
            channel=channel,
            root_id=root_id,
            allowed_hosts=self._allowed,
            now=self._clock(),
        )
        if entry is None:
            return DeskReply(
                "empty",
                "Nothing to remember yet: write the correction in this thread (what "
                "was wrong and what is right) and ask again, or point at someone "
                "else's: quote it (> ...) or name its author (remember this from @name).",
            )
        self._pending = {k: d for k, d in self._pending.items() if not self._expired(d)}
        if len(self._pending) >= self._max_pending:
            oldest = min(self._pending, key=lambda k: self._pending[k].created)
            del self._pending[oldest]
        self._pending[(channel, root_id)] = Draft(entry, self._clock())
        return DeskReply("draft", draft_text(entry, dropped, self._ttl), entry)

    def attach_post(self, channel: str, root_id: str, post_id: str) -> None:
        draft = self._pending.get((channel, root_id))
        if draft is not None:
            draft.post_id = post_id

    def answer(
        self, *, channel: str, root_id: str, user: str, role: str, text: str
    ) -> DeskReply | None:
        """A reply in a thread with a pending draft: yes/да/confirm saves, no discards.
        None when nothing is pending here or the text is neither."""
        if (channel, root_id) not in self._pending:
            return None
        if is_confirmation(text):
            return self.confirm(channel=channel, root_id=root_id, user=user, role=role)
        if is_rejection(text) and role == "admin":
            del self._pending[(channel, root_id)]
            return DeskReply("cancelled", "Discarded the draft; nothing was saved.")
        return None

    def confirm_post(self, post_id: str, *, user: str, role: str) -> DeskReply | None:
        for (channel, root_id), draft in self._pending.items():
            if draft.post_id == post_id:
                return self.confirm(channel=channel, root_id=root_id, user=user, role=role)
        return None

    def confirm(self, *, channel: str, root_id: str, user: str, role: str) -> DeskReply | None:
        draft = self._pending.get((channel, root_id))
        if draft is None:
            return None
        if role != "admin":
            return DeskReply("refused", "Only an admin can confirm this draft.")
        del self._pending[(channel, root_id)]
        if self._expired(draft):
            minutes = int(self._ttl.total_seconds() // 60)
            return DeskReply(
                "expired",
                f"The draft expired ({minutes} minutes without "
                "confirmation); nothing was saved. Ask again to redo it.",
            )
        entry = draft.entry.model_copy(update={"confirmed_by": user})
        if not self.kb.add(entry):
            return DeskReply("duplicate", "This is already in the knowledge base.", entry)
        return DeskReply(
            "saved",
            f"Saved to confirmed knowledge (entry `{entry.id}`, confirmed "
            f"by {user}). It will be shown as knowledge, not as live data.",
            entry,
        )
