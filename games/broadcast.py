"""Hints to connected sockets that something changed (Channels groups).

Only ids and versions travel on the channel layer -- never a state, a view or the
seed: each consumer re-reads the game and renders its own viewer's ``observe``.
Sockets are hints (clients refetch on gaps), so a broken layer is logged, never raised.
"""

from __future__ import annotations

import logging
import secrets

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def game_group(game_id: int) -> str:
    """The Channels group of one game's sockets."""
    return f"game-{game_id}"


def _send(group: str, message: dict) -> bool:
    """``group_send`` from sync code; False (and a log line) when it fails."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return False
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # a socket hint must never break a move
        logger.warning("channel layer unavailable: could not notify group %s", group, exc_info=True)
        return False
    return True


def game_updated(game_id: int, version: int) -> bool:
    """Tell the game's sockets that it reached ``version``.

    ``hint`` is a random id of this notice: sockets of one viewer kind share one render
    per hint (``games.fragment_cache``); it says nothing about the game.
    """
    return _send(
        game_group(game_id),
        {"type": "game.updated", "game_id": int(game_id), "version": int(version),
         "hint": secrets.token_hex(8)},
    )


def lobby_updated() -> bool:
    """Tell lobby sockets that the list of tables changed."""
    return _send(LOBBY_GROUP, {"type": "lobby.updated"})
