"""The catalogue: every game the site knows, one entry each.

An entry names, as dotted module paths, where each part of one game lives: its rules
engine (a module defining ``ENGINE``), its board for the browser (``BOARD``), the rules
editor's visual widgets (``WIDGETS``) and the AI's knowledge of it (``KNOWLEDGE``, and
optionally ``STRONG``).  Each registry (``games.engines.get_engine``,
``games.boards.get_board``, ``games.editor.widgets.widgets_for``,
``ai.knowledge.get_knowledge``) reads its part from here and imports it lazily, so loading
one game never pays for the others.

This module is the bottom layer of the project: pure data and the standard library only,
importing none of the modules it names (engines and the AI read it too).  A new game adds
its own folders and one entry below -- nothing else in the project changes (see
``tests/placegame``, which registers a game from test code with :func:`register_game`).

>>> entry("newhaven").engine
'games.engines.newhaven'
>>> entry("no-such-game") is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["GameEntry", "entry", "game_names", "on_change", "register_game", "unregister_game"]


@dataclass(frozen=True)
class GameEntry:
    """Where the parts of one game live (dotted module paths; ``None``: the game has none).

    ``engine`` is required; a game without a ``board`` cannot be played in the browser
    (the API still serves it), one without ``editor`` widgets gets the editor's generic
    form, one without ``knowledge`` gets the AI's generic knowledge, one without
    ``lessons`` (a module defining ``LESSON``, see ``games.boards.lessons``) has no
    "Learn to play" lesson.
    """

    name: str
    engine: str
    board: str | None = None
    editor: str | None = None
    knowledge: str | None = None
    lessons: str | None = None


_SHIPPED = (
    GameEntry(
        "newhaven",
        engine="games.engines.newhaven",
        board="games.boards.newhaven",
        editor="games.editor.newhaven",
        knowledge="ai.newhaven",
        lessons="games.boards.newhaven.lessons",
    ),
    GameEntry(
        "nouvellefrance",
        engine="games.engines.nouvellefrance",
        board="games.boards.nouvellefrance",
        editor="games.editor.nouvellefrance",
        knowledge="ai.nouvellefrance",
        lessons="games.boards.nouvellefrance.lessons",
    ),
)

_ENTRIES: dict[str, GameEntry] = {game.name: game for game in _SHIPPED}
#: Called after every change (the registries clear their caches).
_LISTENERS: list[Callable[[], None]] = []


def entry(name: str) -> GameEntry | None:
    """The catalogue entry of the game ``name``; ``None`` for an unknown name."""
    return _ENTRIES.get(name) if isinstance(name, str) else None


def game_names() -> list[str]:
    """The names of every game in the catalogue, sorted."""
    return sorted(_ENTRIES)


def register_game(game: GameEntry) -> None:
    """Add (or replace) a game: tests and plug-in games call this once at start-up."""
    _ENTRIES[game.name] = game
    _changed()


def unregister_game(name: str) -> None:
    """Forget a game (tests clean up with this)."""
    _ENTRIES.pop(name, None)
    _changed()


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener`` after every registration change (a registry's cache clear)."""
    _LISTENERS.append(listener)


def _changed() -> None:
    for listener in _LISTENERS:
        listener()
