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

from games.broadcast import LOBBY_GROUP, analysis_group, game_group, user_group
from games.fragment_cache import cache as fragment_cache
from games.fragment_cache import changed_only, run_render, token_digest
from games.socket_health import (
    CLOSE_LAYER_FAILED,
    CLOSE_NOT_FINISHED,
    CLOSE_NOT_FOUND,
    CLOSE_SESSION_ENDED,
    SocketHealthMixin,
)

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


def _origin(scope) -> str:
    """``https://host`` of the page that opened the socket (checked against ALLOWED_HOSTS by
    the origin validator); invite links in pushed fragments are absolute."""
    for name, value in scope.get("headers", []):
        if name == b"origin":
            return value.decode("latin-1").rstrip("/")
    return ""


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


class _ViewerConsumer(SocketHealthMixin, AsyncWebsocketConsumer):
    """Failure handling (layer down, logout, unknown game) lives in ``games.socket_health``."""

    group: str = ""

    async def disconnect(self, code) -> None:
        await self.leave_group()

    nav_sent: str | None = None  # the nav's count as the page shows it

    def own_groups(self) -> tuple[str, ...]:
        """The signed-in viewer's own group (``turns.changed`` hints), none for anonymous."""
        user = self.scope.get("user")
        return (user_group(user.pk),) if getattr(user, "is_authenticated", False) else ()

    async def send_nav_now(self) -> None:
        """Send the nav's count once the socket is open: a game of the viewer's may have
        changed between the page's render and now (or while a socket was down), and the
        hints of that time reached no socket.  Later hints send it only when it changed."""
        if self.own_groups():
            try:
                html = await database_sync_to_async(self._render_nav)()
            except Exception:  # the first hint will then send it
                logger.warning("could not render the nav's count", exc_info=True)
                return
            self.nav_sent = html
            await self.send(text_data=html)

    def _render_nav(self) -> str:
        from games.turns.views import render_nav_turns

        with translation.override(self.language):
            return render_nav_turns(self.scope.get("user"), oob=True)

    async def turns_changed(self, event: dict) -> None:
        """A game of this viewer's changed: send the nav's count when it differs from the
        last one this socket sent (the page's own count at first)."""
        try:
            if not await database_sync_to_async(self.session_still_valid)():
                await self.close(code=CLOSE_SESSION_ENDED)
                return
            html = await database_sync_to_async(self._render_nav)()
        except Exception:
            logger.warning("socket push failed: closing with %d", CLOSE_LAYER_FAILED,
                           exc_info=True)
            await self.close(code=CLOSE_LAYER_FAILED)
            return
        if self.nav_sent != html:
            self.nav_sent = html
            await self.send(text_data=html)

    async def push(self, render) -> None:
        """Send ``render()`` (sync, run in a thread) if the session is still good.

        Closes with 4401 after a logout, 4404 when ``render`` returns ``None`` (the game
        is gone), 1011 when a backend fails (the client reconnects and refetches).
        """
        try:
            if not await database_sync_to_async(self.session_still_valid)():
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


