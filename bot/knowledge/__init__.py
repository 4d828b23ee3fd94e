"""Confirmed operational knowledge ("remember this"), the third memory layer.

An admin asks in a thread, the bot drafts an entry from the human messages, and saves it
only after an admin confirms. Entries live in a JSONL cache with an in-memory lexical
index, rebuildable from the channel history. Retrieved entries reach answers only as
`AnswerFact(knowledge=True, source="knowledge")`, never as live facts.
"""

from bot.knowledge._desk import (
    CONFIRM_REACTIONS,
    DeskReply,
    Draft,
    KnowledgeDesk,
    build_entry,
    host_allowed,
    is_confirmation,
    is_rejection,
    is_remember_request,
)
from bot.knowledge._store import KnowledgeBase, KnowledgeEntry, KnowledgeHit, knowledge_facts, terms

__all__ = [
    "CONFIRM_REACTIONS",
    "DeskReply",
    "Draft",
    "KnowledgeBase",
    "KnowledgeDesk",
    "KnowledgeEntry",
    "KnowledgeHit",
    "build_entry",
    "host_allowed",
    "is_confirmation",
    "is_rejection",
    "is_remember_request",
    "knowledge_facts",
    "terms",
]
