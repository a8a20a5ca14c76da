"""The analysis API: start a finished game's analysis, read it."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from ai.analysis import ACCURACY_A, ACCURACY_B, ACCURACY_K
from common.api.base import ClientAddressThrottle, ErrorOutput
from games.analysis.errors import NotAnalysed
from games.analysis.selectors import analysis_document, get_analysis
from games.analysis.services import nudge_if_stalled, request_analysis
from games.api.base import GameApi


class AnalysisInput(serializers.Serializer):
    rerun = serializers.BooleanField(
        required=False, default=False,
        help_text="Start a finished (or failed) analysis over; otherwise it is reused.",
    )



class AnalysisMoveOutput(serializers.Serializer):
    step = serializers.IntegerField(help_text="moves made before this one (the replay step)")
    seat = serializers.IntegerField()
    played = serializers.JSONField(help_text="the move played (engine notation)")
    best = serializers.JSONField(help_text="the best move the search found")
    value_played = serializers.FloatField(
        help_text="the mover's win chance (of finishing first) after the move played")
    value_best = serializers.FloatField(
        help_text="the same after the best move, measured in the same sampled worlds")
    loss = serializers.FloatField(
        help_text="share of the win chance given away, in win chance of an even game: "
                  "0.5 * (value_best - value_played) / value_best (0 to 0.5)")
    mark = serializers.ChoiceField(
        choices=["inaccuracy", "mistake", "blunder"], allow_null=True,
        help_text="loss of at least 0.05 / 0.10 / 0.20")
    forced = serializers.BooleanField(help_text="the only legal move (not judged)")
    chance = serializers.BooleanField(help_text="the move drew something the mover could "
                                                "not foresee")
    win = serializers.ListField(child=serializers.FloatField(),
                                help_text="every seat's win chance after the move")
    luck = serializers.ListField(child=serializers.FloatField(),
                                 help_text="every seat's change of win chance on the draw")
    choices = serializers.IntegerField(help_text="legal moves the mover had")



class AnalysisSeatOutput(serializers.Serializer):
    seat = serializers.IntegerField()
    decisions = serializers.IntegerField()
    accuracy = serializers.FloatField(
        allow_null=True, help_text="0-100: the mean of the volatility-weighted and the "
        f"harmonic means of the moves' scores, {ACCURACY_A:.2f} exp(-{ACCURACY_K:g} * "
        f"100 loss) - {ACCURACY_B:.2f}")
    inaccuracy = serializers.IntegerField()
    mistake = serializers.IntegerField()
    blunder = serializers.IntegerField()
    luck = serializers.FloatField(help_text="sum of the seat's win-chance changes on draws")
    draws = serializers.IntegerField()



class AnalysisOutput(serializers.Serializer):
    status = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    progress = serializers.FloatField(help_text="from 0 to 1")
    total = serializers.IntegerField()
    done = serializers.IntegerField()
    budget = serializers.JSONField(help_text="{iterations, samples, worlds}")
    moves = AnalysisMoveOutput(many=True)
    summary = AnalysisSeatOutput(many=True, allow_null=True, help_text="once done")



class GameAnalysisApi(GameApi):
    """``/api/games/{id}/analysis/``: the post-game analysis of a finished game.

    ``POST`` (anyone who sat at the table, resigners and leavers too, or staff) queues
    it: 202, or 200 with the stored analysis when it is already done (``rerun`` starts it
    over).  ``GET`` (anyone who may
    see the replay) gives its status, progress and the moves judged so far.
    """

    permission_classes = [AllowAny]
    throttle_classes = [ClientAddressThrottle]
    throttle_scope = "analysis"

    def get_permissions(self):
        if self.request.method == "POST":
            return [IsAuthenticated()]
        return super().get_permissions()

    def get_throttles(self):
        if self.request.method == "POST":
            return super().get_throttles()
        return []

    @extend_schema(
        responses={200: AnalysisOutput,
                   404: OpenApiResponse(ErrorOutput, description="no such game, or not "
                                        "analysed yet (code not_analysed)")},
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> Response:

        game = self.get_game(game_id)
        found = get_analysis(game)
        if found is None:
            raise NotAnalysed()
        nudge_if_stalled(found)  # a lost chunk resumes for readers too
        return Response(analysis_document(found))

    @extend_schema(
        request=AnalysisInput,
        responses={
            200: AnalysisOutput,
            202: AnalysisOutput,
            400: ErrorOutput,
            401: ErrorOutput,
            403: OpenApiResponse(ErrorOutput, description="never sat at this table"),
            404: ErrorOutput,
            409: OpenApiResponse(ErrorOutput, description="the game has not ended"),
            429: ErrorOutput,
        },
        tags=["games"],
    )
    def post(self, request: Request, game_id: int) -> Response:

        data = AnalysisInput(data=request.data)
        data.is_valid(raise_exception=True)
        game = self.get_game(game_id)
        found, queued = request_analysis(game=game, user=request.user,
                                                  rerun=data.validated_data["rerun"])
        found.refresh_from_db()
        code = status.HTTP_202_ACCEPTED if queued or not found.finished else status.HTTP_200_OK
        return Response(analysis_document(found), status=code)
