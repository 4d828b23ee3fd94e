"""The configuration reference (docs/configuration.md), written from the settings models
themselves: every key, its type, its default and its description, so the reference is
what `load_config` accepts and cannot drift from it.

    infrabot config-reference > docs/configuration.md
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from bot.settings import InfrabotConfig, Secrets

_INTRO = """# Configuration reference

Generated from `bot/settings.py` by `infrabot config-reference`; do not edit by hand
(a test checks it is current). The file is YAML, given with `--config` or
`INFRABOT_CONFIG`; an unknown key is an error that names it, with its line. Secrets are
never in the file: they come from the environment (the last table).
"""


def _type_name(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return _type_name(get_args(annotation)[0])
    if origin in (types.UnionType, typing.Union):
        parts = [_type_name(a) for a in get_args(annotation) if a is not type(None)]
        optional = type(None) in get_args(annotation)
        return " | ".join(parts) + (" (optional)" if optional else "")
    if origin in (list, tuple):
        args = get_args(annotation)
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin is dict:
        args = get_args(annotation)
        return f"map of {_type_name(args[1])}" if args else "map"
    if origin is typing.Literal:
        return " / ".join(f"`{a}`" for a in get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return " / ".join(f"`{m.value}`" for m in annotation)
    return getattr(annotation, "__name__", str(annotation)).replace("SecretStr", "secret")


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "**required**"
    if _models(info.annotation):
        return "see below"
    if info.default_factory is not None:
        made = info.default_factory()  # type: ignore[call-arg]
        return f"`{made!r}`" if made not in ({}, [], None) else "empty"
    if info.default is PydanticUndefined or info.default is None:
        return "none"
    return f"`{info.default}`"


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The models a field's type holds (directly, in a list, in a map, in an option)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models(arg)]


def _section(model: type[BaseModel], prefix: str, out: list[str], seen: set[str]) -> None:
    rows = []
    nested: list[tuple[str, type[BaseModel]]] = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        key = f"{prefix}{name}"
        doc = " ".join((info.description or "").split()).replace("|", "\\|")
        rows.append(f"| `{key}` | {_type_name(annotation)} | {_default(info)} | {doc} |")
        origin = get_origin(annotation)
        inner = ".<name>." if origin is dict else "[]." if origin is list else "."
        for sub in _models(annotation):
            nested.append((f"{key}{inner}", sub))
    title = prefix.rstrip(".") or "top level"
    doc = " ".join((model.__doc__ or "").strip().split("\n\n")[0].split())
    out += [f"## `{title}`", "", doc, "", "| key | type | default | what it is |"]
    out += ["|---|---|---|---|", *rows, ""]
    for sub_prefix, sub in nested:
        if sub_prefix not in seen:
            seen.add(sub_prefix)
            _section(sub, sub_prefix, out, seen)


def reference() -> str:
    out = [_INTRO]
    _section(InfrabotConfig, "", out, set())
    out += ["## Environment (secrets and identity)", ""]
    out += ["| variable | what it is |", "|---|---|"]
    for name, info in Secrets.model_fields.items():
        out.append(f"| `INFRABOT_{name.upper()}` | {info.description or ''} |")
    out += [
        "| `INFRABOT_CONFIG` | the configuration file, when `--config` is not given |",
        "| `INFRABOT_REPLICA_INDEX` | this replica's index (0..`mattermost.replicas`-1); "
        "else the StatefulSet ordinal at the end of `HOSTNAME` |",
        "| the `*_env` names the file gives | tokens and keys of each source, read from "
        "these variables |",
        "",
    ]
    return "\n".join(out)
