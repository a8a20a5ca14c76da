"""The REST API: auth, tables, documents, actions (every status code), moves, schema."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

from games.models import Game, Move, Variant

pytestmark = pytest.mark.django_db


def client_for(user: Any | None = None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def table(variant: Variant, make_user: Any) -> tuple[Game, Any, Any]:
    """A running two-person game created and joined through the API."""
    ann, bob = make_user("ann"), make_user("bob")
    r = client_for(ann).post(
        "/api/games/", {"variant": variant.pk, "seats": [{"type": "human"}] * 2}, format="json"
    )
    assert r.status_code == 201, r.content
    assert r.json()["my_seat"] == 0 and r.json()["status"] == "open"
    r = client_for(bob).post(f"/api/games/{r.json()['id']}/join/", {}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["my_seat"] == 1 and r.json()["status"] == "running"
    return Game.objects.get(pk=r.json()["id"]), ann, bob


def act(client: APIClient, game: Game, action: Any, version: int, key: str | None = None):
    return client.post(
        f"/api/games/{game.pk}/actions/",
        {"action": action, "version": version, "key": key or uuid.uuid4().hex},
        format="json",
    )


# --- auth -----------------------------------------------------------------------------------


def test_register_then_token(db: None) -> None:
    client = APIClient()
    r = client.post("/api/auth/register/", {"username": "zoe", "password": "Correct-Horse-42"})
    assert r.status_code == 201 and r.json()["token"]
    token = r.json()["token"]
    r = client.post("/api/auth/token/", {"username": "zoe", "password": "Correct-Horse-42"})
    assert r.status_code == 200 and r.json() == {"token": token}
    r = client.post("/api/auth/token/", {"username": "zoe", "password": "wrong-password"})
    assert r.status_code in (400, 401, 403)
    r = client.post("/api/auth/register/", {"username": "zoe", "password": "Correct-Horse-42"})
    assert r.status_code == 400 and "username" in r.json()["errors"]


@pytest.mark.parametrize(
    "body",
    [{"username": "weak", "password": "123"}, {"username": "nopass"}, {"username": "a b!",
                                                                        "password": "Xy-9zzzzzq"}],
)
def test_register_rejects_bad_input(db: None, body: dict) -> None:
    r = APIClient().post("/api/auth/register/", body)
    assert r.status_code == 400


def test_register_is_throttled(db: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(api_settings.DEFAULT_THROTTLE_RATES, "register", "1/hour")
    client = APIClient(REMOTE_ADDR="10.9.8.7")
    codes = [
        client.post("/api/auth/register/", {"username": f"t{uuid.uuid4().hex[:8]}",
                                            "password": "Correct-Horse-42"}).status_code
        for _ in range(2)
    ]
    assert codes[-1] == 429


# --- tables ---------------------------------------------------------------------------------


def test_variants_list(variant: Variant) -> None:
    r = APIClient().get("/api/variants/")
    assert r.status_code == 200
    assert {"id": variant.pk, "game": "fakegame", "title": "Fake Game", "name": "basic",
            "description": "", "min_players": 2, "max_players": 4,
            "browser": False} in r.json()


def test_variants_list_names_games_and_variants_as_the_engines_do(nh_variants) -> None:
    rows = {(v["game"], v["name"]): v for v in APIClient().get("/api/variants/").json()}
    standard = rows[("newhaven", "standard")]
    assert standard["title"] == "New Haven" and standard["browser"] is True
    assert standard["description"] == nh_variants["standard"].data["description"]


def test_create_game_errors(variant: Variant, make_user: Any) -> None:
    client = client_for(make_user())
    assert APIClient().post("/api/games/", {}, format="json").status_code == 401
    r = client.post("/api/games/", {"variant": variant.pk}, format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid"
    assert "seats" in r.json()["errors"]
    r = client.post("/api/games/", {"variant": variant.pk, "seats": [{"type": "human"}]},
                    format="json")
    assert r.status_code == 400 and r.json()["code"] == "invalid_seats"
    r = client.post("/api/games/", {"variant": 999999, "seats": [{"type": "human"}] * 2},
                    format="json")
    assert r.status_code == 400 and r.json()["code"] == "variant_unavailable"
    r = client.post("/api/games/", {"variant": variant.pk,
                                    "seats": [{"type": "human"}, {"type": "ai", "level": "x"}]},
                    format="json")
    assert r.status_code == 400


def test_create_with_ai_and_document_shape(variant: Variant, make_user: Any) -> None:
    ann = make_user("ann")
    r = client_for(ann).post(
        "/api/games/",
        {"variant": variant.pk, "seats": [{"type": "human"}, {"type": "ai", "level": "easy"}]},
        format="json",
    )
    assert r.status_code == 201
    doc = r.json()
    assert set(doc) >= {"id", "game", "variant", "status", "version", "seats", "to_move",
                        "my_seat", "view", "legal_actions"}
    assert doc["status"] == "running" and doc["version"] == 0 and doc["to_move"] == [0]
    assert doc["seats"] == [
        {"index": 0, "type": "human", "username": "ann", "level": None, "clock": None,
         "left": None},
        {"index": 1, "type": "ai", "username": None, "level": "easy", "clock": None,
         "left": None},
    ]
    assert doc["legal_actions"] == [{"play": 0}, {"play": 1}, {"play": 2}]
    assert doc["view"]["you"]["seat"] == 0


def test_join_errors(table: tuple, make_user: Any) -> None:
    game, ann, _ = table
    r = client_for(make_user()).post(f"/api/games/{game.pk}/join/", {}, format="json")
    assert r.status_code == 409 and r.json()["code"] == "game_not_open"
    r = client_for(ann).post("/api/games/999999/join/", {}, format="json")
    assert r.status_code == 404
    r = client_for(ann).post(f"/api/games/{game.pk}/join/", {"seat": "x"}, format="json")
    assert r.status_code == 400


def test_leave(variant: Variant, make_user: Any) -> None:
    ann, bob = make_user(), make_user()
    game = client_for(ann).post(
        "/api/games/", {"variant": variant.pk, "seats": [{"type": "human"}] * 3}, format="json"
    ).json()
    assert client_for(bob).post(f"/api/games/{game['id']}/join/", {"seat": 2},
                                format="json").json()["my_seat"] == 2
    r = client_for(bob).post(f"/api/games/{game['id']}/leave/")
    assert r.status_code == 200 and r.json()["my_seat"] is None
    r = client_for(ann).post(f"/api/games/{game['id']}/leave/")
    assert r.status_code == 200 and r.json()["status"] == "aborted"


# --- documents ------------------------------------------------------------------------------


def test_document_views_per_caller(table: tuple, make_user: Any) -> None:
    game, ann, bob = table
    state = game.engine.state_from_json(game.state_json)
    mine = client_for(ann).get(f"/api/games/{game.pk}/").json()
    theirs = client_for(bob).get(f"/api/games/{game.pk}/").json()
    spectator = APIClient().get(f"/api/games/{game.pk}/").json()
    stranger = client_for(make_user()).get(f"/api/games/{game.pk}/").json()
    assert mine["view"] == game.engine.observe(state, 0) and mine["my_seat"] == 0
    assert theirs["view"] == game.engine.observe(state, 1) and theirs["legal_actions"] == []
    assert len(mine["legal_actions"]) == 3
    for doc in (spectator, stranger):
        assert doc["view"] == game.engine.observe(state, None)
        assert doc["my_seat"] is None and doc["legal_actions"] == []
    assert APIClient().get("/api/games/999999/").status_code == 404


# --- actions --------------------------------------------------------------------------------


def test_action_statuses(table: tuple, make_user: Any) -> None:
    game, ann, bob = table
    a, b = client_for(ann), client_for(bob)
    # 400: malformed bodies
    r = a.post(f"/api/games/{game.pk}/actions/", {"version": 0}, format="json")
    assert r.status_code == 400 and {"action", "key"} <= set(r.json()["errors"])
    r = a.post(f"/api/games/{game.pk}/actions/", {"action": {"play": 0}, "version": "x",
                                                  "key": "k"}, format="json")
    assert r.status_code == 400 and "version" in r.json()["errors"]
    # 401/403: anonymous; 403 not seated
    assert act(APIClient(), game, {"play": 0}, 0).status_code in (401, 403)
    r = act(client_for(make_user()), game, {"play": 0}, 0)
    assert r.status_code == 403 and r.json()["code"] == "not_seated"
    # 409 not your turn, 422 illegal with the engine's message
    r = act(b, game, {"play": 0}, 0)
    assert r.status_code == 409 and r.json()["code"] == "not_your_turn"
    r = act(a, game, {"play": 9}, 0)
    assert r.status_code == 422 and r.json()["detail"] == "You do not have that card."
    r = act(a, game, "nonsense", 0)
    assert r.status_code == 422
    # 200, then the same key again: same answer, nothing changes
    r = act(a, game, {"play": 1}, 0, key="once")
    assert r.status_code == 200 and r.json()["version"] == 1 and r.json()["to_move"] == [1]
    r2 = act(a, game, {"play": 1}, 0, key="once")
    assert r2.status_code == 200 and r2.json() == r.json()
    assert Move.objects.filter(game=game).count() == 1
    # 409 key reused for another action, 409 stale version (with the current version)
    r = act(a, game, {"play": 0}, 0, key="once")
    assert r.status_code == 409 and r.json()["code"] == "key_conflict"
    r = act(b, game, {"play": 0}, 0)
    assert r.status_code == 409 and r.json() == {
        "detail": r.json()["detail"], "code": "stale_version", "version": 1}
    assert act(b, game, {"play": 0}, 1).status_code == 200


def test_game_over_and_moves_log(make_user: Any, fake_engine: Any) -> None:
    variant = Variant.objects.create(game="fakegame", name="one", data={"hand_size": 1})
    ann, bob = make_user(), make_user()
    a, b = client_for(ann), client_for(bob)
    gid = a.post("/api/games/", {"variant": variant.pk, "seats": [{"type": "human"}] * 2},
                 format="json").json()["id"]
    b.post(f"/api/games/{gid}/join/", {}, format="json")
    game = Game.objects.get(pk=gid)
    assert act(a, game, {"play": 0}, 0).status_code == 200
    log_a = a.get(f"/api/games/{gid}/moves/").json()
    log_b = b.get(f"/api/games/{gid}/moves/").json()
    assert log_a[0]["action"] == {"play": 0} and "action" not in log_b[0]
    assert log_a[0]["seq"] == 1 and log_a[0]["seat"] == 0 and log_a[0]["event"]
    r = act(b, game, {"play": 0}, 1)
    assert r.status_code == 200 and r.json()["status"] == "finished"
    assert set(r.json()["result"]) == {"scores", "winners"}
    r = act(a, game, {"play": 0}, 2)
    assert r.status_code == 409 and r.json()["code"] == "game_not_running"
    public = APIClient().get(f"/api/games/{gid}/moves/").json()
    assert [m["action"] for m in public] == [{"play": 0}, {"play": 0}]
    assert APIClient().get("/api/games/999999/moves/").status_code == 404


def test_actions_are_throttled(table: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    game, ann, _ = table
    monkeypatch.setitem(api_settings.DEFAULT_THROTTLE_RATES, "moves", "2/minute")
    codes = [act(client_for(ann), game, {"play": 99}, 0).status_code for _ in range(4)]
    assert codes[-1] == 429


# --- schema ---------------------------------------------------------------------------------


def test_openapi_schema_documents_every_route(db: None) -> None:
    r = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200
    paths = r.json()["paths"]
    for route in ["/api/auth/register/", "/api/auth/token/", "/api/variants/", "/api/games/",
                  "/api/games/{game_id}/", "/api/games/{game_id}/join/",
                  "/api/games/{game_id}/actions/", "/api/games/{game_id}/moves/"]:
        assert route in paths, route
    actions = paths["/api/games/{game_id}/actions/"]["post"]
    assert {"200", "403", "409", "422"} <= set(actions["responses"])
    assert APIClient().get("/api/docs/").status_code == 200
