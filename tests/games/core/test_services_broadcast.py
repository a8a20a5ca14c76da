"""Socket hints: only ids and versions on the channel layer, and never an exception."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from games.core.services import submit_action
from games.live import broadcast
from games.models import Variant
from games.tables.services import create_game, join_game


@pytest.mark.asyncio
async def test_game_updated_reaches_the_game_group() -> None:
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("game-7", channel)
    await layer.group_add("lobby", channel)
    try:
        assert await sync_to_async(broadcast.game_updated)(7, 3) is True
        message = await asyncio.wait_for(layer.receive(channel), 5)
        hint = message.pop("hint")  # a random id of this notice (renders are shared by it)
        # Ids, a version and whether the seats may have changed: nothing of the game.
        assert message == {"type": "game.updated", "game_id": 7, "version": 3,
                           "seats": True}
        assert len(hint) == 16 and int(hint, 16) >= 0
        assert await sync_to_async(broadcast.game_updated)(7, 3) is True
        again = await asyncio.wait_for(layer.receive(channel), 5)
        assert again["hint"] != hint
        assert await sync_to_async(broadcast.lobby_updated)() is True
        assert await asyncio.wait_for(layer.receive(channel), 5) == {"type": "lobby.updated"}
    finally:
        await layer.group_discard("game-7", channel)
        await layer.group_discard("lobby", channel)


def test_a_broken_layer_is_logged_not_raised(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    class DownLayer:
        async def group_send(self, group: str, message: dict) -> None:
            raise ConnectionError("redis is down")

    monkeypatch.setattr(broadcast, "get_channel_layer", lambda: DownLayer())
    assert broadcast.game_updated(1, 2) is False
    assert broadcast.lobby_updated() is False
    assert "could not notify group game-1" in caplog.text


@pytest.mark.django_db
def test_services_send_hints_after_commit(
    variant: Variant, make_user: Any, on_commit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[Any] = []
    monkeypatch.setattr(broadcast, "game_updated",
                        lambda g, v, **_kw: sent.append(("game", g, v)))
    monkeypatch.setattr(broadcast, "lobby_updated", lambda: sent.append(("lobby",)))
    ann, bob = make_user(), make_user()
    with on_commit():
        game = create_game(creator=ann, variant=variant,
                                    seats=[{"type": "human"}] * 2)
    assert sent == [("game", game.pk, 0), ("lobby",)]
    sent.clear()
    with on_commit():
        join_game(game=game, user=bob)
    assert sent == [("game", game.pk, 0), ("lobby",)]
    sent.clear()
    # A hint that fails after commit never undoes or breaks the move.
    monkeypatch.setattr(broadcast, "game_updated", lambda g, v, **_kw: 1 / 0)
    with on_commit():
        game = submit_action(game=game, user=ann, seat=0, action={"play": 0},
                                      version=0, key="a")
    assert game.version == 1
