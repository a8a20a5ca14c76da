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
    "register_engine",
    "unregister_engine",
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


def register_engine(name: str, module_path: str) -> None:
    """Register (or replace) the engine defined as ``ENGINE`` in ``module_path``.

    The two shipped games are registered above; tests and plug-in games call this
    once at start-up, and nothing else in the project needs to change.
    """
    _ENGINES[name] = module_path
    get_engine.cache_clear()


def unregister_engine(name: str) -> None:
    """Forget a registered engine (tests clean up with this)."""
    _ENGINES.pop(name, None)
    get_engine.cache_clear()


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
