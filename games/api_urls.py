"""Routes of the REST API, mounted at ``/api/`` (wiring: each feature's ``apis`` module)."""

from django.urls import path

from accounts.apis import RegisterApi, TokenApi
from games.analysis.apis import GameAnalysisApi
from games.chat.apis import GameChatApi
from games.play.apis import GameActionApi, GameDetailApi, GameMovesApi
from games.practice.apis import GameHintApi, GameUndoApi
from games.ratings.apis import LeaderboardApi, PlayerApi
from games.replay.apis import GameExportApi, GameReplayApi
from games.tables.apis import (
    GameCreateApi,
    GameHandOverApi,
    GameJoinApi,
    GameLeaveApi,
    GameResignApi,
)
from games.variants.apis import VariantListApi

urlpatterns = [
    path("auth/register/", RegisterApi.as_view(), name="api-register"),
    path("auth/token/", TokenApi.as_view(), name="api-token"),
    path("variants/", VariantListApi.as_view(), name="api-variants"),
    path("games/", GameCreateApi.as_view(), name="api-games"),
    path("games/<int:game_id>/", GameDetailApi.as_view(), name="api-game"),
    path("games/<int:game_id>/join/", GameJoinApi.as_view(), name="api-game-join"),
    path("games/<int:game_id>/leave/", GameLeaveApi.as_view(), name="api-game-leave"),
    path("games/<int:game_id>/actions/", GameActionApi.as_view(), name="api-game-actions"),
    path("games/<int:game_id>/resign/", GameResignApi.as_view(), name="api-game-resign"),
    path("games/<int:game_id>/handover/", GameHandOverApi.as_view(),
         name="api-game-handover"),
    path("games/<int:game_id>/moves/", GameMovesApi.as_view(), name="api-game-moves"),
    path("games/<int:game_id>/hint/", GameHintApi.as_view(), name="api-game-hint"),
    path("games/<int:game_id>/undo/", GameUndoApi.as_view(), name="api-game-undo"),
    path("games/<int:game_id>/chat/", GameChatApi.as_view(), name="api-game-chat"),
    path("games/<int:game_id>/replay/", GameReplayApi.as_view(), name="api-game-replay"),
    path("games/<int:game_id>/export/", GameExportApi.as_view(), name="api-game-export"),
    path("leaderboard/", LeaderboardApi.as_view(), name="api-leaderboard"),
    path("players/<str:username>/", PlayerApi.as_view(), name="api-player"),
    path("games/<int:game_id>/analysis/", GameAnalysisApi.as_view(),
         name="api-game-analysis"),
]
