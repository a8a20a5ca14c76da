"""Reads: the running games where it is ``user``'s turn."""

from __future__ import annotations

from typing import Any

from games.models import Game, Seat
from games.selectors import GameListing, games_of


def waiting_games(user: Any) -> list[GameListing]:
    """``user``'s running games where they are to move (the longest waiting first)."""
    listings = [listing for listing in games_of(user) if listing.my_turn]
    return sorted(listings, key=lambda listing: listing.game.updated_at)


def waiting_count(user: Any) -> int:
    """How many running games wait for ``user`` (one light query; 0 when anonymous)."""
    if not getattr(user, "is_authenticated", False):
        return 0
    rows = Seat.objects.filter(user=user, game__status=Game.Status.RUNNING).values_list(
        "index", "game__to_move"
    )
    return sum(1 for index, to_move in rows if index in (to_move or []))
