"""The play page listens to commits: every socket of the game hears the new version."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.core.signals import GameChange, game_committed
from games.live import broadcast
from games.models import Game


@receiver(game_committed, dispatch_uid="play.hint_sockets")
def hint_sockets(*, game: Game, change: GameChange, **_kwargs: Any) -> None:
    """Tell the game's sockets its new version (each renders its own viewer's view); a
    move leaves every viewer in the seat they had; after an undo the log goes whole."""
    extra = {"whole": True} if change.kind == "undone" else {}
    broadcast.game_updated(game.pk, game.version,
                           seats=change.kind not in ("moved", "repeated"), **extra)
