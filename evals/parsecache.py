"""A cache of parsed data files on disk, keyed by the text's content.

The demo world is 1 MB of YAML: libyaml takes about a second to parse it, on every cold
`infrabot ask`, while the same data as JSON loads in 20 ms. The key is a hash of the
text itself, so an edited file is simply a new entry and a stale entry cannot be read.
Only data that survives a JSON round trip unchanged is cached (our YAML loader keeps
timestamps as text, so worlds and scenarios do); anything else is parsed every time.
The cache is an optimisation only: an unreadable, corrupt or unwritable cache falls back
to parsing, quietly.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

log = structlog.get_logger(__name__)

FORMAT = "1"  # bump when the parser's output for the same text changes


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/infrabot/parsed` (by default `~/.cache/infrabot/parsed`)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "infrabot" / "parsed"


class ParseCache:
    def __init__(self, directory: Path, *, min_bytes: int = 4096) -> None:
        self.directory = directory
        self.min_bytes = min_bytes  # smaller files parse faster than a cache look-up pays

    def path_for(self, text: str) -> Path:
        digest = hashlib.sha256(f"{FORMAT}\0{text}".encode()).hexdigest()
        return self.directory / f"{digest}.json"

    def load(self, text: str, parse: Callable[[], Any]) -> Any:
        """The cached data for `text`, or `parse()` (stored for next time)."""
        entry = self.path_for(text)
        try:
            return json.loads(entry.read_text(encoding="utf-8"))
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:  # corrupt or unreadable: parse again
            log.debug("parsecache.unreadable", path=str(entry), error=type(exc).__name__)
        data = parse()
        self._store(entry, data)
        return data

    def _store(self, entry: Path, data: Any) -> None:
        try:
            encoded = json.dumps(data, ensure_ascii=False)
        except (TypeError, ValueError):
            return  # not JSON data (non-string keys, binary): never cached
        if json.loads(encoded) != data:
            return  # e.g. integer keys would come back as strings
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(encoded)
            os.replace(tmp, entry)  # readers see the whole entry or none
        except OSError as exc:
            log.debug("parsecache.not_stored", path=str(entry), error=type(exc).__name__)
