"""A world whose log index holds one 10 MB error line, and what a client sees while a
turn reads it: shared by the huge-record tests and `benchmarks/huge_record.py`."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx

QUESTION = "ошибки pay-api в dc-a за последний час"
NOW = "2026-07-20T14:40:00+03:00"
BIG = "ERROR payment failed: " + "x" * 10_000_000
WORLD: dict[str, Any] = {
    "environments": {"dc-a": ["kubernetes", "logs"]},
    "kubernetes": {"dc-a": [{
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "pay-api", "namespace": "pay"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "pay-api"}},
                 "template": {"metadata": {"labels": {"app": "pay-api"}},
                              "spec": {"containers": [{"name": "app", "image": "r/p:1"}]}}},
        "status": {"replicas": 1, "readyReplicas": 1},
    }]},
    "logs": {"dc-a": {"app-pay-2026.07.20": [{
        "@timestamp": "2026-07-20T11:30:00Z", "service": "pay-api", "level": "error",
        "kubernetes": {"namespace": "pay", "pod": {"name": "pay-api-6d8b9c7f5-x2k9p"}},
        "message": BIG,
    }]}},
}  # fmt: skip


def ask_while_polling(
    base: str, thread_id: str, timeout_s: float
) -> tuple[httpx.Response, float, list[float]]:
    """Ask QUESTION over the web chat API at `base` while another thread polls /healthz
    every 20 ms: (the reply, the turn's wall seconds, each health check's wait)."""
    waits: list[float] = []
    done = threading.Event()

    def poll() -> None:
        with httpx.Client(timeout=30) as client:
            while not done.is_set():
                start = time.perf_counter()
                assert client.get(base + "healthz").status_code == 200
                waits.append(time.perf_counter() - start)
                time.sleep(0.02)

    poller = threading.Thread(target=poll)
    poller.start()
    started = time.perf_counter()
    try:
        reply = httpx.post(
            base + "api/ask",
            json={"thread_id": thread_id, "question": QUESTION},
            timeout=timeout_s,
        )
    finally:
        done.set()
        poller.join()
    return reply, time.perf_counter() - started, waits
