"""Pure rules engines, one package per game, behind one protocol.

>>> engine = get_engine("newhaven")
>>> engine.name
'newhaven'
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

from games import catalogue

from .protocol import Action, Engine, EngineError, IllegalAction, InvalidVariant, State

__all__ = [
    "Action",
    "Engine",
    "EngineError",
    "IllegalAction",
    "InvalidVariant",
    "State",
    "engine_names",
    "get_engine",
]

def engine_names() -> list[str]:
    """The names of every game in the catalogue (``games.catalogue``), sorted."""
    return catalogue.game_names()


@cache
def get_engine(name: str) -> Engine:
    """The engine of the game ``name`` (its catalogue entry); ``KeyError`` if unknown."""
    game = catalogue.entry(name)
    if game is None:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(engine_names())}")
    return import_module(game.engine).ENGINE


catalogue.on_change(get_engine.cache_clear)
