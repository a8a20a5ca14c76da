"""Pure rules engines, one package per game, behind one protocol.

>>> engine = get_engine("newhaven")
>>> engine.name
'newhaven'
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

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

# name -> module that defines ``ENGINE``; imported lazily so that loading one
# game never pays for the others.
_ENGINES: dict[str, str] = {
    "newhaven": "games.engines.newhaven",
    "nouvellefrance": "games.engines.nouvellefrance",
}


def engine_names() -> list[str]:
    """The names of every registered engine, sorted."""
    return sorted(_ENGINES)


@cache
def get_engine(name: str) -> Engine:
    """The engine registered as ``name``; ``KeyError`` naming the known ones otherwise."""
    try:
        module_path = _ENGINES[name]
    except (KeyError, TypeError):
        raise KeyError(
            f"unknown game {name!r}; known games: {', '.join(engine_names())}"
        ) from None
    return import_module(module_path).ENGINE
