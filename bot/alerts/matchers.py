"""Label matchers written the way Alertmanager's routes write them: `name="value"`,
`name!="value"`, `name=~"regex"`, `name!~"regex"` (quotes optional), the regex
anchored at both ends as Alertmanager anchors it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["MatchOp", "Matcher", "parse_matcher"]

_MATCHER = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)\s*(.*?)\s*", re.DOTALL)


class MatchOp(StrEnum):
    EQUAL = "="
    NOT_EQUAL = "!="
    REGEX = "=~"
    NOT_REGEX = "!~"


@dataclass(frozen=True)
class Matcher:
    name: str
    op: MatchOp
    value: str
    pattern: re.Pattern[str] | None = None

    def matches(self, labels: dict[str, str]) -> bool:
        """As Alertmanager: a label that is absent has the empty value."""
        got = labels.get(self.name, "")
        if self.op is MatchOp.EQUAL:
            return got == self.value
        if self.op is MatchOp.NOT_EQUAL:
            return got != self.value
        assert self.pattern is not None
        hit = self.pattern.fullmatch(got) is not None
        return hit if self.op is MatchOp.REGEX else not hit

    def __str__(self) -> str:
        return f'{self.name}{self.op}"{self.value}"'


def parse_matcher(text: str) -> Matcher:
    """One matcher; `ValueError` says what is wrong with it."""
    found = _MATCHER.fullmatch(text)
    if found is None:
        raise ValueError(
            f'{text!r} is not a matcher; write it as name="value", name!="value", '
            'name=~"regex" or name!~"regex"'
        )
    name, op, value = found.group(1), MatchOp(found.group(2)), found.group(3)
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1].replace('\\"', '"')
    pattern = None
    if op in (MatchOp.REGEX, MatchOp.NOT_REGEX):
        try:
            pattern = re.compile(value)
        except re.error as exc:
            raise ValueError(f"{text!r}: the regex does not compile ({exc})") from None
    return Matcher(name, op, value, pattern)
