"""Reads: the running games where it is ``user``'s turn."""

from __future__ import annotations

from typing import Any

from django.template.loader import render_to_string

from games.models import Game, Seat
from games.tables.selectors import GameListing, games_of


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


def render_nav_turns(user: Any, *, oob: bool = False, live: bool = False) -> str:
    """The nav's "Your turn" link with ``user``'s count (``oob``: as a socket's swap).

    ``live``: for a page whose socket pushes the count (a socket's swap always is); other
    pages poll for it.
    """
    return render_to_string("partials/nav_turns.html",
                            {"turn_count": waiting_count(user), "oob": oob,
                             "live": live or oob, "user": user})


def is_correspondence(game: Game) -> bool:
    """Whether ``game`` is played by correspondence (``Game.clock``): mails go to these only."""
    return game.clock == Game.Clock.CORRESPONDENCE
