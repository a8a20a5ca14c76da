"""Post-game analysis of finished games: the writes.

``request_analysis`` (anyone who sat at the table, or staff) creates or restarts the one
:class:`~games.models.Analysis` of a finished game and queues the Celery task
(``games.analysis.tasks.analyse_game``), which calls
``games.analysis.runner.run_analysis_chunk`` until every move is judged.  The judging
itself is pure (``ai.analysis``): each decision from the mover's information set only.

Rules we chose (the issue was silent):

* **Finished games only.**  During a game an analysis would judge each seat's moves
  from that seat's information set: its numbers would tell the other players what the
  seat holds.  An aborted game has no analysis either.
* Anyone who may open a finished game's replay may read its analysis (every action of
  a finished game is public, see ``selectors.move_log``); only those who sat at the
  table -- including a player who resigned, timed out or left the seat to the AI -- and
  staff may start one (it costs a worker about a minute).
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
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from common.ratelimit import first_in_window
from games.analysis import tasks
from games.analysis.errors import AnalysisForbidden, GameNotFinished
from games.analysis.runner import _setting, analysis_budget
from games.analysis.selectors import may_request
from games.live import broadcast
from games.models import Analysis, Game

logger = logging.getLogger(__name__)





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
    ``AnalysisForbidden`` (403) unless ``user`` sat at the table (``Seat.user`` or
    ``Seat.left_user``) or is staff,
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
    transaction.on_commit(lambda: tasks.enqueue_chunk(analysis_id, run), robust=True)


def nudge_if_stalled(analysis: Analysis | None) -> bool:
    """Queue a stalled analysis again (at most once per stall period); True if queued."""
    if analysis is None or not _stalled(analysis):
        return False
    window = max(1, int(_setting("ANALYSIS_STALL_SECONDS", 60)))
    if not first_in_window(f"analysis-nudge:{analysis.pk}:{analysis.run}:{analysis.done}",
                           window=window):
        return False
    logger.warning("analysis %s made no progress for %ss: queued again", analysis.pk, window)
    return tasks.enqueue_chunk(analysis.pk, analysis.run)


def sweep_stalled_analyses(*, limit: int = 100) -> int:
    """Queue every stalled analysis again; how many."""
    cutoff = timezone.now() - timedelta(seconds=_setting("ANALYSIS_STALL_SECONDS", 60))
    stalled = Analysis.objects.filter(
        Q(status=Analysis.Status.QUEUED) | Q(status=Analysis.Status.RUNNING),
        updated_at__lt=cutoff,
    ).order_by("updated_at")[:limit]
    return sum(1 for analysis in stalled if nudge_if_stalled(analysis))


