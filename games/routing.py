"""WebSocket routes of the games app (Channels)."""

from __future__ import annotations

from django.urls import path

from games import consumers
from games.editor.consumers import EditorConsumer

websocket_urlpatterns: list = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/games/<int:game_id>/analysis/", consumers.AnalysisConsumer.as_asgi()),
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/editor/variants/<int:variant_id>/", EditorConsumer.as_asgi()),
]
