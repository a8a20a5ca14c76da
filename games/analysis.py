"""Post-game analysis of finished games: services (writes) and reads.

``request_analysis`` (a player of the game, or staff) creates or restarts the one
:class:`~games.models.Analysis` of a finished game and queues the Celery task
(``games.tasks.analyse_game``), which calls :func:`run_analysis_chunk` until every move
is judged.  The judging itself is pure (``ai.analysis``): each decision from the
mover's information set only.

Rules we chose (the issue was silent):

* **Finished games only.**  During a game an analysis would judge each seat's moves
  from that seat's information set: its numbers would tell the other players what the
  seat holds.  An aborted game has no analysis either.
* Anyone who may open a finished game's replay may read its analysis (every action of
  a finished game is public, see ``selectors.move_log``); only its players and staff may
  start one (it costs a worker about a minute).
* A finished analysis is stored and shown again; ``rerun`` starts it over.

Recovery: the task runs in chunks of about ``ANALYSIS_CHUNK_SECONDS``; each stored chunk
bumps ``done`` (compare-and-set, so a redelivered chunk stores nothing twice) and
``updated_at``.  An analysis queued or running with no progress for
``ANALYSIS_STALL_SECONDS`` (its worker died, the broker lost the task) is queued again by
the periodic sweep (Celery beat), when a worker starts, when someone reads it, and when
someone asks for it again.  A chunk taken up ``ANALYSIS_MAX_ATTEMPTS`` times without
progress (it kills its worker) ends the analysis as ``failed``; a request starts it over.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

import ai.analysis as pure
from games import broadcast
from games.errors import GameServiceError
from games.models import Analysis, Game

logger = logging.getLogger(__name__)

#: Seconds between two progress hints inside a chunk.
PROGRESS_SECONDS = 0.5

__all__ = [
    "AnalysisForbidden",
    "GameNotFinished",
    "NotAnalysed",
    "analysis_budget",
    "analysis_document",
    "get_analysis",
    "may_request",
    "nudge_if_stalled",
    "request_analysis",
    "run_analysis_chunk",
    "sweep_stalled_analyses",
]


class AnalysisForbidden(GameServiceError):
    """Only the game's players and staff may start an analysis."""

    status_code = 403
    code = "analysis_forbidden"
    default_message = _("Only the players of this game can ask for its analysis.")


class GameNotFinished(GameServiceError):
    """Analyses are for finished games only (hidden information while it runs)."""

    status_code = 409
    code = "game_not_finished"
    default_message = _("A game can be analysed once it has ended.")


class NotAnalysed(GameServiceError):
    """Nobody has asked for this game's analysis yet."""

    status_code = 404
    code = "not_analysed"
    default_message = _("This game has not been analysed yet.")


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


def may_request(game: Game, user: Any) -> bool:
    """Whether ``user`` may start ``game``'s analysis: a player of it, or staff."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff:
        return True
    return game.seats.filter(user=user).exists()


def get_analysis(game: Game | int) -> Analysis | None:
    """The game's analysis, if anyone asked for one."""
    game_id = game.pk if isinstance(game, Game) else int(game)
    return Analysis.objects.filter(game_id=game_id).first()


def _stalled(analysis: Analysis) -> bool:
    if analysis.finished:
        return False
    age = (timezone.now() - analysis.updated_at).total_seconds()
    return age >= _setting("ANALYSIS_STALL_SECONDS", 60)


def request_analysis(*, game: Game | int, user: Any, rerun: bool = False
                     ) -> tuple[Analysis, bool]:
    """Queue ``game``'s analysis (or return the one stored); ``rerun`` starts it over.

    Returns the analysis and whether this request queued work (False: a done analysis
    reused, or one already queued or running).
    ``AnalysisForbidden`` (403) unless ``user`` played the game or is staff,
    ``GameNotFinished`` (409) before its end.  Asking again for an analysis that is
    queued or running changes nothing (a stalled one is queued again).
    """
    game_id = game.pk if isinstance(game, Game) else int(game)
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game_id)
        if not may_request(game, user):
            raise AnalysisForbidden()
        if game.status != Game.Status.FINISHED:
            raise GameNotFinished()
        analysis = Analysis.objects.select_for_update().filter(game=game).first()
        if analysis is not None and not rerun:
            if analysis.status == Analysis.Status.DONE:
                return analysis, False
            if analysis.status != Analysis.Status.FAILED:
                if _stalled(analysis):
                    _enqueue_on_commit(analysis)
                return analysis, False
        total = game.moves.count()
        fields = {
            "status": Analysis.Status.QUEUED, "budget": analysis_budget().__dict__,
            "total": total, "done": 0, "moves": [], "summary": None, "error": "",
            "attempts": 0, "started_at": None, "finished_at": None,
            "requested_by": user if getattr(user, "is_authenticated", False) else None,
        }
        if analysis is None:
            analysis = Analysis.objects.create(game=game, **fields)
        else:
            fields["run"] = analysis.run + 1
            for name, value in fields.items():
                setattr(analysis, name, value)
            analysis.save()
        game_id, done, run = game.pk, 0, analysis.run
        transaction.on_commit(
            lambda: broadcast.analysis_progress(game_id, done, total, Analysis.Status.QUEUED),
            robust=True)
        _enqueue_on_commit(analysis)
    logger.info("analysis of game %s queued (run %s)", game_id, run)
    return analysis, True


def _enqueue_on_commit(analysis: Analysis) -> None:
    analysis_id, run = analysis.pk, analysis.run
    transaction.on_commit(lambda: _enqueue(analysis_id, run), robust=True)


def _enqueue(analysis_id: int, run: int) -> bool:
    """Queue a chunk; False (and a log line) when the broker fails: the sweep retries."""
    from games.tasks import analyse_game

    try:
        analyse_game.delay(analysis_id, run)
    except Exception as exc:
        logger.warning("could not enqueue the analysis %s (%s); the sweep will retry it",
                       analysis_id, exc.__class__.__name__)
        return False
    return True


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


def nudge_if_stalled(analysis: Analysis | None) -> bool:
    """Queue a stalled analysis again (at most once per stall period); True if queued."""
    from accounts.ratelimit import first_in_window

    if analysis is None or not _stalled(analysis):
        return False
    window = max(1, int(_setting("ANALYSIS_STALL_SECONDS", 60)))
    if not first_in_window(f"analysis-nudge:{analysis.pk}:{analysis.run}:{analysis.done}",
                           window=window):
        return False
    logger.warning("analysis %s made no progress for %ss: queued again", analysis.pk, window)
    return _enqueue(analysis.pk, analysis.run)


def sweep_stalled_analyses(*, limit: int = 100) -> int:
    """Queue every stalled analysis again; how many."""
    cutoff = timezone.now() - timedelta(seconds=_setting("ANALYSIS_STALL_SECONDS", 60))
    stalled = Analysis.objects.filter(
        Q(status=Analysis.Status.QUEUED) | Q(status=Analysis.Status.RUNNING),
        updated_at__lt=cutoff,
    ).order_by("updated_at")[:limit]
    return sum(1 for analysis in stalled if nudge_if_stalled(analysis))


def analysis_document(analysis: Analysis) -> dict:
    """``{status, progress, total, done, budget, moves, summary}`` (JSON).

    A failure's message stays in the database (admin, logs): it may quote an engine.
    """
    return {
        "status": analysis.status,
        "progress": round(analysis.progress, 4),
        "total": analysis.total,
        "done": analysis.done,
        "budget": analysis.budget,
        "moves": analysis.moves,
        "summary": analysis.summary,
    }
