"""Sockets never carry another seat's perspective during a game, whatever a client asks for:
a socket opened with replay parameters (``?seat=0``, ``?seat=all``) still receives only its
own viewer's fragments."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import AnonymousUser
from socket_support import TIMEOUT, connect, hand_markers, play_first_legal, setup_game

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def short_lived_connections(monkeypatch):
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)


async def test_replay_parameters_on_a_socket_change_nothing():
    game, (ann, bob, eve) = await setup_game()
    base = f"/ws/games/{game.pk}/"
    sockets = {
        "bob": await connect(base + "?seat=0&step=0", bob),
        "bob_all": await connect(base + "?seat=all", bob),
        "eve": await connect(base + "?seat=0", eve),
        "anon": await connect(base + "?seat=all&perspective=all", AnonymousUser()),
    }
    await play_first_legal(game, ann, 0, "socket-replay-1")
    messages = {name: await s.receive_from(timeout=TIMEOUT) for name, s in sockets.items()}
    bob_tiles = await hand_markers(game, 1)
    for name in ("bob", "bob_all"):
        assert set(re.findall(r'data-hand-tile="([^"]*)"', messages[name])) == bob_tiles
        assert "end_build" not in messages[name]  # Ann's choices stay Ann's
    for name in ("eve", "anon"):
        assert "data-hand-tile" not in messages[name]
        assert "Spectators see no hand" in messages[name]
    for html in messages.values():
        assert "replay-seed" not in html and 'id="replay-revealed"' not in html
    for s in sockets.values():
        await s.disconnect()
