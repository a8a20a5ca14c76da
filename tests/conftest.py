"""Shared test configuration: Hypothesis profiles, the ``long`` tests, compiled catalogues.

The suite runs at two depths:

* ``make test`` (and CI): the quick depth.  Property and contract tests play a few
  random games each (profile ``dev``: new examples on every run, a failure saved in
  ``.hypothesis/`` and replayed first next time; profile ``ci``, set by .ci/run: as many,
  derandomized, so a red CI run fails the same way again), and the tests marked
  ``@pytest.mark.long`` (whole games in the browser, the 200-game acceptance run of the
  Nouvelle-France footprints) are deselected.
* ``make test-long`` (nightly-style): ``HYPOTHESIS_PROFILE=long``, ten times the
  examples and the ``long`` tests too.

A test that asks for its own number of examples writes
``max(N, settings.default.max_examples)`` so that the long profile deepens it as well.
No profile sets a deadline: engine speed is measured by the benchmark commands, never by
timed tests.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from config.catalogues import compile_catalogues

# A bare `pytest` (without `make test`) still renders translated pages: compile the stale
# catalogues first (pure Python, milliseconds when they are up to date).
compile_catalogues()

#: Random examples (whole random games for the contract tests) per property test.
QUICK_EXAMPLES = 12
LONG_EXAMPLES = 10 * QUICK_EXAMPLES

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("dev", max_examples=QUICK_EXAMPLES, **_COMMON)
settings.register_profile("ci", max_examples=QUICK_EXAMPLES, derandomize=True, **_COMMON)
settings.register_profile("long", max_examples=LONG_EXAMPLES, **_COMMON)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
settings.load_profile(PROFILE)
#: ``make test-long``: the long profile runs the ``long`` tests too.
LONG = PROFILE == "long"


@pytest.fixture(scope="session")
def long_profile() -> bool:
    """True under ``make test-long``: a test that samples in the quick profile goes whole."""
    return LONG


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the ``long`` tests outside the long profile (reported as deselected)."""
    if LONG:
        return
    kept, dropped = [], []
    for item in items:
        (dropped if item.get_closest_marker("long") else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database, and on PostgreSQL no session left on it when it is
    dropped: a connection the process no longer references (a socket test's worker
    thread's, checked out of psycopg's pool) can stay open until the garbage collector
    finds it, and the drop then failed with "being accessed by other users" (a warning,
    and a test database left behind on CI's server)."""
    yield
    from django.db import connections

    with django_db_blocker.unblock():
        for connection in connections.all():
            if connection.vendor != "postgresql":
                continue
            name = connection.settings_dict["NAME"]
            connection.close()
            with connection._nodb_cursor() as cursor:
                cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                               " WHERE datname = %s AND pid <> pg_backend_pid()", [name])


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
