"""The practice API: a hint for your seat, undo of your last move (practice games only)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from common.api.base import ClientAddressThrottle, ErrorOutput
from games.api.base import ERRORS, GameApi
from games.api.serializers import GameDocumentOutput
from games.core.selectors import seat_of
from games.practice.selectors import hint_rows
from games.practice.services import request_hint, undo_last_move


class HintInput(serializers.Serializer):
    version = serializers.IntegerField(min_value=0, help_text="the version the hint is for")


class HintMoveOutput(serializers.Serializer):
    action = serializers.JSONField(help_text="the move in the engine's JSON notation")
    text = serializers.CharField(help_text="the move as the board describes it")
    win = serializers.FloatField(help_text="the search's win chance after it, 0 to 1")


class HintOutput(serializers.Serializer):
    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["pending", "done", "failed"])
    moves = HintMoveOutput(many=True)


class UndoInput(serializers.Serializer):
    version = serializers.IntegerField(min_value=0)
    key = serializers.CharField(max_length=64, help_text="a fresh idempotency key per undo")


class GameHintApi(GameApi):
    """``POST /api/games/{id}/hint/``: the AI's best three moves for your seat at
    ``version``, with their win chances (unrated games against the AI only).

    The search runs on the worker: ``202`` with ``status: pending`` until it is done (post
    again: it is searched once per version), then ``200`` with the moves.
    """

    permission_classes = [IsAuthenticated]
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "moves"

    @extend_schema(
        request=HintInput,
        responses={200: HintOutput, 202: HintOutput, **ERRORS, 429: ErrorOutput},
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = HintInput(data=request.data)
        data.is_valid(raise_exception=True)
        game = self.get_game(game_id)
        version = data.validated_data["version"]
        found = request_hint(game=game, user=request.user, version=version)
        done = found.get("status") == "done"
        moves = [{"action": row["action"], "text": row["text"], "win": row["win"]}
                 for row in hint_rows(game, found, seat_of(game, request.user))] if done else []
        body = {"version": version, "status": found.get("status", "pending"), "moves": moves}
        return Response(body, status=status.HTTP_200_OK if done else status.HTTP_202_ACCEPTED)


class GameUndoApi(GameApi):
    """``POST /api/games/{id}/undo/``: take back your last move and the AI's answers, back
    to your turn (unrated games against the AI only).  A repeated ``key`` changes nothing.
    Never past a move that showed you something you could not foresee (a card or tile
    drawn, a card turned up): ``409 undo_revealed``."""

    permission_classes = [IsAuthenticated]
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "moves"

    @extend_schema(
        request=UndoInput,
        responses={200: GameDocumentOutput, **ERRORS,
                   409: OpenApiResponse(ErrorOutput, description="stale version, not "
                                        "running, nothing to undo, or the undo would "
                                        "go back past a move that revealed something "
                                        "(undo_revealed: a card or tile drawn)"),
                   429: ErrorOutput},
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = UndoInput(data=request.data)
        data.is_valid(raise_exception=True)
        self.get_game(game_id)  # a 404 for a game that does not exist
        undo_last_move(game=game_id, user=request.user, **data.validated_data)
        return Response(self.document(game_id, request))
