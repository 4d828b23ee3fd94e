"""YAML loading for scenario and world files: duplicate keys are an error, with a line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from bot.strict_yaml import DuplicateKeyError, load_strict
from evals.parsecache import ParseCache


class YamlFileError(ValueError):
    """A scenario or world file could not be read; the message names file and place."""


def load_yaml(path: Path, *, cache: ParseCache | None = None) -> Any:
    """The data of a YAML file; with `cache`, a large file parsed before is read back from
    the cache instead (the 1 MB demo world: about 1 s of libyaml, 20 ms of JSON)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise YamlFileError(f"{path}: cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise YamlFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except ValueError as exc:  # a NUL byte in the path
        raise YamlFileError(f"{path}: cannot read: {exc}") from None
    if cache is None or len(text) < cache.min_bytes:
        return load_yaml_text(text, str(path))
    try:
        return cache.load(text, lambda: load_yaml_text(text, str(path)))
    except RecursionError:  # too deep for the cache's JSON round trip, not for the parser
        return load_yaml_text(text, str(path))


def load_yaml_text(text: str, name: str = "<string>") -> Any:
    try:
        return load_strict(text)
    except DuplicateKeyError as exc:
        raise YamlFileError(f"{name}: {exc}") from None
    except yaml.YAMLError as exc:
        raise YamlFileError(f"{name}: invalid YAML: {exc}") from exc
