"""Settings every test module shares: the Hypothesis profiles.

No property test has a deadline: the machines are noisy, and a test asserts behaviour,
never time. ``GAMEHUB_HYPOTHESIS`` picks the profile:

- ``dev`` (the default): new random examples on every run, to find what is still wrong;
- ``ci`` (``.ci/run``): the same examples on every run, so that main's CI is never red
  by chance; a failure there fails again on any machine;
- ``deep``: 1,000 examples where a test sets no count of its own (ten times the
  default), for a search before a release.

A failure prints the ``@reproduce_failure`` line that replays it.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("dev", deadline=None, print_blob=True)
settings.register_profile("ci", deadline=None, print_blob=True, derandomize=True)
settings.register_profile("deep", deadline=None, print_blob=True, max_examples=1000)
PROFILE = os.environ.get("GAMEHUB_HYPOTHESIS", "dev")
if PROFILE not in ("dev", "ci", "deep"):
    raise pytest.UsageError(f"GAMEHUB_HYPOTHESIS={PROFILE!r}: it is dev, ci or deep")
settings.load_profile(PROFILE)
