"""schemathesis against the live OpenAPI schema: no 5xx, no response off the schema.

The schema is the one the server serves (``/api/schema/``), loaded from the WSGI app; every
operation is called with generated data, signed in (a real token) and not, and each
response is checked: no server error, status documented, body and content type as
documented (the one error shape included).

The budget per operation is ``SCHEMATHESIS_MAX_EXAMPLES``: small in the suite and in CI
(default 15), large by command::

    make schemathesis          # SCHEMATHESIS_MAX_EXAMPLES=500
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance

from common.api.base import ClientAddressThrottle
from config.wsgi import application
from games.variants.services import load_default_variants

MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "15"))
#: Every check runs (no 5xx, documented statuses, headers, content types, bodies, invalid
#: data refused) except "schema-valid data is accepted": the rules of the games and of
#: accounts (a legal move, the current version, a strong password, a free username) are
#: not expressible in OpenAPI, and refusing them is the API's job.
EXCLUDED = [positive_data_acceptance]
#: The WSGI transport does not undo gzip (tested on its own in tests/test_hygiene.py).
PLAIN = {"Accept-Encoding": "identity"}


@pytest.fixture(autouse=True)
def _data(db, settings, monkeypatch):
    """Variants to play, and no throttles or lockouts (a long run would otherwise meet a
    wall of valid 429s and test nothing else)."""
    from django.core.cache import cache

    load_default_variants(games=["newhaven"])
    cache.clear()
    # Every scope the settings know (a new scope must not turn into a KeyError 500 here).
    monkeypatch.setattr(ClientAddressThrottle, "THROTTLE_RATES",
                        dict.fromkeys(ClientAddressThrottle.THROTTLE_RATES, "100000/minute"))
    settings.AXES_ENABLED = False
    # As Django's test client does: requests must not close the test's database
    # connection (on PostgreSQL the test's transaction would be gone).
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def token(db) -> str:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user("fuzz", password="Fuzz-Horse-42")
    return Token.objects.create(user=user).key


#: Responses seen, by status (printed at the end of the module: run with -s to see it).
STATUSES: Counter = Counter()


def _count(response) -> None:
    STATUSES[response.status_code] += 1


@pytest.fixture(scope="module", autouse=True)
def _summary():
    yield
    total = sum(STATUSES.values())
    print(f"\nschemathesis: {total} cases, {MAX_EXAMPLES} examples per operation; "
          f"statuses {dict(sorted(STATUSES.items()))}; no failure")


def _load_schema():
    return schemathesis.openapi.from_wsgi("/api/schema/", application)


schema = _load_schema()


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema_anonymously(case) -> None:
    _count(case.call_and_validate(headers=PLAIN, excluded_checks=EXCLUDED))


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema_signed_in(case, token) -> None:
    _count(case.call_and_validate(headers={**PLAIN, "Authorization": f"Token {token}"},
                                  excluded_checks=EXCLUDED))
