"""Clocks of the tables: the server keeps the time, pages only count it down.

A seat under a clock has a ``deadline`` while it is to move.  Live clocks bank the rest of
a turn in ``time_left`` (plus the increment, Fischer-style) when the seat's turn ends;
correspondence clocks give ``clock_days`` for each turn.  AI seats have no clock.
:func:`sync_clocks` runs in the transaction of each start and move (the tables listen to
``games.core.signals.game_changed``); a deadline that passes is applied by
``games.tables.services.apply_timeouts`` (the periodic sweep, page and API reads, a move
sent too late).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from games.models import Game, Seat

#: Bounds of a table's time control (seconds for live clocks, days for correspondence).
MIN_RESERVE, MAX_RESERVE = 1, 24 * 3600
MAX_INCREMENT = 3600
MIN_DAYS, MAX_DAYS = 1, 30


def turn_seconds(game: Game, seat: Seat) -> float | None:
    """The time the seat gets when its turn starts (``None``: no clock for it)."""
    if seat.is_ai or seat.user_id is None:
        return None
    if game.clock == Game.Clock.LIVE:
        return seat.time_left if seat.time_left is not None else float(game.clock_reserve)
    if game.clock == Game.Clock.CORRESPONDENCE:
        return float(game.clock_days) * 86400
    return None


def sync_clocks(game: Game, seats: list[Seat], now: datetime, *,
                mover: int | None = None) -> None:
    """Start the clocks of the seats now to move, stop the others' (saves changed seats).

    ``mover`` is the seat that just acted: a live clock stopped for it earns the increment.
    Deadlines of seats that stay to move do not change (a turn of several actions).
    """
    to_move = set(game.to_move or []) if game.status == Game.Status.RUNNING else set()
    for seat in seats:
        deadline, time_left = seat.deadline, seat.time_left
        if seat.index in to_move and seat.deadline is None:
            seconds = turn_seconds(game, seat)
            if seconds is not None:
                deadline = now + timedelta(seconds=seconds)
        elif seat.index not in to_move and seat.deadline is not None:
            if game.clock == Game.Clock.LIVE:
                rest = max(0.0, (seat.deadline - now).total_seconds())
                time_left = rest + (game.clock_increment if seat.index == mover else 0)
            deadline = None
        if game.clock == Game.Clock.LIVE and time_left is None and not seat.is_ai:
            time_left = float(game.clock_reserve)
        if (deadline, time_left) != (seat.deadline, seat.time_left):
            seat.deadline, seat.time_left = deadline, time_left
            Seat.objects.filter(pk=seat.pk).update(deadline=deadline, time_left=time_left)


