"""The variants' API: every active variant of every game."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from games.api.base import GameApi
from games.boards import get_board
from games.core.selectors import game_title, rule_data
from games.engines import EngineError, get_engine
from games.variants.selectors import active_variants


class VariantOutput(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    title = serializers.CharField(help_text="the game's display name")
    name = serializers.CharField()
    description = serializers.CharField(help_text="the variant's description")
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    browser = serializers.BooleanField(help_text="whether the web pages can show this game")



class VariantListApi(GameApi):
    """``GET /api/variants/``: every active variant of every game."""

    permission_classes = [AllowAny]
    serializer_class = VariantOutput

    @extend_schema(responses=VariantOutput(many=True), tags=["games"])
    def get(self, request: Request) -> Response:
        rows = []
        for variant in active_variants():
            engine = get_engine(variant.game)
            try:
                description = rule_data(variant.game, variant.data)["description"]
            except (EngineError, KeyError, TypeError, ValueError):
                description = ""
            rows.append(
                {
                    "id": variant.id,
                    "game": variant.game,
                    "title": game_title(variant.game),
                    "name": variant.name,
                    "description": description,
                    "min_players": engine.min_players,
                    "max_players": engine.max_players,
                    "browser": get_board(variant.game) is not None,
                }
            )
        return Response(VariantOutput(rows, many=True).data)
