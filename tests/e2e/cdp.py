"""Drive headless Chromium over the DevTools protocol (plain CDP over a websocket).

Just enough for the web chat test: open a page, evaluate JavaScript, type text, click an
element, wait for a condition, take a screenshot.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class CdpError(Exception):
    pass


class Chromium:
    def __init__(self, proc: asyncio.subprocess.Process, ws: ClientConnection) -> None:
        self._proc = proc
        self._ws = ws
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def launch(cls, profile: Path) -> Chromium:
        exe = chromium_path()
        if exe is None:
            raise CdpError("chromium is not installed")
        profile.mkdir(parents=True, exist_ok=True)
        proc = await asyncio.create_subprocess_exec(
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--remote-debugging-port=0",
            "--remote-debugging-address=127.0.0.1",
            f"--user-data-dir={profile}",
            "--window-size=1280,900",
            "about:blank",
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = profile / "DevToolsActivePort"
        try:
            async with asyncio.timeout(20):
                while not port_file.exists() or len(port_file.read_text().splitlines()) < 2:
                    await asyncio.sleep(0.05)
                port = int(port_file.read_text().splitlines()[0])
                async with httpx.AsyncClient() as http:
                    while True:
                        targets = (await http.get(f"http://127.0.0.1:{port}/json/list")).json()
                        pages = [t for t in targets if t.get("type") == "page"]
                        if pages:
                            break
                        await asyncio.sleep(0.05)
            ws = await connect(
                pages[0]["webSocketDebuggerUrl"], max_size=64 * 1024 * 1024, ping_interval=None
            )
        except BaseException:
            proc.kill()
            await proc.wait()
            raise
        return cls(proc, ws)

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for raw in self._ws:
                message = json.loads(raw)
                future = self._waiting.pop(message.get("id", -1), None)
                if future is not None and not future.done():
                    future.set_result(message)
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(CdpError("browser connection closed"))

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        call_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = future
        await self._ws.send(json.dumps({"id": call_id, "method": method, "params": params}))
        message = await asyncio.wait_for(future, 30)
        if "error" in message:
            raise CdpError(f"{method}: {message['error']}")
        return message.get("result", {})

    async def evaluate(self, expression: str) -> Any:
        result = await self.send(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise CdpError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    async def goto(self, url: str) -> None:
        await self.send("Page.enable")
        await self.send("Page.navigate", url=url)

    async def wait_for(self, expression: str, timeout: float = 30.0) -> Any:
        deadline = asyncio.get_running_loop().time() + timeout
        last_error = ""
        while True:
            try:
                value = await self.evaluate(expression)
            except CdpError as exc:  # e.g. the page is still loading
                value, last_error = None, str(exc)
            if value:
                return value
            if asyncio.get_running_loop().time() > deadline:
                raise CdpError(f"timed out waiting for: {expression} {last_error}")
            await asyncio.sleep(0.1)

    async def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element (scrolled into view)."""
        box = await self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return null; e.scrollIntoView({block: 'center'});"
            " const r = e.getBoundingClientRect();"
            " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()"
        )
        if not box:
            raise CdpError(f"no element {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            await self.send(
                "Input.dispatchMouseEvent",
                type=kind,
                x=box["x"],
                y=box["y"],
                button="left",
                clickCount=1,
            )

    async def type_into(self, selector: str, text: str) -> None:
        await self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        await self.send("Input.insertText", text=text)

    async def open_chat(self, url: str, width: int) -> None:
        """The web chat at `url` as a phone (under 700 px: 844 px high, mobile) or a
        laptop (800 px high) shows it, once its page says it is ready."""
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=844 if width < 700 else 800,
            deviceScaleFactor=1,
            mobile=width < 700,
        )
        await self.goto(url)
        await self.wait_for("document.body && document.body.dataset.ready === '1'")

    async def screenshot(self, path: Path) -> None:
        data = await self.send("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(data["data"]))

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.send("Browser.close")
        with contextlib.suppress(Exception):
            await self._ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        if self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.terminate()
            try:
                await asyncio.wait_for(self._proc.wait(), 5)
            except TimeoutError:
                self._proc.kill()
                await self._proc.wait()
