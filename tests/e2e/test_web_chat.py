"""The fallback web chat in headless Chromium: ask, see facts and gaps, expand the evidence
and the tool calls, then a follow-up that switches the data centre."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.web import build_web_app
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


@pytest.fixture
def web_url() -> Iterator[str]:
    with WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW) as session:
        assert session.conversation is not None and session.config is not None
        app = build_web_app(
            conversation=session.conversation,
            role_of=lambda _user: "engineer",
            clock=session.clock,
            questions=["what is the RPS of catalog-api in dc-a?"],
            environments=list(session.config.environments),
        )
        with BackgroundServer(app) as server:
            yield server.base_url + "/"


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Chromium]:
    chrome = await Chromium.launch(tmp_path / "profile")
    try:
        yield chrome
    finally:
        await chrome.close()


async def ask(browser: Chromium, question: str, answers_before: int) -> str:
    await browser.type_into("#question", question)
    await browser.click("#ask")
    await browser.wait_for(
        f"document.querySelectorAll('#messages .answer').length > {answers_before}", timeout=60
    )
    return await browser.evaluate(f"{LAST_ANSWER}.innerText")


async def test_ask_see_facts_and_gaps_then_switch_the_data_centre(
    browser: Chromium, web_url: str, tmp_path: Path
) -> None:
    await browser.goto(web_url)
    await browser.wait_for("document.body && document.body.dataset.ready === '1'")
    assert "what is the RPS of catalog-api in dc-a?" in await browser.evaluate(
        "document.getElementById('examples').innerText"
    )

    first = await ask(browser, "why did catalog-api in dc-a return 502 in the last hour?", 0)
    assert "Scope: dc-a / catalog / catalog-api" in first
    assert "Evidence:" in first and "fact" in first
    assert "catalog-api: 6/6 ready" in first
    assert "Gaps — not checked or not proven" in first
    # the question is shown as the user's message, in the thread list too
    assert "why did catalog-api" in await browser.evaluate(
        "document.querySelector('#messages .msg.user').innerText"
    )
    assert "why did catalog-api" in await browser.evaluate(
        "document.querySelector('#thread-list li.active').innerText"
    )
    # evidence links are real links; tool calls expand on a click
    assert await browser.evaluate(f"!!{LAST_ANSWER}.querySelector('.fact a[href^=\"http\"]')")
    assert not await browser.evaluate(f"{LAST_ANSWER}.querySelector('details.tool-calls').open")
    await browser.click(".answer details.tool-calls > summary")
    calls = await browser.evaluate(f"{LAST_ANSWER}.querySelector('details.tool-calls').innerText")
    assert "dc-a" in calls and "ok" in calls

    second = await ask(browser, "the same in dc-b", 1)
    await browser.screenshot(tmp_path / "web-chat.png")
    assert "Scope: dc-b / catalog / catalog-api" in second
    assert "catalog-api: 3/3 ready" in second
    assert "6/6" not in second
    assert await browser.evaluate("document.querySelectorAll('#messages .answer').length") == 2
