"""The tier every property here runs under: HYPOTHESIS_PROFILE, `ci` when unset.

The profiles are registered by this folder's conftest.py, which pytest loads before it
imports any test module here.
"""

from __future__ import annotations

import os

from hypothesis import settings

PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or "ci"
TIER = settings(settings.get_profile(PROFILE))
