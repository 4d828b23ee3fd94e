"""YAML that refuses a key given twice in one mapping, with both lines.

`admins: [bob]` and, further down, `admins: [mallory]` load as mallory with PyYAML's
SafeLoader, silently. Configuration, scenario and world files are read with this loader.
Timestamps stay strings so that pydantic parses them with their offsets intact (PyYAML
would turn "2026-07-20T14:40:00+03:00" into a naive or UTC datetime).

Errors: `DuplicateKeyError` (a ValueError) for a repeated key; every other refusal is a
`yaml.YAMLError` with the line where PyYAML gives one: a list or a mapping as a key
(`ComplexKeyError`), a value its explicit tag cannot read (`!!int abc`), and nesting too
deep for the constructor (`NestingError`). Nothing else escapes `load_strict`.
"""

from __future__ import annotations

from typing import Any

import yaml


class DuplicateKeyError(ValueError):
    """A mapping names one key twice; the message has the key and both lines."""


class ComplexKeyError(yaml.constructor.ConstructorError):
    """A key is a list or a mapping (`? [k]`): the duplicate check cannot hash it."""


class NestingError(yaml.YAMLError):
    """Mappings nested deeper than the constructor's recursion allows."""


# libyaml's parser when PyYAML was built with it (10x faster on the 1 MB demo world)
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class StrictLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    """SafeLoader that rejects a repeated key and keeps timestamps as text."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        # PyYAML's scalar constructors raise raw ValueError, KeyError or AttributeError for
        # a value its explicit tag cannot read (`!!int abc`, `!!bool maybe`, `!!timestamp x`)
        try:
            return super().construct_object(node, deep=deep)
        except DuplicateKeyError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {node.tag} value: {exc}", node.start_mark
            ) from None


def _construct_mapping(loader: StrictLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    if not isinstance(node, yaml.MappingNode):  # `!!map [1]`
        raise yaml.constructor.ConstructorError(
            None, None, f"expected a mapping node, but found {node.id}", node.start_mark
        )
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if isinstance(key_node, (yaml.SequenceNode, yaml.MappingNode)):
            raise ComplexKeyError(None, None, "a key is a list or a mapping", key_node.start_mark)
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
    try:
        return yaml.load(text, Loader=StrictLoader)
    except RecursionError:
        raise NestingError("nested too deeply to read") from None
