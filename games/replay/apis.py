"""The replay API: one step of a game from one perspective, and the export."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from common.api.base import ErrorOutput
from games.api.base import GameApi
from games.api.serializers import SeatOutput
from games.models import Game
from games.replay.errors import InvalidReplayRequest
from games.replay.selectors import export_document, replay_step


class ReplayOutput(serializers.Serializer):
    step = serializers.IntegerField(help_text="moves folded: 0 is the deal, `steps` the last")
    steps = serializers.IntegerField(help_text="moves made so far")
    seat = serializers.IntegerField(
        allow_null=True, help_text="the seat whose view this is; null for spectator and all"
    )
    perspective = serializers.ChoiceField(choices=["seat", "spectator", "revealed"])
    view = serializers.JSONField(
        help_text="engine.observe for the perspective at that step (engine.reveal for all)"
    )
    event = serializers.JSONField(
        allow_null=True, help_text="the event of the move that led to this step"
    )
    seed = serializers.IntegerField(
        allow_null=True, help_text="the game's seed: only in the revealed perspective"
    )



class ExportActionOutput(serializers.Serializer):
    seq = serializers.IntegerField()
    seat = serializers.IntegerField()
    action = serializers.JSONField(
        allow_null=True,
        help_text="the engine's JSON of the action; null for other seats' moves while the "
                  "game runs",
    )
    event = serializers.JSONField(allow_null=True)



class ExportOutput(serializers.Serializer):
    format = serializers.IntegerField(help_text="version of this document (1)")
    id = serializers.IntegerField()
    game = serializers.CharField(help_text="the engine's name")
    variant_name = serializers.CharField()
    variant_version = serializers.IntegerField(
        allow_null=True, help_text="the number of the variant's version the game was "
        "created with (null: a game from before versions)")
    variant = serializers.JSONField(help_text="the variant snapshot the game was played with")
    players = serializers.IntegerField(help_text="the player count")
    seats = SeatOutput(many=True)
    seed = serializers.IntegerField(allow_null=True, help_text="finished games only; null before")
    actions = ExportActionOutput(many=True)
    status = serializers.ChoiceField(choices=Game.Status.choices)
    result = serializers.JSONField(
        allow_null=True, help_text="the engine's {scores, winners} once finished (who won by "
        "the result record, a leaver never: the game document's seat_results)")



REPLAY_PARAMETERS = [
    OpenApiParameter(
        "step", int, OpenApiParameter.QUERY, required=False,
        description="0 (the deal) to the number of moves; the last step by default",
    ),
    OpenApiParameter(
        "seat", str, OpenApiParameter.QUERY, required=False,
        description="a seat number, `spectator` or `all` (everything revealed). During a "
                    "game only your own seat (players) or `spectator` (everyone else); any "
                    "after the end. Default: your seat, else spectator.",
    ),
]



REPLAY_ERRORS = {
    400: OpenApiResponse(ErrorOutput, description="malformed step or seat"),
    403: OpenApiResponse(ErrorOutput, description="a perspective you may not take now"),
    404: OpenApiResponse(ErrorOutput, description="no such game"),
    409: OpenApiResponse(ErrorOutput, description="the game has not started"),
}



class GameReplayApi(GameApi):
    """``GET /api/games/{id}/replay/?step=K&seat=S``: one step of the game from one
    perspective, with the access rules of the replay page."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=REPLAY_PARAMETERS,
                   responses={200: ReplayOutput, **REPLAY_ERRORS}, tags=["replays"])
    def get(self, request: Request, game_id: int) -> Response:
        game = self.get_game(game_id)
        for name in ("step", "seat"):
            # Given but empty is malformed (the schema types it), not "the default".
            if request.query_params.get(name) == "":
                raise InvalidReplayRequest(name, _("This parameter may not be empty."))
        step = replay_step(game, request.user, step=request.query_params.get("step"),
                           seat=request.query_params.get("seat"))
        return Response(step.api_document())



class GameExportApi(GameApi):
    """``GET /api/games/{id}/export/``: the game as JSON (variant snapshot, seats, seed once
    finished, actions); ``python -m tools.replay FILE`` replays it."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: ExportOutput, 404: REPLAY_ERRORS[404],
                              409: REPLAY_ERRORS[409]}, tags=["replays"])
    def get(self, request: Request, game_id: int) -> Response:
        document = export_document(self.get_game(game_id), request.user)
        response = Response(document)
        response["Content-Disposition"] = f'attachment; filename="game-{game_id}.json"'
        return response
