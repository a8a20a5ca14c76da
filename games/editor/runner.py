"""What the simulation task does: play the next chunk of a simulation's games.

Each run plays about ``EDITOR_SIMULATION_CHUNK_SECONDS`` of games and stores the merged
reports so far; ``step`` is the compare-and-set counter that makes a redelivered chunk a
no-op.  Progress hints go to the editor's pages.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.utils import timezone

from games.editor import broadcast
from games.editor.simulation import final_report, merge_reports, next_chunk
from games.editor.simulation import run_chunk as play_chunk
from games.models import Simulation

logger = logging.getLogger(__name__)


def run_simulation_chunk(*, simulation_id: int,
                         budget: float | None = None) -> bool:
    """Play the next chunk of a simulation and store the merged report; True while more
    chunks remain.  A chunk already stored (a redelivered task) is not stored twice."""
    sim = Simulation.objects.select_related("version__variant").filter(pk=simulation_id).first()
    if sim is None or sim.finished:
        return False
    variant = sim.version.variant
    if sim.status == Simulation.Status.QUEUED:
        Simulation.objects.filter(pk=sim.pk, status=Simulation.Status.QUEUED).update(
            status=Simulation.Status.RUNNING, started_at=timezone.now(), updated_at=timezone.now())
        sim.status = Simulation.Status.RUNNING
        _progress(variant.pk, sim, sim.done)
    partial = sim.partial or {}
    if budget is None:
        budget = getattr(settings, "EDITOR_SIMULATION_CHUNK_SECONDS", 2.0)
    chunk = next_chunk(sim.games, sim.players, sim.done, partial.get("seconds_per_game"), budget)
    if chunk is None:
        return _finish(sim, variant.pk)
    players, count, first = chunk
    base, step = sim.done, sim.step
    last = [time.monotonic()]

    def progress(done: int, _total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 0.25 or done == count:
            last[0] = now
            Simulation.objects.filter(pk=sim.pk, step=step).update(
                done=base + done, updated_at=timezone.now())
            _progress(variant.pk, sim, base + done)

    try:
        report = play_chunk(variant.game, sim.data, players, count, first, bots=sim.bots,
                            seed=sim.seed, progress=progress)
    except Exception as exc:  # the check could not run at all (invalid data, bad bot)
        logger.warning("simulation %s failed", sim.pk, exc_info=True)
        Simulation.objects.filter(pk=sim.pk, step=step).update(
            status=Simulation.Status.FAILED, error=f"{type(exc).__name__}: {exc}",
            finished_at=timezone.now(), updated_at=timezone.now())
        _progress(variant.pk, sim, base, status=Simulation.Status.FAILED)
        return False
    by_players = dict(partial.get("by_players", {}))
    by_players[str(players)] = merge_reports(by_players.get(str(players)), report)
    seconds = sum(r["seconds"] for r in by_players.values())
    done = base + count
    new_partial = {"by_players": by_players, "seconds_per_game": seconds / done if done else None}
    stored = Simulation.objects.filter(pk=sim.pk, step=step).update(
        step=step + 1, done=done, partial=new_partial, updated_at=timezone.now())
    if not stored:
        return False  # another delivery of this task stored the chunk first
    sim.step, sim.done, sim.partial = step + 1, done, new_partial
    if next_chunk(sim.games, sim.players, done, None) is None:
        return _finish(sim, variant.pk)
    return True



def _finish(sim: Simulation, variant_id: int) -> bool:
    by_players = (sim.partial or {}).get("by_players", {})
    report = final_report(by_players, games=sim.games, bots=sim.bots, seed=sim.seed)
    Simulation.objects.filter(pk=sim.pk, step=sim.step).update(
        status=Simulation.Status.DONE, report=report, finished_at=timezone.now(),
        updated_at=timezone.now())
    _progress(variant_id, sim, sim.games, status=Simulation.Status.DONE)
    return False



def _progress(variant_id: int, sim: Simulation, done: int, status: str | None = None) -> None:
    role = "draft" if sim.version.is_draft else "published"
    broadcast.simulation_progress(variant_id, sim.pk, done, sim.games, status or sim.status,
                                  role=role)
