"""Sockets that fail loudly: a broken channel layer or a logged-out session closes them.

Socket messages are hints, so the one thing a socket must never do is stay open and
silent while the hints are lost.  Each web process runs one monitor (an asyncio task,
started by the first socket) that probes the channel layer's Redis every
``CHECK_SECONDS``.  When Redis fails -- or restarted, which loses every subscription --
the monitor closes the process's sockets with 1011: the client shows "Connection lost",
reconnects with a backoff (the HTMX WebSocket extension retries on 1006/1011/1012/1013)
and refetches its view once the socket is back, so every viewer catches up.

``SocketHealthMixin`` gives consumers the shared pieces: registration with the monitor,
a join that closes with 1011 when the layer is down, a discard that never raises, and
``session_ok`` before a signed-in viewer's push: a socket stops showing a seat's hand the
moment its session ends.  That check costs no query per push: a deleted session (log-out,
flush) sends a ``session.ended`` hint to its person's sockets at once
(``games.live.receivers``), which re-check their own session then; otherwise a socket
re-reads its session at most every ``SESSION_RECHECK_SECONDS`` (what no signal tells: a
session that expired, or that a password change elsewhere made stale).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from importlib import import_module
from types import SimpleNamespace
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from django.conf import settings

logger = logging.getLogger(__name__)

#: Seconds between two probes of the channel layer (per web process, not per socket).
CHECK_SECONDS = 2.0
#: Seconds a signed-in socket trusts its last session check (see the module docstring).
SESSION_RECHECK_SECONDS = 10.0
#: Close codes: the layer failed (the client retries), the session ended, no such thing.
CLOSE_LAYER_FAILED = 1011
CLOSE_SESSION_ENDED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_NOT_FINISHED = 4409

_sockets: weakref.WeakSet = weakref.WeakSet()
_monitors: dict[int, asyncio.Task] = {}  # one per event loop
_clients: dict[int, Any] = {}


def _layer_error(exc: BaseException) -> bool:
    """True for the errors of an unreachable channel layer (Redis)."""
    if isinstance(exc, ConnectionError | OSError | TimeoutError):
        return True
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, RedisConnectionError | RedisTimeoutError)


def _redis_url() -> str | None:
    """The channel layer's Redis, or ``None`` for a layer without one (in-memory)."""
    layer = settings.CHANNEL_LAYERS.get("default", {})
    if "redis" not in layer.get("BACKEND", "").lower():
        return None
    hosts = layer.get("CONFIG", {}).get("hosts") or []
    if not hosts:
        return None
    host = hosts[0]
    return host if isinstance(host, str) else host.get("address")


async def probe() -> tuple[bool, str | None]:
    """``(healthy, server id)`` of the channel layer; the id changes when Redis restarts."""
    url = _redis_url()
    if url is None:
        return True, None
    import redis.asyncio as aioredis

    loop = asyncio.get_running_loop()
    owner, client = _clients.get(id(loop), (None, None))
    if client is None or owner is not loop:  # (an id can be reused by a later loop)
        client = aioredis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
        _clients[id(loop)] = (loop, client)
    try:
        info = await client.info("server")
    except Exception:
        return False, None
    return True, str(info.get("run_id", ""))


async def close_all(code: int = CLOSE_LAYER_FAILED) -> int:
    """Close every socket of this process (they will reconnect and refetch); how many."""
    sockets = list(_sockets)
    for socket in sockets:
        with contextlib.suppress(Exception):  # already gone
            await socket.close(code=code)
    return len(sockets)


async def _monitor() -> None:
    server_id: str | None = None
    while _sockets:
        healthy, current = await probe()
        if not healthy:
            closed = await close_all()
            logger.warning("channel layer unavailable: closed %d socket(s); clients will "
                           "reconnect and refetch", closed)
        elif server_id and current and current != server_id:
            closed = await close_all()
            logger.warning("channel layer restarted (subscriptions lost): closed %d "
                           "socket(s) so clients resubscribe and refetch", closed)
        if healthy:
            server_id = current or server_id
        await asyncio.sleep(CHECK_SECONDS)


def _ensure_monitor() -> None:
    loop = asyncio.get_running_loop()
    task = _monitors.get(id(loop))
    # ``id`` of a closed loop can be reused by a new one: check the task's own loop.
    if task is None or task.done() or task.get_loop() is not loop:
        _monitors[id(loop)] = loop.create_task(_monitor())


