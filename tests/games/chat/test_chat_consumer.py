"""The table chat over the game's socket: everyone watching gets it, with their mutes."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser

from games.chat import services as chat
from games.models import Variant
from games.routing import websocket_urlpatterns
from games.tables.services import create_game, join_game
from games.variants.services import load_default_variants

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

TIMEOUT = 5


@pytest.fixture(autouse=True)
def short_lived_connections(monkeypatch):
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)


@pytest.fixture(autouse=True)
def clear_cache():
    from django.core.cache import cache

    cache.clear()


@database_sync_to_async
def setup_game():
    load_default_variants(games=["newhaven"])
    users = [get_user_model().objects.create_user(username=n, password="x-unused-Pw9")
             for n in ("ann", "bob", "eve")]
    variant = Variant.objects.get(game="newhaven", name="standard")
    game = create_game(creator=users[0], variant=variant,
                       seats=[{"type": "human"}, {"type": "human"}])
    join_game(game=game, user=users[1])
    game.refresh_from_db()
    return game, users


@database_sync_to_async
def session_of(user):
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    if user.is_authenticated:
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.save()
    return store


async def connect(path, user):
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = user
    communicator.scope["session"] = await session_of(user)
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    if user.is_authenticated:  # a signed-in socket first sends the nav's count
        assert 'id="nav-turns"' in await communicator.receive_from(timeout=TIMEOUT)
    return communicator


async def test_a_message_reaches_players_and_spectators_with_their_mutes():
    game, (ann, bob, eve) = await setup_game()
    await database_sync_to_async(chat.mute)(user=eve, muted_id=bob.pk)
    path = f"/ws/games/{game.pk}/"
    sockets = {"ann": await connect(path, ann), "bob": await connect(path, bob),
               "eve": await connect(path, eve), "anon": await connect(path, AnonymousUser())}

    await database_sync_to_async(chat.post_message)(game=game, user=ann, text="hello <all>")
    pushed = {name: await s.receive_from(timeout=TIMEOUT) for name, s in sockets.items()}
    for html in pushed.values():
        assert html.lstrip().startswith('<ol id="chat-log"')
        assert "hello &lt;all&gt;" in html
        assert "data-version" not in html  # the board's fragments are not re-sent
    assert f'data-mute="{ann.pk}"' in pushed["bob"]
    assert "data-mute" not in pushed["anon"] and "data-mute" not in pushed["ann"]

    await database_sync_to_async(chat.post_message)(game=game, user=bob, text="bob here")
    for name in ("ann", "bob", "anon"):
        assert "bob here" in await sockets[name].receive_from(timeout=TIMEOUT)
    # Eve muted Bob: her chat did not change, so nothing is sent to her.
    for s in sockets.values():
        assert await s.receive_nothing(timeout=0.1)
        await s.disconnect()


async def test_a_removed_message_disappears_live():
    game, (ann, bob, _eve) = await setup_game()

    @database_sync_to_async
    def post_and_remove():
        message = chat.post_message(game=game, user=bob, text="bad words")
        ann.is_staff = True
        ann.save()
        return message

    socket = await connect(f"/ws/games/{game.pk}/", AnonymousUser())
    message = await post_and_remove()
    assert "bad words" in await socket.receive_from(timeout=TIMEOUT)
    await database_sync_to_async(chat.remove_message)(message=message, by=ann)
    html = await socket.receive_from(timeout=TIMEOUT)
    assert "bad words" not in html and "removed by a moderator" in html
    await socket.disconnect()
