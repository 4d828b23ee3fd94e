"""YAML loading for scenario and world files: duplicate keys are an error, with a line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from evals.parsecache import ParseCache


class YamlFileError(ValueError):
    """A scenario or world file could not be read; the message names file and place."""


# libyaml's parser when PyYAML was built with it (10x faster on the 1 MB demo world)
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    """SafeLoader that rejects a key repeated in one mapping and keeps timestamps as text.

    Timestamps stay strings so that pydantic parses them with their offsets intact
    (PyYAML would turn "2026-07-20T14:40:00+03:00" into a naive or UTC datetime).
    """


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise YamlFileError(
                f"duplicate key {key!r} at line {key_node.start_mark.line + 1} "
                f"(first at line {seen[key] + 1})"
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_StrictLoader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_yaml(path: Path, *, cache: ParseCache | None = None) -> Any:
    """The data of a YAML file; with `cache`, a large file parsed before is read back from
    the cache instead (the 1 MB demo world: about 1 s of libyaml, 20 ms of JSON)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise YamlFileError(f"{path}: cannot read: {exc.strerror}") from exc
    if cache is None or len(text) < cache.min_bytes:
        return load_yaml_text(text, str(path))
    return cache.load(text, lambda: load_yaml_text(text, str(path)))


def load_yaml_text(text: str, name: str = "<string>") -> Any:
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except YamlFileError as exc:
        raise YamlFileError(f"{name}: {exc}") from None
    except yaml.YAMLError as exc:
        raise YamlFileError(f"{name}: invalid YAML: {exc}") from exc
