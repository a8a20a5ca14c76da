"""Read-only queries of the ratings: leaderboards, a player's ratings and record.

Every number shown comes from the result record (``games.results.selectors``): games,
wins, the rating (after the player's latest rated game) and its history.  ``Rating`` adds
only the model's own ``mu`` and ``sigma`` (the API shows them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model

from accounts.models import Rating
from games.models import SeatResult
from games.results import selectors as results

#: Rows of a leaderboard at most.
LEADERBOARD_SIZE = 100


@dataclass(frozen=True)
class LeaderboardRow:
    """One player on a leaderboard."""

    rank: int
    username: str
    rating: int
    games: int  # rated games
    wins: int  # rated wins
    mu: float | None
    sigma: float | None


def leaderboard(*, game: str, limit: int = LEADERBOARD_SIZE) -> list[LeaderboardRow]:
    """The best-rated active players of ``game`` (rated games only), best first."""
    rows = results.leaderboard(game=game, limit=limit)
    model = {r.user_id: r for r in Rating.objects.filter(
        game=game, user_id__in=[row.user_id for row in rows])}
    return [
        LeaderboardRow(rank=i + 1, username=row.username, rating=row.rating, games=row.games,
                       wins=row.wins,
                       mu=model[row.user_id].mu if row.user_id in model else None,
                       sigma=model[row.user_id].sigma if row.user_id in model else None)
        for i, row in enumerate(rows)
    ]


@dataclass
class GameStats:
    """One player's record in one game: every finished game, rated or not."""

    game: str
    played: int = 0
    wins: int = 0
    #: The rating after the latest rated game (``None``: no rated game yet).
    rating: int | None = None
    rated_games: int = 0
    rated_wins: int = 0
    mu: float | None = None
    sigma: float | None = None
    history: list[SeatResult] = field(default_factory=list)


def player_stats(user: Any) -> list[GameStats]:
    """Games played and won per game (a seat left to the AI counts as played, never as
    won), with the rating and its history where there is one -- all from the record."""
    model = {r.game: r for r in Rating.objects.filter(user=user)}
    stats = []
    for record in results.record_of(user):
        rating = model.get(record.game) if record.rating is not None else None
        stats.append(GameStats(
            game=record.game, played=record.played, wins=record.wins, rating=record.rating,
            rated_games=record.rated_games, rated_wins=record.rated_wins,
            mu=rating.mu if rating else None, sigma=rating.sigma if rating else None,
            history=record.history))
    return stats


def active_player(username: str) -> Any:
    """The active user called ``username``; ``DoesNotExist`` otherwise."""
    return get_user_model().objects.get(username=username, is_active=True)
