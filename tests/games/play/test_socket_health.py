"""Sockets fail loudly: unknown routes, logouts and a broken channel layer close them."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from socket_support import TIMEOUT, connect, logged_in_session, play_first_legal, setup_game

from config.asgi import application
from games.live import broadcast, socket_health
from games.routing import websocket_urlpatterns

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def short_lived_connections(monkeypatch):
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)


async def closed_with(communicator: WebsocketCommunicator) -> int | None:
    """The close code of the next output (skipping pushes), None if no close came."""
    while True:
        output = await communicator.receive_output(timeout=TIMEOUT)
        if output["type"] == "websocket.close":
            return output.get("code")


@pytest.mark.parametrize("path", ["/ws/nowhere/", "/ws/games/abc/", "/ws/games/%00/"])
async def test_unknown_websocket_route_closes_with_4404(path: str) -> None:
    """An unknown path was an HTTP 500 with a traceback in the log."""
    communicator = WebsocketCommunicator(
        application, path, headers=[(b"origin", b"http://localhost"), (b"host", b"localhost")])
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    assert await closed_with(communicator) == 4404


async def test_socket_closes_on_logout_before_pushing_a_private_hand() -> None:
    game, (ann, _bob, _eve) = await setup_game()
    socket = await connect(f"/ws/games/{game.pk}/", ann)
    await play_first_legal(game, ann, 0, "m1")
    assert "data-hand-tile" in await socket.receive_from(timeout=TIMEOUT)
    # Ann logs out (her session is flushed) ...
    await database_sync_to_async(socket.scope["session"].flush)()
    await database_sync_to_async(broadcast.game_updated)(
        game.pk, 1)
    # ... and the next hint closes the socket instead of sending her hand again.
    output = await socket.receive_output(timeout=TIMEOUT)
    assert output == {"type": "websocket.close", "code": 4401}


async def test_spectator_socket_needs_no_session() -> None:
    from django.contrib.auth.models import AnonymousUser

    game, (ann, _bob, _eve) = await setup_game()
    socket = await connect(f"/ws/games/{game.pk}/", AnonymousUser())
    await play_first_legal(game, ann, 0, "m1")
    assert 'data-version="1"' in await socket.receive_from(timeout=TIMEOUT)
    await socket.disconnect()


async def test_channel_layer_failure_on_connect_closes_with_1011(monkeypatch) -> None:
    from channels.layers import get_channel_layer

    game, (ann, _bob, _eve) = await setup_game()

    async def broken(self, group, channel):
        raise ConnectionRefusedError("Connection refused")

    # The configured layer (in memory, or Redis when REDIS_URL is set).
    monkeypatch.setattr(type(get_channel_layer()), "group_add", broken, raising=False)
    from channels.routing import URLRouter


    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns),
                                         f"/ws/games/{game.pk}/")
    communicator.scope["user"] = ann
    communicator.scope["session"] = await logged_in_session(ann)
    await communicator.connect(timeout=TIMEOUT)
    assert await closed_with(communicator) == 1011  # the client retries with a backoff


@pytest.mark.parametrize("event", ["down", "restarted"])
async def test_monitor_closes_sockets_when_the_layer_fails_or_restarts(monkeypatch,
                                                                       event: str) -> None:
    """Redis down (or restarted, losing the subscriptions): sockets close with 1011, so the
    client shows "Connection lost", reconnects and refetches instead of staying silent."""
    game, (ann, bob, _eve) = await setup_game()
    monkeypatch.setattr(socket_health, "CHECK_SECONDS", 0.05)
    answers = iter([(True, "run-1")] * 2 + [(False, None) if event == "down"
                                             else (True, "run-2")] + [(True, "run-2")] * 1000)
    # Healthy until both sockets are in (on a busy machine connecting takes longer than a
    # few checks), then the answers above.
    connected = asyncio.Event()

    async def probe():
        return next(answers) if connected.is_set() else (True, "run-1")

    monkeypatch.setattr(socket_health, "probe", probe)
    sockets = [await connect(f"/ws/games/{game.pk}/", user) for user in (ann, bob)]
    connected.set()
    codes = await asyncio.gather(*(closed_with(s) for s in sockets))
    assert codes == [1011, 1011]


async def test_layer_down_before_connect_closes_with_1011_not_a_500(monkeypatch) -> None:
    """Channels subscribes the socket before ``connect``: with Redis down that was an HTTP
    500 (and a traceback); now a close the client retries."""
    from channels.layers import get_channel_layer
    from channels.routing import URLRouter


    game, (ann, _bob, _eve) = await setup_game()

    async def refused(self, prefix="specific."):
        raise ConnectionRefusedError("Connection refused")

    monkeypatch.setattr(type(get_channel_layer()), "new_channel", refused, raising=False)
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns),
                                         f"/ws/games/{game.pk}/")
    communicator.scope["user"] = ann
    communicator.scope["session"] = await logged_in_session(ann)
    await communicator.connect(timeout=TIMEOUT)
    assert await closed_with(communicator) == 1011
