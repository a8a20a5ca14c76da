"""Routes of the REST API, mounted at ``/api/``."""

from django.urls import path

from accounts import apis as account_apis
from games import apis
from games.chat import apis as chat_apis

urlpatterns = [
    path("auth/register/", apis.RegisterApi.as_view(), name="api-register"),
    path("auth/token/", apis.TokenApi.as_view(), name="api-token"),
    path("variants/", apis.VariantListApi.as_view(), name="api-variants"),
    path("games/", apis.GameCreateApi.as_view(), name="api-games"),
    path("games/<int:game_id>/", apis.GameDetailApi.as_view(), name="api-game"),
    path("games/<int:game_id>/join/", apis.GameJoinApi.as_view(), name="api-game-join"),
    path("games/<int:game_id>/leave/", apis.GameLeaveApi.as_view(), name="api-game-leave"),
    path("games/<int:game_id>/actions/", apis.GameActionApi.as_view(), name="api-game-actions"),
    path("games/<int:game_id>/resign/", apis.GameResignApi.as_view(), name="api-game-resign"),
    path("games/<int:game_id>/handover/", apis.GameHandOverApi.as_view(),
         name="api-game-handover"),
    path("games/<int:game_id>/moves/", apis.GameMovesApi.as_view(), name="api-game-moves"),
    path("games/<int:game_id>/chat/", chat_apis.GameChatApi.as_view(), name="api-game-chat"),
    path("games/<int:game_id>/replay/", apis.GameReplayApi.as_view(), name="api-game-replay"),
    path("games/<int:game_id>/export/", apis.GameExportApi.as_view(), name="api-game-export"),
    path("leaderboard/", account_apis.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("players/<str:username>/", account_apis.PlayerApi.as_view(), name="api-player"),
    path("games/<int:game_id>/analysis/", apis.GameAnalysisApi.as_view(),
         name="api-game-analysis"),
]
