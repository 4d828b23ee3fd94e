"""Memory read an hour apart is told apart in the answer."""

from __future__ import annotations

from policy.units import bytes_said as fmt_bytes

MIB = 1 << 20


def test_two_values_a_few_percent_apart_read_as_different() -> None:
    assert fmt_bytes(1326 * MIB) == "1.29 GiB" and fmt_bytes(1378 * MIB) == "1.35 GiB"


def test_round_values_and_large_ones_keep_one_decimal() -> None:
    assert fmt_bytes(1 << 30) == "1.0 GiB" and fmt_bytes(1.3 * (1 << 30)) == "1.3 GiB"
    assert fmt_bytes(199.6 * MIB) == "199.6 MiB" and fmt_bytes(900 * MIB) == "900.0 MiB"
    assert fmt_bytes(512) == "512 B"
