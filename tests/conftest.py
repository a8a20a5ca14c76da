"""Shared test configuration: Hypothesis profiles.

``HYPOTHESIS_PROFILE=ci`` (set by .ci/run) runs more examples; the default ``dev``
profile keeps a local run quick.  No profile sets a deadline: engine speed is
measured by the benchmark commands, never by timed tests.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
