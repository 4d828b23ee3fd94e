"""Every regular expression in the product runs in bounded time on hostile text (issue 13,
"Bounded work"): about 1 MB built from the pattern's own characters, each operation under
LIMIT_S (2.5 s: linear, with room for a slow runner).

Where the patterns are found: module-level `re.Pattern` objects, those inside module-level
tuples, lists, sets and dicts, and class attributes, in every module of the product
packages; then, by reading the source, `re.<function>(...)` calls inside functions whose
pattern is a literal (or a module-level string, or a loop over a module-level table), and
the `pattern=` of pydantic fields (the tool schemas, matched by Python `re` in routing).
A pattern built at run time cannot be checked here; the summary counts those sites.

What hostile text means for a pattern is read from its parse tree: runs of each character
its classes admit, alternations of two of them, each literal of the pattern followed by a
run of each repeated class with no terminator, the literal repeated, and the usual shapes
("a" * N + "!", digits, dots, spaces, colons). Each input is timed, in CPU seconds of its
worker (a busy machine does not fail it), with what the product calls the pattern with:
`search` and a full `finditer` (the scan `sub`, `findall` and `split` do), or only
`match`/`fullmatch` where that is all it is ever called with. Every input at 2 KB, the
eight slowest again at 16 KB, the three slowest of those at 128 KB, and at 1 MB each whose
growth predicts more than 0.3 s there; a super-linear growth (n**1.5 or faster) that
predicts more than 3 s fails without being waited for. A pattern whose callers only give
it short text (CALLER_BOUNDS) is timed at that length. Each pattern runs in a worker
process, so one that never ends is killed and named instead of hanging the suite.

    .venv/bin/pytest -q -s tests/unit/test_regex_bounded.py   # prints the figure
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import itertools
import math
import multiprocessing
import os
import pkgutil
import re
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from re import _constants as sre  # the parser behind re.compile (Python 3.11+)
from re import _parser as sre_parse
from types import ModuleType

import pytest

PACKAGES = ("planner", "policy", "connectors", "bot", "evals")
MB = 1 << 20
# (size, how many of the slowest shapes go on to it, best of how many runs)
RUNGS = ((2 * 1024, 10**6, 1), (16 * 1024, 8, 2), (128 * 1024, 3, 1))
# each operation on each 1 MB input: a linear pattern with a large constant (a grammar of
# many alternatives) takes up to about 2 s on a slow two-core runner, twice what it takes on
# a fast one; what is super-linear fails on its growth (SUPER, HOPELESS_S) long before
LIMIT_S = 2.5
WORTH_FULL_S = 0.3  # predicted past this at 1 MB: measured there
HOPELESS_S = 3.0  # predicted past this from two sizes: fails without waiting for it,
SUPER = 1.5  # if the time grew at least this fast (n**1.5); slower growth is measured
ENOUGH = 3  # failing inputs that say enough about one pattern
WATCHDOG_S = 30.0  # a worker that reports nothing for this long (wall time) is killed
RE_FUNCS = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2, "finditer": 2}
RE_FUNCS |= {"split": 3, "sub": 4, "subn": 4}  # where the positional flags argument is
FIELD_FUNCS = {"Field", "constr", "StringConstraints"}
ANCHORED = {"match", "fullmatch"}
# patterns that backtrack on long text but are only ever given short text: (the longest
# text they are given, what bounds it); timed at that length
CALLER_BOUNDS = {
    "planner.question.extract:RX_HOST": (
        253,
        "planner.question.extract._hosts: one run of host characters",
    ),
    # their one caller, unbounded_reason(args.query), has PromqlArgs.query max_length=2000
    "connectors.victoriametrics._promql_tool:_SELECTOR": (2000, "PromqlArgs.query"),
    "connectors.victoriametrics._promql_tool:_MATCHER": (2000, "a selector in PromqlArgs.query"),
    # policy.dependencies reads a line's or a setting's first _READ (4000) characters
    **{
        f"policy.dependencies:{name}": (4000, "policy.dependencies: text[:_READ]")
        for name in ("_HOST_PORT", "_CLUSTER_NAME", "_URL", "_DSN_HOST", "_DSN_PORT")
    },
    "connectors.kubernetes._network:_LISTENING": (
        400,
        "connectors.kubernetes._network._bound_ports: one log line, cut at LINE_READ",
    ),
}


# Known to be over the limit: reported, kept in sight. Strict where the growth is quadratic
# (a fix turns it into a failure that asks to remove the entry); not strict where it is
# linear and near the limit, where a fast machine may pass it.
# patterns known to be over the limit, with the reason (none now)
KNOWN: dict[str, tuple[bool, str]] = {}


# ---------------------------------------------------------------------------- finding them


@dataclass
class Site:
    id: str  # module:variable, module:Class.attr, module:function:line
    pattern: str | bytes
    flags: int
    kind: str  # module, container, class, function, loop, schema
    uses: set[str]  # how the product calls it: match, fullmatch, search ...; "*" not known
    aliases: list[str] = field(default_factory=list)

    def compiled(self) -> re.Pattern:
        return re.compile(self.pattern, self.flags)

    @property
    def ops(self) -> tuple[str, ...]:
        """What to time: only match/fullmatch where the product never scans with it (a
        search over text it must fullmatch says nothing), else search and finditer."""
        if self.uses and self.uses <= ANCHORED:
            return tuple(sorted(self.uses))
        return ("search", "finditer", *(["fullmatch"] if "fullmatch" in self.uses else []))

    @property
    def bound(self) -> int | None:
        return CALLER_BOUNDS.get(self.id, (None, ""))[0]


def _modules() -> list[ModuleType]:
    out = []
    for name in PACKAGES:
        pkg = importlib.import_module(name)
        out.append(pkg)
        for info in pkgutil.walk_packages(pkg.__path__, name + "."):
            out.append(importlib.import_module(info.name))
    return out


def _patterns_in(value: object, path: str, depth: int = 0):
    """(path, pattern) for a pattern or one nested in tuples, lists, sets and dicts."""
    if isinstance(value, re.Pattern):
        yield path, value
    elif depth < 4 and isinstance(value, (tuple, list, set, frozenset)):
        items = value if not isinstance(value, (set, frozenset)) else sorted(value, key=repr)
        for i, item in enumerate(items):
            yield from _patterns_in(item, f"{path}[{i}]", depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for key, item in value.items():
            label = key if isinstance(key, str) else getattr(key, "value", key)
            yield from _patterns_in(key, f"{path}.key({label})", depth + 1)
            yield from _patterns_in(item, f"{path}[{label}]", depth + 1)


def _objects(module: ModuleType, uses: dict[tuple[str, str], set[str]]):
    """(id, kind, pattern, uses) of the patterns a module defines as globals or class
    attributes; how a global is called is read from the source, the rest is not known."""
    own, here = _assigned_names(module), module.__name__
    for name, value in vars(module).items():
        if name not in own:
            continue  # imported from elsewhere: found in its own module
        for path, rx in _patterns_in(value, name):
            if path == name:
                yield f"{here}:{path}", "module", rx, uses.get((here, name), set())
            else:
                yield f"{here}:{path}", "container", rx, {"*"}
        if inspect.isclass(value) and value.__module__ == module.__name__:
            for attr, item in vars(value).items():
                for path, rx in _patterns_in(item, f"{name}.{attr}"):
                    yield f"{here}:{path}", "class", rx, {"*"}


def _uses(modules: list[ModuleType]) -> dict[tuple[str, str], set[str]]:
    """(module, global) -> the methods called on it anywhere in the product (`NAME.match(`,
    also where another module imports it); "*" where it is used any other way."""
    uses: dict[tuple[str, str], set[str]] = {}
    for module in modules:
        tree = _tree(module)
        if tree is None:
            continue
        where: dict[str, tuple[str, str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                base = importlib.util.resolve_name(
                    "." * node.level + node.module, module.__package__
                )
                for alias in node.names:
                    where[alias.asname or alias.name] = (base, alias.name)
        called: set[int] = set()
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(target := node.func.value, ast.Name)
            ):
                called.add(id(target))
                key = where.get(target.id, (module.__name__, target.id))
                uses.setdefault(key, set()).add(node.func.attr)
        for node in ast.walk(tree):
            loaded = isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
            if loaded and id(node) not in called:
                key = where.get(node.id, (module.__name__, node.id))
                uses.setdefault(key, set()).add("*")
    return uses


def _assigned_names(module: ModuleType) -> set[str]:
    tree = _tree(module)
    names: set[str] = set()
    for node in tree.body if tree else []:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
    return names


_TREES: dict[str, ast.Module | None] = {}


def _tree(module: ModuleType) -> ast.Module | None:
    if module.__name__ not in _TREES:
        try:
            _TREES[module.__name__] = ast.parse(inspect.getsource(module))
        except (OSError, TypeError):
            _TREES[module.__name__] = None
    return _TREES[module.__name__]


def _value(node: ast.AST, module: ModuleType, env: dict[str, list[object]] | None = None):
    """A literal, or an expression of literals and module-level constants; None otherwise."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if env is not None and node.id in env:
            return None  # a loop variable: many values, resolved by the caller
        value = getattr(module, node.id, None)
        return value if isinstance(value, (str, bytes, int)) else None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id == "re" and isinstance(getattr(re, node.attr, None), int):
            return int(getattr(re, node.attr))
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.BitOr)):
        left, right = _value(node.left, module, env), _value(node.right, module, env)
        if left is None or right is None or type(left) is not type(right):
            return None
        return left + right if isinstance(node.op, ast.Add) else left | right
    if isinstance(node, ast.JoinedStr):
        parts = []
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                if part.conversion != -1 or part.format_spec is not None:
                    return None
                part = part.value
            value = _value(part, module, env)
            if not isinstance(value, str):
                return None
            parts.append(value)
        return "".join(parts)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "escape"
        and len(node.args) == 1
    ):
        value = _value(node.args[0], module, env)
        return re.escape(value) if isinstance(value, (str, bytes)) else None
    return None


