"""A pattern from a tool argument runs in linear time, whatever it is; what RE2 cannot
run is refused with the reason."""

from __future__ import annotations

import time

import pytest

from connectors.kit.patterns import line_pattern


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(a|aa)+$", r"(.*a){12}$", r"^(\w+\s?)*$"])
def test_a_catastrophic_pattern_runs_in_linear_time(pattern: str) -> None:
    text = "a" * 1_000_000 + "!"
    began = time.perf_counter()
    line_pattern(pattern).search(text)
    assert time.perf_counter() - began < 1.0


@pytest.mark.parametrize(
    ("pattern", "why"), [(r"(?<=x)a", "lookaround"), (r"(\w+)\1", "backreference")]
)
def test_what_re2_cannot_run_is_refused_with_the_reason(pattern: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        line_pattern(pattern)


def test_ordinary_patterns_match_as_python_would() -> None:
    p = line_pattern(r"ERROR.*(timeout|refused)")
    assert p.search("2026-07-20 ERROR upstream connection refused")
    assert not p.search("2026-07-20 INFO all good")
    assert line_pattern(r"(?i)oomkilled").search("State: OOMKilled")
