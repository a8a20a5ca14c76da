"""The accounts part of the REST API: leaderboards and player pages (read-only)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from common.api.base import ErrorOutput
from games.api.base import GameApi
from games.core.selectors import game_title
from games.engines import engine_names
from games.models import SeatResult
from games.ratings.selectors import active_player, leaderboard, player_stats
from games.results.selectors import results_of_user

#: The finished games a player's document lists.
PLAYER_RESULTS = 100


class LeaderboardQuery(serializers.Serializer):
    game = serializers.CharField(max_length=32, help_text="the game's name (see /api/variants/)")

    def validate_game(self, value: str) -> str:
        if value not in engine_names():
            raise serializers.ValidationError(_("There is no such game."))
        return value


class LeaderboardRowOutput(serializers.Serializer):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    rating = serializers.IntegerField(help_text="the shown rating: a cautious estimate")
    mu = serializers.FloatField(allow_null=True, help_text="OpenSkill mean")
    sigma = serializers.FloatField(allow_null=True, help_text="OpenSkill uncertainty")
    games = serializers.IntegerField(help_text="rated games played")
    wins = serializers.IntegerField(help_text="rated games won")


class LeaderboardOutput(serializers.Serializer):
    game = serializers.CharField()
    title = serializers.CharField()
    players = LeaderboardRowOutput(many=True)


class PlayerRatingOutput(serializers.Serializer):
    game = serializers.CharField()
    rating = serializers.IntegerField(help_text="after the latest rated game")
    mu = serializers.FloatField(allow_null=True)
    sigma = serializers.FloatField(allow_null=True)
    games = serializers.IntegerField(help_text="rated games played")
    wins = serializers.IntegerField(help_text="rated games won")


class PlayerStatsOutput(serializers.Serializer):
    game = serializers.CharField()
    played = serializers.IntegerField(help_text="finished games, rated or not")
    wins = serializers.IntegerField()


class PlayerResultOutput(serializers.Serializer):
    id = serializers.IntegerField(help_text="the game's id")
    game = serializers.CharField(help_text="the game's name")
    seat = serializers.IntegerField()
    place = serializers.IntegerField(help_text="1 is best; ties share a place")
    points = serializers.IntegerField(allow_null=True)
    ended = serializers.ChoiceField(choices=SeatResult.Ended.values,
                                    help_text="how the player's seat ended")
    won = serializers.BooleanField(help_text="place 1 among the seats that stayed")
    rating_before = serializers.IntegerField(allow_null=True, help_text="rated games only")
    rating_after = serializers.IntegerField(allow_null=True, help_text="rated games only")
    finished_at = serializers.DateTimeField()


class PlayerOutput(serializers.Serializer):
    username = serializers.CharField()
    date_joined = serializers.DateTimeField()
    ratings = PlayerRatingOutput(many=True)
    stats = PlayerStatsOutput(many=True)
    results = PlayerResultOutput(
        many=True, help_text=f"the latest {PLAYER_RESULTS} finished games, newest first")


class LeaderboardApi(GameApi):
    """``GET /api/leaderboard/?game=NAME``: the best-rated players of one game."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[OpenApiParameter("game", str, required=True,
                                     description="the game's name (see /api/variants/)")],
        responses={200: LeaderboardOutput, 400: ErrorOutput},
        tags=["players"],
    )
    def get(self, request: Request) -> Response:
        query = LeaderboardQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        game = query.validated_data["game"]
        rows = [
            {"rank": r.rank, "username": r.username, "rating": r.rating,
             "mu": r.mu, "sigma": r.sigma, "games": r.games, "wins": r.wins}
            for r in leaderboard(game=game)
        ]
        return Response({"game": game, "title": game_title(game), "players": rows})


class PlayerApi(GameApi):
    """``GET /api/players/{username}/``: a player's ratings and record per game."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: PlayerOutput, 404: ErrorOutput}, tags=["players"])
    def get(self, request: Request, username: str) -> Response:
        try:
            player = active_player(username)
        except get_user_model().DoesNotExist:
            raise Http404(_("No such player.")) from None
        stats = player_stats(player)
        return Response({
            "username": player.get_username(),
            "date_joined": player.date_joined,
            "ratings": [
                {"game": s.game, "rating": s.rating, "mu": s.mu, "sigma": s.sigma,
                 "games": s.rated_games, "wins": s.rated_wins}
                for s in stats if s.rating is not None
            ],
            "stats": [{"game": s.game, "played": s.played, "wins": s.wins} for s in stats],
            "results": [
                {"id": r.game_id, "game": r.game_name, "seat": r.seat, "place": r.place,
                 "points": r.points, "ended": r.ended, "won": r.won,
                 "rating_before": r.rating_before, "rating_after": r.rating_after,
                 "finished_at": r.finished_at}
                for r in results_of_user(player, limit=PLAYER_RESULTS)
            ],
        })
