"""Strategies shared by the loader properties: YAML-like values, and mutations of a valid
document (drop a key, change a type, insert unicode, rename a key) that remember the
key paths they touched, so a rejection can be checked for naming one of them."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

Key = str | int | bool | float | None
KeyPath = tuple[Any, ...]

# strings that have broken loaders before, or that sit on a boundary of one
TRICKY_STRINGS = [
    "",
    " ",
    "\x00",
    "\t",
    "\u202e",
    "\ufeff",
    "null",
    "true",
    "~",
    ".",
    "..",
    "/",
    "a" * 300,
    "Europe",
    "Etc",
    "America",
    "Europe/Moscow",
    "UTC",
    "Mars/Olympus",
    "1e999",
    "-0",
    "9999-12-31T23:59:59Z",
    "0001-01-01T00:00:00+14:00",
    "2026-07-20T14:40:00",
    "2026-07-20T14:40:00+03:00",
    "60s",
    "1e5s",
    "99999999999d",
    "ms",
    "-5m",
    "0s",
    "дц-а",
    "dс-a",  # a Cyrillic с
    "сервис-а",
    "file:///etc/passwd",
    "http://",
    "https://k8s.example:99999",
    "{env}",
    "[",
    "*",
]

UNICODE = st.text(
    st.characters(exclude_categories=("Cs",)),
    min_size=1,
    max_size=6,
)


def scalars() -> st.SearchStrategy[Any]:
    """What a YAML scalar loads as (timestamps stay strings: the strict loader keeps them)."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(TRICKY_STRINGS),
        st.text(max_size=12),
    )


@functools.cache
def _keys(vocabulary: frozenset[str]) -> st.SearchStrategy[Key]:
    return st.one_of(
        st.sampled_from(sorted(vocabulary)),
        UNICODE,
        st.integers(-5, 5),
        st.sampled_from([None, True, 1.5]),
    )


def keys(vocabulary: Iterable[str]) -> st.SearchStrategy[Key]:
    """Mapping keys: a key the document knows, unicode text, or a non-string scalar."""
    return _keys(frozenset(vocabulary))


@functools.cache
def _values(vocabulary: frozenset[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars(),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(keys(vocabulary), inner, max_size=3)
        ),
        max_leaves=6,
    )


def values(vocabulary: Iterable[str]) -> st.SearchStrategy[Any]:
    """Any YAML-shaped value: scalars, and small lists and mappings of them (built once per
    vocabulary: building a strategy costs more than drawing from it)."""
    return _values(frozenset(vocabulary))


def vocabulary_of(doc: Any) -> set[str]:
    """Every string key of a document, at any depth."""
    out: set[str] = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.update(k for k in node if isinstance(k, str))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


_DELETE = object()


def _replace(node: Any, path: KeyPath, fn: Callable[[Any], Any]) -> Any:
    """A copy of `node` with the value at `path` replaced by fn(old); only the containers
    along the path are copied, so a large base document is shared, never changed."""
    if not path:
        return fn(node)
    head, rest = path[0], path[1:]
    out: Any = dict(node) if isinstance(node, dict) else list(node)
    new = _replace(node[head], rest, fn)
    if new is _DELETE:
        del out[head]
    else:
        out[head] = new
    return out


def _get(node: Any, path: KeyPath) -> Any:
    for key in path:
        node = node[key]
    return node


@st.composite
def _path(draw: st.DrawFn, doc: Any) -> KeyPath:
    """A path into the document, often deep (the interesting keys are 3 to 7 levels down)."""
    path: list[Any] = []
    node = doc
    while isinstance(node, dict | list) and node and draw(st.integers(0, 5)) > 0:
        key = draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
        path.append(key)
        node = node[key]
    return tuple(path)


def _lookalike(key: Any) -> Any:
    if isinstance(key, str) and key:
        swapped = key.translate(str.maketrans("aceopx", "асеорх"))  # Cyrillic twins
        return swapped if swapped != key else key + "\u0301"
    return f"{key}!"