def _loop_bindings(
    func: ast.AST, module: ModuleType
) -> tuple[dict[str, list[object]], dict[str, str]]:
    """Values a loop variable takes when the loop runs over a module-level table
    (`for rx, weight in patterns` inside `for intent, patterns in _TABLE.items()`), and the
    table each variable comes from."""
    env: dict[str, list[object]] = {}
    roots: dict[str, str] = {}
    for node in ast.walk(func):  # breadth first: outer loops before inner ones
        if not isinstance(node, (ast.For, ast.comprehension)):
            continue
        it, method = node.iter, None
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args:
            it, method = it.func.value, it.func.attr
        if not isinstance(it, ast.Name):
            continue
        tables = env.get(it.id) or [getattr(module, it.id, None)]
        elements: list[object] = []
        for table in tables:
            if isinstance(table, dict):
                items = {"items": table.items, "values": table.values}.get(method or "", table)
                elements += list(items() if callable(items) else items)
            elif isinstance(table, (tuple, list)) and method is None:
                elements += list(table)
        if not elements:
            continue
        root = roots.get(it.id, it.id)
        if isinstance(node.target, ast.Name):
            env[node.target.id], roots[node.target.id] = elements, root
        elif isinstance(node.target, ast.Tuple):
            for i, target in enumerate(node.target.elts):
                if isinstance(target, ast.Name):
                    env[target.id] = [e[i] for e in elements if isinstance(e, tuple) and len(e) > i]
                    roots[target.id] = root
    return env, roots


