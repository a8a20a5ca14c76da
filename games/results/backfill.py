"""The result record of games that finished before it existed (a data migration and
``manage.py backfill_results``; the models may be historical ones).

Each finished game without rows gets them from its stored result and seats, by the same
rule as a game finishing now (:func:`games.results.services.result_rows`).  A rated game's
rating before and after comes from its ``RatingChange`` rows: the ratings themselves are
history and are not recomputed (a leaver once rated as a winner keeps that rating
change; their row now says where they really placed).  Idempotent: a game with rows is left
alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from accounts.models import RatingChange
from games.models import Game, SeatResult
from games.results.services import result_rows


@dataclass
class ResultsBackfill:
    """What a backfill did: the games that got rows and the people seated in them."""

    games: list[int] = field(default_factory=list)
    people: set[int] = field(default_factory=set)


def backfill_results(*, game_model: Any = None, result_model: Any = None,
                     rating_change_model: Any = None) -> ResultsBackfill:
    """Write the rows of every finished game that has none."""
    game_model = game_model or Game
    result_model = result_model or SeatResult
    rating_change_model = rating_change_model or RatingChange
    report = ResultsBackfill()
    recorded = result_model.objects.values("game_id")
    games = (game_model.objects.filter(status="finished").exclude(pk__in=recorded)
             .order_by("finished_at", "pk"))
    for game in games.iterator():
        with transaction.atomic():
            seats = list(game.seats.order_by("index"))
            changes = {c.user_id: c for c in rating_change_model.objects.filter(game=game)}
            rows = []
            for row in result_rows(game, seats):
                change = changes.get(row["user_id"]) if row["user_id"] else None
                rows.append(result_model(
                    game=game, game_name=game.game_name,
                    finished_at=game.finished_at or game.updated_at,
                    rating_before=change.rating_before if change else None,
                    rating_after=change.rating_after if change else None,
                    **row))
                if row["user_id"]:
                    report.people.add(row["user_id"])
            result_model.objects.bulk_create(rows)
        report.games.append(game.pk)
    return report
