"""The parse cache gives back exactly what parsing gives, and never gets in the way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.parsecache import ParseCache
from evals.yamlload import YamlFileError, load_yaml

WORLD = (
    "now: '2026-07-20T14:40:00+03:00'\n"
    "world:\n"
    "  environments: {dc-a: [kubernetes]}\n"
    "  kubernetes:\n"
    "    dc-a:\n" + "".join(f"    - {{kind: Pod, metadata: {{name: p{i}}}}}\n" for i in range(300))
)


def _file(tmp_path: Path, text: str = WORLD) -> Path:
    path = tmp_path / "world.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_cached_read_equals_a_fresh_parse_and_keeps_timestamps_as_text(tmp_path: Path) -> None:
    path = _file(tmp_path)
    cache = ParseCache(tmp_path / "cache", min_bytes=0)
    parsed = load_yaml(path)
    first = load_yaml(path, cache=cache)
    entries = list((tmp_path / "cache").glob("*.json"))
    again = load_yaml(path, cache=cache)
    assert first == parsed == again
    assert again["now"] == "2026-07-20T14:40:00+03:00"
    assert len(entries) == 1


def test_an_edited_file_is_parsed_again(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache", min_bytes=0)
    load_yaml(_file(tmp_path), cache=cache)
    edited = load_yaml(_file(tmp_path, WORLD.replace("p299", "renamed")), cache=cache)
    names = [o["metadata"]["name"] for o in edited["world"]["kubernetes"]["dc-a"]]
    assert names[-1] == "renamed"


def test_a_corrupt_entry_is_parsed_again_and_replaced(tmp_path: Path) -> None:
    path = _file(tmp_path)
    cache = ParseCache(tmp_path / "cache", min_bytes=0)
    load_yaml(path, cache=cache)
    entry = cache.path_for(path.read_text(encoding="utf-8"))
    entry.write_text('{"truncated": ', encoding="utf-8")
    assert load_yaml(path, cache=cache) == load_yaml(path)
    assert json.loads(entry.read_text(encoding="utf-8")) == load_yaml(path)


def test_an_unwritable_cache_still_parses(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder should be")
    cache = ParseCache(blocker / "cache", min_bytes=0)
    assert load_yaml(_file(tmp_path), cache=cache)["world"]["environments"] == {
        "dc-a": ["kubernetes"]
    }


def test_data_that_json_would_change_is_never_cached(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache", min_bytes=0)
    path = _file(tmp_path, "ports: {8080: http, 9090: metrics}\n")
    assert load_yaml(path, cache=cache) == {"ports": {8080: "http", 9090: "metrics"}}
    assert load_yaml(path, cache=cache) == {"ports": {8080: "http", 9090: "metrics"}}
    assert not list((tmp_path / "cache").glob("*.json"))


def test_errors_are_reported_the_same_with_a_cache(tmp_path: Path) -> None:
    path = _file(tmp_path, "a: 1\na: 2\n")
    with pytest.raises(YamlFileError, match="duplicate key 'a' at line 2"):
        load_yaml(path, cache=ParseCache(tmp_path / "cache", min_bytes=0))