def _calls(module: ModuleType):
    """(id, kind, pattern, flags, uses) of regex calls in functions and of schema patterns;
    a call whose pattern is built at run time comes back with pattern None."""
    tree = _tree(module)
    if tree is None:
        return
    name = module.__name__
    scopes: list[ast.AST] = [
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    owners = {  # a field's call -> Class.field
        id(call): f"{cls.name}.{target.id}"
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef)
        for stmt in cls.body
        if isinstance(stmt, ast.AnnAssign) and isinstance(target := stmt.target, ast.Name)
        for call in _calls_in(stmt)
    }
    for scope in scopes:  # breadth first, so the innermost function names the call
        owners |= {id(call): f"{scope.name}:{call.lineno}" for call in _calls_in(scope)}
    seen: set[int] = set()
    for scope in [tree, *scopes]:
        env, roots = _loop_bindings(scope, module) if scope is not tree else ({}, {})
        where = getattr(scope, "name", "")
        for node in ast.walk(scope):
            if not isinstance(node, ast.Call) or id(node) in seen:
                continue
            func = node.func
            callee = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            is_re = (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "re"
                and func.attr in RE_FUNCS
            )
            if is_re and scope is not tree and node.args:
                seen.add(id(node))
                flags_node = next((k.value for k in node.keywords if k.arg == "flags"), None)
                if flags_node is None and len(node.args) > RE_FUNCS[func.attr]:
                    flags_node = node.args[RE_FUNCS[func.attr]]
                flags = 0 if flags_node is None else _value(flags_node, module, env)
                arg = node.args[0]
                site = f"{name}:{where}:{node.lineno}"
                how = {"*"} if func.attr == "compile" else {func.attr}
                if isinstance(arg, ast.Name) and arg.id in env:
                    values = [v for v in env[arg.id] if isinstance(v, (str, bytes))]
                    for i, value in enumerate(dict.fromkeys(values)):
                        yield f"{name}:{roots[arg.id]}#{i}", "loop", value, flags, how
                    if values:
                        continue
                pattern = _value(arg, module, env)
                ok = isinstance(pattern, (str, bytes)) and isinstance(flags, int)
                yield site, "function", pattern if ok else None, flags if ok else 0, how
            elif callee in FIELD_FUNCS:
                seen.add(id(node))
                for kw in node.keywords:
                    if kw.arg == "pattern":
                        pattern = _value(kw.value, module)
                        site = f"{name}:{owners.get(id(node), node.lineno)}"
                        value = pattern if isinstance(pattern, str) else None
                        yield site, "schema", value, 0, {"search"}  # routing searches it


