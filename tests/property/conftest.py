"""Hypothesis tiers for the totality properties: `ci` (1,000 examples a property, the
default) and `slow` (10,000), chosen by HYPOTHESIS_PROFILE:

    .venv/bin/pytest -q tests/property                          # ci
    HYPOTHESIS_PROFILE=slow .venv/bin/pytest -q tests/property  # slow

The tier is applied per test (`tests/property/_tier.py`), not loaded globally, so the
few hypothesis tests elsewhere in the suite keep their own example counts.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

for name, examples in (("ci", 1_000), ("slow", 10_000)):
    settings.register_profile(
        name,
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        print_blob=True,
    )
