"""Answer -> Mattermost message(s): the full report, or a short summary plus a file.

Text from sources (log lines, commit messages) is untrusted: an `@channel` or `@alice` in
a log line must not ping anyone, so every @word in a bot message is neutralised with a
zero-width space.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.presentation import present
from bot.render import markdown_of, md_text, render_markdown
from planner import Answer, Phrase, say

LONG_ANSWER_CHARS = 12_000
REPORT_NAME = "infrabot-report.md"
# a URL (left alone: links like Kibana's `sort:!('@timestamp')` must keep working) or an
# @word that Mattermost would turn into a mention (not an e-mail address)
# (a scheme starts a word and is short: a long run of letters is scanned once, not once
# per letter)
_AT_RE = re.compile(
    r"(?P<url>(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,15}://\S+)|(?<![\w@])@(?=[\w.-])", re.I
)


def quiet_mentions(text: str) -> str:
    return _AT_RE.sub(lambda m: m.group("url") or "@\u200b", text)


@dataclass(frozen=True)
class RenderedReply:
    message: str
    attachment: str | None = None  # the full markdown report, when the answer is long


def render_reply(answer: Answer, *, limit: int = LONG_ANSWER_CHARS) -> RenderedReply:
    """The post: conclusion first and the ranked evidence; the full report (every fact)
    attached when the post leaves facts out or would not fit `limit`."""
    shown = present(answer)
    short = quiet_mentions(markdown_of(answer, shown))
    if not shown.more and not shown.tables and len(short) <= limit:
        return RenderedReply(short)  # every fact is in the post, each in its own words
    full = quiet_mentions(render_markdown(answer, evidence=None))
    if len(short) > limit - 300:
        short = quiet_mentions(f"**{md_text(answer.summary[: limit // 2])}**\n")
    note = say(
        Phrase.REPORT_ATTACHED,
        answer.lang,
        facts=len(answer.facts),
        gaps=len(answer.gaps),
        calls=len(answer.tool_calls),
        name=REPORT_NAME,
    )
    return RenderedReply(f"{short.rstrip()}\n_{md_text(note)}_", attachment=full)
