"""What the analysis task does: judge the next chunk of a game's moves.

The judging itself is pure (``ai.analysis``): each decision from the mover's information
set only.  Each stored chunk bumps ``done`` (compare-and-set, so a redelivered chunk
stores nothing twice) and ``updated_at``; progress hints go to the replay pages.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.utils import timezone

import ai.analysis as pure
from games.live import broadcast
from games.models import Analysis, Game

logger = logging.getLogger(__name__)


#: Seconds between two progress hints inside a chunk.
PROGRESS_SECONDS = 0.5



def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)



def analysis_budget() -> pure.Budget:
    """The budget from the settings (``ANALYSIS_ITERATIONS``, ``ANALYSIS_SAMPLES``,
    ``ANALYSIS_WORLDS``; the defaults are ``ai.analysis.DEFAULT_BUDGET``)."""
    default = pure.DEFAULT_BUDGET
    return pure.Budget(
        iterations=int(_setting("ANALYSIS_ITERATIONS", default.iterations)),
        samples=int(_setting("ANALYSIS_SAMPLES", default.samples)),
        worlds=int(_setting("ANALYSIS_WORLDS", default.worlds)),
    )



def _moves(game: Game) -> list[tuple[int, Any]]:
    engine = game.engine
    return [(m.seat, engine.action_from_json(m.action))
            for m in game.moves.order_by("seq").only("seat", "action")]



def run_analysis_chunk(*, analysis_id: int, run: int | None = None,
                       seconds: float | None = None) -> bool:
    """Judge the next moves of an analysis for about ``seconds`` and store them; True
    while moves remain.  A chunk of an old run, or already stored, stores nothing."""
    analysis = Analysis.objects.select_related("game").filter(pk=analysis_id).first()
    if analysis is None or analysis.finished or (run is not None and analysis.run != run):
        return False
    run, base, game = analysis.run, analysis.done, analysis.game
    attempts = analysis.attempts + 1
    if attempts > _setting("ANALYSIS_MAX_ATTEMPTS", 3):
        _fail(analysis, f"the analysis stopped its worker too often at move {base}")
        return False
    now = timezone.now()
    claim = {"attempts": attempts, "updated_at": now}
    if analysis.status == Analysis.Status.QUEUED:
        claim.update(status=Analysis.Status.RUNNING, started_at=now)
    if not Analysis.objects.filter(pk=analysis.pk, run=run, done=base).update(**claim):
        return False
    if analysis.status == Analysis.Status.QUEUED:
        broadcast.analysis_progress(game.pk, base, analysis.total, Analysis.Status.RUNNING)
    seconds = _setting("ANALYSIS_CHUNK_SECONDS", 2.0) if seconds is None else seconds
    try:
        engine = game.engine
        budget = pure.Budget(**analysis.budget) if analysis.budget else analysis_budget()
        moves = _moves(game)
        state = engine.new_game(game.variant_data, game.num_players, game.seed)
        for seat, action in moves[:base]:
            state = engine.apply(state, seat, action)
        previous = analysis.moves[-1]["win"] if base and analysis.moves else None
        new: list[dict] = []
        started = told = time.monotonic()
        for decision in pure.analyse_moves(engine, state, moves, start=base, budget=budget,
                                           previous_win=previous):
            new.append(decision.to_json(engine))
            now_ = time.monotonic()
            if now_ - started >= seconds:
                break
            if now_ - told >= PROGRESS_SECONDS:  # a hint only: stored at the chunk's end
                told = now_
                broadcast.analysis_progress(game.pk, base + len(new), len(moves),
                                            Analysis.Status.RUNNING)
    except Exception as exc:
        logger.warning("analysis %s failed", analysis.pk, exc_info=True)
        _fail(analysis, f"{type(exc).__name__}: {exc}", run=run)
        return False
    done = base + len(new)
    stored = analysis.moves + new
    fields: dict[str, Any] = {"done": done, "moves": stored, "attempts": 0,
                              "updated_at": timezone.now()}
    finished = done >= len(moves)
    if finished:
        fields.update(status=Analysis.Status.DONE, finished_at=timezone.now(), total=len(moves),
                      summary=pure.summarise(stored, game.num_players))
    if not Analysis.objects.filter(pk=analysis.pk, run=run, done=base).update(**fields):
        return False  # another delivery stored this chunk first, or a re-run began
    broadcast.analysis_progress(game.pk, done, len(moves),
                                Analysis.Status.DONE if finished else Analysis.Status.RUNNING)
    return not finished



def _fail(analysis: Analysis, error: str, *, run: int | None = None) -> None:
    Analysis.objects.filter(pk=analysis.pk, run=analysis.run if run is None else run).update(
        status=Analysis.Status.FAILED, error=error[:2000], finished_at=timezone.now(),
        updated_at=timezone.now())
    broadcast.analysis_progress(analysis.game_id, analysis.done, analysis.total,
                                Analysis.Status.FAILED)
