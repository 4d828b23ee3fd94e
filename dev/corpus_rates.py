"""The rates of a secret and an injection corpus against the redaction and the hostile-text
rules, first at the rule level (`redact` then `describe`, each text alone), then planted in
every source of the demo world through the real `infrabot ask` (Answer JSON, plain text,
markdown, the Mattermost post, debug logs).

    .venv/bin/python dev/corpus_rates.py                       # the fresh batch in evals/corpora
    .venv/bin/python dev/corpus_rates.py --rules-only          # without the planted run

A batch written blind after a change, run once, says whether the change generalises
(docs/architecture.md, "Who is asking, and data that attacks"); the batch in
evals/corpora was written after the structural rules of issue 30 and is kept as it was
delivered, failures included, for the next change to measure against.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evals.corpora.hostile_corpus_fresh import KEEP_FRESH, PAYLOADS_FRESH  # noqa: E402
from evals.corpora.secrets_corpus_fresh import CORPUS_FRESH  # noqa: E402
from policy.hostile import describe  # noqa: E402
from policy.redaction import redact  # noqa: E402
from tests.unit.test_redaction_corpus import leaks  # noqa: E402


def _rules() -> None:
    leaked = [n for n, t, s in CORPUS_FRESH if leaks(s, t, describe(redact(t)))]
    echoed = [n for n, t, e in PAYLOADS_FRESH if e.lower() in describe(redact(t)).lower()]
    changed = [k for k in KEEP_FRESH if describe(redact(k)) != k]
    print(f"rules: secrets leaked {len(leaked)}/{len(CORPUS_FRESH)}: {leaked}")
    print(f"rules: instructions echoed {len(echoed)}/{len(PAYLOADS_FRESH)}: {echoed}")
    print(f"rules: ordinary lines changed {len(changed)}/{len(KEEP_FRESH)}: {changed}")


def _planted() -> None:
    from bot.mattermost._render import render_reply
    from bot.render import render_markdown, render_plain
    from planner.shapes.answer import Answer
    from tests.e2e.planting import CRASH, SITES, cli, demo_data, plant, write_world

    items = [*CORPUS_FRESH, *PAYLOADS_FRESH]
    by_site = {
        site: [t for i, (_, t, _) in enumerate(items) if i % len(SITES) == SITES.index(site)]
        for site in SITES
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = write_world(plant(demo_data(), by_site), Path(tmp) / "world.yaml")
        done = cli("-v", "ask", "--world", str(path), "--json", CRASH)
    answer = Answer.model_validate_json(done.stdout)
    shown = "\n".join(
        [
            done.stdout,
            done.stderr,
            render_plain(answer),
            render_markdown(answer),
            render_reply(answer).message,
        ]
    )
    leaked = sorted(
        {n for n, t, s in CORPUS_FRESH if leaks(s, t, shown) or leaks(quote(s, safe=""), t, shown)}
    )
    echoed = sorted({n for n, _, e in PAYLOADS_FRESH if e.lower() in shown.lower()})
    print(f"planted: secrets leaked {len(leaked)}/{len(CORPUS_FRESH)}: {leaked}")
    print(f"planted: instructions echoed {len(echoed)}/{len(PAYLOADS_FRESH)}: {echoed}")


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rules-only", action="store_true", help="skip the planted run")
    args = options.parse_args()
    _rules()
    if not args.rules_only:
        _planted()


if __name__ == "__main__":
    main()
