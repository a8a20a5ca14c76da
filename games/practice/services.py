"""Writes of practice help: undo of the player's last move, asking for a hint.

Both are refused (``NotPractice``, nothing changed) unless the game is a practice game
for the caller's seat (``selectors.is_practice``): unrated, every other seat the AI.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache
from django.db import transaction

from games.core.errors import GameNotRunning, NotSeated, NotYourTurn
from games.core.selectors import get_game
from games.core.services import check_current, locked_game, repeated_request, rewind_moves
from games.models import Game, Rewind, Seat
from games.practice import tasks
from games.practice.errors import NothingToUndo, NotPractice, UndoRevealed
from games.practice.selectors import hint_key, is_practice, stored_hint, undo_check

logger = logging.getLogger(__name__)

#: Seconds a hint is "being searched" before an ask queues it again (a lost task).
PENDING_SECONDS = 120


def _practice_seat(game: Game, seats: list[Seat], user: Any) -> int:
    """``user``'s seat if ``game`` is a practice game for it; ``NotSeated`` or
    ``NotPractice`` otherwise."""
    seat = None
    if user is not None and getattr(user, "is_authenticated", False):
        seat = next((s.index for s in seats if s.user_id == user.pk), None)
    if seat is None:
        raise NotSeated(version=game.version)
    if not is_practice(game, seats, seat=seat):
        raise NotPractice(version=game.version)
    return seat


@transaction.atomic
def undo_last_move(*, game: Game | int, user: Any, version: int, key: str) -> Game:
    """Take back ``user``'s last move and every move after it (the AI's answers), back to
    their turn, in a practice game at ``version``; the game, updated.

    Checks, in order: the seat and the practice game (``NotSeated``, ``NotPractice``), a
    repeated ``key`` (the same person: the game unchanged, its hints sent again;
    another: ``KeyConflict``), the game runs (``GameNotRunning``), ``version`` is current
    (``StaleVersion``), there is a move to take back (``NothingToUndo``), and neither it
    nor an answer after it showed the player something they could not foresee -- a card
    or tile drawn, a card turned up (``UndoRevealed``: the same seed would deal it again,
    so a replay would be played knowing it; ``selectors.undo_check``).  The log is cut
    and the game refolded (``games.core.services.rewind_moves``): the version goes up and
    every viewer's page shows the position again.  Time spent is not given
    back; the player's clock runs again if it had stopped.
    """
    game = locked_game(game)
    seats = list(game.seats.all())
    seat = _practice_seat(game, seats, user)
    if isinstance(key, str) and key and repeated_request(
            game=game, seats=seats, model=Rewind, key=key,
            same=lambda previous: previous.seat == seat):
        return game
    check_current(game=game, version=version)
    undo = undo_check(game, seat)  # the one the page showed at this version, if cached
    if undo.last is None:
        raise NothingToUndo(version=game.version)
    if undo.blocked:
        raise UndoRevealed(version=game.version)
    return rewind_moves(game=game, seats=seats, seat=seat, from_seq=undo.last,
                        version=version, key=key)


def request_hint(*, game: Game | int, user: Any, version: int) -> dict:
    """Ask for ``user``'s hint at ``version`` in a practice game: what the cache holds
    (``{"status": "done", "moves": [...]}``), else ``{"status": "pending"}`` with the
    search queued on the worker -- once per version, however often it is asked.

    Refused (nothing queued): ``NotSeated``, ``NotPractice``, ``GameNotRunning``,
    ``StaleVersion`` (a hint for an old version is dropped), ``NotYourTurn``.
    """
    if isinstance(game, int):
        try:
            game = get_game(game)
        except Game.DoesNotExist:
            raise GameNotRunning() from None
    seats = list(game.seats.all())
    seat = _practice_seat(game, seats, user)
    check_current(game=game, version=version)
    if seat not in (game.to_move or []):
        raise NotYourTurn(version=game.version)
    found = stored_hint(game, version, seat)
    if found is not None and found.get("status") in ("done", "pending"):
        return found
    pending = {"status": "pending"}
    key = hint_key(game, version, seat)
    try:
        if found is not None:  # a failed search: ask again
            cache.delete(key)
        first = cache.add(key, pending, timeout=PENDING_SECONDS)
    except Exception:
        logger.warning("hint cache unavailable (add)", exc_info=True)
        first = True
    if first:
        game_id = game.pk
        transaction.on_commit(lambda: tasks.enqueue_hint(game_id, version, seat), robust=True)
    # An eager worker (tests, a one-process setup) has already stored it.
    return stored_hint(game, version, seat) or pending
