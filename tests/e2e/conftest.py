"""The headless browser the web chat's e2e tests drive (tests/e2e/cdp.py), one per test
with a profile of its own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.e2e.cdp import Chromium


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Chromium]:
    chrome = await Chromium.launch(tmp_path / "profile")
    try:
        yield chrome
    finally:
        await chrome.close()
