"""Celery tasks of the post-game analysis: thin, each calls the function that does its work."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from games.analysis.runner import run_analysis_chunk

logger = logging.getLogger(__name__)

#: Seconds a chunk may run before Celery interrupts it (a chunk aims at
#: ``ANALYSIS_CHUNK_SECONDS``).
CHUNK_SOFT_TIME_LIMIT = 60

#: Upper bound on chunks one eager analysis runs (a game has far fewer moves).
MAX_EAGER_ANALYSIS_CHUNKS = 100_000



@shared_task(
    name="games.tasks.analyse_game",  # the wire name (see games.periodic)
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    # One chunk runs about ANALYSIS_CHUNK_SECONDS; a hung one is cut off (the sweep
    # queues it again, and a chunk that keeps failing ends the analysis as failed).
    soft_time_limit=CHUNK_SOFT_TIME_LIMIT,
    time_limit=CHUNK_SOFT_TIME_LIMIT + 15,
)
def analyse_game(self: Any, analysis_id: int, run: int) -> None:
    """Judge the next chunk of moves of an analysis, then queue the rest behind
    whatever arrived meanwhile (AI turns wait at most one chunk); eagerly: all of it."""
    if getattr(self.request, "is_eager", False):
        for _chunk in range(MAX_EAGER_ANALYSIS_CHUNKS):
            if not run_analysis_chunk(analysis_id=analysis_id, run=run):
                break
        return
    if run_analysis_chunk(analysis_id=analysis_id, run=run):
        analyse_game.delay(analysis_id, run)


def enqueue_chunk(analysis_id: int, run: int) -> bool:
    """Queue a chunk; False (and a log line) when the broker fails: the sweep retries."""
    try:
        analyse_game.delay(analysis_id, run)
    except Exception as exc:
        logger.warning("could not enqueue the analysis %s (%s); the sweep will retry it",
                       analysis_id, exc.__class__.__name__)
        return False
    return True
