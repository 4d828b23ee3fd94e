"""YAML that refuses a key given twice in one mapping, with both lines.

`admins: [bob]` and, further down, `admins: [mallory]` load as mallory with PyYAML's
SafeLoader, silently. Configuration, scenario and world files are read with this loader.
Timestamps stay strings so that pydantic parses them with their offsets intact (PyYAML
would turn "2026-07-20T14:40:00+03:00" into a naive or UTC datetime).
"""

from __future__ import annotations

from typing import Any

import yaml


class DuplicateKeyError(ValueError):
    """A mapping names one key twice; the message has the key and both lines."""


# libyaml's parser when PyYAML was built with it (10x faster on the 1 MB demo world)
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class StrictLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    """SafeLoader that rejects a repeated key and keeps timestamps as text."""


def _construct_mapping(loader: StrictLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise DuplicateKeyError(
                f"duplicate key {key!r} at line {key_node.start_mark.line + 1} "
                f"(first at line {seen[key] + 1})"
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
StrictLoader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_strict(text: str) -> Any:
    """The data of a YAML text; DuplicateKeyError or yaml.YAMLError when it is not one."""
    return yaml.load(text, Loader=StrictLoader)
