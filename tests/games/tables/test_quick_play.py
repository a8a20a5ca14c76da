"""Quick play (issue 25): one click on the home page or the lobby starts an unrated game
against the AI; a visitor is sent to log in and comes back to the choices they made."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse

from games.models import Game
from games.variants.services import load_default_variants

pytestmark = pytest.mark.django_db


@pytest.fixture
def both_games(db):
    load_default_variants(games=["newhaven", "nouvellefrance"])


def quick(client, page="home", **choices):
    data = {"quick-from": page, "quick-game": "newhaven", "quick-num_players": "2",
            "quick-level": "easy"}
    if "key" in choices:  # the form's request key (not a field of the form: no prefix)
        data["key"] = choices.pop("key")
    data.update({f"quick-{k}": v for k, v in choices.items()})
    return client.post(reverse("quick_play"), data)


@pytest.mark.parametrize("page", ["home", "lobby"])
def test_the_page_shows_quick_play(client, both_games, ann, page):
    client.force_login(ann)
    html = client.get(reverse(page)).content.decode()
    assert 'id="quick-play"' in html and f'action="{reverse("quick_play")}"' in html
    assert '<option value="nouvellefrance">Nouvelle-France</option>' in html
    assert 'name="quick-level"' in html and '<option value="easy" selected>' in html
    assert f'name="quick-from" value="{page}"' in html


def test_one_click_starts_an_unrated_game_against_the_ai(client, both_games, ann, ai_calls,
                                                          on_commit):
    client.force_login(ann)
    with on_commit():
        response = quick(client, game="nouvellefrance", num_players="3", level="hard")
    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("play", args=[game.pk])
    assert game.status == Game.Status.RUNNING and not game.rated
    assert game.game_name == "nouvellefrance" and game.variant_name == "standard"
    assert game.clock == Game.Clock.NONE
    seats = list(game.seats.order_by("index"))
    assert seats[0].user == ann
    assert [s.ai_level for s in seats] == ["", "hard", "hard"]
    # The AI's turns (if it starts) are played after the commit, off the request: the
    # person is to move now, or the game waits for no one else.
    game.refresh_from_db()
    people = {s.index for s in seats if s.user_id}
    assert set(game.to_move) <= people


def test_bad_choices_show_the_page_again_with_errors(client, both_games, ann):
    client.force_login(ann)
    response = quick(client, page="lobby", game="chess", level="godlike")
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="create-table"' in html  # the lobby, not the home page
    assert html.count('class="field-error"') == 2
    assert not Game.objects.exists()


def test_a_player_count_the_game_has_not(client, both_games, ann, monkeypatch):
    client.force_login(ann)
    response = quick(client, num_players="9")
    assert response.status_code == 400 and not Game.objects.exists()


def test_a_visitor_logs_in_and_comes_back_to_their_choices(client, both_games, ann):
    response = quick(client, page="lobby", game="nouvellefrance", num_players="3",
                     level="hard")
    assert not Game.objects.exists()
    url = urlsplit(response["Location"])
    assert response.status_code == 302 and url.path == reverse("accounts:login")
    back = parse_qs(url.query)["next"][0]
    assert back.startswith(reverse("lobby") + "?") and back.endswith("#quick-play")
    # The log-in page's sign-up link keeps where to come back to.
    login = client.get(response["Location"]).content.decode()
    assert "signup/?next=" in login
    client.force_login(ann)
    html = client.get(back.split("#")[0]).content.decode()
    assert '<option value="nouvellefrance" selected>' in html
    assert '<option value="3" selected>' in html
    assert '<option value="hard" selected>' in html


@pytest.mark.parametrize("page", ["home", "lobby"])
def test_a_double_click_opens_one_game(client, both_games, ann, bob, page):
    """Each form carries a fresh request key; the same key again (a double click, a
    retry) lands on the game the first click opened, and a new rendering of the form is
    a new game.  Another person's key is theirs alone."""
    client.force_login(ann)
    html = client.get(reverse(page)).content.decode()
    key = re.search(r'id="quick-form".*?name="key" value="([0-9a-f]{32})"', html, re.S).group(1)
    first = quick(client, page, key=key)
    second = quick(client, page, key=key)
    game = Game.objects.get()
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"] == reverse("play", args=[game.pk])
    again = client.get(reverse(page)).content.decode()
    fresh = re.search(r'id="quick-form".*?name="key" value="([0-9a-f]{32})"', again,
                      re.S).group(1)
    assert fresh != key
    quick(client, page, key=fresh)
    assert Game.objects.count() == 2
    client.force_login(bob)
    quick(client, page, key=key)
    assert Game.objects.filter(created_by=bob).count() == 1 and Game.objects.count() == 3


def test_the_api_and_the_service_take_the_key_too(both_games, ann):
    from rest_framework.test import APIClient

    from games.core.errors import GameServiceError
    from games.models import Variant
    from games.tables.services import create_game

    api = APIClient()
    api.force_authenticate(ann)
    variant = Variant.objects.get(game="newhaven", name="standard")
    body = {"variant": variant.pk, "seats": [{"type": "human"}, {"type": "ai"}], "key": "k1"}
    first = api.post("/api/games/", body, format="json")
    second = api.post("/api/games/", body, format="json")
    assert first.status_code == second.status_code == 201, first.content
    assert first.json()["id"] == second.json()["id"] and Game.objects.count() == 1
    seats = [{"type": "human"}, {"type": "ai", "level": "easy"}]
    again = create_game(creator=ann, variant=variant, seats=seats, key="k1")
    assert again.pk == first.json()["id"]
    assert create_game(creator=ann, variant=variant, seats=seats).pk != again.pk
    assert create_game(creator=ann, variant=variant, seats=seats).pk != again.pk  # no key
    with pytest.raises(GameServiceError):
        create_game(creator=ann, variant=variant, seats=seats, key="x" * 65)
    assert Game.objects.count() == 3
