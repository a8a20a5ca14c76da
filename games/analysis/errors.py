"""Errors of the post-game analysis."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.core.errors import GameServiceError


class AnalysisForbidden(GameServiceError):
    """Only those who sat at the table (resigners and leavers too) and staff may start an
    analysis."""

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
