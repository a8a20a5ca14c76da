"""ASGI entry point: HTTP through Django, WebSockets through Channels."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

# Django must be set up before anything that imports models (the consumers).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.body_limits import BoundedBody  # noqa: E402
from games.routing import websocket_urlpatterns  # noqa: E402


class WebSocketNotFound:
    """Unknown WebSocket paths are closed with 4404 (URLRouter raises: an HTTP 500)."""

    def __init__(self, router: URLRouter) -> None:
        self.router = router

    async def __call__(self, scope, receive, send) -> None:
        try:
            return await self.router(scope, receive, send)
        except ValueError as exc:
            if "No route found" not in str(exc):
                raise
        message = await receive()
        if message.get("type") == "websocket.connect":
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": 4404})


application = ProtocolTypeRouter(
    {
        # Bodies bounded in size and time (config/body_limits.py): uvicorn bounds neither.
        "http": BoundedBody(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(WebSocketNotFound(URLRouter(websocket_urlpatterns)))
        ),
    }
)
