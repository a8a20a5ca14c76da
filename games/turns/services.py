"""Writes of "your turn": the nav's count of games waiting for each person, the mails of
correspondence games, unsubscribing from them.

The turns listen to commits (``games.turns.receivers``): after each committed change of a
game the people seated at it re-count their games (a socket hint), and a correspondence
game queues its turn mails (``games.turns.tasks``; the mail itself:
``games.turns.mails``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from games.live import broadcast
from games.models import Game, Seat
from games.turns.selectors import is_correspondence
from games.turns.tasks import send_turn_mails

logger = logging.getLogger(__name__)


def notify_turn(game: Game) -> bool:
    """The hook after each committed change of a running game: queue the turn mails of a
    correspondence game (a task); False when there is nothing to send or queueing fails."""
    if game.status != Game.Status.RUNNING or not game.to_move or not is_correspondence(game):
        return False
    try:
        send_turn_mails.delay(game.pk, game.version)
    except Exception as exc:  # broker down: a lost reminder, never a lost move
        logger.warning("could not queue the turn mails of game %s (%s)", game.pk,
                       exc.__class__.__name__)
        return False
    return True


def push_turn_counts(game: Game, *, departed: Iterable[int] = ()) -> bool:
    """The hook after each committed change of a game: the nav of each person seated at
    it re-counts the games waiting for them (a socket hint; False when it failed).

    ``departed``: who this change took a seat from (resigned, handed over, timed out):
    it is the change that takes the game off their list.  Later changes never touch
    their count (only a person's own seats count), so they get no hint from them.
    """
    seated = Seat.objects.filter(game_id=game.pk, user_id__isnull=False).values_list(
        "user_id", flat=True)
    users = [*seated, *departed]
    return broadcast.viewer_changed(users) if users else True


