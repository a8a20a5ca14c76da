"""The tables' API: open a table, join, leave, resign, hand over a seat."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from common.api.base import ErrorOutput
from games.api.base import ERRORS, GameApi
from games.api.serializers import GameDocumentOutput
from games.core.errors import VariantUnavailable
from games.models import AI_LEVELS, Game, Variant
from games.tables import clocks
from games.tables.services import create_game, hand_over_seat, join_game, leave_game, resign_game


class SeatInput(serializers.Serializer):
    type = serializers.ChoiceField(choices=["human", "ai"])
    level = serializers.ChoiceField(choices=list(AI_LEVELS), required=False, default="normal")



class TimeControlInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Game.Clock.values, default=Game.Clock.NONE)
    reserve = serializers.IntegerField(
        required=False, min_value=clocks.MIN_RESERVE, max_value=clocks.MAX_RESERVE,
        help_text="live: the seconds each player starts with",
    )
    increment = serializers.IntegerField(
        required=False, min_value=0, max_value=clocks.MAX_INCREMENT,
        help_text="live: seconds added when a player's turn ends (Fischer)",
    )
    days = serializers.IntegerField(
        required=False, min_value=clocks.MIN_DAYS, max_value=clocks.MAX_DAYS,
        help_text="correspondence: days per move",
    )



class GameCreateInput(serializers.Serializer):
    variant = serializers.IntegerField()
    seats = SeatInput(many=True, allow_empty=False)
    rated = serializers.BooleanField(
        required=False, default=False,
        help_text="A rated table changes its players' ratings when it ends (AI seats count).",
    )
    time_control = TimeControlInput(
        required=False, help_text="none (default), live or correspondence"
    )
    departure_rule = serializers.ChoiceField(
        choices=Game.DepartureRule.values, default=Game.DepartureRule.AI,
        help_text="ai: the AI takes the seat of a player who resigns or runs out of time; "
        "lose: that player loses, and the game ends when one person is left",
    )
    takeover_level = serializers.ChoiceField(
        choices=list(AI_LEVELS), default="normal", help_text="the AI level that takes a seat"
    )
    seats_as_listed = serializers.BooleanField(
        required=False, allow_null=True, default=None,
        help_text="true: the seats stay as listed (unrated tables only); false: the seat "
        "order, and so who starts, is drawn from the game's seed when it starts; "
        "default: drawn for rated tables, as listed for unrated ones",
    )
    key = serializers.CharField(
        required=False, max_length=64, allow_blank=True, default="",
        help_text="an idempotency key: the same key again returns the table it opened",
    )



class JoinInput(serializers.Serializer):
    seat = serializers.IntegerField(required=False, allow_null=True, min_value=0)



class GameCreateApi(GameApi):
    """``POST /api/games/``: open a table; you are listed first (see ``seats_as_listed``)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=GameCreateInput,
        responses={201: GameDocumentOutput, 400: ErrorOutput, 401: ErrorOutput},
        tags=["games"],
    )
    def post(self, request: Request) -> Response:
        data = GameCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        variant = Variant.objects.filter(pk=data.validated_data["variant"], active=True).first()
        if variant is None:
            raise VariantUnavailable()
        options = data.validated_data
        game = create_game(
            creator=request.user, variant=variant, seats=options["seats"],
            rated=options["rated"], time_control=options.get("time_control"),
            departure_rule=options["departure_rule"], takeover_level=options["takeover_level"],
            seats_as_listed=options.get("seats_as_listed"), key=options["key"],
        )
        return Response(self.document(game.pk, request), status=status.HTTP_201_CREATED)



class GameJoinApi(GameApi):
    """``POST /api/games/{id}/join/``: take a seat (the first free one by default)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=JoinInput, responses={200: GameDocumentOutput, **ERRORS}, tags=["games"])
    def post(self, request: Request, game_id: int) -> Response:
        data = JoinInput(data=request.data)
        data.is_valid(raise_exception=True)
        game = self.get_game(game_id)
        join_game(game=game, user=request.user, seat=data.validated_data.get("seat"))
        return Response(self.document(game_id, request))



class GameLeaveApi(GameApi):
    """``POST /api/games/{id}/leave/``: leave before the start (the creator aborts it)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: GameDocumentOutput, **ERRORS}, tags=["games"])
    def post(self, request: Request, game_id: int) -> Response:
        leave_game(game=self.get_game(game_id), user=request.user)
        return Response(self.document(game_id, request))



class GameResignApi(GameApi):
    """``POST /api/games/{id}/resign/``: resign (you lose).  A two-seat game ends at once
    and the other seat wins; otherwise the table's rule decides whether the AI plays your
    seat on or the game ends when one person is left."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: GameDocumentOutput, **ERRORS}, tags=["games"])
    def post(self, request: Request, game_id: int) -> Response:
        resign_game(game=self.get_game(game_id).pk, user=request.user)
        return Response(self.document(game_id, request))



class GameHandOverApi(GameApi):
    """``POST /api/games/{id}/handover/``: leave; the AI plays your seat on (a loss for
    you in a rated game)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: GameDocumentOutput, **ERRORS}, tags=["games"])
    def post(self, request: Request, game_id: int) -> Response:
        hand_over_seat(game=self.get_game(game_id).pk, user=request.user)
        return Response(self.document(game_id, request))
