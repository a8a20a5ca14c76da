"""Hints to connected sockets that something changed (Channels groups).

Only ids and versions travel on the channel layer -- never a state, a view or the
seed: each consumer re-reads the game and renders its own viewer's ``observe``.
Sockets are hints (clients refetch on gaps), so a broken layer is logged, never raised.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import threading

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def game_group(game_id: int) -> str:
    """The Channels group of one game's sockets."""
    return f"game-{game_id}"


def user_group(user_id: int) -> str:
    """The Channels group of every socket a signed-in person has open (any page)."""
    return f"user-{int(user_id)}"


class _Publisher:
    """A process's own event loop (in a daemon thread) for hints sent from sync code.

    ``async_to_sync`` from a plain thread (a Celery worker, a management command) runs
    each call in a new event loop, and the Redis layer opens a new connection per loop:
    ~15 ms per hint, on every move.  One long-lived loop keeps one connection.  Only for
    the Redis layers: the in-memory layer (tests) must be used from its consumers' loop.
    """

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.pid = 0
        self.lock = threading.Lock()

    def _ensure(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.loop is None or self.pid != os.getpid() or self.loop.is_closed():
                loop = asyncio.new_event_loop()  # a forked child starts its own
                threading.Thread(target=loop.run_forever, name="colonia-hints",
                                 daemon=True).start()
                self.loop, self.pid = loop, os.getpid()
            return self.loop

    def send(self, layer, group: str, message: dict) -> None:
        future = asyncio.run_coroutine_threadsafe(layer.group_send(group, message),
                                                  self._ensure())
        future.result(timeout=PUBLISH_TIMEOUT)


#: Seconds a hint may take to publish before the move goes on without it.
PUBLISH_TIMEOUT = 5.0
_publisher = _Publisher()


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _connection_lost(exc: BaseException) -> bool:
    """True for a connection that broke (e.g. Redis restarted under it), not a timeout."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    return isinstance(exc, ConnectionError | RedisConnectionError)


def _send(group: str, message: dict) -> bool:
    """``group_send`` from sync code; False (and a log line) when it fails.

    A connection lost under the send is retried once: after a Redis restart the first
    publish finds the old connection closed ("Connection closed by server"), and redis-py
    drops that connection, so the retry opens a fresh one.  Without the retry that
    version's hint never reached the sockets.  A timeout is not retried (a hung Redis
    would hold the move twice as long).
    """
    for attempt in (1, 2):
        try:
            layer = get_channel_layer()
            if layer is None:
                return False
            if "redis" in type(layer).__module__ and not _in_event_loop():
                _publisher.send(layer, group, message)
            else:
                async_to_sync(layer.group_send)(group, message)
        except Exception as exc:  # a socket hint must never break a move
            if attempt == 1 and _connection_lost(exc):
                logger.info("channel layer connection lost (%s): notifying group %s again",
                            exc, group)
                continue
            logger.warning("channel layer unavailable: could not notify group %s", group,
                           exc_info=True)
            return False
        return True
    return False  # pragma: no cover - the loop always returns


def game_updated(game_id: int, version: int, *, seats: bool = True,
                 whole: bool = False) -> bool:
    """Tell the game's sockets that it reached ``version``.

    ``hint`` is a random id of this notice: sockets of one viewer kind share one render
    per hint (``games.live.fragment_cache``); it says nothing about the game.  ``seats``:
    who sits where may have changed (a join, a departure...), so each signed-in socket
    looks its viewer's seat up again; a move leaves the seats as they were.  ``whole``:
    the log lost moves (an undo), so the pages get it whole rather than appended to.
    """
    message = {"type": "game.updated", "game_id": int(game_id), "version": int(version),
               "hint": secrets.token_hex(8), "seats": bool(seats)}
    if whole:
        message["whole"] = True
    return _send(game_group(game_id), message)


def session_ended(user_id: int) -> bool:
    """Tell a person's sockets that one of their sessions ended (each re-checks its own)."""
    return _send(user_group(user_id), {"type": "session.ended"})


def lobby_updated() -> bool:
    """Tell lobby sockets that the list of tables changed."""
    return _send(LOBBY_GROUP, {"type": "lobby.updated"})


def viewer_changed(user_ids: list[int]) -> bool:
    """Tell these people's sockets that something of theirs changed (a game of theirs:
    the nav's count of games waiting for them may have too); each socket re-renders the
    viewer's own fragment (``games.live.consumers.register_viewer_render``)."""
    ok = True
    for user_id in sorted(set(user_ids)):
        ok = _send(user_group(user_id), {"type": "viewer.changed"}) and ok
    return ok


def rematch_offered(game_id: int) -> bool:
    """Tell a finished game's sockets that a rematch table exists (or changed)."""
    return _send(game_group(game_id), {"type": "game.rematch", "game_id": int(game_id)})


def chat_updated(game_id: int) -> bool:
    """Tell a game's sockets that its chat changed (a message posted or removed).

    Each socket renders the chat for its own viewer (mutes differ); ``hint`` lets
    sockets of one kind share a render, as for ``game.updated``.
    """
    return _send(game_group(game_id), {"type": "chat.updated", "game_id": int(game_id),
                                       "hint": secrets.token_hex(8)})


def analysis_group(game_id: int) -> str:
    """The Channels group of the sockets watching one game's analysis."""
    return f"analysis-{int(game_id)}"


def analysis_progress(game_id: int, done: int, total: int, status: str) -> bool:
    """Tell a finished game's replay pages how far its analysis has got (numbers only)."""
    return _send(
        analysis_group(game_id),
        {"type": "analysis.progress", "game_id": int(game_id), "done": int(done),
         "total": int(total), "status": str(status)},
    )