def _calls_in(node: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call)]


def collect() -> tuple[list[Site], list[str]]:
    """The distinct (pattern, flags) of the product, each under its first site, and the
    sites whose pattern is only known at run time."""
    sites: dict[tuple[object, int], Site] = {}
    dynamic: list[str] = []

    def add(site_id: str, kind: str, pattern: str | bytes, flags: int, how: set[str]) -> None:
        key = (pattern, flags)
        if key in sites:
            sites[key].aliases.append(site_id)
            sites[key].uses |= how
        else:
            sites[key] = Site(site_id, pattern, flags, kind, set(how))

    modules = _modules()
    uses = _uses(modules)
    for module in modules:
        for site_id, kind, rx, how in _objects(module, uses):
            add(site_id, kind, rx.pattern, rx.flags & ~re.UNICODE, how)
    for module in modules:
        for site_id, kind, pattern, flags, how in _calls(module):
            if pattern is None:
                dynamic.append(site_id)
                continue
            try:
                rx = re.compile(pattern, flags)
            except re.error:
                dynamic.append(site_id)  # not a pattern after all (a template, say)
                continue
            add(site_id, kind, rx.pattern, rx.flags & ~re.UNICODE, how)
    return list(sites.values()), dynamic


# ---------------------------------------------------------------------------- hostile text

_PALETTE = "a0 .-_:/\t\n@=\"'`,#Zя9!x;%+()[]{}<>|*?$&~"
_CATEGORY = {
    sre.CATEGORY_DIGIT: lambda c: c.isdecimal(),
    sre.CATEGORY_NOT_DIGIT: lambda c: not c.isdecimal(),
    sre.CATEGORY_SPACE: lambda c: c.isspace(),
    sre.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    sre.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    sre.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
    sre.CATEGORY_LINEBREAK: lambda c: c == "\n",
    sre.CATEGORY_NOT_LINEBREAK: lambda c: c != "\n",
}
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
# the usual ReDoS shapes, whatever the pattern: (unit, tail)
_FIXED = [("a", "!"), ("1", ""), ("1.", ""), ("1 ", ""), (" ", ""), (":", ""), ("1:", "")]
_FIXED += [("a.", ""), ("a-", ""), ("a1", ""), ("\n", ""), ("a ", ""), ("a\n", "")]
_FIXED += [("1.1.", ""), ("-", ""), ("a:", ""), ("a=", ""), ("\t", "")]


