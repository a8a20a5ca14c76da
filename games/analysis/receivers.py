"""The post-game analysis listens to the replay page: it fills the page's analysis slot."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.analysis.page import SLOT, panel_context
from games.models import Game
from games.replay.signals import replay_shown


@receiver(replay_shown, dispatch_uid="analysis.replay_panel")
def replay_panel(*, replay: Any, viewer: Any, **_kwargs: Any) -> dict | None:
    """The replay page's analysis slot: the panel at ``replay.step``, for finished games
    only."""
    game = replay.game
    if game.status != Game.Status.FINISHED:
        return None
    context = panel_context(game, viewer, step=replay.step, seat=replay.perspective.param)
    return {"template": SLOT, "context": context}
