"""Reads of the result record (``SeatResult``): every result any page or API shows.

The leaderboard (rated games, rated wins, the rating after the latest rated game), a
player's record per game (games, wins, rating history), a game's rows and one person's row
of it (the game lists' "won" / "lost (left the game)").  Nothing here looks at
``Game.result`` or at the seats: the rows were written from them once, when the game
ended (``games.results.services``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery

from games.models import Game, SeatResult

#: The newest first: the order in which a player's ratings changed.
NEWEST = ("-finished_at", "-pk")


def with_results(games: QuerySet[Game]) -> QuerySet[Game]:
    """``games`` with their result rows prefetched (lists of games)."""
    return games.prefetch_related(
        Prefetch("seat_results", queryset=SeatResult.objects.order_by("seat")))


def results_of_game(game: Game) -> list[SeatResult]:
    """``game``'s rows in seat order (prefetched ones when there are); ``[]`` before the end."""
    if game.status != Game.Status.FINISHED:
        return []
    cache = getattr(game, "_prefetched_objects_cache", {})
    if "seat_results" in cache:
        return sorted(cache["seat_results"], key=lambda r: r.seat)
    return list(SeatResult.objects.filter(game=game).order_by("seat"))


def result_of(game: Game, user: Any) -> SeatResult | None:
    """The row of ``game`` that counts for ``user`` (``None``: they did not play it)."""
    user_id = getattr(user, "pk", None)
    if user_id is None:
        return None
    return next((r for r in results_of_game(game) if r.user_id == user_id), None)


def results_of_user(user: Any, *, game: str | None = None, limit: int | None = None
                    ) -> list[SeatResult]:
    """``user``'s rows, newest first (of one game when ``game`` is given)."""
    rows = SeatResult.objects.filter(user=user)
    if game is not None:
        rows = rows.filter(game_name=game)
    rows = rows.order_by(*NEWEST)
    return list(rows[:limit] if limit is not None else rows)


@dataclass
class GameRecord:
    """One player's record in one game, from their rows."""

    game: str
    played: int = 0
    wins: int = 0
    rated_games: int = 0
    rated_wins: int = 0
    #: The rating after their latest rated game (``None``: no rated game yet).
    rating: int | None = None
    history: list[SeatResult] = field(default_factory=list)


def record_of(user: Any) -> list[GameRecord]:
    """``user``'s record per game (by game name): games played and won (rated or not),
    rated games and wins, the rating and its history."""
    records: dict[str, GameRecord] = {}
    for row in SeatResult.objects.filter(user=user).order_by("finished_at", "pk"):
        record = records.setdefault(row.game_name, GameRecord(row.game_name))
        record.played += 1
        record.wins += int(row.won)
        if row.rating_after is not None:
            record.rated_games += 1
            record.rated_wins += int(row.won)
            record.rating = row.rating_after
            record.history.append(row)
    return [records[name] for name in sorted(records)]


@dataclass(frozen=True)
class BoardRow:
    """A leaderboard row: a player's rating and rated record in one game."""

    user_id: int
    username: str
    rating: int
    games: int
    wins: int


def leaderboard(*, game: str, limit: int = 100) -> list[BoardRow]:
    """The active players of ``game`` with a rated result, best rating first (then more
    rated games, then by name)."""
    rated = SeatResult.objects.filter(game_name=game, rating_after__isnull=False)
    latest = (rated.filter(user=OuterRef("user")).order_by(*NEWEST)
              .values("rating_after")[:1])
    rows = (
        rated.filter(user__isnull=False, user__is_active=True)
        .values("user", "user__username")
        .annotate(games=Count("pk"), wins=Count("pk", filter=Q(won=True)),
                  rating=Subquery(latest))
        .order_by("-rating", "-games", "user__username")[:limit]
    )
    return [BoardRow(user_id=r["user"], username=r["user__username"], rating=r["rating"],
                     games=r["games"], wins=r["wins"]) for r in rows]
