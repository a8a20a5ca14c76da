"""A test-only game, engine and board, registered from test code: no generic code knows it.

``register()`` adds it to the engine and board registries under the name "placegame";
``unregister()`` removes it.  ``asgi.py`` and ``manage.py`` beside this file run the real
server and commands with it registered (the browser test uses them).
"""

from __future__ import annotations

from games.boards import register_board, unregister_board
from games.engines import register_engine, unregister_engine

NAME = "placegame"


def register() -> None:
    register_engine(NAME, f"{__name__}.engine")
    register_board(NAME, f"{__name__}.board")


def unregister() -> None:
    unregister_engine(NAME)
    unregister_board(NAME)
