"""The registry of each game's visual editors (generic code: it names no game itself).

A game's editor package (``games/editor/<game>/``) defines ``WIDGETS``: a mapping of
path patterns (``("village",)``, ``("sites", "*", "footprint")``) to
:class:`~games.editor.schemaform.Widget` instances.  Packages are found by name like
engines are (``register_editor``); a game without one gets the generic form only.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

from games.editor.schemaform import Widget

# game -> module path of its editor package (imported lazily).
_EDITORS: dict[str, str] = {
    "newhaven": "games.editor.newhaven",
    "nouvellefrance": "games.editor.nouvellefrance",
}


def register_editor(game: str, module_path: str) -> None:
    """Register (or replace) the visual editors of ``game`` (tests, plug-in games)."""
    _EDITORS[game] = module_path
    widgets_for.cache_clear()


def unregister_editor(game: str) -> None:
    _EDITORS.pop(game, None)
    widgets_for.cache_clear()


@cache
def widgets_for(game: str) -> dict[tuple[str, ...], Widget]:
    """The visual editors of ``game`` by path pattern (``{}`` for a game without any)."""
    module_path = _EDITORS.get(game)
    if module_path is None:
        return {}
    return dict(import_module(module_path).WIDGETS)
