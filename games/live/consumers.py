"""The base of every page's socket: each connected viewer gets *their own* fragments.

The channel layer carries only hints (``{"type": "game.updated", "game_id", "version"}``,
``{"type": "lobby.updated"}``...): on a hint each consumer re-reads what changed and renders
the fragments for its own viewer, then sends them as HTMX out-of-band swaps.  Every
fragment root carries ``data-version``; the client script (static/js/colonia.js) ignores
old versions and refetches on a gap or a reconnect.  The features' consumers
(``games.play``, ``games.tables``, ``games.analysis``, ``games.editor``) build on
:class:`ViewerConsumer`.

A signed-in viewer's socket also carries their own fragment of every page (the nav's
count of games waiting for them): the feature that draws it registers its render with
:func:`register_viewer_render` (``games.turns``), and sends ``viewer.changed`` hints to
the person's group (``broadcast.viewer_changed``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from http.cookies import SimpleCookie
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.middleware.csrf import _mask_cipher_secret
from django.utils import translation

from games.live.broadcast import user_group
from games.live.socket_health import (
    CLOSE_LAYER_FAILED,
    CLOSE_NOT_FOUND,
    CLOSE_SESSION_ENDED,
    SocketHealthMixin,
)

logger = logging.getLogger(__name__)

#: Renders the signed-in viewer's own fragment as an out-of-band swap (``user`` ->
#: HTML); registered by the feature that draws it, none until then.
_viewer_render: Callable[[Any], str] | None = None


def register_viewer_render(render: Callable[[Any], str]) -> None:
    """Send ``render(user)`` on every signed-in socket: once it opens, and again on each
    ``viewer.changed`` hint when the HTML differs from what the socket sent last."""
    global _viewer_render
    _viewer_render = render


def _cookies(scope) -> dict[str, str]:
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            cookie = SimpleCookie()
            try:
                cookie.load(value.decode("latin-1"))
            except Exception:
                return {}
            return {k: m.value for k, m in cookie.items()}
    return {}


def scope_language(scope) -> str:
    """The viewer's language (their language cookie, else the site's default)."""
    lang = _cookies(scope).get(settings.LANGUAGE_COOKIE_NAME, "")
    codes = {code for code, _name in settings.LANGUAGES}
    return lang if lang in codes else settings.LANGUAGE_CODE


def scope_origin(scope) -> str:
    """``https://host`` of the page that opened the socket (checked against ALLOWED_HOSTS by
    the origin validator); invite links in pushed fragments are absolute."""
    for name, value in scope.get("headers", []):
        if name == b"origin":
            return value.decode("latin-1").rstrip("/")
    return ""


def scope_csrf_token(scope) -> str:
    """A masked CSRF token for forms in pushed fragments (HTMX also sends the header)."""
    secret = _cookies(scope).get(settings.CSRF_COOKIE_NAME, "")
    if not secret:
        return ""
    try:
        return _mask_cipher_secret(secret)
    except Exception:
        return ""


class ViewerConsumer(SocketHealthMixin, AsyncWebsocketConsumer):
    """Failure handling (layer down, logout, unknown game) lives in
    ``games.live.socket_health``."""

    group: str = ""

    async def disconnect(self, code) -> None:
        await self.leave_group()

    viewer_sent: str | None = None  # the viewer's own fragment as the page shows it

    def own_groups(self) -> tuple[str, ...]:
        """The signed-in viewer's own group (``viewer.changed`` hints), none for anonymous."""
        user = self.scope.get("user")
        return (user_group(user.pk),) if getattr(user, "is_authenticated", False) else ()

    async def send_viewer_fragment(self) -> None:
        """Send the viewer's own fragment once the socket is open: something of theirs may
        have changed between the page's render and now (or while a socket was down), and
        the hints of that time reached no socket.  Later hints send it only when it
        changed."""
        if self.own_groups() and _viewer_render is not None:
            try:
                html = await database_sync_to_async(self._render_viewer)()
            except Exception:  # the first hint will then send it
                logger.warning("could not render the viewer's own fragment", exc_info=True)
                return
            self.viewer_sent = html
            await self.send(text_data=html)

    def _render_viewer(self) -> str:
        with translation.override(self.language):
            return _viewer_render(self.scope.get("user"))

    async def viewer_changed(self, event: dict) -> None:
        """Something of this viewer's changed: send their own fragment when it differs
        from the last one this socket sent (the page's own at first)."""
        if _viewer_render is None:
            return
        try:
            if not await self.session_ok():
                await self.close(code=CLOSE_SESSION_ENDED)
                return
            html = await database_sync_to_async(self._render_viewer)()
        except Exception:
            logger.warning("socket push failed: closing with %d", CLOSE_LAYER_FAILED,
                           exc_info=True)
            await self.close(code=CLOSE_LAYER_FAILED)
            return
        if self.viewer_sent != html:
            self.viewer_sent = html
            await self.send(text_data=html)

    async def push(self, render) -> None:
        """Send ``render()`` (sync, run in a thread) if the session is still good.

        Closes with 4401 after a logout, 4404 when ``render`` returns ``None`` (the game
        is gone), 1011 when a backend fails (the client reconnects and refetches).
        """
        try:
            if not await self.session_ok():
                await self.close(code=CLOSE_SESSION_ENDED)
                return
            html = await database_sync_to_async(render)()
        except Exception:
            logger.warning("socket push failed: closing with %d", CLOSE_LAYER_FAILED,
                           exc_info=True)
            await self.close(code=CLOSE_LAYER_FAILED)
            return
        if html is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        await self.send(text_data=html)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """Clients do not talk over the socket: actions are form POSTs."""


