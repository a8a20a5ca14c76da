"""Forged requests against today's surfaces: Nouvelle-France actions, resign and hand-over,
replay perspectives and export, table creation, chat moderation, redirects, unsubscribe
links and the player API.  Each refused request must leave everything as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client
from django.utils.html import escape
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import Preferences
from games.chat import services as chat
from games.core.selectors import current_state, get_game
from games.core.services import submit_action
from games.models import ChatMessage, ChatMute, Game, Move, Seat, Variant
from games.tables.services import create_game, join_game
from games.turns.unsubscribe import user_of_token
from games.variants.services import load_default_variants

pytestmark = pytest.mark.django_db

EVIL = "https://evil.example/steal"


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()  # throttles and rate limits of other tests
    yield
    cache.clear()


def person(name: str, **extra: Any) -> Any:
    return get_user_model().objects.create_user(name, email=f"{name}@mail.example",
                                                password="pw-unused-9x!", **extra)


def api(user: Any | None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def browser(user: Any | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def nf_game() -> tuple[Game, Any, Any, Any]:
    """A running two-seat Nouvelle-France game (ann, bob) with a few moves, and eve."""
    load_default_variants(games=["nouvellefrance"])
    variant = Variant.objects.get(game="nouvellefrance", name="standard")
    ann, bob, eve = person("ann"), person("bob"), person("eve")
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    join_game(game=game, user=bob)
    users = [ann, bob]
    for n in range(6):
        game = get_game(game.pk)
        seat = game.to_move[0]
        state = current_state(game)
        action = game.engine.legal_actions(state, seat)[0]
        submit_action(game=game.pk, user=users[seat], seat=seat,
                               action=game.engine.action_to_json(action),
                               version=game.version, key=f"m{n}")
    return get_game(game.pk), ann, bob, eve


def snapshot(game: Game) -> tuple:
    game = Game.objects.get(pk=game.pk)
    seats = list(Seat.objects.filter(game=game).order_by("index")
                 .values_list("user_id", "ai_level", "left_at"))
    return game.status, game.version, game.state_json, Move.objects.filter(game=game).count(), \
        seats


def a_legal_action(game: Game) -> tuple[int, Any]:
    seat = game.to_move[0]
    state = current_state(game)
    return seat, game.engine.action_to_json(game.engine.legal_actions(state, seat)[0])


# --- Nouvelle-France actions ------------------------------------------------------------------


def test_nf_actions_from_outsiders_other_seats_or_stale_versions_change_nothing(nf_game):
    game, ann, bob, eve = nf_game
    seat, action = a_legal_action(game)
    mover, other = (ann, bob) if seat == 0 else (bob, ann)
    before = snapshot(game)
    body = {"action": action, "version": game.version, "key": "forged-1"}
    for who in (None, eve, other):
        response = api(who).post(f"/api/games/{game.pk}/actions/", body, format="json")
        assert response.status_code in (401, 403, 409), (who, response.status_code)
        assert snapshot(game) == before
        response = browser(who).post(f"/games/{game.pk}/act/", {
            "action": json.dumps(action), "version": game.version,
            "key": "forged-2"})
        assert response.status_code in (302, 400, 403, 409), (who, response.status_code)
        assert snapshot(game) == before
    stale = {"action": action, "version": game.version - 1, "key": "stale-1"}
    response = api(mover).post(f"/api/games/{game.pk}/actions/", stale, format="json")
    assert response.status_code == 409
    assert snapshot(game) == before
    # The right seat at the right version is accepted (the refusals were not a broken fixture).
    response = api(mover).post(f"/api/games/{game.pk}/actions/", body, format="json")
    assert response.status_code in (200, 201), response.content[:300]
    assert snapshot(game) != before


# --- resign and hand-over ---------------------------------------------------------------------


def test_resign_and_hand_over_by_someone_not_seated_change_nothing(nf_game):
    game, ann, _bob, eve = nf_game
    before = snapshot(game)
    for who in (None, eve):
        for path in ("resign", "handover"):
            response = api(who).post(f"/api/games/{game.pk}/{path}/", {}, format="json")
            assert response.status_code in (401, 403, 409), (who, path, response.status_code)
            assert snapshot(game) == before
        for path in ("resign", "hand-over"):
            response = browser(who).post(f"/games/{game.pk}/{path}/")
            assert response.status_code in (302, 403, 405), (who, path)
            assert snapshot(game) == before
    # The GET of a state-changing address changes nothing either.
    browser(ann).get(f"/games/{game.pk}/resign/")
    assert snapshot(game) == before


# --- replays and export during the game -------------------------------------------------------


def test_replay_of_another_seat_or_everything_is_refused_during_the_game(nf_game):
    game, ann, bob, eve = nf_game
    for who, mine in ((ann, 0), (bob, 1), (eve, None), (None, None)):
        for seat in ("0", "1", "01", "all", " all "):
            if mine is not None and int(seat) == mine if seat.strip().isdigit() else False:
                continue  # one's own seat is allowed
            response = api(who).get(f"/api/games/{game.pk}/replay/", {"seat": seat})
            assert response.status_code in (400, 403), (who, seat, response.status_code)
            response = browser(who).get(f"/games/{game.pk}/replay/", {"seat": seat})
            assert response.status_code in (400, 403), (who, seat, response.status_code)
    for who, mine in ((ann, 0), (bob, 1), (eve, None), (None, None)):
        document = api(who).get(f"/api/games/{game.pk}/export/").json()
        assert document["seed"] is None and document["result"] is None
        for row in document["actions"]:
            assert (row["action"] is not None) == (row["seat"] == mine), (who, row)
        assert str(game.seed) not in api(who).get(f"/api/games/{game.pk}/export/").content.decode()


# --- table creation ---------------------------------------------------------------------------


def test_forged_fields_in_post_api_games_are_ignored_or_refused(nf_game):
    _game, ann, _bob, _eve = nf_game
    variant = Variant.objects.get(game="nouvellefrance", name="standard")
    count = Game.objects.count()
    body = {"variant": variant.pk, "seats": [{"type": "human"}, {"type": "ai"}],
            "seed": 1, "status": "finished", "version": 99, "result": {"winners": [0]},
            "rated_at": "2020-01-01T00:00:00Z", "invite_token": "mine"}
    response = api(ann).post("/api/games/", body, format="json")
    assert response.status_code == 201, response.content[:300]
    game = Game.objects.get(pk=response.json()["id"])
    assert game.seed != 1 and game.rated_at is None and game.invite_token != "mine"
    assert game.status == Game.Status.RUNNING and game.version == 0 and not game.result
    for bad in ({"rated": "maybe"}, {"time_control": {"kind": "live", "reserve": -5}},
                {"time_control": {"kind": "sudden"}}, {"departure_rule": "win"},
                {"takeover_level": "god"}, {"seats": [{"type": "ai"}, {"type": "ai"}]},
                {"variant": 10**9}):
        response = api(ann).post("/api/games/", {**body, **bad}, format="json")
        assert response.status_code in (400, 404), (bad, response.status_code)
    assert Game.objects.count() == count + 1


# --- chat moderation --------------------------------------------------------------------------


def test_chat_removal_is_staff_only_and_muting_needs_a_login(nf_game):
    game, ann, bob, eve = nf_game
    message = chat.post_message(game=game, user=ann, text="hello from ann")
    for who in (bob, eve, ann, None):
        response = browser(who).post(f"/games/{game.pk}/chat/{message.pk}/remove/")
        assert response.status_code in (302, 403), (who, response.status_code)
        message.refresh_from_db()
        assert message.removed_at is None
    log = browser(None).get(f"/games/{game.pk}/chat/log/", HTTP_HX_REQUEST="true")
    assert "hello from ann" in log.content.decode()
    response = browser(None).post(f"/games/{game.pk}/chat/",
                                  {"text": "anonymous words"})
    assert not ChatMessage.objects.filter(text__contains="anonymous").exists()
    response = browser(None).post(f"/games/{game.pk}/chat/mute/{ann.pk}/")
    assert response.status_code in (302, 401, 403)
    assert not ChatMute.objects.exists()
    staff = person("mod", is_staff=True)
    response = browser(staff).post(f"/games/{game.pk}/chat/{message.pk}/remove/")
    assert response.status_code in (200, 302)
    message.refresh_from_db()
    assert message.removed_at is not None
    log = browser(None).get(f"/games/{game.pk}/chat/log/", HTTP_HX_REQUEST="true")
    assert "hello from ann" not in log.content.decode()


# --- redirects, unsubscribe, personal data ----------------------------------------------------


@pytest.mark.parametrize("target", [EVIL, "//evil.example/x", "/\\evil.example",
                                    "https:evil.example", "\\\\evil.example"])
def test_no_redirect_leaves_the_site(client: Client, target: str) -> None:
    def off_site(response) -> bool:
        location = response.get("Location", "")
        return "evil.example" in location

    response = client.post("/i18n/setlang/", {"language": "de", "next": target})
    assert not off_site(response)
    response = client.get("/accounts/signup/", {"next": target})
    # (The language switcher's own ``next`` is this page's local address: harmless.)
    assert f'name="next" value="{escape(target)}"' not in response.content.decode()
    response = client.post("/accounts/signup/", {
        "username": "newcomer", "password1": "Right-Horse-42x", "password2": "Right-Horse-42x",
        "email": "n@mail.example", "next": target})
    assert not off_site(response)
    person("ann")
    response = Client().post(f"/accounts/login/?next={target}",
                             {"username": "ann", "password": "pw-unused-9x!"})
    assert response.status_code == 302 and not off_site(response)


def test_forged_unsubscribe_tokens_change_nothing(nf_game):
    _game, ann, _bob, _eve = nf_game

    before = list(Preferences.objects.values_list("user_id", "turn_emails"))
    for token in ("x", f"{ann.pk}", f"{ann.pk}:forged", f"{ann.pk}:" + "A" * 27, "..:.."):
        assert user_of_token(token) is None
        response = Client().post(f"/accounts/unsubscribe/{token}/",
                                 {"List-Unsubscribe": "One-Click"})
        assert response.status_code == 404
    assert list(Preferences.objects.values_list("user_id", "turn_emails")) == before


def test_player_api_and_leaderboard_show_no_email(nf_game):
    _game, ann, _bob, _eve = nf_game
    for url in (f"/api/players/{ann.username}/", "/api/leaderboard/?game=nouvellefrance",
                f"/accounts/{ann.username}/", "/leaderboard/"):
        response = Client().get(url)
        assert response.status_code == 200, url
        assert "@mail.example" not in response.content.decode(), url
