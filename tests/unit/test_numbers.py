"""Numbers as a person reads them: the noun agrees with the count in both languages, a
tiny rate is said per minute or per hour, a tiny share is never a rounded zero, and no
number is ever written with an exponent."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from policy.language import Language
from policy.numbers import (
    Noun,
    Nouns,
    amount_said,
    count_said,
    integer_said,
    number_said,
    percent_said,
    rate_range_said,
    rate_said,
    share_said,
)

RESPONSE = Noun("response", "responses", "ответ", "ответа", "ответов")
_EXPONENT = re.compile(r"\d[eE][+-]?\d")
_NARROW_NBSP = "\u202f"


@pytest.mark.parametrize(
    ("n", "russian"),
    [
        (0, "0 ответов"),
        (1, "1 ответ"),
        (2, "2 ответа"),
        (4, "4 ответа"),
        (5, "5 ответов"),
        (11, "11 ответов"),
        (12, "12 ответов"),
        (14, "14 ответов"),
        (21, "21 ответ"),
        (22, "22 ответа"),
        (25, "25 ответов"),
        (101, "101 ответ"),
        (111, "111 ответов"),
        (112, "112 ответов"),
        (122, "122 ответа"),
    ],
)
def test_a_russian_count_takes_one_of_three_forms(n: int, russian: str) -> None:
    assert count_said(n, RESPONSE, Language.RU) == russian


def test_an_english_count_is_singular_for_one_only() -> None:
    assert count_said(1, RESPONSE) == "1 response"
    assert [count_said(n, RESPONSE) for n in (0, 2, 11, 21)] == [
        "0 responses",
        "2 responses",
        "11 responses",
        "21 responses",
    ]
    assert count_said(1, Nouns.TIME, Language.RU) == "1 раз"
    assert count_said(3, Nouns.TIME, Language.RU) == "3 раза"


def test_an_amount_agrees_with_the_number_as_written() -> None:
    assert amount_said(1.0, Nouns.CORE) == "1 core"
    assert amount_said(0.9996, Nouns.CORE) == "1 core"  # said "1", so one core
    assert amount_said(0.25, Nouns.CORE) == "0.25 cores"
    assert amount_said(0.25, Nouns.CORE, Language.RU) == "0.25 ядра"  # a fraction: few-form
    assert amount_said(5, Nouns.CORE, Language.RU) == "5 ядер"
    assert (
        amount_said(1_200_000, Nouns.CORE, Language.RU)
        == f"1{_NARROW_NBSP}200{_NARROW_NBSP}000 ядер"
    )


def test_millions_are_grouped_smaller_counts_are_written_as_counted() -> None:
    # below a million a count is searched for and copied as the source counted it
    assert integer_said(4187) == "4187"
    assert integer_said(900_130) == "900130"
    assert integer_said(1_595_981) == "1,595,981"
    assert integer_said(1_595_981, Language.RU) == f"1{_NARROW_NBSP}595{_NARROW_NBSP}981"


def test_measured_values_have_at_most_three_significant_digits_below_a_hundred() -> None:
    assert number_said(26.74) == "26.7"
    assert number_said(0.003333) == "0.00333"
    assert number_said(1.0) == "1"
    assert number_said(0.30) == "0.3"
    assert number_said(268.41) == "268.4"  # a tenth up to 10,000
    assert number_said(123_456.7) == "123457"
    assert number_said(1_234_567.8) == "1,234,568"


def test_a_tiny_rate_is_said_per_minute_or_per_hour() -> None:
    assert rate_said(26.74) == "26.7/s"
    assert rate_said(3 / 900) == "0.2/min"  # 3 in 15 minutes, not 0.00333/s
    assert rate_said(1 / 60) == "1/min"
    assert rate_said(1 / 3600) == "1/h"  # 1 in an hour, not 0.000278/s
    assert rate_said(1 / 3600, Language.RU) == "1/ч"
    assert rate_said(0.0) == "0/s"
    assert rate_said(91.7, of="req") == "91.7 req/s"
    assert rate_range_said(0.01, 0.02, of="req") == "between 0.6 and 1.2 req/min"
    assert rate_range_said(0.01, 0.02, Language.RU) == "от 0.6 до 1.2/мин"


def test_rates_said_together_keep_one_unit() -> None:
    # 3 in an hour on average with a 1/min peak: both per minute, never "3/h ... 1/min"
    assert rate_said(3 / 3600, like=1 / 60) == "0.05/min"
    assert rate_said(1 / 60, like=3 / 3600) == "1/min"
    assert rate_said(0.5, like=20.0) == "0.5/s"


def test_a_tiny_share_is_never_an_exponent_nor_a_rounded_zero() -> None:
    assert share_said(3, 48_018) == "0.0062%"
    assert share_said(1, 1_595_981) == "<0.001%"  # not 6.3e-05%
    assert share_said(1, 530_173) == "<0.001%"
    assert percent_said(0.94) == "94%"
    assert percent_said(0.025) == "2.5%"
    assert percent_said(6.45) == "645%"
    assert percent_said(0.0) == "0%"
    assert share_said(0, 0) == "0%"


_FLOATS = st.floats(allow_nan=False, allow_infinity=False)


@given(_FLOATS)
def test_no_number_is_ever_written_with_an_exponent(value: float) -> None:
    for said in (number_said(value), rate_said(value), percent_said(value)):
        assert not _EXPONENT.search(said), said


@given(st.floats(min_value=1e-12, max_value=1e12, allow_nan=False))
def test_a_positive_value_never_reads_as_zero(value: float) -> None:
    assert rate_said(value).split("/")[0] not in ("0", "0.0")
    assert percent_said(value) not in ("0%", "0.0%")


@given(st.floats(min_value=1e-9, max_value=99.9))
def test_a_value_below_a_hundred_keeps_three_significant_digits(value: float) -> None:
    digits = number_said(value).replace(".", "").lstrip("0")
    assert 1 <= len(digits) <= 3
    assert float(number_said(value)) == pytest.approx(value, rel=0.006)


@given(st.integers(min_value=0, max_value=10**6))
def test_every_count_has_a_russian_form(n: int) -> None:
    said = count_said(n, RESPONSE, Language.RU)
    tail = n % 100
    if 11 <= tail <= 14 or n % 10 in (0, 5, 6, 7, 8, 9):
        assert said.endswith(" ответов")
    elif n % 10 == 1:
        assert said.endswith(" ответ")
    else:
        assert said.endswith(" ответа")
