"""Reads of the post-game analysis: who may start one, the stored analysis as JSON."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from games.models import Analysis, Game


def may_request(game: Game, user: Any) -> bool:
    """Whether ``user`` may start ``game``'s analysis: staff, or anyone who sat at the
    table -- still seated at the end (``Seat.user``) or gone before it (``Seat.left_user``:
    resigned, timed out, handed the seat to the AI).  Leaving does not make a game any
    less one's own, and the analysis of one's own moves is what a resigner wants most."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if user.is_staff:
        return True
    return game.seats.filter(Q(user=user) | Q(left_user=user)).exists()



def get_analysis(game: Game | int) -> Analysis | None:
    """The game's analysis, if anyone asked for one."""
    game_id = game.pk if isinstance(game, Game) else int(game)
    return Analysis.objects.filter(game_id=game_id).first()



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
