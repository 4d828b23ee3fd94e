"""A subset of the Lucene query syntax of `query_string` (and the `q=` parameter).

Supported: terms, "phrases", field:value, field:(a OR b), wildcards (* ?), field:* (exists),
ranges field:[a TO b] / {a TO b} / >=v / >v / <=v / <v, AND / OR / NOT / && / || / ! / + / -,
parentheses, and `default_operator` for juxtaposed clauses (OR unless told otherwise, as in
Elasticsearch). Clauses combine the classic way: every MUST and no MUST_NOT must hold, and
when there is no MUST, at least one SHOULD.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evals.simulators.elasticsearch import _matchers as m
from evals.simulators.elasticsearch._errors import EsError

_FIELD_RE = re.compile(r"^[\w.@*-]+$")
_SPECIAL = set(' \t\n()"[]{}')


def _error(text: str, reason: str) -> EsError:
    return EsError(
        400,
        "query_shard_exception",
        f"Failed to parse query [{text}]",
        caused_by={"type": "parse_exception", "reason": reason},
    )


@dataclass
class _Clause:
    occur: str  # must | should | must_not
    pred: m.Pred


@dataclass
class _Parser:
    text: str
    fields: list[str]
    default_and: bool
    pos: int = 0
    clauses: list[_Clause] = field(default_factory=list)

    def fail(self, reason: str) -> EsError:
        return _error(self.text, f"{reason} at position {self.pos}")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_ws(self) -> None:
        while self.peek() and self.peek().isspace():
            self.pos += 1

    def read_word(self) -> str:
        out = []
        while self.peek() and self.peek() not in _SPECIAL:
            char = self.peek()
            if char == "\\" and self.pos + 1 < len(self.text):
                out.append(self.text[self.pos + 1])
                self.pos += 2
                continue
            out.append(char)
            self.pos += 1
        return "".join(out)

    def read_quoted(self) -> str:
        self.pos += 1
        out = []
        while self.peek() != '"':
            if not self.peek():
                raise self.fail("unterminated phrase")
            if self.peek() == "\\" and self.pos + 1 < len(self.text):
                self.pos += 1
            out.append(self.peek())
            self.pos += 1
        self.pos += 1
        return "".join(out)

    def parse_group(self, fields: list[str], closing: str | None) -> m.Pred:
        clauses: list[_Clause] = []
        pending: str | None = None  # explicit operator before the next clause
        negate_next = False
        while True:
            self.skip_ws()
            char = self.peek()
            if not char:
                if closing:
                    raise self.fail("missing closing parenthesis")
                break
            if closing and char == closing:
                self.pos += 1
                break
            start = self.pos
            word = self.read_word() if char not in _SPECIAL else ""
            if word in ("AND", "&&"):
                if clauses and clauses[-1].occur == "should":
                    clauses[-1].occur = "must"
                pending = "must"
                continue
            if word in ("OR", "||"):
                # as Lucene's classic parser: "a OR b" makes a optional too, even when the
                # default operator is AND
                if clauses and clauses[-1].occur == "must":
                    clauses[-1].occur = "should"
                pending = "should"
                continue
            if word in ("NOT", "!"):
                negate_next = True
                continue
            self.pos = start
            occur = pending or ("must" if self.default_and else "should")
            if self.peek() in "+-" and self.pos + 1 < len(self.text):
                occur = "must" if self.peek() == "+" else "must_not"
                self.pos += 1
            if negate_next:
                occur = "must_not"
            clauses.append(_Clause(occur, self.parse_primary(fields)))
            pending, negate_next = None, False
        return _combine(clauses)

    def parse_primary(self, fields: list[str]) -> m.Pred:
        char = self.peek()
        if char == "(":
            self.pos += 1
            return self.parse_group(fields, ")")
        if char == '"':
            text = self.read_quoted()
            return _any_field(fields, lambda f: m.phrase(f, text))
        if char in "[{":
            raise self.fail("a range needs a field")
        word = self.read_word()
        if not word:
            raise self.fail(f"unexpected character {char!r}")
        name, sep, value = word.partition(":")
        if sep and _FIELD_RE.match(name):
            return self.parse_field_value([name], value)
        return _word(fields, word)

    def parse_field_value(self, fields: list[str], value: str) -> m.Pred:
        if value:
            for op, key in ((">=", "gte"), ("<=", "lte"), (">", "gt"), ("<", "lt")):
                if value.startswith(op):
                    bound = value[len(op) :]
                    return _any_field(fields, lambda f, k=key, b=bound: m.range_(f, {k: b}))
            return _word(fields, value)
        char = self.peek()
        if char == "(":
            self.pos += 1
            return self.parse_group(fields, ")")
        if char == '"':
            text = self.read_quoted()
            return _any_field(fields, lambda f: m.phrase(f, text))
        if char in "[{":
            return self.parse_range(fields)
        raise self.fail("a field needs a value")

    def parse_range(self, fields: list[str]) -> m.Pred:
        low_incl = self.peek() == "["
        self.pos += 1
        end = min(
            (i for i in (self.text.find("]", self.pos), self.text.find("}", self.pos)) if i >= 0),
            default=-1,
        )
        if end < 0:
            raise self.fail("unterminated range")
        parts = self.text[self.pos : end].split()
        high_incl = self.text[end] == "]"
        self.pos = end + 1
        if len(parts) != 3 or parts[1] != "TO":
            raise self.fail("a range reads [low TO high]")
        spec: dict[str, str] = {}
        if parts[0] != "*":
            spec["gte" if low_incl else "gt"] = parts[0].strip('"')
        if parts[2] != "*":
            spec["lte" if high_incl else "lt"] = parts[2].strip('"')
        return _any_field(fields, lambda f: m.range_(f, spec))


def _word(fields: list[str], word: str) -> m.Pred:
    if word == "*":
        return _any_field(fields, m.exists)
    if "*" in word or "?" in word:
        return _any_field(fields, lambda f: m.wildcard(f, word, case_insensitive=True))
    return _any_field(fields, lambda f: m.text_term(f, word))


def _any_field(fields: list[str], build: object) -> m.Pred:
    preds = [build(f) for f in fields]  # type: ignore[operator]
    return lambda doc: any(p(doc) for p in preds)


def _combine(clauses: list[_Clause]) -> m.Pred:
    must = [c.pred for c in clauses if c.occur == "must"]
    should = [c.pred for c in clauses if c.occur == "should"]
    must_not = [c.pred for c in clauses if c.occur == "must_not"]

    def pred(doc: m.StoredDoc) -> bool:
        if any(p(doc) for p in must_not) or not all(p(doc) for p in must):
            return False
        if not must and should:
            return any(p(doc) for p in should)
        return bool(must or should or must_not)

    return pred


def compile_query_string(
    text: str, *, fields: list[str] | None = None, default_operator: str = "or"
) -> m.Pred:
    if not isinstance(text, str):
        raise _error(str(text), "query must be a string")
    op = default_operator.lower()
    if op not in ("and", "or"):
        raise _error(text, f"unknown default_operator [{default_operator}]")
    parser = _Parser(text=text, fields=fields or ["*"], default_and=op == "and")
    return parser.parse_group(parser.fields, None)
