"""Reads of the AI turns: which AI seat is to move, which turns have stalled."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Prefetch
from django.utils import timezone

from games.models import Game, Seat


def ai_seat_to_move(game: Game, seats: list[Seat] | None = None) -> Seat | None:
    """The first AI seat among the seats to move, if any (``seats``: already loaded)."""
    if not game.to_move:
        return None
    if seats is None:
        seats = list(Seat.objects.filter(game=game, index__in=game.to_move).exclude(ai_level=""))
    candidates = [s for s in seats if s.index in game.to_move and s.is_ai]
    return min(candidates, key=lambda s: s.index) if candidates else None


def stalled_ai_games(*, older_than: float, limit: int = 500) -> list[Game]:
    """Running games, unchanged for ``older_than`` seconds, where an AI seat is to move.

    ``to_move`` is a JSON list, so the AI check is done here rather than in SQL; the
    query reads only running games that have not changed for a while (a small set).
    """
    cutoff = timezone.now() - timedelta(seconds=older_than)
    games = (
        Game.objects.filter(status=Game.Status.RUNNING, updated_at__lte=cutoff)
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.exclude(ai_level="")))
        .only("id", "status", "version", "to_move", "updated_at", "started_at")
        .order_by("updated_at")[:limit]
    )
    return [
        game for game in games
        if any(seat.index in (game.to_move or []) for seat in game.seats.all())
    ]
