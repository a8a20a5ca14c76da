"""The public REST API (Django REST framework)."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.engines import get_engine
from games.selectors import active_variants


class VariantOutput(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    name = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()


class VariantListApi(APIView):
    """``GET /api/variants/``: every active variant of every game."""

    permission_classes = [AllowAny]
    serializer_class = VariantOutput

    def get(self, request: Request) -> Response:
        rows = []
        for variant in active_variants():
            engine = get_engine(variant.game)
            rows.append(
                {
                    "id": variant.id,
                    "game": variant.game,
                    "name": variant.name,
                    "min_players": engine.min_players,
                    "max_players": engine.max_players,
                }
            )
        return Response(VariantOutput(rows, many=True).data)
