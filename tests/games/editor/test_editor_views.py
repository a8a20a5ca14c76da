"""The editor's pages: staff only, field errors as you type, simulate, publish."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from django.urls import reverse
from formdata import form_post

from games.editor import services
from games.models import Variant, VariantVersion
from games.variants import selectors as variant_selectors
from games.variants import services as variants

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def run_on_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transaction, "on_commit", lambda fn, using=None, robust=False: fn())


@pytest.fixture
def nh(boss: Any) -> Variant:
    variants.load_default_variants(games=["newhaven"])
    variant = Variant.objects.get(game="newhaven", name="standard")
    services.start_draft(variant=variant, user=boss)
    return variant


@pytest.fixture
def toyvariant(toy: Any, boss: Any) -> Variant:
    variants.load_default_variants(games=["toygame"])
    variant = Variant.objects.get(game="toygame")
    services.start_draft(variant=variant, user=boss)
    return variant


def editor_urls(variant: Variant) -> list[tuple[str, str]]:
    """(method, url) of every editor route."""
    v = variant.pk
    get = ["editor:index", "editor:import"]
    urls = [("get", reverse(name)) for name in get]
    urls += [("post", reverse("editor:create"))]
    for name in ("variant", "diff", "draft", "sim_status"):
        urls.append(("get", reverse(f"editor:{name}", args=[v])))
    urls += [("get", reverse("editor:version", args=[v, 1])),
             ("get", reverse("editor:export", args=[v, "1"]))]
    for name in ("retire", "restore", "clone", "draft", "draft_form", "draft_validate",
                 "draft_start", "draft_discard", "simulate", "publish"):
        urls.append(("post", reverse(f"editor:{name}", args=[v])))
    for name in ("version_retire", "version_restore"):
        urls.append(("post", reverse(f"editor:{name}", args=[v, 1])))
    return urls


def test_every_page_and_route_is_for_staff_only(nh, player_client):
    anonymous = Client()
    for method, url in editor_urls(nh):
        response = getattr(player_client, method)(url)
        assert response.status_code == 403, (method, url, response.status_code)
        response = getattr(anonymous, method)(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url
    assert variant_selectors.draft_of(nh) is not None and nh.versions.count() == 2


def test_the_index_lists_every_game_and_variant(nh, staff_client):
    page = staff_client.get(reverse("editor:index")).content.decode()
    assert 'id="game-newhaven"' in page and 'id="game-nouvellefrance"' in page
    assert 'data-variant="standard"' in page


@pytest.mark.parametrize("game", ["newhaven", "nouvellefrance"])
def test_draft_pages_draw_the_visual_editors(game, boss, staff_client):
    variants.load_default_variants(games=[game])
    for variant in Variant.objects.filter(game=game):
        services.start_draft(variant=variant, user=boss)
        page = staff_client.get(reverse("editor:draft", args=[variant.pk]))
        assert page.status_code == 200
        html = page.content.decode()
        assert 'id="variant-form"' in html and 'id="sim-form"' in html
        expected = {"newhaven": ['id="village-grid"', 'id="board-grid"', "harvest-kinds"],
                    "nouvellefrance": ["cell-grid", "nf-copies", "nf-sticks", "nf-deck"]}
        for marker in expected[game]:
            assert marker in html, (variant, marker)
        assert "No problems found." in html


def test_errors_as_you_type_name_the_field_and_save_nothing(nh, staff_client):
    page = staff_client.get(reverse("editor:draft", args=[nh.pk])).content.decode()
    post = form_post(page, **{"village.col_values[0]": "-1"})
    response = staff_client.post(reverse("editor:draft_validate", args=[nh.pk]), post,
                                 HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and 'data-slot="f-village-col_values--0"' in html
    assert "village.col_values[0]" in html and "minimum" in html
    saved = staff_client.post(reverse("editor:draft", args=[nh.pk]), post)
    assert saved.status_code == 422
    assert 'id="err-f-village-col_values--0"' in saved.content.decode()
    assert variant_selectors.draft_of(nh).data["village"]["col_values"][0] == 5


def test_a_good_edit_is_saved_and_logged(nh, staff_client):
    page = staff_client.get(reverse("editor:draft", args=[nh.pk])).content.decode()
    post = form_post(page, **{"village.col_values[0]": "6", "note": "richer corner"})
    response = staff_client.post(reverse("editor:draft", args=[nh.pk]), post)
    assert response.status_code == 302
    assert variant_selectors.draft_of(nh).data["village"]["col_values"][0] == 6
    history = staff_client.get(reverse("editor:variant", args=[nh.pk])).content.decode()
    # The field path in its schema titles (issue 21), not the data path.
    assert "Village › Col values › 1: 5 → 6" in history and "richer corner" in history


def test_structural_edits_redraw_the_form_without_saving(nh, staff_client):
    page = staff_client.get(reverse("editor:draft", args=[nh.pk])).content.decode()
    post = form_post(page)
    post["op"] = "add:buildings.numbers"
    response = staff_client.post(reverse("editor:draft_form", args=[nh.pk]), post,
                                 HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and 'name="buildings.numbers[6]"' in html
    assert len(variant_selectors.draft_of(nh).data["buildings"]["numbers"]) == 6


def test_simulate_then_publish_through_the_pages(toyvariant, staff_client, fast_checks):
    v = toyvariant.pk
    page = staff_client.get(reverse("editor:draft", args=[v])).content.decode()
    assert 'id="publish-button" disabled' in page
    post = form_post(page, target="12")
    post.update({"games": "6", "bots": "random", "players": ""})
    response = staff_client.post(reverse("editor:simulate", args=[v]), post,
                                 HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and 'id="sim-bar"' in html
    assert "This draft" in html and "<svg" in html and "first-seat wins" in html
    assert variant_selectors.draft_of(toyvariant).data["target"] == 12  # saved first
    assert 'id="publish-button" disabled' not in html
    published = staff_client.post(reverse("editor:publish", args=[v]), {"note": "12 it is"})
    assert published.status_code == 302
    assert variant_selectors.current_version(toyvariant).number == 2


def test_simulating_a_draft_with_errors_refuses_and_saves_nothing(nh, staff_client):
    page = staff_client.get(reverse("editor:draft", args=[nh.pk])).content.decode()
    post = form_post(page, **{"village.rows": "0"})
    post.update({"games": "6", "bots": "random"})
    response = staff_client.post(reverse("editor:simulate", args=[nh.pk]), post,
                                 HTTP_HX_REQUEST="true")
    assert response.status_code == 422 and "fix them first" in response.content.decode()
    assert not variant_selectors.draft_of(nh).simulations.exists()


def test_publish_without_a_simulation_is_refused(nh, staff_client):
    response = staff_client.post(reverse("editor:publish", args=[nh.pk]), follow=True)
    assert "Simulate the draft" in response.content.decode()
    assert not VariantVersion.objects.filter(variant=nh, number=2).exists()


def test_versions_diff_export_import_and_clone(nh, staff_client, boss):
    draft = variant_selectors.draft_of(nh)
    data = json.loads(json.dumps(draft.data))
    data["village"]["col_values"][0] = 9
    services.save_draft(variant=nh, data=data, user=boss)
    diff = staff_client.get(reverse("editor:diff", args=[nh.pk])).content.decode()
    assert "village.col_values[0]" in diff
    exported = staff_client.get(reverse("editor:export", args=[nh.pk, "draft"]))
    assert exported["Content-Disposition"].startswith("attachment")
    document = json.loads(exported.content)
    upload = SimpleUploadedFile("v.json", json.dumps(document).encode(), "application/json")
    response = staff_client.post(reverse("editor:import"), {"file": upload, "name": "copy9"})
    assert response.status_code == 302
    imported = Variant.objects.get(game="newhaven", name="copy9")
    assert variant_selectors.draft_of(imported).data["village"]["col_values"][0] == 9
    broken = staff_client.post(reverse("editor:import"), {"text": "{not json"})
    assert broken.status_code == 400 and "This is not JSON" in broken.content.decode()
    bad = dict(document, data={**document["data"], "market_size": 0})
    refused = staff_client.post(reverse("editor:import"), {"text": json.dumps(bad),
                                                           "name": "bad"})
    assert refused.status_code == 400 and "market_size" in refused.content.decode()
    assert not Variant.objects.filter(name="bad").exists()
    staff_client.post(reverse("editor:clone", args=[nh.pk]), {"name": "twin", "version": "1"})
    twin = Variant.objects.get(game="newhaven", name="twin")
    assert variant_selectors.draft_of(twin).data["village"]["col_values"][0] == 5
    version = staff_client.get(reverse("editor:version", args=[nh.pk, 1])).content.decode()
    assert "Games on this version" in version and "disabled" in version


def test_retire_and_restore_pages(nh, staff_client):
    staff_client.post(reverse("editor:retire", args=[nh.pk]))
    nh.refresh_from_db()
    assert not nh.active
    staff_client.post(reverse("editor:restore", args=[nh.pk]))
    staff_client.post(reverse("editor:version_retire", args=[nh.pk, 1]))
    nh.refresh_from_db()
    assert nh.active and variant_selectors.current_version(nh) is None
    staff_client.post(reverse("editor:version_restore", args=[nh.pk, 1]))
    assert variant_selectors.current_version(nh).number == 1


def test_garbage_posts_never_crash(nh, staff_client):
    for url in ("draft", "draft_form", "draft_validate", "simulate"):
        for post in ({"village.rows": "x" * 5000}, {"board#grid": "99999", "board#o": "1"},
                     {"harvest_tiles#types": "-4", "harvest_tiles#order": "a,b"},
                     {"op": "remove:" + "x" * 300}, {"games": "-1", "bots": "nope"}):
            response = staff_client.post(reverse(f"editor:{url}", args=[nh.pk]), post)
            assert response.status_code in (200, 302, 400, 404, 409, 422), (url, post)


def test_without_javascript_an_add_button_redraws_and_saves_nothing(nh, staff_client):
    page = staff_client.get(reverse("editor:draft", args=[nh.pk])).content.decode()
    post = form_post(page)
    post["op"] = "add:resources"
    response = staff_client.post(reverse("editor:draft", args=[nh.pk]), post)
    assert response.status_code == 200 and 'name="resources[4]"' in response.content.decode()
    assert len(variant_selectors.draft_of(nh).data["resources"]) == 4


def test_a_save_over_someone_elses_newer_save_is_refused_once(nh, staff_client, boss):
    page = staff_client.get(reverse("editor:draft", args=[nh.pk])).content.decode()
    theirs = json.loads(json.dumps(variant_selectors.draft_of(nh).data))
    theirs["market_size"] = 6
    services.save_draft(variant=nh, data=theirs, user=boss)  # another tab, another admin
    mine = form_post(page, **{"village.col_values[0]": "7"})
    refused = staff_client.post(reverse("editor:draft", args=[nh.pk]), mine)
    assert refused.status_code == 409 and "Someone else saved" in refused.content.decode()
    assert variant_selectors.draft_of(nh).data["market_size"] == 6
    again = staff_client.post(reverse("editor:draft", args=[nh.pk]),
                              form_post(refused.content.decode()))
    assert again.status_code == 302
    assert variant_selectors.draft_of(nh).data["village"]["col_values"][0] == 7


def test_an_import_with_nothing_or_too_much_is_refused(staff_client, nh):
    assert staff_client.post(reverse("editor:import"), {}).status_code == 400
    big = SimpleUploadedFile("v.json", b" " * (1024 * 1024 + 1), "application/json")
    response = staff_client.post(reverse("editor:import"), {"file": big})
    assert response.status_code == 400 and "at most 1 MB" in response.content.decode()
    deep = staff_client.post(reverse("editor:import"), {"text": "[" * 100_000})
    assert deep.status_code == 413  # a pasted text over the 64 KiB a form field may carry
