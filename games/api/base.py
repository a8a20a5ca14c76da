"""The base of the game API's views: a game by id (404 otherwise) and its document."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse
from rest_framework.request import Request

from common.api.base import ApiView, ErrorOutput
from games.core.selectors import game_document, get_game
from games.models import Game

ERRORS = {
    400: OpenApiResponse(ErrorOutput, description="malformed request"),
    401: OpenApiResponse(ErrorOutput, description="not signed in (send a token)"),
    403: OpenApiResponse(ErrorOutput, description="not your seat"),
    404: OpenApiResponse(ErrorOutput, description="no such game"),
    409: OpenApiResponse(ErrorOutput, description="stale version, not your turn, not running"),
}


class GameApi(ApiView):
    """The base view of the game API: a game by id, its document for the caller."""

    def get_game(self, game_id: int) -> Game:
        try:
            return get_game(game_id)
        except Game.DoesNotExist:
            raise Http404(_("No such game.")) from None

    def document(self, game_id: int, request: Request) -> dict:
        """The fresh game document for the caller."""
        return game_document(self.get_game(game_id), request.user)
