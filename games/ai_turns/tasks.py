"""Celery tasks of the AI turns: thin, each calls the function that does its work.

``play_ai_turn`` plays one turn (``games.ai_turns.turn``); :func:`enqueue_turn` queues it
(the services' nudges and the commit listener call it).  Arguments are ids and versions
only (no state, no seed).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any

from celery import shared_task
from django.conf import settings

from games.ai_turns.turn import count_attempt, play_one_ai_turn
from games.core.errors import GameServiceError

logger = logging.getLogger(__name__)

#: Seconds an AI search may run before Celery interrupts it (the levels stop at 6 s).
AI_SOFT_TIME_LIMIT = 60

#: Upper bound on AI turns one eager loop plays (an all-AI game ends long before).
MAX_EAGER_TURNS = 20_000

_local = threading.local()


def _drain_eagerly(game_id: int, version: int) -> None:
    """Eager mode: play AI turns in a loop, not by recursion through on_commit hooks.

    A turn enqueued while a loop is running on this thread joins the loop's queue.
    """
    pending: deque | None = getattr(_local, "pending", None)
    if pending is not None:
        pending.append((game_id, version))
        return
    _local.pending = pending = deque([(game_id, version)])
    try:
        turns = 0
        while pending and turns < MAX_EAGER_TURNS:
            turns += 1
            item = pending.popleft()
            try:
                play_one_ai_turn(*item)
            except GameServiceError as exc:
                logger.warning("AI turn for game %s refused: %s", item[0], exc.code)
    finally:
        _local.pending = None


@shared_task(
    name="games.tasks.play_ai_turn",  # the wire name (see games.periodic)
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    # A search that hangs is cut off (then retried, then replaced by the greedy move);
    # the broker's visibility timeout is set well above ``time_limit`` (settings).
    soft_time_limit=AI_SOFT_TIME_LIMIT,
    time_limit=AI_SOFT_TIME_LIMIT + 15,
)
def play_ai_turn(self: Any, game_id: int, version: int) -> bool | None:
    """Play the AI seat's turn of ``game_id`` at ``version`` (nothing if it moved on).

    An error is retried with a backoff; from attempt ``AI_MAX_ATTEMPTS + 1`` on (errors,
    time-outs, killed workers alike) the seat plays the greedy bot's move instead.
    """
    if getattr(self.request, "is_eager", False):
        _drain_eagerly(game_id, version)
        return None
    attempt = count_attempt(game_id, version, self.request.retries or 0)
    fallback = attempt > settings.AI_MAX_ATTEMPTS
    try:
        return play_one_ai_turn(game_id, version, fallback=fallback)
    except GameServiceError as exc:
        logger.warning("AI turn for game %s refused: %s", game_id, exc.code)
        return False
    except Exception as exc:
        if fallback:
            logger.exception("AI turn for game %s at version %s failed even with the "
                             "fallback; the sweep will try again", game_id, version)
            return False
        logger.warning("AI turn for game %s at version %s failed (attempt %s: %r); retrying",
                       game_id, version, attempt, exc)
        raise self.retry(exc=exc, countdown=min(30, 2 ** attempt), max_retries=None) from exc


def enqueue_turn(game_id: int, version: int) -> bool:
    """Queue the AI turn for ``version`` (runs after commit); False when the broker fails.

    A failure is logged, never raised: the move is committed whatever happens to the
    queue, and the periodic sweep (``services.sweep_stalled_ai``) enqueues it again later.
    """
    try:
        play_ai_turn.delay(game_id, version)
    except Exception as exc:  # broker down or unreachable: the sweep will pick it up
        logger.warning(
            "could not enqueue the AI turn of game %s at version %s (%s); "
            "the stalled-turn sweep will retry it", game_id, version, exc.__class__.__name__,
        )
        return False
    return True
