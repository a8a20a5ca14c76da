"""The registry of each game's visual editors (generic code: it names no game itself).

A game's editor package (``games/editor/<game>/``) defines ``WIDGETS``: a mapping of
path patterns (``("village",)``, ``("sites", "*", "footprint")``) to
:class:`~games.editor.schemaform.Widget` instances, and optionally ``figure_label(id)``:
the translated label of one of its engine's simulation figures (``Engine.figures``).  The catalogue
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


def figure_label(game: str, name: str) -> str:
    """The translated label of the simulation figure ``name`` of ``game``: from the game's
    editor package, else the id with spaces (a figure no package names yet)."""
    entry = catalogue.entry(game)
    label = None
    if entry is not None and entry.editor:
        labeller = getattr(import_module(entry.editor), "figure_label", None)
        label = labeller(name) if labeller else None
    return label or name.replace("_", " ")


catalogue.on_change(widgets_for.cache_clear)
