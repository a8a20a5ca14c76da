"""Django admin: new variants get version 1; their data is edited in the rules editor."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from games.engines import get_engine
from games.models import Variant
from games.variants import selectors as variant_selectors

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_(make_user) -> Client:
    user = make_user("root", staff=True)
    user.is_superuser = True
    user.save()
    client = Client()
    client.force_login(user)
    return client


def test_a_variant_added_in_the_admin_is_published_as_version_1(admin_client_):
    data = get_engine("newhaven").default_variants()["standard"]
    response = admin_client_.post("/admin/games/variant/add/", {
        "game": "newhaven", "name": "from-admin", "data": json.dumps(data), "active": "on",
        "versions-TOTAL_FORMS": "0", "versions-INITIAL_FORMS": "0"})
    assert response.status_code == 302, response.content.decode()[:2000]
    variant = Variant.objects.get(name="from-admin")
    assert variant_selectors.current_version(variant).number == 1
    page = admin_client_.get(f"/admin/games/variant/{variant.pk}/change/").content.decode()
    assert 'name="data"' not in page and f"/editor/variants/{variant.pk}/" in page
