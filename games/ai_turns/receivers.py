"""The AI turns listen to commits: an AI seat to move gets its turn queued."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.ai_turns import tasks
from games.ai_turns.selectors import ai_seat_to_move
from games.core.signals import GameChange, game_committed
from games.models import Game


@receiver(game_committed, dispatch_uid="ai_turns.queue_turn")
def queue_turn(*, game: Game, change: GameChange, **_kwargs: Any) -> None:
    """Queue the AI's turn when the committed change leaves an AI seat to move."""
    if game.status == Game.Status.RUNNING and ai_seat_to_move(game, change.seats) is not None:
        tasks.enqueue_turn(game.pk, game.version)
