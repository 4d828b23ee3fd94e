"""The fallback web chat in headless Chromium: ask, see the conclusion, gaps and folded
evidence, expand it and the tool calls, a follow-up that switches the data centre; live
progress while the sources are read; and the page at a phone's width (390 px) and a
laptop's (1280 px): no sideways scroll, the question box on screen, the answer's first
line above the fold, a screenshot of each left in reports/screenshots/."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.web import build_web_app
from bot.web_identity import LocalName
from evals.session import WorldSession
from evals.simulators.server import BackgroundServer
from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world
from tests.e2e.cdp import Chromium, chromium_path

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.skipif(
        chromium_path() is None,
        reason="headless chromium is not installed (apt-get install -y chromium chromium-driver)",
    ),
]

LAST_ANSWER = "[...document.querySelectorAll('#messages .answer')].at(-1)"
# as many as the demo offers: unfolded, they take a fifth of a laptop's screen
EXAMPLES = [
    "what is the RPS of catalog-api in dc-a?",
    "why did catalog-api in dc-a return 502 in the last hour?",
    "какой средний RPS у catalog-api в dc-a за последний час?",
    "what is unhealthy in dc-b right now?",
    "which pods of catalog use the most memory in dc-a?",
    "who deployed catalog-api to dc-b today, and from which job?",
    "почему catalog-api в dc-b перезапускается?",
    "is catalog-api in dc-a slower than yesterday?",
]
EXAMPLES_SHOWN = "!!document.querySelector('#example-list .example')?.offsetParent"
# where the width tests leave their screenshots for a person to look at
SCREENSHOTS = Path(
    os.environ.get(
        "INFRABOT_SCREENSHOTS", Path(__file__).resolve().parents[2] / "reports" / "screenshots"
    )
)


@pytest.fixture
def web_url() -> Iterator[str]:
    yield from _served(latency_s=0.0)


@pytest.fixture
def slow_web_url() -> Iterator[str]:
    """Every source answering in 0.3 s: the reads under way stay on the page long enough
    to be seen."""
    yield from _served(latency_s=0.3)


def _served(latency_s: float) -> Iterator[str]:
    world = WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW, latency_s=latency_s)
    with world as session:
        assert session.conversation is not None and session.config is not None
        app = build_web_app(
            conversation=session.conversation,
            identity=LocalName(),
            clock=session.clock,
            questions=EXAMPLES,
            environments=list(session.config.environments),
        )
        with BackgroundServer(app) as server:
            yield server.base_url + "/"


async def ask(browser: Chromium, question: str, answers_before: int) -> str:
    await browser.type_into("#question", question)
    await browser.click("#ask")
    await browser.wait_for(
        f"document.querySelectorAll('#messages .answer').length > {answers_before}", timeout=60
    )
    return await browser.evaluate(f"{LAST_ANSWER}.innerText")


async def test_ask_see_the_conclusion_unfold_the_evidence_then_switch_the_data_centre(
    browser: Chromium, web_url: str
) -> None:
    await browser.goto(web_url)
    await browser.wait_for("document.body && document.body.dataset.ready === '1'")
    assert "what is the RPS of catalog-api in dc-a?" in await browser.evaluate(
        "document.getElementById('examples').innerText"
    )

    first = await ask(browser, "why did catalog-api in dc-a return 502 in the last hour?", 0)
    assert "dc-a / catalog / catalog-api" in first and "times in UTC" in first
    assert "Gaps — not checked or not proven" in first
    # the evidence is folded: its facts are not shown until asked for
    assert not await browser.evaluate(f"{LAST_ANSWER}.querySelector('details.evidence').open")
    assert "ready" not in await browser.evaluate(
        f"{LAST_ANSWER}.querySelector('details.evidence').innerText.split('\\n').slice(1).join('')"
    )
    await browser.click(".answer details.evidence > summary")
    evidence = await browser.evaluate(f"{LAST_ANSWER}.querySelector('details.evidence').innerText")
    assert "catalog-api: 6/6 ready" in evidence
    # the question is shown as the user's message, in the thread list too
    assert "why did catalog-api" in await browser.evaluate(
        "document.querySelector('#messages .msg.user').innerText"
    )
    assert "why did catalog-api" in await browser.evaluate(
        "document.querySelector('#thread-list li.active').innerText"
    )
    # evidence links are real links, labelled by what they open (never a bare "link")
    labels = await browser.evaluate(
        f"[...{LAST_ANSWER}.querySelectorAll('.fact a[href^=\"http\"]')].map(a => a.innerText)"
    )
    assert labels and "link" not in labels
    assert not await browser.evaluate(f"{LAST_ANSWER}.querySelector('details.tool-calls').open")
    await browser.click(".answer details.tool-calls > summary")
    calls = await browser.evaluate(f"{LAST_ANSWER}.querySelector('details.tool-calls').innerText")
    assert "dc-a" in calls and "ok" in calls

    second = await ask(browser, "the same in dc-b", 1)
    assert "dc-b / catalog / catalog-api" in second
    await browser.click(".answer:last-of-type details.evidence > summary")
    evidence = await browser.evaluate(f"{LAST_ANSWER}.querySelector('details.evidence').innerText")
    assert "catalog-api: 3/3 ready" in evidence and "6/6" not in evidence
    assert await browser.evaluate("document.querySelectorAll('#messages .answer').length") == 2


async def test_progress_says_what_is_read_of_which_object_and_the_examples_fold_away(
    browser: Chromium, slow_web_url: str
) -> None:
    await browser.goto(slow_web_url)
    await browser.wait_for("document.body && document.body.dataset.ready === '1'")
    assert await browser.evaluate(EXAMPLES_SHOWN)
    # record every progress list the page shows while the turn runs
    await browser.evaluate(
        "window.seen = []; new MutationObserver(() => {"
        " const live = document.querySelector('#messages .live .progress');"
        " if (live) window.seen.push(live.innerText); })"
        ".observe(document.getElementById('messages'), {childList: true, subtree: true}); 1"
    )
    await ask(browser, "why did catalog-api in dc-a return 502 in the last hour?", 0)
    seen = await browser.evaluate("window.seen")
    assert seen, "no progress was shown before the answer"
    # what is read, of which object, where: "Reading the state and events of catalog-api
    # in dc-a", not the sources' names
    assert any(
        line.startswith("Reading ") and line.endswith(" of catalog-api in dc-a")
        for shown in seen
        for line in shown.split("\n")
    ), seen
    assert not any("kubernetes" in shown for shown in seen)
    # the live list is gone once the answer is there
    assert not await browser.evaluate("!!document.querySelector('#messages .live')")
    # the examples have folded away; a small toggle brings them back
    assert not await browser.evaluate(EXAMPLES_SHOWN)
    assert await browser.evaluate("document.getElementById('examples').offsetHeight") < 30
    await browser.click("#examples-toggle")
    assert await browser.evaluate(EXAMPLES_SHOWN)
    assert (
        await browser.evaluate(
            "document.getElementById('examples-toggle').getAttribute('aria-expanded')"
        )
        == "true"
    )


@pytest.mark.parametrize("width", [390, 1280])
async def test_the_chat_fits_the_screen_with_the_answer_first(
    browser: Chromium, web_url: str, width: int
) -> None:
    await browser.open_chat(web_url, width)
    await ask(browser, "why did catalog-api in dc-a return 502 in the last hour?", 0)
    # no sideways scrolling, the question box on screen, the conclusion above the fold
    assert await browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), (
        await browser.evaluate("document.documentElement.scrollWidth")
    )
    box = await browser.evaluate(
        "(() => { const r = document.getElementById('question').getBoundingClientRect();"
        " return [r.top, r.bottom, r.left, r.right, window.innerHeight, window.innerWidth]; })()"
    )
    top, bottom, left, right, inner_h, inner_w = box
    assert top >= 0 and bottom <= inner_h and left >= 0 and right <= inner_w, box
    first = await browser.evaluate(
        f"(() => {{ const r = {LAST_ANSWER}.querySelector('.summary').getBoundingClientRect();"
        " return [r.top, window.innerHeight]; })()"
    )
    assert 0 <= first[0] < first[1], first
    assert await browser.evaluate(f"{LAST_ANSWER}.querySelector('.summary').innerText")
    # the examples folded into their toggle: the answer area keeps the screen
    assert not await browser.evaluate(EXAMPLES_SHOWN)
    shares = await browser.evaluate(
        "[document.getElementById('examples').offsetHeight,"
        " document.getElementById('messages').clientHeight, window.innerHeight]"
    )
    assert shares[0] < 30 and shares[1] > 0.6 * shares[2], shares
    shots = SCREENSHOTS
    shots.mkdir(parents=True, exist_ok=True)
    await browser.screenshot(shots / f"web-chat-{width}.png")
    assert (shots / f"web-chat-{width}.png").stat().st_size > 1000


@pytest.fixture(scope="module")
def tabled_answer() -> dict[str, object]:
    """A demo-world answer whose evidence holds a table (the pods of a release)."""
    from bot.presentation import present
    from tests.e2e.demo_thread import ask_in_one_thread

    [answer] = ask_in_one_thread("кто выкатывал service-d в dc-b сегодня и из какой джобы?")
    data: dict[str, object] = {"presentation": present(answer).model_dump(mode="json")}
    assert data["presentation"]["tables"]  # type: ignore[index]
    return data


async def test_a_table_of_pods_scrolls_in_its_own_box_on_a_phone(
    browser: Chromium, web_url: str, tabled_answer: dict[str, object]
) -> None:
    import json

    await browser.open_chat(web_url, 390)
    await browser.evaluate(
        f"document.getElementById('messages').append(renderAnswer({json.dumps(tabled_answer)}));"
        f" {LAST_ANSWER}.querySelector('details.evidence').open = true; 1"
    )
    table = tabled_answer["presentation"]["tables"][0]  # type: ignore[index]
    rows = await browser.evaluate(f"{LAST_ANSWER}.querySelectorAll('.table tbody tr').length")
    assert rows == len(table["rows"])
    heads = await browser.evaluate(
        f"[...{LAST_ANSWER}.querySelectorAll('.table th')].map((th) => th.innerText)"
    )
    assert heads[: len(table["columns"])] == table["columns"]
    # the page itself never scrolls sideways: a wide table scrolls inside its box
    assert await browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    box = await browser.evaluate(
        f"{LAST_ANSWER}.querySelector('.table .scroll').getBoundingClientRect().right"
    )
    assert box <= 390
    await browser.evaluate(f"{LAST_ANSWER}.querySelector('.table').scrollIntoView(); 1")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await browser.screenshot(SCREENSHOTS / "web-chat-table-390.png")