class SocketHealthMixin:
    """For ``AsyncWebsocketConsumer`` subclasses (see the module docstring)."""

    group: str = ""
    #: Further groups joined with ``group`` (e.g. the viewer's own, for the nav).
    extra_groups: tuple[str, ...] = ()

    async def __call__(self, scope, receive, send) -> None:
        """Channels subscribes a socket to the layer before ``connect``: when the layer is
        down that raised, an HTTP 500 with a traceback.  Now the socket is accepted and
        closed with 1011 instead, which the client retries with its backoff."""
        accepted = False

        async def tracking_send(message: dict) -> None:
            nonlocal accepted
            accepted = accepted or message.get("type") == "websocket.accept"
            await send(message)

        try:
            await super().__call__(scope, receive, tracking_send)
        except Exception as exc:
            if accepted or not _layer_error(exc):
                raise
            logger.warning("channel layer unavailable before connect (%s): closing with %d",
                           exc.__class__.__name__, CLOSE_LAYER_FAILED)
            message = await receive()
            if message.get("type") == "websocket.connect":
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.close", "code": CLOSE_LAYER_FAILED})

    async def dispatch(self, message: dict) -> None:
        """Channels' dispatch without its per-message hop to the sync thread.

        ``AsyncConsumer.dispatch`` runs ``close_old_connections`` on the process's one
        sync thread before *every* message: with a thousand spectators that is a thousand
        thread hops per move, queued behind the HTTP views on that thread.  These consumers
        touch the database only through ``database_sync_to_async``, which closes stale
        connections around each call in the thread it runs in, so the hop adds nothing.
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def join_group(self, group: str, *extra: str) -> bool:
        """Accept and join ``group`` (and the ``extra`` groups); on a channel-layer failure
        close with 1011, False."""
        try:
            for name in (group, *extra):
                await self.channel_layer.group_add(name, self.channel_name)
        except Exception as exc:
            logger.warning("channel layer unavailable on connect (%s): closing with %d",
                           exc.__class__.__name__, CLOSE_LAYER_FAILED)
            await self.accept()
            await self.close(code=CLOSE_LAYER_FAILED)
            return False
        self.group = group
        self.extra_groups = extra
        await self.accept()
        _sockets.add(self)
        _ensure_monitor()
        return True

    async def reject(self, code: int) -> None:
        """Accept, then close with an application code the client can read (4xxx)."""
        await self.accept()
        await self.close(code=code)

    async def leave_group(self) -> None:
        _sockets.discard(self)
        for name in (self.group, *self.extra_groups):
            if not name:
                continue
            # The layer may be down: the subscription died with it.
            with contextlib.suppress(Exception):
                await self.channel_layer.group_discard(name, self.channel_name)

    _session_checked_at: float | None = None

    async def session_ok(self) -> bool:
        """Whether the viewer's session still stands (always, for anonymous viewers):
        re-read when the last check is older than ``SESSION_RECHECK_SECONDS``."""
        user = self.scope.get("user")
        if user is None or not getattr(user, "is_authenticated", False):
            return True
        now = time.monotonic()
        checked = self._session_checked_at
        if checked is not None and now - checked < SESSION_RECHECK_SECONDS:
            return True
        if not await database_sync_to_async(self.session_still_valid)():
            return False
        self._session_checked_at = now
        return True

    async def session_ended(self, event: dict) -> None:
        """A session of this viewer's person ended: re-check this socket's own at once,
        and close with 4401 if it was this one."""
        self._session_checked_at = None
        if not await self.session_ok():
            await self.close(code=CLOSE_SESSION_ENDED)

    def session_still_valid(self) -> bool:
        """False once the signed-in viewer's session has logged out (or changed user).

        Re-reads the session (sync: call through ``database_sync_to_async``); anonymous
        viewers see only public views, so there is nothing to re-check for them.
        """
        user = self.scope.get("user")
        if user is None or not getattr(user, "is_authenticated", False):
            return True
        session = self.scope.get("session")
        key = getattr(session, "session_key", None)
        if not key:
            return False
        from django.contrib.auth import get_user

        store = import_module(settings.SESSION_ENGINE).SessionStore(key)
        current = get_user(SimpleNamespace(session=store))
        return bool(current.is_authenticated and current.pk == user.pk)
