"""The play API: a game as the caller may see it, acting for one's seat, the move log."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from common.api.base import ClientAddressThrottle, ErrorOutput
from games.ai_turns.services import nudge_if_stalled
from games.api.base import ERRORS, GameApi
from games.api.serializers import GameDocumentOutput
from games.core.errors import NotSeated
from games.core.selectors import game_document, move_log, seat_index, seat_of
from games.core.services import MAX_ACTION_BYTES, ActionTooLarge, check_action_size, submit_action
from games.models import Game
from games.tables.services import apply_timeouts


class ActionField(serializers.JSONField):
    """The action JSON: at most ``MAX_ACTION_BYTES`` (else 413, as the play page),
    and never a 500 on deep nesting (a form-encoded action is a string parsed here)."""

    def to_internal_value(self, data):
        if isinstance(data, str | bytes) and len(data) > MAX_ACTION_BYTES:
            raise ActionTooLarge()
        try:
            value = super().to_internal_value(data)
        except RecursionError:
            raise ActionTooLarge() from None
        check_action_size(value)
        return value



class ActionInput(serializers.Serializer):
    action = ActionField(help_text="The action as the engine's JSON notation.")
    version = serializers.IntegerField(min_value=0)
    key = serializers.CharField(
        max_length=64,
        help_text="A fresh idempotency key per action (keys starting with ai- are reserved).",
    )



class MoveOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    event = serializers.JSONField(allow_null=True, help_text="the engine's event (JSON data)")
    description = serializers.CharField(help_text="legacy text of old moves; empty for events")
    created_at = serializers.DateTimeField()
    action = serializers.JSONField(
        required=False, help_text="Only for the seat that made it, or once the game is over."
    )



class GameDetailApi(GameApi):
    """``GET /api/games/{id}/``: the game as you may see it."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: GameDocumentOutput, 404: ErrorOutput}, tags=["games"])
    def get(self, request: Request, game_id: int) -> Response:
        game = self.get_game(game_id)
        if game.clock != Game.Clock.NONE and game.status == Game.Status.RUNNING \
                and apply_timeouts(game=game):
            game = self.get_game(game_id)  # a seat ran out of time: the table's rule applied
        nudge_if_stalled(game=game)  # a lost AI turn resumes for API clients too
        return Response(game_document(game, request.user))



class GameActionApi(GameApi):
    """``POST /api/games/{id}/actions/``: act for your seat at ``version``.

    A repeated ``key`` returns the current document and changes nothing.
    """

    permission_classes = [IsAuthenticated]
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "moves"

    @extend_schema(
        request=ActionInput,
        responses={
            200: GameDocumentOutput,
            **ERRORS,
            413: OpenApiResponse(ErrorOutput, description="action over 4 KB of JSON"),
            422: OpenApiResponse(ErrorOutput, description="illegal action (engine's message)"),
            429: ErrorOutput,
        },
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = ActionInput(data=request.data)
        data.is_valid(raise_exception=True)
        # The seat alone (submit_action reads and locks the game itself).
        seat = seat_index(game_id, request.user)
        if seat is None:
            self.get_game(game_id)  # a 404 for a game that does not exist
            raise NotSeated(_("You are not seated at this table."))
        submit_action(game=game_id, user=request.user, seat=seat, **data.validated_data)
        return Response(self.document(game_id, request))



class GameMovesApi(GameApi):
    """``GET /api/games/{id}/moves/``: the move log as you may see it."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: MoveOutput(many=True), 404: ErrorOutput}, tags=["games"])
    def get(self, request: Request, game_id: int) -> Response:
        game = self.get_game(game_id)
        return Response(move_log(game, seat_of(game, request.user)))
