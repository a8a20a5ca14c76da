"""The admin refuses variant data its engine cannot play."""

from __future__ import annotations

import pytest

from games.admin import VariantAdminForm
from games.engines import get_engine

pytestmark = pytest.mark.django_db


def _form(data: object) -> VariantAdminForm:
    import json

    return VariantAdminForm(
        data={"game": "newhaven", "name": "custom", "data": json.dumps(data),
              "schema_version": 1, "active": True}
    )


def test_a_playable_variant_is_accepted():
    form = _form(get_engine("newhaven").default_variants()["standard"])
    assert form.is_valid(), form.errors


def test_a_malformed_variant_is_refused_naming_the_problem():
    variant = get_engine("newhaven").default_variants()["standard"]
    variant["resources"] = ["wheat", "sheep", "timber", "gold"]
    form = _form(variant)
    assert not form.is_valid()
    assert "data" in form.errors
    assert any("gold" in message or "resource" in message for message in form.errors["data"])


def test_variant_data_must_be_an_object():
    form = _form([1, 2, 3])
    assert not form.is_valid()
    assert "data" in form.errors
