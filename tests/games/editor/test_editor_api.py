"""The editor's API for scripts: staff only, one error shape, in the OpenAPI schema."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.db import transaction
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import Variant
from games.variants import services as variants

pytestmark = pytest.mark.django_db

BASE = "/api/editor/variants/"


@pytest.fixture(autouse=True)
def run_on_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transaction, "on_commit", lambda fn, using=None, robust=False: fn())


@pytest.fixture
def api(boss: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=boss).key}")
    return client


@pytest.fixture
def basic(toy: Any) -> Variant:
    variants.load_default_variants(games=["toygame"])
    return Variant.objects.get(game="toygame")


def routes(variant_id: int) -> list[tuple[str, str, dict]]:
    return [("get", BASE, {}), ("post", BASE, {"game": "toygame", "name": "x"}),
            ("get", f"{BASE}{variant_id}/draft/", {}),
            ("put", f"{BASE}{variant_id}/draft/", {"data": {}}),
            ("post", f"{BASE}{variant_id}/simulate/", {"games": 4, "bots": ["random"]}),
            ("get", f"{BASE}{variant_id}/simulate/", {}),
            ("post", f"{BASE}{variant_id}/publish/", {})]


def test_everyone_but_staff_is_refused(basic, make_user):
    player = APIClient()
    player.force_authenticate(make_user("pat"))
    anonymous = APIClient()
    for method, url, body in routes(basic.pk):
        refused = getattr(player, method)(url, body, format="json")
        assert refused.status_code == 403, (method, url)
        assert set(refused.json()) == {"detail", "code"}
        assert getattr(anonymous, method)(url, body, format="json").status_code in (401, 403)
    assert Variant.objects.count() == 1 and not basic.versions.filter(status="draft").exists()


def test_list_and_create(api, basic):
    rows = api.get(BASE).json()
    row = next(r for r in rows if r["id"] == basic.pk)
    assert row["game"] == "toygame" and row["name"] == "basic" and row["current_version"] == 1
    assert row["versions"][0]["number"] == 1 and row["versions"][0]["status"] == "published"
    created = api.post(BASE, {"game": "toygame", "name": "new-one"}, format="json")
    assert created.status_code == 201 and created.json()["has_draft"]
    assert api.post(BASE, {"game": "toygame", "name": "new-one"}, format="json").json()[
        "code"] == "name_taken"
    bad = api.post(BASE, {"game": "chess", "name": "Not A Slug"}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
    assert set(bad.json()["errors"]) == {"game", "name"}


def test_the_draft_refuses_bad_fields_by_path_and_changes_nothing(api, basic, toy):
    url = f"{BASE}{basic.pk}/draft/"
    assert api.get(url).status_code == 404
    data = {**toy.default_variants()["basic"], "target": 1000, "steps": [1, 0]}
    refused = api.put(url, {"data": data}, format="json")
    body = refused.json()
    assert refused.status_code == 422 and body["code"] == "invalid_variant"
    assert set(body["errors"]) == {"target", "steps[1]"} and "steps[1]" in body["detail"]
    assert api.get(url).status_code == 404  # no draft was started
    assert api.put(url, {"data": [1, 2]}, format="json").status_code == 422
    assert api.put(url, {}, format="json").status_code == 400
    raw = api.generic("PUT", url, "{not json", content_type="application/json")
    assert raw.status_code == 400 and set(raw.json()) >= {"detail", "code"}
    saved = api.put(url, {"data": {**data, "target": 12, "steps": [1, 2]}}, format="json")
    assert saved.status_code == 200 and saved.json()["data"]["target"] == 12
    assert saved.json()["publishable"] is False and saved.json()["based_on"] == 1


def test_simulate_then_publish(api, basic, toy, fast_checks):
    url = f"{BASE}{basic.pk}"
    api.put(f"{url}/draft/", {"data": {**toy.default_variants()["basic"], "target": 12}},
            format="json")
    blocked = api.post(f"{url}/publish/", {}, format="json")
    assert blocked.status_code == 409 and blocked.json()["code"] == "simulation_required"
    queued = api.post(f"{url}/simulate/", {"games": 6, "bots": ["random"]}, format="json")
    assert queued.status_code == 202 and queued.json()["status"] in (
        "queued", "running", "done")
    state = api.get(f"{url}/simulate/").json()
    assert state["status"] == "done" and state["progress"] == {"done": 6, "total": 6}
    assert state["report"]["by_players"]["2"]["completed"] == 3 and state["passed"]
    published = api.post(f"{url}/publish/", {"note": "longer"}, format="json")
    assert published.status_code == 200 and published.json()["number"] == 2
    assert api.post(f"{url}/publish/", {}, format="json").json()["code"] == "no_draft"
    bad = api.post(f"{url}/simulate/", {"games": 0, "bots": []}, format="json")
    assert bad.status_code == 400 and set(bad.json()["errors"]) == {"games", "bots"}


def test_the_routes_are_in_the_openapi_schema(api):
    schema = yaml.safe_load(api.get("/api/schema/").content)
    paths = schema["paths"]
    for path, methods in {
        "/api/editor/variants/": {"get", "post"},
        "/api/editor/variants/{variant_id}/draft/": {"get", "put"},
        "/api/editor/variants/{variant_id}/simulate/": {"get", "post"},
        "/api/editor/variants/{variant_id}/publish/": {"post"},
    }.items():
        assert methods <= set(paths[path]), path
    assert "403" in paths["/api/editor/variants/"]["get"]["responses"]
    assert "422" in paths["/api/editor/variants/{variant_id}/draft/"]["put"]["responses"]