@st.composite
def mutated(
    draw: st.DrawFn, base: Any, vocabulary: Iterable[str], *, max_ops: int = 3
) -> tuple[Any, list[KeyPath]]:
    """The base document after 1..max_ops mutations, and the key paths they touched."""
    vocab = frozenset(vocabulary)
    doc = base
    touched: list[KeyPath] = []
    for _ in range(draw(st.integers(1, max_ops))):
        path = draw(_path(doc))
        op = draw(st.sampled_from(["drop", "retype", "insert", "rename", "unicode"]))
        target = _get(doc, path)
        if op == "drop" and path:
            doc = _replace(doc, path, lambda _: _DELETE)
            touched.append(path)
        elif op == "insert" and isinstance(target, dict):
            key = draw(keys(vocab))
            value = draw(values(vocab))
            doc = _replace(doc, path, lambda old, k=key, v=value: {**old, k: v})
            touched.append((*path, key))
        elif op == "insert" and isinstance(target, list):
            at = draw(st.integers(0, len(target)))
            value = draw(values(vocab))
            doc = _replace(doc, path, lambda old, i=at, v=value: [*old[:i], v, *old[i:]])
            touched.append((*path, at))
        elif op == "rename" and path and isinstance(_get(doc, path[:-1]), dict):
            old_key = path[-1]
            new_key = draw(st.one_of(st.just(_lookalike(old_key)), keys(vocab)))
            parent = path[:-1]
            doc = _replace(
                doc,
                parent,
                lambda old, o=old_key, n=new_key: {(n if k == o else k): v for k, v in old.items()},
            )
            touched += [path, (*parent, new_key)]
        elif op == "unicode" and isinstance(target, str):
            at = draw(st.integers(0, len(target)))
            extra = draw(UNICODE)
            doc = _replace(doc, path, lambda old, i=at, e=extra: old[:i] + e + old[i:])
            touched.append(path)
        else:
            value = draw(values(vocab))
            doc = _replace(doc, path, lambda _, v=value: v)
            touched.append(path)
    return doc, touched


def _spellings(key: Any) -> list[str]:
    """How an error may print a key: pydantic prints the YAML key `true` as 1."""
    return [str(key), str(int(key))] if isinstance(key, bool) else [str(key)]


def _bracketed(parts: KeyPath) -> str:
    out = ""
    for i, p in enumerate(parts):
        index = isinstance(p, int) and not isinstance(p, bool)
        out += f"[{p}]" if index and i else ("." if i else "") + str(p)
    return out


def renderings(path: KeyPath) -> list[str]:
    """A key path as error messages write it: `a.b.0.c` (pydantic) and `a.b[0].c`."""
    out = []
    for n in range(1, len(path) + 1):
        for last in _spellings(path[n - 1]):
            part = (*path[: n - 1], last)
            out += [".".join(str(p) for p in part), _bracketed((*path[: n - 1], path[n - 1]))]
    return out


def names_a_path(message: str, paths: list[KeyPath]) -> bool:
    """The message names one of the touched paths: two levels of it at least (the section
    and the key under it); or its last key; or, where a cross-reference check reports the
    keys that point at it, a key path in the same section ("gitlab.jobs[0].project_id: 398
    is not a project id" after gitlab.projects was dropped); or the section holding it,
    as the key of a problem (what is left of it is wrong)."""
    for path in paths:
        if not path:
            return True  # the whole document was replaced: the top level is the key
        deep = [r for r in renderings(path) if r.count(".") + r.count("[") >= min(1, len(path) - 1)]
        if any(r in message for r in deep):
            return True
        last = str(path[-1])
        if len(last) >= 2 and last in message:
            return True
        if len(path) > 1 and any(f"{path[0]}{sep}" in message for sep in ".["):
            return True
        # every key under a section dropped: the section itself is what is wrong
        # ("environments: at least one environment is needed")
        if len(path) > 1 and any(f"{r}: " in message for r in renderings(path[:-1])):
            return True
    return False


def text_mutations() -> st.SearchStrategy[tuple[str, int, int]]:
    """(text to insert, where, how many lines to drop or repeat there)."""
    return st.tuples(
        st.one_of(
            st.text(st.characters(exclude_categories=("Cs",)), max_size=6),
            st.sampled_from(
                [
                    "\t",
                    "\x00",
                    "\ufeff",
                    ": ",
                    "- ",
                    "[",
                    "{",
                    "&a ",
                    "*a",
                    "? [k]\n: v\n",
                    "!!python/object:os.system x",
                    "\n  now: x\n",
                ]
            ),
        ),
        st.integers(0, 10**6),
        st.integers(-2, 2),
    )


def apply_text(text: str, mutation: tuple[str, int, int]) -> str:
    insert, where, lines = mutation
    rows = text.split("\n")
    row = where % len(rows)
    if lines < 0:  # drop lines
        del rows[row : row - lines]
    elif lines > 0:  # repeat a line: a duplicate key, mostly
        rows[row:row] = [rows[row]] * lines
    text = "\n".join(rows)
    at = where % (len(text) + 1)
    return text[:at] + insert + text[at:]


def scratch_dir() -> str | None:
    """Where the file properties write their one file per example: memory when it can be."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
