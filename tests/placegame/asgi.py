"""The project's ASGI application with the test game registered (``uvicorn
placegame.asgi:application --app-dir tests``)."""

import placegame

placegame.register()

from config.asgi import application  # noqa: E402

__all__ = ["application"]
