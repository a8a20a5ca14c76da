"""The game's socket: each viewer of a table gets *their own* fragments, live.

On a ``game.updated`` hint (``games.play.receivers``, after each commit) it renders the
viewer's fragments from ``observe`` for their seat (``games.play.page``), once per hint and
kind of viewer in this process, and sends only what changed; the table chat, the
end-of-game actions and the nav's count ride on the same socket.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from django.utils import translation

from games.ai_turns.services import nudge_if_stalled
from games.chat.selectors import chat_mark, render_chat
from games.core.selectors import get_game
from games.live.broadcast import game_group
from games.live.consumers import ViewerConsumer, scope_csrf_token, scope_language, scope_origin
from games.live.fragment_cache import cache as fragment_cache
from games.live.fragment_cache import changed_only, run_render, split_fragments, token_digest
from games.live.socket_health import CLOSE_LAYER_FAILED, CLOSE_NOT_FOUND, CLOSE_SESSION_ENDED
from games.models import Game, Seat
from games.play.page import render_end_actions, render_fragments

logger = logging.getLogger(__name__)


class HintLoads:
    """The game as read for one hint, shared by the renders of every viewer kind in this
    process (thread-safe: the renders run on a small pool).

    A move used to be read once per viewer kind (spectators, each seat, each signed-in
    spectator's CSRF token) in every web process.  The first render of a hint reads it;
    the others of the same hint wait for that read (at most ``WAIT`` seconds) and share
    it; the entry is dropped once ``size`` newer hints came.  The instance is only read.
    """

    WAIT = 5.0

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._loaded: OrderedDict[tuple, Any] = OrderedDict()
        self._loading: dict[tuple, threading.Event] = {}
        self.loads = 0  # reads made (tests and measurements)

    def get(self, key: tuple, load: Callable[[], Any]) -> Any:
        """``load()``'s result for ``key``, read once however many renders ask."""
        with self._lock:
            if key in self._loaded:
                return self._loaded[key]
            event = self._loading.get(key)
            first = event is None
            if first:
                event = self._loading[key] = threading.Event()
        if not first:
            event.wait(self.WAIT)
            with self._lock:
                if key in self._loaded:
                    return self._loaded[key]
            return load()  # the first read failed or is stuck: read for ourselves
        try:
            value = load()
            with self._lock:
                self.loads += 1
                self._loaded[key] = value
                while len(self._loaded) > self.size:
                    self._loaded.popitem(last=False)
            return value
        finally:
            with self._lock:
                self._loading.pop(key, None)
            event.set()


hint_loads = HintLoads()


def get_game_or_none(game_id: int) -> Game | None:
    """The game with its seats, or ``None`` once it is gone."""
    try:
        return get_game(game_id)
    except Game.DoesNotExist:
        return None


def page_marks(query_string: bytes) -> tuple[int | None, str | None]:
    """The version and chat mark a page says it shows (``?v=…&chat=…``); ``None`` for
    what it does not say (or says in a form that is not one)."""
    try:
        query = parse_qs(query_string.decode("ascii"))
    except UnicodeDecodeError:
        return None, None
    raw_version = (query.get("v") or [""])[0]
    version = int(raw_version) if raw_version.isdigit() and len(raw_version) < 12 else None
    chat = (query.get("chat") or [None])[0]
    return version, (chat[:40] if chat else None)


class GameConsumer(ViewerConsumer):
    """``/ws/games/<id>/``: pushes this viewer's board, hand, villages, log and status."""

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        exists = await database_sync_to_async(self._exists_and_nudge)()
        if not exists:
            await self.reject(CLOSE_NOT_FOUND)
            return
        self.user = self.scope.get("user")
        self.language = scope_language(self.scope)
        self.csrf = scope_csrf_token(self.scope)
        self.base_url = scope_origin(self.scope)
        self.sent: dict[str, str] = {}  # fragment id -> digest last sent on this socket
        if await self.join_group(game_group(self.game_id), *self.own_groups()):
            await self.send_viewer_fragment()
            await self.send_what_the_page_missed()

    async def send_what_the_page_missed(self) -> None:
        """Send what changed between the page's render and this socket's joining.

        The page says what it shows on the socket's address (``?v=<version>&chat=<mark>``,
        see ``games.play.page`` and ``games.chat.selectors.chat_mark``); the hints of that
        time reached no socket of this page.  Read after joining the group, so a change
        is either seen here or hinted later.  Nothing is sent when the page is up to date:
        the page no longer refetches on the socket's first open, which redrew every panel
        and could swallow the click a person made meanwhile.
        """
        shown, chat_shown = page_marks(self.scope.get("query_string", b""))
        if shown is None and chat_shown is None:
            return
        try:
            version, chat_now = await database_sync_to_async(self._marks_now)()
            renders = []
            if version is not None and shown is not None and version > shown:
                # The log whole, not appended from the page's version: a move taken back
                # (a practice undo) in between would leave its row on the page.  A page
                # more than one version behind then refetches (colonia.js), as it should.
                renders.append(await run_render(self._render, shown + 1,
                                                f"connect-{version}", True))
            if chat_now is not None and chat_shown is not None and chat_now != chat_shown:
                renders.append(await run_render(self._render_chat))
            html = "".join(changed_only(split_fragments(r), self.sent) for r in renders if r)
        except Exception:  # the next hint, or the page's reconnect, brings it
            logger.warning("could not send what the page missed", exc_info=True)
            return
        if html:
            await self.send(text_data=html)

    def _marks_now(self) -> tuple[int | None, str | None]:
        """The game's version and chat mark now (``None``s once the game is gone)."""
        version = Game.objects.filter(pk=self.game_id).values_list("version", flat=True).first()
        if version is None:
            return None, None
        return version, chat_mark(self.game_id)

    def _exists_and_nudge(self) -> bool:
        """Whether the game exists; a stalled AI turn is re-enqueued on the way."""

        game = Game.objects.filter(pk=self.game_id).only(
            "id", "status", "version", "to_move", "updated_at", "started_at"
        ).first()
        if game is None:
            return False
        nudge_if_stalled(game=game)
        return True

    def _render(self, hinted: int, hint: str, whole: bool = False) -> str | None:
        """This viewer's fragments; ``None`` once the game is gone.

        The log part holds the moves after the version before the hint's
        (``data-since``): the page that showed that version appends them, whatever
        version the game has reached since; any page further behind refetches.  So the
        fragments depend on the hint and the viewer kind only, and are shared.  The game
        is read once per hint in this process, whatever the number of viewer kinds.
        ``whole``: the log lost moves (an undo): it is sent whole, replacing the page's.
        """
        game = hint_loads.get((self.game_id, hint), lambda: get_game_or_none(self.game_id))
        if game is None:
            return None
        with translation.override(self.language):
            return render_fragments(game, self.user, csrf_token=self.csrf,
                                    base_url=self.base_url,
                                    log_since=None if whole
                                    else min(max(hinted - 1, 0), game.version))

    def _render_end(self) -> str | None:
        """Only the end-of-game actions (a rematch was asked for)."""

        try:
            game = get_game(self.game_id)
        except Game.DoesNotExist:
            return None
        with translation.override(self.language):
            return render_end_actions(game, self.user, csrf_token=self.csrf)

    async def game_updated(self, event: dict) -> None:
        """A move (or a seat change) was committed: send this viewer's changed fragments.

        Rendered once per hint and viewer kind in this process, shared by every socket
        of that kind (``games.live.fragment_cache``); anonymous spectators need no database
        read at all when another socket already rendered the hint.
        """
        hinted = int(event.get("version") or 0)
        try:
            kind = await self._viewer_kind(seats_changed=event.get("seats", True))
            if kind is None:  # logged out since the last push
                await self.close(code=CLOSE_SESSION_ENDED)
                return
            key = (self.game_id, event.get("hint") or event.get("version"), kind,
                   self.language)
            # Off the process's one thread for sync code: a render must not queue behind
            # the HTTP views that thread also runs (a small pool of its own).
            hint = str(event.get("hint") or event.get("version"))
            whole = bool(event.get("whole"))
            fragments = await fragment_cache.get(
                key, lambda: run_render(self._render, hinted, hint, whole))
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
            kind = await self._viewer_kind(seats_changed=False)
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

    #: The signed-in viewer's kind as last looked up (their seat changes only with a
    #: ``seats`` hint: a join, a departure...).
    member_kind: str | None = None

    async def _viewer_kind(self, *, seats_changed: bool = True) -> str | None:
        """``anon``, ``member-…`` or ``seat<N>-…`` (see games.live.fragment_cache); ``None``
        once the signed-in viewer's session has ended.  No query for a push that leaves
        the seats as they were (a move), nor for the session between its checks."""
        if not getattr(self.user, "is_authenticated", False):
            return "anon"
        if not await self.session_ok():
            return None
        if seats_changed or self.member_kind is None:
            self.member_kind = await database_sync_to_async(self._member_kind)()
        return self.member_kind

    def _member_kind(self) -> str:
        seat = (Seat.objects.filter(game_id=self.game_id, user=self.user)
                .values_list("index", flat=True).first())
        tag = token_digest(self.csrf)
        return f"member-{tag}" if seat is None else f"seat{seat}-{tag}"
