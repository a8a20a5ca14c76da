"""Errors of the replays."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from games.core.errors import GameServiceError


class ReplayNotStarted(GameServiceError):
    """The game has not started: there is nothing to replay yet."""

    status_code = 409
    code = "game_not_started"
    default_message = _("This game has not started yet: there is nothing to replay.")



class PerspectiveForbidden(GameServiceError):
    """A perspective the viewer may not take (another seat's, or everything, mid-game)."""

    status_code = 403
    code = "perspective_forbidden"
    default_message = _(
        "During a game you may review it only from your own seat (spectators: the public view)."
    )



class InvalidReplayRequest(GameServiceError):
    """A malformed step or seat."""

    status_code = 400
    code = "invalid"

    def __init__(self, field_name: str, message: str) -> None:
        self.errors = {field_name: [str(message)]}
        super().__init__(message)
