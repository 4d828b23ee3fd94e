"""Every demo question's answer in the web chat, at a phone's width (390 px) and a
laptop's (1280 px): read in order (headline, scope, hypotheses, gaps, next steps, then the
folded evidence), the headline on the first screen once the answer is scrolled to, and
the part before the evidence within `SCREENS` screens. A screenshot of each answer is
left in reports/screenshots/posts-<width>/ for a person to look at."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.web import build_web_app
from bot.web_identity import LocalName
from evals.postcheck import demo_threads
from evals.session import WorldSession
from evals.simulators.server import BackgroundServer
from evals.worldfile import read_world_file
from tests.e2e.cdp import Chromium, chromium_path

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.skipif(
        chromium_path() is None,
        reason="headless chromium is not installed (apt-get install -y chromium chromium-driver)",
    ),
]

SCREENS = 1.5  # the post before the folded evidence, in screen heights
SHOTS = Path(
    os.environ.get(
        "INFRABOT_SCREENSHOTS", Path(__file__).resolve().parents[2] / "reports" / "screenshots"
    )
)
LAST = "[...document.querySelectorAll('#messages .answer')].at(-1)"
# the answer's parts a reader meets, in the order they must come, and how far down the
# part before the evidence reaches (px from the answer's top)
READING = f"""(() => {{
  const a = {LAST};
  a.scrollIntoView({{block: 'start'}});
  const top = a.getBoundingClientRect().top;
  const parts = [...a.children].map((c) => c.className || c.tagName.toLowerCase());
  const fold = a.querySelector('details.evidence');
  const head = a.querySelector('.summary').getBoundingClientRect();
  const end = (fold || a).getBoundingClientRect();
  return {{parts, before: (fold ? end.top : end.bottom) - top,
          headline: [head.top, head.bottom], screen: window.innerHeight}};
}})()"""


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    wf = read_world_file(None)
    with WorldSession(wf.world, timezone=wf.timezone, now=wf.now) as session:
        assert session.conversation is not None and session.config is not None
        app = build_web_app(
            conversation=session.conversation,
            identity=LocalName(),
            clock=session.clock,
            questions=wf.questions,
            environments=list(session.config.environments),
        )
        with BackgroundServer(app) as server:
            yield server.base_url + "/"


def _in_order(parts: list[str]) -> bool:
    """The headline first, the scope before any section, the evidence fold after every
    section (hypotheses, gaps, next steps)."""
    names = [p.split()[0] for p in parts if p.split() and p.split()[0] != "who"]
    sections = [i for i, n in enumerate(names) if n in ("h4", "ul", "gaps")]
    fold = names.index("evidence") if "evidence" in names else len(names)
    scope = names.index("scope")
    return names[0] == "summary" and all(scope < i < fold for i in sections)


@pytest.mark.parametrize("width", [390, 1280])
async def test_every_demo_answer_reads_in_order_within_its_screens(
    browser: Chromium, demo_url: str, width: int
) -> None:
    await browser.open_chat(demo_url, width)
    shots = SHOTS / f"posts-{width}"
    shots.mkdir(parents=True, exist_ok=True)
    count = "document.querySelectorAll('#messages .answer').length"
    answers, too_long, out_of_order = 0, [], []
    for thread in demo_threads():
        await browser.click("#new-thread")
        for question in thread:
            before = await browser.evaluate(count)
            await browser.type_into("#question", question)
            await browser.click("#ask")
            await browser.wait_for(f"{count} > {before}", timeout=60)
            answers += 1
            seen = await browser.evaluate(READING)
            await browser.screenshot(shots / f"{answers:02d}.png")
            if not _in_order(seen["parts"]):
                out_of_order.append((question, seen["parts"]))
            if seen["before"] > SCREENS * seen["screen"]:
                too_long.append((question, round(seen["before"])))
            assert 0 <= seen["headline"][0] < seen["screen"], (question, seen)
    assert answers >= 25
    assert not out_of_order, out_of_order
    assert not too_long, too_long
