"""Clocks of the tables: the server keeps the time, pages only count it down.

A seat under a clock has a ``deadline`` while it is to move.  Live clocks bank the rest of
a turn in ``time_left`` (plus the increment, Fischer-style) when the seat's turn ends;
correspondence clocks give ``clock_days`` for each turn.  AI seats have no clock.  The
services call :func:`sync_clocks` in the transaction of each start, move and takeover;
a deadline that passes is applied by ``services.apply_timeouts`` (the periodic sweep,
page and API reads, a move sent too late).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

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


def remaining(seat: Seat, now: datetime) -> float | None:
    """Seconds left on the seat's clock now (running or banked); ``None`` without a clock."""
    if seat.deadline is not None:
        return max(0.0, (seat.deadline - now).total_seconds())
    return seat.time_left


def format_seconds(seconds: float) -> str:
    """``4:05``, ``1:04:05``, or ``2 d 3 h`` for long correspondence times."""
    total = max(0, int(seconds + 0.999))  # a clock shows 0:00 only when time is up
    if total >= 2 * 86400:
        days, hours = divmod(total // 3600, 24)
        return _("%(d)s d %(h)s h") % {"d": days, "h": hours}
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def describe(game: Game) -> str:
    """The table's time control in words (lobby, status bar)."""
    if game.clock == Game.Clock.LIVE:
        minutes = game.clock_reserve / 60
        reserve = (_("%(n)s min") % {"n": f"{minutes:g}"} if game.clock_reserve >= 60
                   else _("%(n)s s") % {"n": game.clock_reserve})
        return _("%(reserve)s + %(inc)s s per move") % {"reserve": reserve,
                                                       "inc": game.clock_increment}
    if game.clock == Game.Clock.CORRESPONDENCE:
        return ngettext("%(n)s day per move", "%(n)s days per move",
                        game.clock_days) % {"n": game.clock_days}
    return _("no clock")


def clock_row(game: Game, seat: Seat, now: datetime) -> dict[str, Any] | None:
    """What a page shows of one seat's clock: ``{running, seconds, text, deadline}``."""
    if game.clock == Game.Clock.NONE or game.status != Game.Status.RUNNING:
        return None
    left = remaining(seat, now)
    if left is None:
        return None
    return {
        "running": seat.deadline is not None,
        "seconds": round(left, 1),
        "text": format_seconds(left),
        "deadline": seat.deadline,
        "low": left < 30 and game.clock == Game.Clock.LIVE,
    }
