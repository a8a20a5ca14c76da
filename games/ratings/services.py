"""Ratings: OpenSkill's Plackett-Luce model, one rating per player and game.

:func:`record_result` runs in the *same transaction* that ends a rated game (the final
move, a resignation, a timeout): the ratings listen to ``games.core.signals.game_changed``
(``games.ratings.receivers``).  Why there and not later:

* the finish and the rating change commit or roll back together, so no finished game is
  ever left unrated by a crash between two transactions, and nothing has to find and
  repair such games afterwards;
* it runs exactly once: the game row is claimed with a conditional update
  (``rated_at IS NULL`` -> now) and each history row is unique per (game, player), so a
  second call -- a retried task, a concurrent sweep -- changes nothing;
* it is cheap: a handful of rows and microseconds of arithmetic.  Rating rows are locked
  (``select_for_update``, in user order) so two games ending at once for the same player
  both count.

AI seats take part with fixed ratings (``ai.level_rating(game, level)``); their ratings
are never changed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from openskill.models import PlackettLuce

import ai
from accounts.models import Rating, RatingChange, display_rating
from games.models import Game, Seat

logger = logging.getLogger(__name__)

__all__ = ["Placement", "ai_rating", "new_rating", "placements", "record_result"]


def _model() -> PlackettLuce:
    return PlackettLuce(
        mu=getattr(settings, "RATING_MU", 25.0),
        sigma=getattr(settings, "RATING_SIGMA", 25.0 / 3),
    )


def new_rating() -> tuple[float, float]:
    """``(mu, sigma)`` of a player with no rated game yet."""
    return (float(getattr(settings, "RATING_MU", 25.0)),
            float(getattr(settings, "RATING_SIGMA", 25.0 / 3)))


def ai_rating(game_name: str, level: str) -> tuple[float, float]:
    """The fixed, calibrated ``(mu, sigma)`` of an AI level in one game
    (``ai.level_rating``: from the AI's self-play; a game it has not measured yet gets
    the levels' mean over the measured games)."""
    mu, sigma = ai.level_rating(game_name, level)
    return float(mu), float(sigma)


@dataclass(frozen=True)
class Placement:
    """One seat's place at the end of a game: ``rank`` 1 is best, ties share a rank."""

    seat: int
    rank: int
    user_id: int | None  # the person who played the seat (None: an AI from the start)
    ai_level: str


def placements(game: Any, seats: list[Any]) -> list[Placement]:
    """Each seat's rank from ``game.result``.

    Winners first, then by score (ties share a rank).  A person who left the game
    (resigned, ran out of time, handed the seat to the AI: ``Seat.left_user``) ranks below
    everyone who stayed, the earlier leaver lowest; the AI that played their seat on
    does not count for them.
    """
    result = game.result or {}
    winners = set(result.get("winners") or [])
    scores = result.get("scores") or []
    keys: dict[int, tuple] = {}
    for seat in seats:
        left_at = getattr(seat, "left_at", None)
        left_user = getattr(seat, "left_user_id", None)
        gone = left_user is not None and left_at is not None
        score = scores[seat.index] if seat.index < len(scores) else 0
        keys[seat.index] = (
            1 if gone else 0,
            -left_at.timestamp() if gone else 0.0,
            0 if seat.index in winners and not gone else 1,
            -(score if isinstance(score, int | float) else 0),
        )
    ordered = sorted(keys.values())
    out = []
    for seat in seats:
        person = getattr(seat, "left_user_id", None) or seat.user_id
        out.append(Placement(
            seat=seat.index,
            rank=ordered.index(keys[seat.index]) + 1,
            user_id=person,
            ai_level="" if person else seat.ai_level,
        ))
    return out


def record_result(*, game: Any) -> list[RatingChange]:
    """Update the ratings of a finished rated game's players, once; the changes made.

    Must run inside the transaction that finished the game (see the module docstring).
    Returns ``[]`` for unrated or unfinished games and when the game was rated already.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("record_result must run in the transaction that ends the game")
    if not game.rated or game.status != Game.Status.FINISHED:
        return []
    now = timezone.now()
    claimed = Game.objects.filter(
        pk=game.pk, rated=True, status=Game.Status.FINISHED, rated_at__isnull=True
    ).update(rated_at=now)
    if claimed != 1:
        return []
    game.rated_at = now
    seats = list(Seat.objects.filter(game=game).order_by("index"))
    places = [p for p in placements(game, seats) if p.user_id or p.ai_level]
    people = sorted({p.user_id for p in places if p.user_id})
    if not people or len(places) < 2:
        return []
    mu0, sigma0 = new_rating()
    Rating.objects.bulk_create(
        [Rating(user_id=u, game=game.game_name, mu=mu0, sigma=sigma0,
                rating=display_rating(mu0, sigma0)) for u in people],
        ignore_conflicts=True,
    )
    rows = {
        r.user_id: r
        for r in Rating.objects.select_for_update()
        .filter(game=game.game_name, user_id__in=people).order_by("user_id")
    }
    model = _model()
    teams = []
    for p in places:
        if p.user_id:
            row = rows[p.user_id]
            teams.append([model.rating(mu=row.mu, sigma=row.sigma)])
        else:
            mu, sigma = ai_rating(game.game_name, p.ai_level)
            teams.append([model.rating(mu=mu, sigma=sigma)])
    rated = model.rate(teams, ranks=[p.rank for p in places])
    winners = set((game.result or {}).get("winners") or [])
    changes = []
    for p, team in zip(places, rated, strict=True):
        if not p.user_id:
            continue  # AI ratings are fixed
        row = rows[p.user_id]
        after = team[0]
        before_mu, before_sigma, before_rating = row.mu, row.sigma, row.rating
        row.mu, row.sigma = float(after.mu), float(after.sigma)
        row.rating = display_rating(row.mu, row.sigma)
        row.games += 1
        if p.seat in winners and p.rank == 1:
            row.wins += 1
        row.save(update_fields=["mu", "sigma", "rating", "games", "wins", "updated_at"])
        changes.append(RatingChange(
            user_id=p.user_id, game=game, game_name=game.game_name, seat=p.seat, rank=p.rank,
            mu_before=before_mu, sigma_before=before_sigma, mu_after=row.mu,
            sigma_after=row.sigma, rating_before=before_rating, rating_after=row.rating,
        ))
    RatingChange.objects.bulk_create(changes)
    return changes
