"""A test-only game, engine and board, registered from test code: no generic code knows it.

``register()`` adds its one catalogue entry under the name "placegame";
``unregister()`` removes it.  ``asgi.py`` and ``manage.py`` beside this file run the real
server and commands with it registered (the browser test uses them).
"""

from __future__ import annotations

from games.catalogue import GameEntry, register_game, unregister_game

NAME = "placegame"


def register() -> None:
    register_game(GameEntry(NAME, engine=f"{__name__}.engine", board=f"{__name__}.board"))


def unregister() -> None:
    unregister_game(NAME)
