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

The places are the result record's (``games.results``, one ``SeatResult`` per seat,
written in the same transaction just before): a person who left is rated by their place
there -- after everyone who stayed -- and the AI's play after a takeover earns nobody
anything.  The rating before and after goes back onto each person's row, which is what
the pages and the API read; ``RatingChange`` stays the model's own journal (mu and sigma
before and after, unique per game and player).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from openskill.models import PlackettLuce

import ai
from accounts.models import Rating, RatingChange, display_rating
from games.models import Game
from games.results.services import record_game_results, set_ratings

logger = logging.getLogger(__name__)

__all__ = ["ai_rating", "new_rating", "record_result"]


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
    # The places are the record's (games.results): leavers after everyone who stayed,
    # whatever the AI that took their seat then scored.
    results = [r for r in record_game_results(game=game) if r.user_id or r.ai_level]
    people = sorted({r.user_id for r in results if r.user_id})
    if not people or len(results) < 2 or len(people) != sum(1 for r in results if r.user_id):
        return []  # nobody to rate (or one person in two seats: nothing fair to say)
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
    for r in results:
        if r.user_id:
            row = rows[r.user_id]
            teams.append([model.rating(mu=row.mu, sigma=row.sigma)])
        else:
            mu, sigma = ai_rating(game.game_name, r.ai_level)
            teams.append([model.rating(mu=mu, sigma=sigma)])
    rated = model.rate(teams, ranks=[r.place for r in results])
    changes = []
    for r, team in zip(results, rated, strict=True):
        if not r.user_id:
            continue  # AI ratings are fixed
        row = rows[r.user_id]
        after = team[0]
        before_mu, before_sigma, before_rating = row.mu, row.sigma, row.rating
        row.mu, row.sigma = float(after.mu), float(after.sigma)
        row.rating = display_rating(row.mu, row.sigma)
        row.save(update_fields=["mu", "sigma", "rating", "updated_at"])
        changes.append(RatingChange(
            user_id=r.user_id, game=game, game_name=game.game_name, seat=r.seat, rank=r.place,
            mu_before=before_mu, sigma_before=before_sigma, mu_after=row.mu,
            sigma_after=row.sigma, rating_before=before_rating, rating_after=row.rating,
        ))
    RatingChange.objects.bulk_create(changes)
    set_ratings(game=game, ratings={c.seat: (c.rating_before, c.rating_after) for c in changes})
    return changes
