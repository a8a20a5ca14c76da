"""WebSocket routes of the games app (Channels)."""

from __future__ import annotations

from django.urls import path

from games.analysis.consumers import AnalysisConsumer
from games.editor.consumers import EditorConsumer
from games.play.consumers import GameConsumer
from games.tables.consumers import LobbyConsumer

websocket_urlpatterns: list = [
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
    path("ws/games/<int:game_id>/analysis/", AnalysisConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/editor/variants/<int:variant_id>/", EditorConsumer.as_asgi()),
]