@dataclass(frozen=True)
class Shape:
    head: str
    unit: str
    tail: str

    def build(self, size: int) -> str:
        return self.head + self.unit * max(1, (size - len(self.head)) // len(self.unit)) + self.tail

    def __str__(self) -> str:
        head = f"{self.head!r} + " if self.head else ""
        return head + f"{self.unit!r} * N" + (f" + {self.tail!r}" if self.tail else "")


def _members(items: list, cap: int = 6) -> list[str]:
    """Characters a class admits: its own literals and range ends, then palette members."""
    negated = any(op is sre.NEGATE for op, _ in items)

    def admits(c: str) -> bool:
        hit = False
        for op, av in items:
            if op is sre.LITERAL:
                hit |= ord(c) == av
            elif op is sre.RANGE:
                hit |= av[0] <= ord(c) <= av[1]
            elif op is sre.CATEGORY:
                hit |= _CATEGORY.get(av, lambda _: False)(c)
        return hit != negated

    own = []
    if not negated:
        for op, av in items:
            if op is sre.LITERAL:
                own.append(chr(av))
            elif op is sre.RANGE:
                own += [chr(av[0]), chr(av[1])]
    return list(dict.fromkeys(own + [c for c in _PALETTE if admits(c)]))[:cap]


class _Reading:
    """Characters (those under a repetition apart, and the first of each repeated class),
    literal runs and leading literals."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.chars: dict[str, None] = {}
        self.repeated: dict[str, None] = {}
        self.firsts: dict[str, None] = {}  # one character of each repeated class
        self.literals: dict[str, None] = {}
        tree = sre_parse.parse(pattern, flags)
        self.heads = [h for h in self._heads(list(tree), "") if h][:6]
        self._walk(tree, repeated=False)

    def _add(self, chars: list[str], repeated: bool) -> None:
        if repeated and chars:
            self.firsts[chars[0]] = None
        for c in chars:
            self.chars[c] = None
            if repeated:
                self.repeated[c] = None

    def _walk(self, sub, repeated: bool) -> None:
        run: list[str] = []
        for op, av in [*sub, (None, None)]:
            if op is sre.LITERAL:
                run.append(chr(av))
                self._add([chr(av)], repeated)
                continue
            if len(run) > 1:
                self.literals["".join(run)] = None
            run = []
            if op is sre.NOT_LITERAL:
                self._add([c for c in _PALETTE if ord(c) != av][:3], repeated)
            elif op is sre.IN:
                self._add(_members(av), repeated)
            elif op is sre.ANY:
                self._add(["a", "\n"], repeated)
            elif op in _REPEATS:
                _, high, body = av
                self._walk(body, repeated or high > 16)
            elif op is sre.SUBPATTERN:
                self._walk(av[3], repeated)
            elif op is sre.ATOMIC_GROUP:
                self._walk(av, repeated)
            elif op is sre.BRANCH:
                for branch in av[1]:
                    self._walk(branch, repeated)
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                self._walk(av[1], repeated)
            elif op is sre.GROUPREF_EXISTS:
                self._walk(av[1], repeated)
                if av[2] is not None:
                    self._walk(av[2], repeated)

    def _heads(self, items: list, acc: str) -> list[str]:
        """Literal text a match can start with (one per leading alternative)."""
        for i, (op, av) in enumerate(items):
            if op is sre.LITERAL:
                acc += chr(av)
            elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
                continue
            elif op is sre.SUBPATTERN:
                return self._heads(list(av[3]) + items[i + 1 :], acc)
            elif op is sre.BRANCH:
                return [h for b in av[1] for h in self._heads(list(b), acc)]
            else:
                break
        return [acc]


def shapes(pattern: str | bytes, flags: int) -> list[Shape]:
    """Hostile inputs for one pattern, cheapest to build first; no two alike."""
    text = pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern
    reading = _Reading(text, flags & ~re.LOCALE)
    rep = list(dict.fromkeys([*reading.firsts, *reading.repeated])) or list(reading.chars)
    out = [Shape("", c, tail) for c in rep[:12] for tail in ("", "\x00")]
    out += [Shape("", a + b, "") for a, b in itertools.combinations(rep[:9], 2)]
    literals = list(dict.fromkeys(reading.heads + sorted(reading.literals, key=len)[::-1]))
    runs = list(dict.fromkeys([*list(reading.firsts)[:10], *rep[:4]]))
    for i, lit in enumerate(literals[:18]):
        if i < 6:  # a literal, then a run of each repeated class with no terminator
            out += [Shape(lit, c, "") for c in runs]
        # the literal again and again: each start scans what the next ones would
        out += [Shape("", lit, ""), Shape("", lit + " ", "")]
        out += [Shape("", lit + c, "") for c in rep[:2]]
    out += [Shape("", unit, tail) for unit, tail in _FIXED]
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------------------- timing them


def _finditer(rx: re.Pattern, text: str | bytes) -> None:
    for _ in rx.finditer(text):  # every match, as sub, findall and split scan
        pass


_OPS = {
    "search": re.Pattern.search,
    "finditer": _finditer,
    "match": re.Pattern.match,
    "fullmatch": re.Pattern.fullmatch,
}


def _time(rx: re.Pattern, text: str | bytes, ops: tuple[str, ...]) -> tuple[float, str]:
    """The slowest of the operations, in CPU seconds of this worker: other work on a busy
    machine does not count against it."""
    worst = (0.0, "")
    for op in ops:
        start = time.thread_time()
        _OPS[op](rx, text)
        worst = max(worst, (time.thread_time() - start, op))
    return worst


@dataclass
class Result:
    inputs: int = 0
    at_full: int = 0
    worst: tuple[float, str] = (0.0, "")  # seconds at 1 MB (measured or predicted), input
    failures: list[str] = field(default_factory=list)


def _growth(history: list[tuple[int, float]]) -> float:
    """The exponent of the time's growth between the last two sizes tried, between linear
    and cubic (linear from one size)."""
    if len(history) < 2:
        return 1.0
    (before, earlier), (size, seconds) = history[-2:]
    return max(1.0, min(3.0, math.log(max(seconds, 1e-7) / max(earlier, 1e-7), size / before)))


def _guess(history: list[tuple[int, float]]) -> float:
    """Seconds at 1 MB, grown from the last size tried at the last growth seen."""
    size, seconds = history[-1]
    return seconds * (MB / size) ** _growth(history)


def _check(site: Site, conn: Connection) -> None:
    """Runs in a worker: time every shape of one pattern, report progress and the result.
    All shapes at the first rung, the slowest again at each larger one, 1 MB for those
    that could come near the limit there; an input that cannot pass stops growing."""
    rx = site.compiled()
    encode = isinstance(site.pattern, bytes)

    def timed(shape: Shape, size: int) -> tuple[float, str]:
        conn.send(("start", f"{shape} at {size // 1024} KB"))
        text = shape.build(size)
        return _time(rx, text.encode("utf-8") if encode else text, site.ops)

    def fail(shape: Shape, note: str, at_mb: float, how: str = "predicted") -> None:
        result.failures.append(f"{shape}: {note}")
        result.worst = max(result.worst, (at_mb, f"{shape} ({how})"))

    everything = shapes(site.pattern, site.flags)
    result = Result(inputs=len(everything))
    if site.bound:  # given no more than this by its caller: timed at that length
        for shape in everything:
            seconds, op = timed(shape, site.bound)
            result.worst = max(result.worst, (seconds, f"{shape} (at {site.bound} characters)"))
            if seconds > LIMIT_S:
                fail(shape, f"{op} {seconds:.2f} s at {site.bound} characters", seconds, "bound")
        conn.send(("done", result))
        return
    alive: dict[Shape, list[tuple[int, float]]] = {s: [] for s in everything}
    for size, keep, reps in RUNGS:
        ranked = sorted(alive, key=lambda s: -(alive[s][-1][1] if alive[s] else 0))
        grown: dict[Shape, list[tuple[int, float]]] = {}
        for shape in ranked[:keep]:
            if len(result.failures) >= ENOUGH:
                break
            seconds, op = min(timed(shape, size) for _ in range(reps))
            history = [*alive[shape], (size, seconds)]
            guess, here = _guess(history), f"{op} {seconds * 1000:.1f} ms at {size // 1024} KB"
            if seconds * MB / size > HOPELESS_S:
                fail(shape, f"{here}: at least {seconds * MB / size:.0f} s at 1 MB", guess)
            elif guess > HOPELESS_S and seconds > 0.002 and _growth(history) >= SUPER:
                was = f"{history[-2][1] * 1000:.1f} ms at {history[-2][0] // 1024} KB"
                fail(shape, f"super-linear: {was}, {here}, about {guess:.0f} s at 1 MB", guess)
            else:
                grown[shape] = history
        alive = grown
    for shape, history in alive.items():
        if len(result.failures) >= ENOUGH:
            break
        guess = _guess(history)
        if guess < WORTH_FULL_S:
            result.worst = max(result.worst, (guess, f"{shape} (predicted)"))
            continue
        seconds, op = timed(shape, MB)
        result.at_full += 1
        if seconds > LIMIT_S:
            fail(shape, f"{op} {seconds:.2f} s at 1 MB", seconds, "measured")
        result.worst = max(result.worst, (seconds, f"{shape} (measured)"))
    conn.send(("done", result))


def sweep(sites: list[Site], workers: int | None = None) -> dict[str, Result]:
    """Each pattern in its own worker process, a few at a time; one that stops reporting
    for WATCHDOG_S is killed and its input named."""
    ctx = multiprocessing.get_context("fork")
    workers = workers or max(1, min(4, os.cpu_count() or 1))
    pending, results = list(sites), {}
    running: dict[Connection, list] = {}  # conn -> [process, site, last report, input]
    while pending or running:
        while pending and len(running) < workers:
            site = pending.pop(0)
            here, there = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_check, args=(site, there), daemon=True)
            proc.start()
            there.close()
            running[here] = [proc, site, time.monotonic(), "starting"]
        for conn in wait(list(running), timeout=0.5):
            state = running[conn]
            try:
                kind, payload = conn.recv()
            except EOFError:
                results.setdefault(state[1].id, Result(failures=[f"worker died on {state[3]}"]))
                kind = "done"
            else:
                state[2] = time.monotonic()
                if kind == "start":
                    state[3] = payload
                else:
                    results[state[1].id] = payload
            if kind == "done":
                state[0].join(5)
                conn.close()
                del running[conn]
        for conn, (proc, site, last, current) in list(running.items()):
            if time.monotonic() - last > WATCHDOG_S:
                proc.kill()
                proc.join()
                conn.close()
                del running[conn]
                note = f"{current}: did not finish in {WATCHDOG_S:.0f} s"
                results[site.id] = Result(failures=[note], worst=(math.inf, current))
    return results


# ---------------------------------------------------------------------------- the tests

SITES, DYNAMIC = collect()


@pytest.fixture(scope="module")
def swept(request: pytest.FixtureRequest) -> dict[str, Result]:
    """One sweep for the patterns this run selected (all of them when none is), in
    parallel, timed once."""
    chosen = {
        item.callspec.params["site"].id
        for item in request.session.items
        if getattr(item, "callspec", None) and "site" in item.callspec.params
    }
    started = time.perf_counter()
    results = sweep([s for s in SITES if s.id in chosen] or SITES)
    results["__elapsed__"] = Result(worst=(time.perf_counter() - started, ""))
    return results


def _param(site: Site):
    reason = KNOWN.get(site.id)
    marks = [pytest.mark.xfail(reason=reason[1], strict=reason[0])] if reason else []
    return pytest.param(site, id=site.id, marks=marks)


@pytest.mark.parametrize("site", [_param(s) for s in SITES])
def test_pattern_is_bounded_on_hostile_megabyte(site: Site, swept: dict[str, Result]) -> None:
    result = swept[site.id]
    also = f" (also {', '.join(site.aliases)})" if site.aliases else ""
    assert not result.failures, (
        f"{site.id}{also}: /{site.pattern}/ flags={site.flags:#x} ({'/'.join(site.ops)}) is"
        f" over {LIMIT_S:.1f} s per MB on\n  " + "\n  ".join(result.failures)
    )


def test_the_collector_sees_every_kind_of_site() -> None:
    kinds = {s.kind for s in SITES}
    assert {"module", "container", "function", "loop", "schema"} <= kinds, kinds
    assert len(SITES) >= 150
    ids = {s.id for s in SITES} | {a for s in SITES for a in s.aliases}
    assert "planner.question.extract:RX_PORT_WORD" in ids
    assert any(i.startswith("policy.redaction:") for i in ids)


def test_summary(swept: dict[str, Result], capsys: pytest.CaptureFixture[str]) -> None:
    elapsed = swept["__elapsed__"].worst[0]
    results = {k: v for k, v in swept.items() if k != "__elapsed__"}
    ranked = sorted(results.items(), key=lambda kv: -kv[1].worst[0])
    kinds = {}
    for site in SITES:
        kinds[site.kind] = kinds.get(site.kind, 0) + 1
    lines = [
        f"regex sweep: {len(results)} patterns"
        f" ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}),"
        f" {sum(r.inputs for r in results.values())} inputs,"
        f" {sum(r.at_full for r in results.values())} run at 1 MB,"
        f" {sum(bool(r.failures) for r in results.values())} over the limit"
        f" ({sum(bool(r.failures) for k, r in results.items() if k in KNOWN)} of them known),"
        f" {elapsed:.1f} s",
        f"built at run time, not checked here: {len(DYNAMIC)} sites ({', '.join(DYNAMIC)})",
    ]
    for site_id, result in ranked[:5]:
        seconds, shape = result.worst
        lines.append(f"  slowest: {site_id} {seconds * 1000:.0f} ms at 1 MB on {shape}")
    lines += [f"  known: {site_id}: {why}" for site_id, (_, why) in KNOWN.items()]
    with capsys.disabled():
        print("\n" + "\n".join(lines))
