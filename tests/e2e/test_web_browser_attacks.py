"""The web chat's findings where a browser is the point, in real headless Chromium: a page
on another origin cannot get a question asked on the visitor's behalf (a "simple"
text/plain post with mode no-cors, or a JSON post), and a page reached by another name
for the chat's address (DNS rebinding) is refused before it can read an answer."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from bot.web import build_web_app
from bot.web_identity import LocalName
from evals.session import WorldSession
from evals.simulators.server import BackgroundServer
from tests.e2e.catalog_world import NOW, TIMEZONE, catalog_world
from tests.e2e.cdp import Chromium, chromium_path

pytestmark = [
    pytest.mark.chromium,
    pytest.mark.skipif(chromium_path() is None, reason="headless chromium is not installed"),
]

QUESTION = "what is the RPS of catalog-api in dc-a?"


@pytest.fixture
def chat() -> Iterator[str]:
    with WorldSession(catalog_world(), timezone=TIMEZONE, now=NOW) as session:
        assert session.conversation is not None and session.config is not None
        app = build_web_app(
            conversation=session.conversation,
            identity=LocalName(),
            clock=session.clock,
            environments=list(session.config.environments),
            allowed_hosts=["127.0.0.1"],
        )
        with BackgroundServer(app) as server:
            yield server.base_url


def _attacker(target: str) -> Starlette:
    """A page elsewhere that tries to post questions to the chat from the visitor's
    browser, and says what each try got."""
    body = f'{{"thread_id": "%s", "question": "{QUESTION}", "user": "web"}}'
    script = f"""
    window.results = {{}};
    async function attempt(name, init) {{
      try {{
        const res = await fetch("{target}/api/ask", init);
        window.results[name] = res.type + ":" + res.status;
      }} catch (err) {{ window.results[name] = "blocked"; }}
    }}
    (async () => {{
      await attempt("simple", {{method: "POST", mode: "no-cors",
        headers: {{"Content-Type": "text/plain; application/json"}},
        body: '{body % "csrf1"}'}});
      await attempt("json", {{method: "POST",
        headers: {{"Content-Type": "application/json"}}, body: '{body % "csrf2"}'}});
      window.done = true;
    }})();
    """

    async def page(request: object) -> HTMLResponse:
        return HTMLResponse(f"<html><body><script>{script}</script></body></html>")

    return Starlette(routes=[Route("/", page)])


async def test_a_page_on_another_origin_gets_no_question_asked(
    chat: str, browser: Chromium
) -> None:
    with BackgroundServer(_attacker(chat)) as evil:
        assert evil.base_url != chat  # another port: another origin
        await browser.goto(evil.base_url + "/")
        await browser.wait_for("window.done === true", timeout=60)
        results = await browser.evaluate("window.results")
    # the JSON post needs the chat's permission first (a preflight), which it never gives;
    # the simple post is sent, but refused for its media type
    assert results["json"] == "blocked", results
    async with httpx.AsyncClient(base_url=chat) as http:
        for thread in ("csrf1", "csrf2"):
            history = await http.get(f"/api/threads/{thread}", params={"user": "web"})
            assert history.status_code == 200 and history.json()["messages"] == [], thread
        # the same question from the chat's own page is answered
        own = await http.post("/api/ask", json={"thread_id": "own", "question": QUESTION})
    assert own.status_code == 200 and own.json()["kind"] == "answer"


async def test_a_page_reached_by_another_name_for_the_address_is_refused(
    chat: str, browser: Chromium
) -> None:
    """DNS rebinding: a name the attacker controls, pointed at the chat's address, makes
    the chat same-origin with the attacker's page; the chat answers only its own names."""
    port = chat.rsplit(":", 1)[1]
    await browser.goto(f"http://localhost:{port}/")  # the same address by another name
    text = await browser.wait_for("document.body && document.body.innerText", timeout=30)
    assert "is not served" in text
    status = await browser.evaluate("fetch('/api/info').then(r => r.status).catch(() => 'blocked')")
    assert status == 421
    await browser.goto(chat + "/")  # by its own name the page loads
    assert await browser.wait_for("document.body.dataset.ready === '1'", timeout=30)
