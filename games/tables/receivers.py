"""The tables listen to the core: the clocks run with every start and move, the lobby
hears of every change to a table's card, and a late action applies the table's rule."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.core.signals import GameChange, deadline_passed, game_changed, game_committed
from games.live import broadcast
from games.models import Game, Seat
from games.tables import clocks
from games.tables.services import apply_timeouts

#: The changes after which the seats to move have their clocks started (or stopped): an
#: undo too, which gives the turn back to a player whose clock had stopped.
CLOCKED = ("started", "moved", "undone")


@receiver(game_changed, dispatch_uid="tables.run_clocks")
def run_clocks(*, game: Game, change: GameChange, **_kwargs: Any) -> None:
    """In the change's transaction: start the clocks of the seats now to move, stop the
    others' (the seat that moved banks its increment)."""
    if change.kind in CLOCKED:
        seats = list(change.seats) if change.seats is not None else list(
            Seat.objects.filter(game=game))
        clocks.sync_clocks(game, seats, change.now, mover=change.mover)


@receiver(game_committed, dispatch_uid="tables.hint_lobby")
def hint_lobby(*, game: Game, change: GameChange, **_kwargs: Any) -> None:
    """The list of open tables (or a table's card) changed: the lobby's sockets refresh."""
    if change.lobby:
        broadcast.lobby_updated()


@receiver(deadline_passed, dispatch_uid="tables.apply_timeouts")
def time_out(*, game_id: int, **_kwargs: Any) -> None:
    """An action came after its seat's deadline: apply the table's rule now."""
    apply_timeouts(game=game_id)
