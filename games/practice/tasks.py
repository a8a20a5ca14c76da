"""Celery tasks of practice help: thin, each calls the function that does its work."""

from __future__ import annotations

import logging

from celery import shared_task

from games.practice.hints import compute_hint

logger = logging.getLogger(__name__)

#: Seconds a hint's search may run before Celery interrupts it.
HINT_SOFT_TIME_LIMIT = 60


@shared_task(
    name="games.tasks.practice_hint",
    ignore_result=True,
    soft_time_limit=HINT_SOFT_TIME_LIMIT,
    time_limit=HINT_SOFT_TIME_LIMIT + 15,
)
def practice_hint(game_id: int, version: int, seat: int) -> bool:
    """Search and store ``seat``'s hint of ``game_id`` at ``version`` (nothing if it moved on)."""
    return compute_hint(game_id, version, seat)


def enqueue_hint(game_id: int, version: int, seat: int) -> bool:
    """Queue the hint's search; False (logged, never raised) when the broker fails: the
    pending entry expires and the next ask queues it again."""
    try:
        practice_hint.delay(game_id, version, seat)
    except Exception as exc:
        logger.warning("could not enqueue the hint of game %s at version %s (%s)",
                       game_id, version, exc.__class__.__name__)
        return False
    return True
