"""Quick play (issue 25): one click on the home page or the lobby starts an unrated game
against the AI; a visitor is sent to log in and comes back to the choices they made."""

from __future__ import annotations

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