class GameConsumer(_ViewerConsumer):
    """``/ws/games/<id>/``: pushes this viewer's board, hand, villages, log and status."""

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        exists = await database_sync_to_async(self._exists_and_nudge)()
        if not exists:
            await self.reject(CLOSE_NOT_FOUND)
            return
        self.user = self.scope.get("user")
        self.language = _language(self.scope)
        self.csrf = _csrf_token(self.scope)
        self.base_url = _origin(self.scope)
        self.sent: dict[str, str] = {}  # fragment id -> digest last sent on this socket
        if await self.join_group(game_group(self.game_id), *self.own_groups()):
            await self.send_nav_now()

    def _exists_and_nudge(self) -> bool:
        """Whether the game exists; a stalled AI turn is re-enqueued on the way."""
        from games.models import Game
        from games.services import nudge_if_stalled

        game = Game.objects.filter(pk=self.game_id).only(
            "id", "status", "version", "to_move", "updated_at", "started_at"
        ).first()
        if game is None:
            return False
        nudge_if_stalled(game=game)
        return True

    def _render(self, hinted: int) -> str | None:
        """This viewer's fragments; ``None`` once the game is gone.

        The log part holds the moves after the version before the hint's
        (``data-since``): the page that showed that version appends them, whatever
        version the game has reached since; any page further behind refetches.  So the
        fragments depend on the hint and the viewer kind only, and are shared.
        """
        from games.models import Game
        from games.play import render_fragments
        from games.selectors import get_game

        try:
            game = get_game(self.game_id)
        except Game.DoesNotExist:
            return None
        with translation.override(self.language):
            return render_fragments(game, self.user, csrf_token=self.csrf,
                                    base_url=self.base_url,
                                    log_since=min(max(hinted - 1, 0), game.version))

    def _render_end(self) -> str | None:
        """Only the end-of-game actions (a rematch was asked for)."""
        from games.models import Game
        from games.play import render_end_actions
        from games.selectors import get_game

        try:
            game = get_game(self.game_id)
        except Game.DoesNotExist:
            return None
        with translation.override(self.language):
            return render_end_actions(game, self.user, csrf_token=self.csrf)

    async def game_updated(self, event: dict) -> None:
        """A move (or a seat change) was committed: send this viewer's changed fragments.

        Rendered once per hint and viewer kind in this process, shared by every socket
        of that kind (``games.fragment_cache``); anonymous spectators need no database
        read at all when another socket already rendered the hint.
        """
        hinted = int(event.get("version") or 0)
        try:
            kind = await self._viewer_kind()
            if kind is None:  # logged out since the last push
                await self.close(code=CLOSE_SESSION_ENDED)
                return
            key = (self.game_id, event.get("hint") or event.get("version"), kind,
                   self.language)
            # Off the process's one thread for sync code: a render must not queue behind
            # the HTTP views that thread also runs (a small pool of its own).
            fragments = await fragment_cache.get(key, lambda: run_render(self._render, hinted))
        except Exception:
            logger.warning("socket push failed: closing with %d", CLOSE_LAYER_FAILED,
                           exc_info=True)
            await self.close(code=CLOSE_LAYER_FAILED)
            return
        if fragments is None:  # the game was deleted: nothing left to watch
            await self.close(code=CLOSE_NOT_FOUND)
            return
        html = changed_only(fragments, self.sent)
        if html:
            await self.send(text_data=html)

    def _render_chat(self) -> str | None:
        """This viewer's chat log (their mutes apply); ``None`` once the game is gone."""
        from games.chat.render import render_chat
        from games.models import Game

        game = Game.objects.filter(pk=self.game_id).first()
        if game is None:
            return None
        with translation.override(self.language):
            return render_chat(game, self.user, csrf_token=self.csrf)

    async def chat_updated(self, event: dict) -> None:
        """A chat message was posted or removed: send this viewer's chat log.

        Not part of the board's versioned fragments: anonymous spectators share one
        render per hint; a signed-in viewer's log is their own (mutes, staff buttons).
        """
        try:
            kind = await self._viewer_kind()
            if kind is None:  # logged out since the last push
                await self.close(code=CLOSE_SESSION_ENDED)
                return
            if kind != "anon":
                kind = f"user{self.user.pk}-{token_digest(self.csrf)}"
            key = (self.game_id, "chat", event.get("hint"), kind, self.language)

            fragments = await fragment_cache.get(key, lambda: run_render(self._render_chat),
                                                 "chat")
        except Exception:
            logger.warning("socket push failed: closing with %d", CLOSE_LAYER_FAILED,
                           exc_info=True)
            await self.close(code=CLOSE_LAYER_FAILED)
            return
        if fragments is None:
            await self.close(code=CLOSE_NOT_FOUND)
            return
        html = changed_only(fragments, self.sent)
        if html:
            await self.send(text_data=html)

    async def game_rematch(self, event: dict) -> None:
        """Someone asked for a rematch: refresh this viewer's end-of-game actions."""
        await self.push(self._render_end)

    async def _viewer_kind(self) -> str | None:
        """``anon``, ``member-…`` or ``seat<N>-…`` (see games.fragment_cache); ``None``
        once the signed-in viewer's session has ended."""
        if not getattr(self.user, "is_authenticated", False):
            return "anon"
        return await database_sync_to_async(self._member_kind)()

    def _member_kind(self) -> str | None:
        from games.models import Seat

        if not self.session_still_valid():
            return None
        seat = (Seat.objects.filter(game_id=self.game_id, user=self.user)
                .values_list("index", flat=True).first())
        tag = token_digest(self.csrf)
        return f"member-{tag}" if seat is None else f"seat{seat}-{tag}"


class LobbyConsumer(_ViewerConsumer):
    """``/ws/lobby/``: pushes the open-tables (and my-games) fragment on every change."""

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.language = _language(self.scope)
        self.csrf = _csrf_token(self.scope)
        if await self.join_group(LOBBY_GROUP, *self.own_groups()):
            await self.send_nav_now()

    def _render(self) -> str:
        from games.views import render_open_tables

        with translation.override(self.language):
            return render_open_tables(self.user, csrf_token=self.csrf)

    async def lobby_updated(self, event: dict) -> None:
        await self.push(self._render)


class AnalysisConsumer(_ViewerConsumer):
    """``/ws/games/<id>/analysis/``: the progress bar of a finished game's analysis.

    Only finished games have analyses (a running game's would leak what each seat
    knows): another game is refused with 4409, an unknown one with 4404.  The channel
    layer carries ``{"type": "analysis.progress", game_id, done, total, status}``; the
    bar is drawn from those numbers alone (no database read), and once the analysis ends
    the fragment asks the page to refetch the panel over HTTP.
    """

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        status = await database_sync_to_async(self._status)()
        if status is None:
            await self.reject(CLOSE_NOT_FOUND)
            return
        if status != "finished":
            await self.reject(CLOSE_NOT_FINISHED)
            return
        self.language = _language(self.scope)
        await self.join_group(analysis_group(self.game_id))

    def _status(self) -> str | None:
        from games.models import Game

        return Game.objects.filter(pk=self.game_id).values_list("status", flat=True).first()

    async def analysis_progress(self, event: dict) -> None:
        from django.template.loader import render_to_string
        from django.urls import reverse

        status = str(event.get("status", ""))
        with translation.override(self.language):
            html = render_to_string("games/partials/analysis_panel.html#progress", {"p": {
                "oob": True,
                "status": status,
                "done": int(event.get("done", 0)),
                "total": int(event.get("total", 0)),
                "panel_url": reverse("analysis_panel", args=[self.game_id]),
            }})
        await self.send(text_data=html)
