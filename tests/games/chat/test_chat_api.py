"""The table chat in the REST API: the same rules as the play page's chat, the API's one
error shape, and the OpenAPI schema."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.chat import services
from games.models import ChatMessage, Game

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("clear_cache")]


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _created = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def url(game: Game) -> str:
    return f"/api/games/{game.pk}/chat/"


def test_players_and_signed_in_spectators_post_everyone_reads(table, ann, eve):
    r = client_for(ann).post(url(table), {"text": "  hello <b>all</b>\x01 "}, format="json")
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["text"] == "hello <b>all</b>" and body["author"] == "ann"
    assert body["author_id"] == ann.pk and body["removed"] is False and body["created_at"]
    assert client_for(eve).post(url(table), {"text": "a spectator"}, format="json"
                                ).status_code == 201
    for reader in (client_for(), client_for(eve)):
        r = reader.get(url(table))
        assert r.status_code == 200
        assert [m["text"] for m in r.json()] == ["hello <b>all</b>", "a spectator"]


def test_anonymous_cannot_post(table):
    r = client_for().post(url(table), {"text": "hi"}, format="json")
    assert r.status_code == 401
    assert set(r.json()) == {"detail", "code"} and r.json()["code"] == "not_authenticated"
    assert not ChatMessage.objects.exists()


def test_an_inactive_account_cannot_post(table, eve):
    client = client_for(eve)
    eve.is_active = False
    eve.save()
    assert client.post(url(table), {"text": "hi"}, format="json").status_code == 401
    assert not ChatMessage.objects.exists()


@override_settings(CHAT_MAX_LENGTH=20, CHAT_RATE_LIMIT=2)
@pytest.mark.parametrize(("body", "status", "code"), [
    ({"text": ""}, 400, "chat_invalid"),
    ({"text": " \n\x01"}, 400, "chat_invalid"),
    ({"text": "x" * 21}, 400, "chat_too_long"),
    ({}, 400, "invalid"),
    ({"text": 42}, 400, "invalid"),
])
def test_refusals_in_the_one_error_shape(table, ann, body, status, code):
    r = client_for(ann).post(url(table), body, format="json")
    assert r.status_code == status and r.json()["code"] == code and r.json()["detail"]
    assert not ChatMessage.objects.exists()


@override_settings(CHAT_RATE_LIMIT=2)
def test_the_same_rate_limit_as_the_page(table, ann):
    client = client_for(ann)
    for n in range(2):
        assert client.post(url(table), {"text": f"m{n}"}, format="json").status_code == 201
    r = client.post(url(table), {"text": "one too many"}, format="json")
    assert r.status_code == 429 and r.json()["code"] == "chat_rate_limited"
    assert ChatMessage.objects.count() == 2


def test_closed_chat_and_unknown_table(table, ann):
    Game.objects.filter(pk=table.pk).update(status=Game.Status.ABORTED)
    r = client_for(ann).post(url(table), {"text": "hi"}, format="json")
    assert r.status_code == 409 and r.json()["code"] == "chat_closed"
    r = client_for(ann).get("/api/games/999999/chat/")
    assert r.status_code == 404 and set(r.json()) == {"detail", "code"}
    r = client_for(ann).post("/api/games/999999/chat/", {"text": 5}, format="json")
    assert r.status_code == 404  # no such table, whatever the body says


def test_mutes_and_removed_messages_as_on_the_page(table, ann, bob, eve, make_user):
    services.post_message(game=table, user=bob, text="from bob")
    removed = services.post_message(game=table, user=ann, text="bad words")
    staff = make_user("mod")
    staff.is_staff = True
    staff.save()
    services.remove_message(message=removed, by=staff)
    services.mute(user=eve, muted_id=bob.pk)
    rows = client_for(eve).get(url(table)).json()
    assert [(m["author"], m["text"], m["removed"]) for m in rows] == [("ann", "", True)]
    assert len(client_for().get(url(table)).json()) == 2


def test_schema_documents_the_chat(db):
    paths = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json"
                            ).json()["paths"]
    chat = paths["/api/games/{game_id}/chat/"]
    assert {"200", "404"} <= set(chat["get"]["responses"])
    assert {"201", "400", "401", "409", "429"} <= set(chat["post"]["responses"])
