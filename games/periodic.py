"""The periodic tasks (Celery beat, ``CELERY_BEAT_SCHEDULE``): each calls one feature's
sweep service, so work lost with a worker or a broker outage is picked up again.

Wiring, like the URL configuration: it sits above the features and names them; no feature
imports it.  A worker that (re)starts queues the sweeps at once.

Task names: every task of the games keeps the name it had before the app was split into
features (``games.tasks.<name>``, the module they all lived in), given explicitly.  A
task's name is what travels on the broker: messages queued by a process of the previous
release still run after an upgrade, and the beat schedule and logs read the same.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from games.ai_turns.services import sweep_stalled_ai as sweep_ai
from games.analysis.services import sweep_stalled_analyses as sweep_analyses
from games.tables.services import apply_timeouts
from games.tables.services import expire_open_tables as expire_tables

logger = logging.getLogger(__name__)


@shared_task(name="games.tasks.sweep_stalled_ai", ignore_result=True)
def sweep_stalled_ai(older_than: float | None = None) -> int:
    """Re-enqueue AI turns pending past ``older_than`` seconds (``AI_STALL_SECONDS`` by
    default); how many."""
    return sweep_ai(older_than=older_than)


@shared_task(name="games.tasks.sweep_clocks", ignore_result=True)
def sweep_clocks() -> int:
    """Apply the table's rule to every seat out of time; how many."""
    return apply_timeouts()


@shared_task(name="games.tasks.expire_open_tables", ignore_result=True)
def expire_open_tables() -> int:
    """Close open tables that never started in time; how many."""
    return expire_tables()


@shared_task(name="games.tasks.sweep_stalled_analyses", ignore_result=True)
def sweep_stalled_analyses() -> int:
    """Queue again analyses with no progress for a while; how many."""
    return sweep_analyses()


@worker_ready.connect
def _sweep_on_worker_start(**_kwargs: Any) -> None:
    """A worker that (re)starts sweeps at once: turns and analyses lost with its
    predecessor resume, and deadlines that passed while no worker ran are applied."""
    # Every AI turn pending now was lost with the previous worker: queue it at once.
    for task, args in ((sweep_stalled_ai, (0,)), (sweep_clocks, ()),
                       (sweep_stalled_analyses, ())):
        try:
            task.delay(*args)
        except Exception:
            logger.warning("could not queue the start-up sweep %s", task.name)
