"""Read-only queries of the accounts app: leaderboards, a player's ratings and statistics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet

from accounts.models import Rating, RatingChange
from games.models import Game, Seat

#: Rows of a leaderboard at most.
LEADERBOARD_SIZE = 100


def leaderboard(*, game: str, limit: int = LEADERBOARD_SIZE) -> QuerySet[Rating]:
    """The best-rated active players of ``game`` (rated games only), best first."""
    return (
        Rating.objects.filter(game=game, user__is_active=True, games__gt=0)
        .select_related("user")
        .order_by("-rating", "-games", "user__username")[:limit]
    )


def ratings_of(user: Any) -> list[Rating]:
    """``user``'s ratings, one per game they played rated, by game name."""
    return list(Rating.objects.filter(user=user).order_by("game"))


def rating_history(user: Any, *, game: str | None = None) -> list[RatingChange]:
    """``user``'s rating changes, oldest first (of one game when ``game`` is given)."""
    changes = RatingChange.objects.filter(user=user)
    if game is not None:
        changes = changes.filter(game_name=game)
    return list(changes.order_by("created_at", "id"))


@dataclass
class GameStats:
    """One player's record in one game: every finished game, rated or not."""

    game: str
    played: int = 0
    wins: int = 0
    rating: Rating | None = None
    history: list[RatingChange] = field(default_factory=list)


def player_stats(user: Any) -> list[GameStats]:
    """Games played and won per game (finished games; a seat left to the AI counts as
    played, never as won), with the rating and its history where there is one."""
    stats: dict[str, GameStats] = {}
    seats = Seat.objects.filter(
        Q(user=user) | Q(left_user=user), game__status=Game.Status.FINISHED
    ).values_list("index", "game__game_name", "game__result", "left_user_id")
    for index, game_name, result, left_user in seats:
        row = stats.setdefault(game_name, GameStats(game_name))
        row.played += 1
        if left_user is None and index in ((result or {}).get("winners") or []):
            row.wins += 1
    for rating in ratings_of(user):
        stats.setdefault(rating.game, GameStats(rating.game)).rating = rating
    for change in rating_history(user):
        stats.setdefault(change.game_name, GameStats(change.game_name)).history.append(change)
    return [stats[name] for name in sorted(stats)]


def active_player(username: str) -> Any:
    """The active user called ``username``; ``DoesNotExist`` otherwise."""
    return get_user_model().objects.get(username=username, is_active=True)
