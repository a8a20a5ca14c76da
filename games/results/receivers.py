"""The result record listens to the core: a game that finishes gets its rows in the same
transaction (before the ratings, which read them)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.core.signals import GameChange, game_changed
from games.models import Game
from games.results.services import record_game_results


@receiver(game_changed, dispatch_uid="results.record_game_results")
def record_finished_game(*, game: Game, change: GameChange, **_kwargs: Any) -> None:
    """Any change that leaves the game finished (the last move, a departure that ends
    it): its rows commit (or roll back) with it; written once."""
    if game.status == Game.Status.FINISHED:
        record_game_results(game=game)
