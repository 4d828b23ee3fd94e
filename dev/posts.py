"""The posts people read for the demo questions: each question's Markdown post (what
Mattermost and the web chat show before the folded evidence) in a file of its own, and a
table of what evals/postcheck.py measures on it.

    .venv/bin/python dev/posts.py /tmp/posts            # README's questions + the demo's
    .venv/bin/python dev/posts.py /tmp/posts --limit 20

The README's `infrabot ask "..."` lines (those on the demo world) are each asked in a thread
of their own, as the command line does; the demo world's example questions in one thread,
as the web chat offers them (a follow-up follows the question before it).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from pathlib import Path

from bot.render import render_head
from evals.postcheck import read_post
from evals.session import WorldSession
from evals.worldfile import read_world_file
from planner import Answer, Turn

ROOT = Path(__file__).resolve().parents[1]
_ASK = re.compile(r'infrabot ask (?:--\w+ )*"([^"]+)"(?!\s*\\)(?![^\n]*--world)')


def readme_questions(readme: Path = ROOT / "README.md") -> list[str]:
    """The questions the README asks of the demo world, in its order."""
    return list(dict.fromkeys(_ASK.findall(readme.read_text(encoding="utf-8"))))


def ask_all(threads: list[list[str]]) -> list[tuple[str, Answer]]:
    """Each list of questions asked in a thread of its own, on one demo world."""
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


def demo_threads() -> list[list[str]]:
    readme = readme_questions()
    world = [q for q in read_world_file(None).questions if q not in readme]
    return [[q] for q in readme] + [world]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="the first N questions only")
    args = parser.parse_args(argv)
    threads = demo_threads()
    asked = ask_all(threads)
    if args.limit:
        asked = asked[: args.limit]
    args.out.mkdir(parents=True, exist_ok=True)
    problems = 0
    for n, (question, answer) in enumerate(asked, 1):
        (args.out / f"{n:02d}.md").write_text(
            f"> {question}\n\n{render_head(answer)}", encoding="utf-8"
        )
        reading = read_post(question, answer)
        problems += bool(reading.problems)
        print(f"{n:02d} head {reading.head_chars:5d} headline {reading.headline_chars:4d}  "
              f"{question[:60]!r}  {'; '.join(reading.problems) or 'ok'}")  # fmt: skip
    print(f"{len(asked) - problems}/{len(asked)} posts with no problem")
    return 0


if __name__ == "__main__":
    sys.exit(main())
