"""What a person reads in a post before the evidence, measured: the headline's length and
whether it carries a UID, a hypothesis that only repeats the headline, gap lines that show
an internal objective id or are not in the answer's language, and the length of the post
before the folded evidence.

The checks read the rendered Markdown and the Presentation (bot/presentation.py), the
two things a reader and a surface see; tests/e2e/test_post_reading.py holds every demo
question to them and dev/posts.py prints them for a set of questions.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from bot.presentation import Presentation, present
from bot.render import render_head
from evals.session import WorldSession
from evals.worldfile import read_world_file
from planner import Answer, Language, Phrase, Turn

HEADLINE_MAX = 300
HEAD_MAX = 1_500

_UID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
# an objective or tool id as the catalogues write them: "changes.before", "k8s.pod_logs"
_INTERNAL_ID = re.compile(r"\b(?:[a-z][a-z0-9]*_)*[a-z][a-z0-9]*\.[a-z][a-z0-9_]*\b")
_CYRILLIC = re.compile(r"[а-яё]", re.I)
_LATIN = re.compile(r"[a-z]", re.I)
_WORD = re.compile(r"[^\W\d_]{3,}")
# a token that is the same in both languages' answers: an identifier or a product name
_NEUTRAL = re.compile(r"[\d_./:-]")


class PostReading(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str
    headline_chars: int
    headline_uid: bool
    duplicated_hypothesis: bool
    gap_ids: list[str]  # internal ids shown in the gap lines
    foreign_gap_lines: int  # gap lines mostly in the other language
    gaps_counted: int  # what the summary's "not checked: N" counts
    gaps_shown: int  # the gap lines the post shows
    head_chars: int

    @property
    def problems(self) -> list[str]:
        out = []
        if self.headline_chars > HEADLINE_MAX:
            out.append(f"headline {self.headline_chars} chars")
        if self.headline_uid:
            out.append("UID in the headline")
        if self.duplicated_hypothesis:
            out.append("a hypothesis repeats the headline")
        if self.gap_ids:
            out.append(f"internal ids in gaps: {', '.join(self.gap_ids[:3])}")
        if self.foreign_gap_lines:
            out.append(f"{self.foreign_gap_lines} gap line(s) in the other language")
        if self.gaps_counted != self.gaps_shown:
            out.append(f"{self.gaps_counted} gaps counted, {self.gaps_shown} shown")
        if self.head_chars > HEAD_MAX:
            out.append(f"post before the evidence {self.head_chars} chars")
        return out


def _same(a: str, b: str) -> bool:
    def norm(text: str) -> str:
        return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())

    left, right = norm(a), norm(b)
    return bool(left) and (left in right or right in left)


def _foreign(line: str, language: Language) -> bool:
    """A line whose own words (identifiers and product names aside) are mostly in the
    other language."""
    own = " ".join(token for token in line.split() if not _NEUTRAL.search(token))
    words = _WORD.findall(own)
    if len(words) < 3:
        return False
    cyrillic = sum(1 for w in words if _CYRILLIC.search(w))
    latin = sum(1 for w in words if _LATIN.search(w))
    mine, other = (cyrillic, latin) if language is Language.RU else (latin, cyrillic)
    return other > mine


def gap_lines(head: str, p: Presentation) -> list[str]:
    """The lines of the post's gaps section, as rendered."""
    out: list[str] = []
    inside = False
    for line in head.splitlines():
        if line.startswith("#### "):
            inside = line == f"#### {p.say(Phrase.GAPS)}"
        elif inside and line.strip():
            out.append(line)
    return out


def read_post(question: str, answer: Answer) -> PostReading:
    p = present(answer)
    head = render_head(answer, p)
    lines = gap_lines(head, p)
    known = {g.objective for g in answer.gaps} | {c.tool for c in answer.tool_calls}
    shown_ids = sorted({m for line in lines for m in _INTERNAL_ID.findall(line)} & known)
    return PostReading(
        question=question,
        headline_chars=len(p.conclusion),
        headline_uid=bool(_UID.search(p.conclusion)),
        duplicated_hypothesis=any(_same(h.text, p.conclusion) for h in p.hypotheses),
        gap_ids=shown_ids,
        foreign_gap_lines=sum(1 for line in lines if _foreign(line, p.language)),
        gaps_counted=len(answer.gaps),
        gaps_shown=len(p.gaps),
        head_chars=len(head),
    )


README = Path(__file__).resolve().parents[1] / "README.md"
# `infrabot ask "..."` on the demo world (a line naming another world is not)
_ASK = re.compile(r'infrabot ask (?:--\w+ )*"([^"]+)"(?![^\n]*--world)')


def readme_questions(readme: Path = README) -> list[str]:
    """The questions the README asks of the demo world, in its order."""
    return list(dict.fromkeys(_ASK.findall(readme.read_text(encoding="utf-8"))))


def demo_threads() -> list[list[str]]:
    """The README's questions, each in a thread of its own as the command line asks them,
    then the demo world's example questions in one thread, as the web chat offers them (a
    follow-up follows the question before it)."""
    readme = readme_questions()
    world = [q for q in read_world_file(None).questions if q not in readme]
    return [[q] for q in readme] + [world]


def ask_demo(threads: list[list[str]]) -> list[tuple[str, Answer]]:
    """Each list of questions asked in a thread of its own, on one demo world, through
    the real conversation path."""
    wf = read_world_file(None)
    with WorldSession(wf.world, now=wf.now, timezone=wf.timezone) as session:
        conversation = session.conversation
        assert conversation is not None

        async def ask() -> list[tuple[str, Answer]]:
            out: list[tuple[str, Answer]] = []
            try:
                for n, questions in enumerate(threads):
                    for question in questions:
                        turn = Turn(
                            question=question, user="alice", root_id=f"t{n}", now=session.clock()
                        )
                        out.append((question, (await conversation.answer(turn)).answer))
            finally:
                await conversation.aclose()
            return out

        return asyncio.run(ask())
