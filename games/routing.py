"""WebSocket routes of the games app (Channels)."""

from __future__ import annotations

websocket_urlpatterns: list = []
