"""Writes of the AI turns: queueing a turn again when it stalled.

A turn is queued after each commit that leaves an AI seat to move
(``games.ai_turns.receivers``).  A turn lost with its worker or with the broker is queued
again by the periodic sweep, when a worker starts, and whenever someone opens the game
(page, API read, socket): :func:`nudge_if_stalled`.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common.ratelimit import first_in_window
from games.ai_turns import tasks
from games.ai_turns.selectors import ai_seat_to_move, stalled_ai_games
from games.models import Game

logger = logging.getLogger(__name__)


def nudge_ai(*, game: Game | int) -> bool:
    """Enqueue the AI turn again when an AI seat is to move (after a lost task or an outage).

    Harmless when repeated: the task does nothing once the version has moved on.
    """
    game = Game.objects.get(pk=game) if isinstance(game, int) else game
    game.refresh_from_db(fields=["status", "version", "to_move"])
    if game.status != Game.Status.RUNNING or ai_seat_to_move(game) is None:
        return False
    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: tasks.enqueue_turn(game_id, version), robust=True)
    return True


def nudge_if_stalled(*, game: Game, older_than: float | None = None) -> bool:
    """Enqueue the AI turn again if it has been pending longer than ``older_than`` seconds
    (``AI_STALL_SECONDS`` by default).

    Called by page loads, API reads, socket connects and the periodic sweep, so a turn
    lost with its worker (or with the broker) is played again without anyone reloading.
    At most one nudge per game version and stall period, however often it is called
    (each nudge may queue an expensive search); when the cache is down it nudges anyway
    (the broker is probably down too, and the task dedups by version).
    """
    if game.status != Game.Status.RUNNING or not game.to_move:
        return False
    stall = settings.AI_STALL_SECONDS
    pending = stall if older_than is None else older_than
    if (timezone.now() - game.updated_at).total_seconds() < pending:
        return False
    started = game.started_at.timestamp() if game.started_at else 0
    if not first_in_window(f"ai-nudge:{game.pk}:{started}:{game.version}", window=max(1, stall)):
        return False
    return nudge_ai(game=game)


def sweep_stalled_ai(*, limit: int = 500, older_than: float | None = None) -> int:
    """Nudge every running game whose AI turn has been pending too long (``older_than``
    seconds, ``AI_STALL_SECONDS`` by default); how many.

    A worker that starts sweeps with ``older_than=0``: no worker ran before it, so every
    pending turn was lost (a turn a sibling worker is still searching is played once:
    the task dedups by version).
    """
    older_than = settings.AI_STALL_SECONDS if older_than is None else older_than
    nudged = 0
    for game in stalled_ai_games(older_than=older_than, limit=limit):
        if nudge_if_stalled(game=game, older_than=older_than):
            nudged += 1
    if nudged:
        logger.warning("stalled-turn sweep: re-enqueued %d AI turn(s)", nudged)
    return nudged
