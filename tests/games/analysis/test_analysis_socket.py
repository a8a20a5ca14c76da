"""The analysis socket: who may connect, and the progress it pushes (numbers only)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from games.core.services import submit_action
from games.live import broadcast
from games.models import Game, Variant
from games.routing import websocket_urlpatterns
from games.tables.services import create_game, join_game

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]

TIMEOUT = 5


@pytest.fixture(autouse=True)
def short_lived_connections(monkeypatch):
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)


@database_sync_to_async
def make_game(variant: Variant, ann, bob, *, finish: bool) -> Game:
    game = create_game(creator=ann, variant=variant, seats=[{"type": "human"}] * 2)
    join_game(game=game, user=bob)
    game.refresh_from_db()
    users = {0: ann, 1: bob}
    while finish and game.status == Game.Status.RUNNING:
        seat = game.to_move[0]
        game = submit_action(game=game, user=users[seat], seat=seat,
                                      action={"play": 0}, version=game.version,
                                      key=f"k{game.version}")
    return game


async def open_socket(path: str):
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = AnonymousUser()
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    return communicator


async def test_unknown_and_running_games_are_refused(variant, ann, bob):
    socket = await open_socket("/ws/games/999999/analysis/")
    assert (await socket.receive_output(TIMEOUT))["code"] == 4404
    game = await make_game(variant, ann, bob, finish=False)
    socket = await open_socket(f"/ws/games/{game.pk}/analysis/")
    assert (await socket.receive_output(TIMEOUT))["code"] == 4409


async def test_a_finished_game_pushes_the_progress_bar_then_asks_for_the_panel(
        variant, ann, bob):
    game = await make_game(variant, ann, bob, finish=True)
    socket = await open_socket(f"/ws/games/{game.pk}/analysis/")
    await database_sync_to_async(broadcast.analysis_progress)(game.pk, 3, 6, "running")
    html = await socket.receive_from(TIMEOUT)
    assert 'id="analysis-progress"' in html and 'hx-swap-oob="true"' in html
    assert 'value="3"' in html and 'max="6"' in html and "hx-trigger=\"load\"" not in html
    await database_sync_to_async(broadcast.analysis_progress)(game.pk, 6, 6, "done")
    html = await socket.receive_from(TIMEOUT)
    assert f'hx-get="/games/{game.pk}/analysis/"' in html and 'hx-trigger="load"' in html
    await socket.disconnect()
