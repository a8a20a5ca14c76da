"""The registry of each game's visual editors (generic code: it names no game itself).

A game's editor package (``games/editor/<game>/``) defines ``WIDGETS``: a mapping of
path patterns (``("village",)``, ``("sites", "*", "footprint")``) to
:class:`~games.editor.schemaform.Widget` instances.  The catalogue
(``games.catalogue``) names each game's package; a game without one gets the generic form
only.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

from games import catalogue
from games.editor.schemaform import Widget


@cache
def widgets_for(game: str) -> dict[tuple[str, ...], Widget]:
    """The visual editors of ``game`` by path pattern (``{}`` for a game without any)."""
    entry = catalogue.entry(game)
    if entry is None or not entry.editor:
        return {}
    return dict(import_module(entry.editor).WIDGETS)


catalogue.on_change(widgets_for.cache_clear)
