"""Benchmark: a 10 MB log line read while the web chat serves, and /healthz all the while.

Serves the demo web app on a world whose log index holds one 10 MB error line, asks about
it over the web chat API, and polls /healthz every 20 ms from another thread while the
turn runs: the turn's wall time, the reply's size, and the health check's median and
worst wait (a blocked event loop shows as waits of seconds).

    .venv/bin/python benchmarks/huge_record.py [--turns 3] [--json]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
import yaml
from _common import median, parser, quiet_logs, report

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.huge_world import NOW, WORLD, ask_while_polling  # the tests' world, shared


def main() -> None:
    options = parser(__doc__)
    options.add_argument("--turns", type=int, default=3, help="turns to time")
    args = options.parse_args()
    quiet_logs()
    from bot.cli import demo_app
    from bot.sockets import bind, url_of
    from evals.session import WorldSession
    from evals.worldfile import read_world_file

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "world.yaml"
        path.write_text(yaml.safe_dump({"world": WORLD, "now": NOW}, width=10**9))
        wf = read_world_file(path)
        with WorldSession(wf.world, now=wf.now) as session:
            config = uvicorn.Config(demo_app(session, wf), log_level="warning", lifespan="off")
            server = uvicorn.Server(config)
            sock = bind("127.0.0.1", 0)
            thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])))
            thread.start()
            while not server.started:
                time.sleep(0.02)
            base = url_of(sock)
            turns, sizes, waits = [], [], []
            try:
                for i in range(args.turns):
                    reply, took, polled = ask_while_polling(base, f"big{i}", 300)
                    turns.append(took)
                    sizes.append(len(reply.text))
                    waits += polled
            finally:
                server.should_exit = True
                thread.join(10)
    result = {
        "turn_median_s": round(median(turns), 2),
        "reply_chars": max(sizes),
        "healthz_median_ms": round(median(waits) * 1000, 1),
        "healthz_max_ms": round(max(waits) * 1000, 1),
        "healthz_polls": len(waits),
    }
    text = (
        f"10 MB record: turn median {result['turn_median_s']} s, reply {result['reply_chars']}"
        f" chars; /healthz median {result['healthz_median_ms']} ms, worst"
        f" {result['healthz_max_ms']} ms over {result['healthz_polls']} polls"
    )
    report(result, text, args.json)


if __name__ == "__main__":
    main()
