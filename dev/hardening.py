"""The hardening suites, each with the figure it proves, in one command.

    .venv/bin/python dev/hardening.py            # the fast tiers (what CI runs), ~4 min
    .venv/bin/python dev/hardening.py --slow     # 10,000 examples per property, 1,000-turn soak

Suites (issue "Hardening"):
    redaction   the secret corpus as it is, URL-encoded and inside kept dashboard links
    hostile     instructions to the assistant and markup in data; ordinary text kept
    planted     secrets and instructions planted in every source of the demo world, on
                every surface (CLI JSON, plain, markdown, Mattermost post, logs, eval report)
    regex       every compiled pattern of the product on 1 MB adversarial inputs
    properties  hypothesis tiers over every input path
    faults      every source x every fault kind, the others working
    concurrency 50 Mattermost threads at once, cross-thread leaks
    soak        turns in many threads, resident memory after warm-up vs at the end
Exit status: non-zero when any suite fails.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _redaction() -> tuple[bool, str]:
    from policy.redaction import redact
    from tests.secrets_corpus import CORPUS, ENCODED
    from tests.unit.test_redaction_corpus import leaks

    keep = frozenset({"kibana.corp.example"})
    plain = sum(1 for _, t, s in CORPUS if leaks(s, t, redact(t)))
    encoded = sum(1 for _, t, s in ENCODED if leaks(s, t, redact(t)))
    kept = 0
    for _, text, secret in CORPUS:
        link = f"https://kibana.corp.example/app/discover#/?_a=(query:(query:'{quote(text)}'))"
        shown = redact(link, keep_query_hosts=keep)
        kept += bool(leaks(secret, link, shown) or leaks(quote(secret), link, shown))
    figure = (
        f"{plain} of {len(CORPUS)} shapes leak; {encoded} of {len(ENCODED)} URL-encoded; "
        f"{kept} of {len(CORPUS)} inside a kept dashboard link"
    )
    return plain + encoded + kept == 0, figure


def _hostile() -> tuple[bool, str]:
    from policy.hostile import describe
    from tests.hostile_corpus import ORDINARY, PAYLOADS

    echoed = sum(1 for _, t, e in PAYLOADS if e.lower() in describe(t).lower())
    live = sum(1 for _, t, _ in PAYLOADS if re.search(r"\]\(https?:|<img|<a\s", describe(t)))
    changed = sum(1 for t in ORDINARY if describe(t) != t)
    figure = (
        f"{echoed} of {len(PAYLOADS)} payloads echoed, {live} live links; "
        f"{changed} of {len(ORDINARY)} ordinary lines changed"
    )
    return echoed + live + changed == 0, figure


def _pytest(*paths: str, env: dict[str, str] | None = None) -> tuple[bool, str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
        check=False,
    )
    tail = [line for line in done.stdout.splitlines() if " passed" in line or " failed" in line]
    return done.returncode == 0, (tail[-1].strip("= ") if tail else done.stdout[-300:])


def _soak(turns: int) -> tuple[bool, str]:
    done = subprocess.run(
        [sys.executable, "benchmarks/soak.py", "--turns", str(turns)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if "RSS" in line or "growth" in line]
    figure = "; ".join(line.strip() for line in lines[-3:]) or done.stdout[-300:]
    return done.returncode == 0, figure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--slow", action="store_true", help="the slow tiers")
    args = parser.parse_args(argv)
    profile = {"HYPOTHESIS_PROFILE": "slow" if args.slow else "ci"}
    suites = [
        ("redaction", _redaction),
        ("hostile", _hostile),
        (
            "planted",
            lambda: _pytest(
                "tests/e2e/test_secrets_everywhere.py", "tests/e2e/test_hostile_everywhere.py"
            ),
        ),
        ("regex", lambda: _pytest("tests/unit/test_regex_bounded.py")),
        ("properties", lambda: _pytest("tests/property", env=profile)),
        ("faults", lambda: _pytest("tests/integration/test_fault_matrix.py")),
        ("concurrency", lambda: _pytest("tests/e2e/test_concurrency.py")),
        ("soak", lambda: _soak(1000 if args.slow else 200)),
    ]
    failed = 0
    for name, run in suites:
        began = time.perf_counter()
        ok, figure = run()
        failed += not ok
        took = time.perf_counter() - began
        print(f"{'ok  ' if ok else 'FAIL'} {name:<12} {figure} ({took:.0f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
