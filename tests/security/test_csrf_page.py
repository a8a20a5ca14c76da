"""A form sent after the session changed (log out and in again in another tab, then submit
in the first) gets the site's own CSRF page (issues 20 and 21): in the site's layout and
the reader's language, saying what happened, with the way back to the page it came from;
with DEBUG too; a fragment for HTMX, JSON for the API; nothing done.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games.models import Game
from games.variants.services import load_default_variants

pytestmark = pytest.mark.django_db

PASSWORD = "pw-Unused-91"
HEADINGS = {"en": "Your session changed", "de": "Ihre Sitzung hat sich geändert",
            "fr": "Votre session a changé", "it": "La Sua sessione è cambiata"}


@pytest.fixture
def ann(db: None) -> Any:
    load_default_variants(games=["newhaven"])
    return get_user_model().objects.create_user("ann", password=PASSWORD)


def _token(html: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def _stale_form(ann: Any, lang: str) -> tuple[Client, str]:
    """A browser with the lobby open (its form's token), whose session then changed:
    logged out and in again in another tab (the same cookies)."""
    client = Client(enforce_csrf_checks=True)
    client.cookies["django_language"] = lang
    login = client.get(reverse("accounts:login")).content.decode()
    assert client.post(reverse("accounts:login"), {
        "username": "ann", "password": PASSWORD,
        "csrfmiddlewaretoken": _token(login)}).status_code == 302
    lobby = client.get(reverse("lobby")).content.decode()
    stale = _token(lobby)
    # The other tab: log out, log in again (Django gives the session a new CSRF secret).
    client.post(reverse("accounts:logout"), {"csrfmiddlewaretoken": stale})
    login = client.get(reverse("accounts:login")).content.decode()
    assert client.post(reverse("accounts:login"), {
        "username": "ann", "password": PASSWORD,
        "csrfmiddlewaretoken": _token(login)}).status_code == 302
    return client, stale


def _create(client: Client, token: str, **extra: Any) -> Any:
    return client.post(reverse("lobby_create"), {"csrfmiddlewaretoken": token,
                                                 "num_players": "2"},
                       HTTP_REFERER="http://testserver/lobby/", **extra)


@pytest.mark.parametrize("lang", ["en", "de", "fr", "it"])
def test_a_stale_form_gets_the_sites_page_in_the_readers_language(ann: Any, lang: str
                                                                 ) -> None:
    client, stale = _stale_form(ann, lang)
    response = _create(client, stale)
    html = response.content.decode()
    assert response.status_code == 403
    assert f'<html lang="{lang}"' in html and 'id="net-error"' in html  # the site's layout
    assert 'data-reason="csrf"' in html and HEADINGS[lang] in html
    if lang != "en":
        assert HEADINGS["en"] not in html
    # The same action again: back to the page it was sent from, which has a fresh form.
    assert 'id="csrf-retry"' in html and 'href="http://testserver/lobby/"' in html
    assert "CSRF verification failed" not in html and not Game.objects.exists()
    fresh = _token(client.get(reverse("lobby")).content.decode())
    assert _create(client, fresh).status_code != 403


def test_with_debug_too(ann: Any, settings: Any) -> None:
    settings.DEBUG = True
    client, stale = _stale_form(ann, "de")
    html = _create(client, stale).content.decode()
    assert HEADINGS["de"] in html and "DEBUG" not in html and "CSRF_FAILURE_VIEW" not in html


def test_htmx_gets_the_message_as_a_fragment(ann: Any) -> None:
    client, stale = _stale_form(ann, "fr")
    response = _create(client, stale, HTTP_HX_REQUEST="true")
    assert response.status_code == 403 and response["X-Colonia-Error"] == "403"
    html = response.content.decode()
    assert 'id="request-error"' in html and "<html" not in html
    assert "Votre session a changé" in html


def test_no_way_back_to_another_site_and_a_missing_cookie_is_named(ann: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.cookies["django_language"] = "it"
    response = client.post(reverse("lobby_create"), {"csrfmiddlewaretoken": "x" * 32},
                           HTTP_REFERER="https://elsewhere.example/lobby/")
    html = response.content.decode()
    assert response.status_code == 403 and 'id="csrf-retry"' not in html
    assert "elsewhere.example" not in html
    assert "Servono i cookie" in html  # no CSRF cookie at all: cookies are blocked
