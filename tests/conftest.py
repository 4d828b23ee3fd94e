"""Shared test fixtures. Real model calls are blocked: no test may reach a network model."""

from __future__ import annotations

import asyncio

import pytest
import structlog


@pytest.fixture(autouse=True)
def _no_network_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("INFRABOT_LLM_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/blocked-in-tests")


@pytest.fixture(autouse=True)
def _fresh_structlog():
    """The CLI configures structlog process-wide; no test may leave that behind."""
    yield
    structlog.reset_defaults()


@pytest.fixture(autouse=True)
async def _no_leaked_tasks():
    """A test fails if it leaves asyncio tasks running (kopf-style async hygiene). Async,
    so it runs on the test's own event loop and sees what the test left on it."""
    yield
    await asyncio.sleep(0)  # let tasks that were just cancelled finish cancelling
    pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
    for task in pending:
        task.cancel()
    assert not pending, f"leaked asyncio tasks: {pending}"
