"""The turns listen to commits: the nav's counts of the people seated, the turn mails;
and every signed-in socket carries the nav's count (``games.live.consumers``)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from games.core.signals import GameChange, game_committed
from games.live.consumers import register_viewer_render
from games.models import Game
from games.turns.selectors import render_nav_turns
from games.turns.services import notify_turn, push_turn_counts


@receiver(game_committed, dispatch_uid="turns.counts")
def recount(*, game: Game, change: GameChange, **_kwargs: Any) -> None:
    """Whose turn it is may have changed: the people seated (and whoever this change took
    a seat from) re-count their games."""
    if change.turns:
        departed = () if change.departed is None else (change.departed,)
        push_turn_counts(game, departed=departed)


@receiver(game_committed, dispatch_uid="turns.mails")
def mail(*, game: Game, change: GameChange, **_kwargs: Any) -> None:
    """A running correspondence game mails the people whose turn it became."""
    if game.status == Game.Status.RUNNING:
        notify_turn(game)


def _nav(user: Any) -> str:
    return render_nav_turns(user, oob=True)


register_viewer_render(_nav)
