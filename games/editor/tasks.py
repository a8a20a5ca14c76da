"""Celery task of the rules editor: a simulation check, a chunk at a time.

Each run plays about ``EDITOR_SIMULATION_CHUNK_SECONDS`` of games and queues the next
chunk behind whatever arrived meanwhile, so AI turns on the same worker wait at most one
chunk.  Arguments are ids only; a redelivered chunk is not stored twice.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.db import InterfaceError, OperationalError

from games.editor.runner import run_simulation_chunk

logger = logging.getLogger(__name__)

#: Upper bound on chunks one eager run plays (a check of 1,000 games needs far fewer).
MAX_EAGER_CHUNKS = 100_000


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    max_retries=5,
)
def simulate_variant(self: Any, simulation_id: int) -> None:
    """Advance the simulation ``simulation_id`` by one chunk (eagerly: to its end)."""
    if getattr(self.request, "is_eager", False):
        for _chunk in range(MAX_EAGER_CHUNKS):
            if not run_simulation_chunk(simulation_id=simulation_id):
                break
        return
    if run_simulation_chunk(simulation_id=simulation_id):
        simulate_variant.delay(simulation_id)


def enqueue_simulation(simulation_id: int) -> None:
    """Queue the first chunk of a simulation (after the request's commit)."""
    simulate_variant.delay(simulation_id)
