"""The ratings listen to the core: a rated game that ends is rated in the same transaction."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.core.signals import GameChange, game_changed
from games.models import Game
from games.ratings.services import record_result


@receiver(game_changed, dispatch_uid="ratings.record_result")
def rate_finished_game(*, game: Game, change: GameChange, **_kwargs: Any) -> None:
    """The final move or departure and the rating change commit (or roll back) together."""
    if game.status == Game.Status.FINISHED:  # once: record_result claims the game
        record_result(game=game)
