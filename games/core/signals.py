"""What the write path announces; the features that react listen (the core names none).

Every write that changes a game (a table opened, joined, left, started; a move; a seat
taken over; a rematch) ends with :func:`announce`, which sends two signals:

* :data:`game_changed`, at once, *inside* the write's transaction: bookkeeping that must
  commit (or roll back) with the change listens here -- the clocks of the seats now to
  move, the result record and the ratings of a finished game.  A receiver's error rolls
  the whole write back, as if the write itself had failed.
* :data:`game_committed`, once the transaction has committed: the reactions that must
  never see an uncommitted game and must never undo it -- socket hints, the lobby, the AI
  turn, the nav's turn counts, mails.  Each receiver runs on its own
  (``send_robust``): one that fails is logged and the others still run.

Receivers are connected in ``GamesConfig.ready`` (each feature's ``receivers`` module);
both get ``game`` (the instance the write updated) and ``change`` (a :class:`GameChange`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.dispatch import Signal

from games.models import Game, Seat

logger = logging.getLogger(__name__)

#: Sent inside the write's transaction: ``sender`` is the kind of change, with ``game``
#: and ``change``.
game_changed = Signal()
#: Sent after the commit (robustly), with the same arguments.
game_committed = Signal()
#: Sent (robustly, outside any transaction) when an action arrived after its seat's
#: deadline: ``game_id``.  The tables apply the table's rule to the seats out of time.
deadline_passed = Signal()


@dataclass(frozen=True)
class GameChange:
    """What one write did to a game, for the receivers of the two signals.

    ``kind``: ``opened``, ``joined``, ``left``, ``aborted``, ``started``, ``moved``,
    ``departed``, ``repeated`` (a request key seen before: nothing changed, the hints of
    the first time go out again), ``undone`` (moves taken back: the log was cut and the
    game refolded, every viewer must see the whole position again).  ``seats``: the game's
    seats as the write loaded them (``None``: not loaded; a receiver that needs them reads
    them).  ``mover``: the seat that acted.
    ``lobby``: the list of open tables (or a table's card) changed.  ``turns``: whose turn
    it is may have changed (the nav's counts of the people seated).  ``departed``: the
    user a departure took a seat from (their counts change too).  ``now``: the write's
    time.
    """

    kind: str
    seats: Sequence[Seat] | None = None
    mover: int | None = None
    lobby: bool = False
    turns: bool = True
    departed: int | None = None
    now: datetime | None = None


def announce(game: Game, change: GameChange) -> None:
    """Tell the listeners about ``change``: now (in the transaction), then after commit."""
    game_changed.send(sender=change.kind, game=game, change=change)
    transaction.on_commit(lambda: _committed(game, change), robust=True)


def announce_deadline_passed(game_id: int) -> None:
    """Tell the listeners that an action of ``game_id`` came after its seat's deadline."""
    _log_failures(deadline_passed.send_robust(sender="deadline", game_id=game_id), game_id,
                  "deadline")


def _committed(game: Game, change: GameChange) -> None:
    _log_failures(game_committed.send_robust(sender=change.kind, game=game, change=change),
                  game.pk, change.kind)


def _log_failures(results: list, game_id: int, kind: str) -> None:
    for receiver, result in results:
        if isinstance(result, Exception):
            logger.error("a reaction to game %s (%s) failed in %s", game_id, kind,
                         getattr(receiver, "__qualname__", receiver),
                         exc_info=(type(result), result, result.__traceback__))
