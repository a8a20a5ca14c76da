"""Shared test configuration: Hypothesis profiles, compiled translation catalogues.

``HYPOTHESIS_PROFILE=ci`` (set by .ci/run) runs more examples; the default ``dev``
profile keeps a local run quick.  No profile sets a deadline: engine speed is
measured by the benchmark commands, never by timed tests.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from config.catalogues import compile_catalogues

# A bare `pytest` (without `make test`) still renders translated pages: compile the stale
# catalogues first (pure Python, milliseconds when they are up to date).
compile_catalogues()

settings.register_profile(
    "dev", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(autouse=True)
def _default_language():
    """Every test starts and ends in the default language.

    Django's ``LocaleMiddleware`` activates the request's language on the test's own
    thread and leaves it active after the response, so one test's request in Italian
    would make the next test's rendering Italian (the order-dependent failures seen in a
    full run). Tests that want a language ask for it (a cookie, a header, ``override``).
    """
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()
