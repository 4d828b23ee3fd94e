"""Errors of the configuration file, each naming the file, the line where it is known,
the key path and the reason: `infrabot.yaml:5: environments.<env>.metrics.url: scheme
'file' is not allowed; use http or https`. Pydantic's errors are turned into these lines
without the input values (they may be secrets), type names or links; `key_lines` finds
where a YAML text sets each key, and which keys it gives twice."""

from __future__ import annotations

import difflib
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError


class ConfigFileError(Exception):
    """The configuration could not be used; each line of the message names the file (and
    the line, when it is known), the key path and the reason."""


Key = tuple[str | int, ...]

_MESSAGES = {
    "missing": "required, but not given",
    "dict_type": "should be a mapping of keys to values",
    "model_type": "should be a mapping of settings",
    "model_attributes_type": "should be a mapping of settings",
    "path_type": "should be a file path",
    "invalid_key": "keys should be text",
}


def config_error(
    exc: ValidationError,
    source: str,
    *,
    root: type[BaseModel],
    at: Key = (),
    rename: Mapping[str, str] | None = None,
    lines: Mapping[tuple[str, ...], int] | None = None,
) -> ConfigFileError:
    """One line per error of `exc`: `source[:line]: key.path: reason`.

    `at` is where the validated data sits in the file (a connector's target built from
    `environments.<env>.kubernetes`), `rename` maps a target's field to the key it is read
    from (`token` -> `token_env`). No input value is repeated (it may be a secret), and
    none of pydantic's type names or links."""
    out: list[tuple[int, str]] = []
    for err in exc.errors(include_url=False, include_input=False):
        key = tuple(p for p in err["loc"] if p != "[key]")
        if key and rename and isinstance(key[0], str):
            key = (rename.get(key[0], key[0]), *key[1:])
        if err["type"] == "config_key":
            key = (*key, *err.get("ctx", {})["key"])
        full = (*at, *key)
        line = nearest_line(lines or {}, full)
        where = f"{source}:{line}" if line else source
        out.append((line or 0, f"{where}: {dotted(full)}: {_message(err, full, root)}"))
    return ConfigFileError("\n".join(text for _, text in sorted(out, key=lambda o: o[0])))


def dotted(key: Key) -> str:
    """`environments.<env>.logs.url`, `mcp_servers[0].url`; "(top level)" for the file."""
    if not key:
        return "(top level)"
    text = ""
    for part in key:  # a key's own dots stay: ".timezone" is not "timezone"
        name = f"{part}" if part != "" else '""'
        text += f"[{part}]" if isinstance(part, int) else f".{name}" if text else name
    return text


def _message(err: Any, key: Key, root: type[BaseModel]) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        return _unknown_key(key, root)
    if kind == "value_error":
        return str(err["ctx"]["error"]) if "ctx" in err else str(err["msg"])
    if "[key]" in err["loc"]:
        return f"not a known key here: {err['msg']}"
    return _MESSAGES.get(kind, str(err["msg"]))


def _unknown_key(key: Key, root: type[BaseModel]) -> str:
    model = _model_at(key[:-1], root)
    if model is None:
        return "unknown key"
    known = sorted(model.model_fields)
    close = difflib.get_close_matches(str(key[-1]), known, n=1)
    if close:
        return f"unknown key; did you mean {close[0]}?"
    return f"unknown key; the keys here are {', '.join(known)}"


def _model_at(key: Key, root: type[BaseModel]) -> type[BaseModel] | None:
    """The settings class at `key` of the file (None below a free-form mapping)."""
    kind: Any = root
    for part in key:
        kind = _unoptional(kind)
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            field = kind.model_fields.get(str(part))
            if field is None:
                return None
            kind = field.annotation
        elif get_origin(kind) in (dict, list):
            kind = get_args(kind)[-1]
        else:
            return None
    kind = _unoptional(kind)
    return kind if isinstance(kind, type) and issubclass(kind, BaseModel) else None


def _unoptional(kind: Any) -> Any:
    if get_origin(kind) in (Union, types.UnionType):
        rest = [a for a in get_args(kind) if a is not type(None)]
        return rest[0] if len(rest) == 1 else kind
    return kind


@dataclass
class Keys:
    """Where a YAML text sets each key path (1-based lines), the keys it gives twice in one
    mapping, as (key path, line, line of the first) in the order of the text, and the line
    of its first key that is a list or a mapping."""

    lines: dict[tuple[str, ...], int] = dc_field(default_factory=dict)
    twice: list[tuple[Key, int, int]] = dc_field(default_factory=list)
    complex_key: int | None = None


def key_lines(text: str) -> Keys:
    keys = Keys()
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return keys
    seen: set[int] = set()  # an anchor may refer to the node it is in

    def walk(node: yaml.Node | None, key: Key) -> None:
        if node is None or id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key_node, value_node in node.value:
                line = key_node.start_mark.line + 1
                if not isinstance(key_node, yaml.ScalarNode):
                    keys.complex_key = keys.complex_key or line
                    continue
                name = str(key_node.value)
                if name in first:
                    keys.twice.append(((*key, name), line, first[name]))
                first.setdefault(name, line)
                keys.lines.setdefault(tuple(str(p) for p in (*key, name)), line)
                walk(value_node, (*key, name))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                keys.lines.setdefault(
                    tuple(str(p) for p in (*key, index)), item.start_mark.line + 1
                )
                walk(item, (*key, index))

    walk(root, ())
    keys.twice.sort(key=lambda t: t[1])
    return keys


def nearest_line(lines: Mapping[tuple[str, ...], int], key: Sequence[str | int]) -> int | None:
    parts = tuple(str(p) for p in key)
    for end in range(len(parts), 0, -1):
        if parts[:end] in lines:
            return lines[parts[:end]]
    return None
