"""WebSocket consumers: each connected viewer gets *their own* fragments pushed live.

The channel layer carries only hints (``{"type": "game.updated", "game_id", "version"}``
and ``{"type": "lobby.updated"}``): on a hint each consumer re-reads the game and renders
the fragments from ``observe`` for its own viewer's seat, then sends them as HTMX
out-of-band swaps.  Every fragment root carries ``data-version``; the client script
(static/js/colonia.js) ignores old versions and refetches on a gap or a reconnect.
"""

from __future__ import annotations

import logging
from http.cookies import SimpleCookie

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils import translation

from games.broadcast import LOBBY_GROUP, game_group

logger = logging.getLogger(__name__)


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


def _language(scope) -> str:
    lang = _cookies(scope).get(settings.LANGUAGE_COOKIE_NAME, "")
    codes = {code for code, _name in settings.LANGUAGES}
    return lang if lang in codes else settings.LANGUAGE_CODE


def _csrf_token(scope) -> str:
    """A masked CSRF token for forms in pushed fragments (HTMX also sends the header)."""
    secret = _cookies(scope).get(settings.CSRF_COOKIE_NAME, "")
    if not secret:
        return ""
    try:
        from django.middleware.csrf import _mask_cipher_secret

        return _mask_cipher_secret(secret)
    except Exception:
        return ""


class _ViewerConsumer(AsyncWebsocketConsumer):
    group: str = ""

    async def disconnect(self, code) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """Clients do not talk over the socket: actions are form POSTs."""


class GameConsumer(_ViewerConsumer):
    """``/ws/games/<id>/``: pushes this viewer's board, hand, villages, log and status."""

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        exists = await database_sync_to_async(self._exists)()
        if not exists:
            await self.close(code=4404)
            return
        self.user = self.scope.get("user")
        self.language = _language(self.scope)
        self.csrf = _csrf_token(self.scope)
        self.group = game_group(self.game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    def _exists(self) -> bool:
        from games.models import Game

        return Game.objects.filter(pk=self.game_id).exists()

    def _render(self) -> str | None:
        """This viewer's fragments; ``None`` once the game is gone."""
        from games.models import Game
        from games.selectors import get_game
        from games.views import render_fragments

        try:
            game = get_game(self.game_id)
        except Game.DoesNotExist:
            return None
        with translation.override(self.language):
            return render_fragments(game, self.user, csrf_token=self.csrf)

    async def game_updated(self, event: dict) -> None:
        """A move (or a seat change) was committed: send this viewer's fragments."""
        html = await database_sync_to_async(self._render)()
        if html is None:  # the game was deleted: nothing left to watch
            await self.close(code=4404)
            return
        await self.send(text_data=html)


class LobbyConsumer(_ViewerConsumer):
    """``/ws/lobby/``: pushes the open-tables (and my-games) fragment on every change."""

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.language = _language(self.scope)
        self.csrf = _csrf_token(self.scope)
        self.group = LOBBY_GROUP
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    def _render(self) -> str:
        from games.views import render_open_tables

        with translation.override(self.language):
            return render_open_tables(self.user, csrf_token=self.csrf)

    async def lobby_updated(self, event: dict) -> None:
        html = await database_sync_to_async(self._render)()
        await self.send(text_data=html)
