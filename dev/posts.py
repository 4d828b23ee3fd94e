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
import sys
from pathlib import Path

from bot.render import render_head
from evals.postcheck import ask_demo, demo_threads, read_post


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="the first N questions only")
    args = parser.parse_args(argv)
    asked = ask_demo(demo_threads())
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
